package quiz

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"kubequiz/internal/fsrs"
)

func ptr[T any](v T) *T { return &v }

func validSingle() Question {
	return Question{
		ExtID: "q1", Type: SingleChoice, Prompt: "Which release promoted ImageVolume to GA?",
		Choices: []string{"1.34", "1.35", "1.36"}, Answer: "1.36",
		Explanation: "GA in 1.36.", Source: Source{Release: "1.36", PRs: []int{136711}},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(q *Question)
		wantField string // "" means valid
	}{
		{"valid single", func(q *Question) {}, ""},
		{"empty prompt", func(q *Question) { q.Prompt = "  " }, "prompt"},
		{"empty id", func(q *Question) { q.ExtID = "" }, "id"},
		{"unknown type", func(q *Question) { q.Type = "essay" }, "type"},
		{"answer not among choices", func(q *Question) { q.Answer = "1.37" }, "answer"},
		{"duplicate choices", func(q *Question) { q.Choices = []string{"1.36", "１.36"} }, "choices[1]"},
		{"one choice", func(q *Question) { q.Choices = []string{"1.36"} }, "choices"},
		{"missing explanation", func(q *Question) { q.Explanation = "" }, "explanation"},
		{"negative PR", func(q *Question) { q.Source.PRs = []int{-1} }, "source.prs[0]"},
		{"prompt too long", func(q *Question) { q.Prompt = strings.Repeat("あ", MaxTextBytes/3+1) }, "prompt"},
		{"choice too long", func(q *Question) { q.Choices[0] = strings.Repeat("x", MaxTextBytes+1) }, "choices[0]"},
		{"field of another type", func(q *Question) { q.Items = []string{"a", "b"} }, "items"},
		{"multi valid", func(q *Question) {
			q.Type, q.Answer, q.Answers = MultiChoice, "", []string{"1.35", "1.36"}
		}, ""},
		{"multi answer outside", func(q *Question) {
			q.Type, q.Answer, q.Answers = MultiChoice, "", []string{"2.0"}
		}, "answers[0]"},
		{"multi no answers", func(q *Question) { q.Type, q.Answer = MultiChoice, "" }, "answers"},
		{"true_false valid", func(q *Question) { q.Type, q.Choices, q.Answer, q.Truth = TrueFalse, nil, "", ptr(true) }, ""},
		{"true_false missing", func(q *Question) { q.Type, q.Choices, q.Answer = TrueFalse, nil, "" }, "answer"},
		{"cloze valid", func(q *Question) { q.Type, q.Choices, q.Answer, q.Prompt = Cloze, nil, "", "{{ImageVolume}} became GA" }, ""},
		{"cloze no gap", func(q *Question) { q.Type, q.Choices, q.Answer, q.Prompt = Cloze, nil, "", "no gap here" }, "prompt"},
		{"cloze unclosed", func(q *Question) { q.Type, q.Choices, q.Answer, q.Prompt = Cloze, nil, "", "{{open" }, "prompt"},
		{"cloze empty gap", func(q *Question) { q.Type, q.Choices, q.Answer, q.Prompt = Cloze, nil, "", "a {{ }} b" }, "prompt"},
		{"typed valid", func(q *Question) { q.Type, q.Choices, q.Accept = Typed, nil, []string{"v1.36"} }, ""},
		{"order one item", func(q *Question) { q.Type, q.Choices, q.Answer, q.Items = Order, nil, "", []string{"alpha"} }, "items"},
		{"order valid", func(q *Question) { q.Type, q.Choices, q.Answer, q.Items = Order, nil, "", []string{"alpha", "beta"} }, ""},
		{"flashcard no back", func(q *Question) { q.Type, q.Choices, q.Answer = Flashcard, nil, "" }, "answer"},
		{"invalid utf8", func(q *Question) { q.Prompt = "bad \xff" }, "prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := validSingle()
			tt.edit(&q)
			err := q.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want *ValidationError", err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false")
			}
			found := false
			for _, p := range ve.Problems {
				if p.Field == tt.wantField {
					found = true
				}
			}
			if !found {
				t.Errorf("problems %v, want one on field %q", ve.Problems, tt.wantField)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  ImageVolume ", "imagevolume"},
		{"ＩｍａｇｅＶｏｌｕｍｅ", "imagevolume"},
		{"memory.low", "memory.low"},
		{"ｍｅｍｏｒｙ．ｌｏｗ", "memory.low"},
		{"a   b\t\nc", "a b c"},
		{"a\u3000b", "a b"},
		{"ｶﾀｶﾅ", "カタカナ"},
		{"kube\u2010proxy", "kube-proxy"}, // hyphen
		{"kube\u2013proxy", "kube-proxy"}, // en dash
		{"kube\u2212proxy", "kube-proxy"}, // minus sign
		{"ｋｕｂｅーｐｒｏｘｙ", "kube-proxy"},      // a Japanese input method's '-'
		{"ｋｕｂｅｰproxy", "kube-proxy"},      // its half-width form
		{"v1ー36", "v1-36"},
		{"サーバー", "サーバー"}, // a Japanese word keeps its marks
		{"kubeーサーバー", "kubeーサーバー"},
		{"ーーｒｅｓｅｒｖｅｄーｃｐｕｓ", "--reserved-cpus"}, // a flag typed with the input method
		{"ーーreserved-cpus", "--reserved-cpus"},
		{"--logging-format", "--logging-format"},
		{"ｋｕｂｅｌｅｔーーｈｅｌｐ", "kubelet--help"},
		{"ーa ー", "-a ー"},
		{"サーバーーv1", "サーバーーv1"},
		{"ー", "ー"},
		{"", ""},
		// Invisible characters a paste can carry are dropped.
		{"ImageVolume\u200f", "imagevolume"},     // a trailing right-to-left mark
		{"Image\u200bVolume", "imagevolume"},     // a zero-width space
		{"\ufeffmemory.low", "memory.low"},       // a byte order mark
		{"memory\u2060.low\u200d", "memory.low"}, // word joiner, zero-width joiner
		{"kube\u202eproxy\u202c", "kubeproxy"},   // bidi override and pop
		{"a\x00b\x7fc", "abc"},                   // control characters
		{"a\u0085b", "a b"},                      // a control character that is space stays a break
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseCloze(t *testing.T) {
	gaps, err := ParseCloze("{{ImageVolume|image volume}} は {{1.36}} で GA")
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != 2 || gaps[0].Accept[1] != "image volume" || gaps[1].Accept[0] != "1.36" {
		t.Fatalf("gaps = %+v", gaps)
	}
	if got, want := ClozeText("{{ImageVolume|x}} は {{1.36}} で GA"), "____ は ____ で GA"; got != want {
		t.Errorf("ClozeText = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		prompt string
		want   []string
	}{
		{"{{ImageVolume|x}} は {{1.36}} で GA", []string{"", " は ", " で GA"}},
		{"no gap", []string{"no gap"}},
		{"a {{b}}", []string{"a ", ""}},
		{"a {{b", []string{"a {{b"}},
	} {
		if got := ClozeParts(tt.prompt); !slices.Equal(got, tt.want) {
			t.Errorf("ClozeParts(%q) = %q, want %q", tt.prompt, got, tt.want)
		}
	}
	if got, want := ClozeFilled("{{ImageVolume|x}} は {{1.36}} で GA"), "ImageVolume は 1.36 で GA"; got != want {
		t.Errorf("ClozeFilled = %q, want %q", got, want)
	}
	for _, bad := range []string{"{{a", "a}}", "}} {{", "{{a{{b}}}}"} {
		if _, err := ParseCloze(bad); err == nil {
			t.Errorf("ParseCloze(%q) = nil error, want one", bad)
		}
	}
}

func TestGrade(t *testing.T) {
	single := validSingle()
	multi := Question{Type: MultiChoice, Choices: []string{"a", "b", "c"}, Answers: []string{"a", "c"}}
	tf := Question{Type: TrueFalse, Truth: ptr(false)}
	cloze := Question{Type: Cloze, Prompt: "{{ImageVolume|image volume}} went GA in {{1.36}}"}
	typed := Question{Type: Typed, Answer: "memory.low", Accept: []string{"memory low"}}
	order := Question{Type: Order, Items: []string{"alpha", "beta", "GA"}}
	flash := Question{Type: Flashcard, Answer: "back"}
	tests := []struct {
		name string
		q    Question
		r    Response
		want bool
	}{
		{"single right", single, Response{Choice: 2}, true},
		{"single wrong", single, Response{Choice: 0}, false},
		{"single none", single, Response{Choice: -1}, false},
		{"single out of range", single, Response{Choice: 9}, false},
		{"multi right", multi, Response{Selected: []int{2, 0}}, true},
		{"multi partial", multi, Response{Selected: []int{0}}, false},
		{"multi extra", multi, Response{Selected: []int{0, 1, 2}}, false},
		{"tf right", tf, Response{Bool: ptr(false)}, true},
		{"tf wrong", tf, Response{Bool: ptr(true)}, false},
		{"tf none", tf, Response{}, false},
		{"cloze right", cloze, Response{Texts: []string{"ＩｍａｇｅＶｏｌｕｍｅ", " 1.36 "}}, true},
		{"cloze alternative", cloze, Response{Texts: []string{"Image  Volume", "1.36"}}, true},
		{"cloze wrong", cloze, Response{Texts: []string{"ImageVolume", "1.35"}}, false},
		{"cloze too few", cloze, Response{Texts: []string{"ImageVolume"}}, false},
		{"typed right", typed, Response{Texts: []string{"Memory.Low"}}, true},
		{"typed accepted", typed, Response{Texts: []string{"memory low"}}, true},
		{"typed empty", typed, Response{Texts: []string{"  "}}, false},
		{"typed with a trailing RLM", typed, Response{Texts: []string{"memory.low\u200f"}}, true},
		{"typed with a zero-width space", typed, Response{Texts: []string{"memory\u200b.low"}}, true},
		{"cloze with invisible marks", cloze, Response{Texts: []string{"\u200eImageVolume", "1.36\ufeff"}}, true},
		{"typed only invisible", typed, Response{Texts: []string{"\u200b\u200f"}}, false},
		{"order right", order, Response{Order: []int{0, 1, 2}}, true},
		{"order wrong", order, Response{Order: []int{1, 0, 2}}, false},
		{"order short", order, Response{Order: []int{0, 1}}, false},
		{"flashcard revealed", flash, Response{Revealed: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.q.Grade(tt.r).Correct; got != tt.want {
				t.Errorf("Grade(%+v).Correct = %v, want %v", tt.r, got, tt.want)
			}
		})
	}
	for _, g := range []struct {
		r    Response
		want []bool
	}{
		{Response{Texts: []string{"ImageVolume", "1.35"}}, []bool{true, false}},
		{Response{Texts: []string{"x", "1.36"}}, []bool{false, true}},
		{Response{Texts: []string{"ImageVolume"}}, nil}, // not every gap: nothing to tell
	} {
		if got := cloze.Grade(g.r).GapsRight; !slices.Equal(got, g.want) {
			t.Errorf("cloze %q: gaps right %v, want %v", g.r.Texts, got, g.want)
		}
	}
	if res := multi.Grade(Response{Selected: []int{0}}); res.PartialRight != 1 || res.PartialTotal != 2 {
		t.Errorf("partial = %d/%d, want 1/2", res.PartialRight, res.PartialTotal)
	}
	if got := order.ExpectedAnswer(); !strings.Contains(got, "alpha → beta") {
		t.Errorf("ExpectedAnswer = %q", got)
	}
}

// TestCorrectRated: a flashcard counts as correct when its learner rates it
// Hard or better; another question is as graded, whatever the rating.
func TestCorrectRated(t *testing.T) {
	flash := Question{Type: Flashcard, Answer: "back"}.Grade(Response{Revealed: true})
	right := validSingle().Grade(Response{Choice: 2})
	wrong := validSingle().Grade(Response{Choice: 0})
	for r := fsrs.Again; r <= fsrs.Easy; r++ {
		if got, want := flash.CorrectRated(r), r >= fsrs.Hard; got != want {
			t.Errorf("flashcard rated %v: correct %v, want %v", r, got, want)
		}
		if !right.CorrectRated(r) || wrong.CorrectRated(r) {
			t.Errorf("single choice rated %v: right %v, wrong %v; want as graded", r, right.CorrectRated(r), wrong.CorrectRated(r))
		}
	}
}

func TestContentHashChangesWithWording(t *testing.T) {
	a := validSingle()
	b := validSingle()
	if a.ContentHash() != b.ContentHash() {
		t.Fatal("equal questions hash differently")
	}
	b.Prompt += "?"
	if a.ContentHash() == b.ContentHash() {
		t.Fatal("changed prompt did not change the hash")
	}
}

func TestAnswerKey(t *testing.T) {
	base := validSingle()
	tests := []struct {
		name    string
		edit    func(q *Question)
		changes bool
	}{
		{"nothing", func(q *Question) {}, false},
		{"explanation", func(q *Question) { q.Explanation += "。" }, false},
		{"source", func(q *Question) { q.Source.PRs = append(q.Source.PRs, 1) }, false},
		{"tags", func(q *Question) { q.Tags = append(q.Tags, "extra") }, false},
		{"prompt", func(q *Question) { q.Prompt += "?" }, true},
		{"choices reordered", func(q *Question) { q.Choices[0], q.Choices[1] = q.Choices[1], q.Choices[0] }, true},
		{"answer", func(q *Question) { q.Answer = q.Choices[0] }, true},
		{"accepted alternatives", func(q *Question) { q.Accept = []string{"x"} }, true},
		{"type", func(q *Question) { q.Type = MultiChoice }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := validSingle()
			tt.edit(&q)
			got := q.AnswerKey()
			if len(got) != 2*AnswerKeyBytes || strings.ToLower(got) != got {
				t.Fatalf("AnswerKey = %q, want %d lower-case hex digits", got, 2*AnswerKeyBytes)
			}
			if changed := got != base.AnswerKey(); changed != tt.changes {
				t.Errorf("key changed = %v, want %v", changed, tt.changes)
			}
		})
	}
}

func TestCompareReleases(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.9", "1.10", -1},
		{"1.36", "1.36", 0},
		{"v1.36", "1.36", 0},
		{"1.36", "1.28", 1},
		{"1.36", "1.36.1", -1},
		{"2.0", "1.99", 1},
	}
	for _, tt := range tests {
		if got := CompareReleases(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareReleases(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
