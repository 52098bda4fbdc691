package views

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
)

func TestEditField(t *testing.T) {
	tests := []struct {
		typ, field        string
		wantLabel, wantIn string
	}{
		{"single_choice", "prompt", "問題文", "edit-prompt"},
		{"single_choice", "choices", "選択肢", "edit-choices"},
		{"single_choice", "choices[0]", "選択肢 (1 つ目)", "edit-choices"},
		{"multi_choice", "answers[11]", "正解 (12 つ目)", "edit-answers"},
		{"single_choice", "answer", "答え", "edit-answer"},
		{"typed", "accept[1]", "別解 (2 つ目)", "edit-accept"},
		{"true_false", "answer", "正誤", "edit-truth"},
		{"flashcard", "answer", "裏面 (答え)", "edit-answer"},
		{"order", "items[3]", "項目 (4 つ目)", "edit-items"},
		{"cloze", "explanation", "解説", "edit-explanation"},
		// No input on the form: the field as the validator names it.
		{"cloze", "answer", "answer", ""},
		{"single_choice", "id", "id", ""},
		{"single_choice", "source.prs[0]", "source.prs[0]", ""},
		{"single_choice", "choices[x]", "choices[x]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.field, func(t *testing.T) {
			label, in := editField(tt.typ, tt.field)
			if label != tt.wantLabel || in != tt.wantIn {
				t.Errorf("editField(%q, %q) = %q, %q; want %q, %q", tt.typ, tt.field, label, in, tt.wantLabel, tt.wantIn)
			}
		})
	}
}

// TestEditFocus: the form's first invalid input takes focus, in the form's
// order whatever the order of the problems, and on every render alike.
func TestEditFocus(t *testing.T) {
	long := strings.Repeat("x", quiz.MaxTextBytes+1)
	tests := []struct {
		name string
		q    quiz.Question
		want string
	}{
		// A blank explanation passes the browser's required check; the
		// validator reports it before the answer.
		{"answer before explanation", quiz.Question{ExtID: "x", Type: quiz.SingleChoice, Prompt: "p", Explanation: "  ",
			Choices: []string{"a", "b"}, Answer: "omega"}, "edit-answer"},
		{"prompt before explanation", quiz.Question{ExtID: "x", Type: quiz.Flashcard, Prompt: long, Explanation: long, Answer: "a"}, "edit-prompt"},
		{"choices", quiz.Question{ExtID: "x", Type: quiz.SingleChoice, Prompt: "p", Explanation: "e",
			Choices: []string{"a", "a"}, Answer: "a"}, "edit-choices"},
		{"truth", quiz.Question{ExtID: "x", Type: quiz.TrueFalse, Prompt: "p", Explanation: "e"}, "edit-truth"},
	}
	focused := regexp.MustCompile(`id="(edit-[a-z]+)"[^>]*autofocus`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ve *quiz.ValidationError
			if !errors.As(tt.q.Validate(), &ve) {
				t.Fatalf("%+v is valid", tt.q)
			}
			e := IngestEdit{Type: string(tt.q.Type), Prompt: tt.q.Prompt, Explanation: tt.q.Explanation, Answer: tt.q.Answer,
				Choices: strings.Join(tt.q.Choices, "\n"), Problems: ve.Problems}
			for range 20 {
				var b strings.Builder
				if err := AdminIngestEdit(Page{}, e).Render(context.Background(), &b); err != nil {
					t.Fatal(err)
				}
				if n := strings.Count(b.String(), "autofocus"); n != 1 {
					t.Fatalf("%d autofocus attributes, want 1", n)
				}
				if m := focused.FindStringSubmatch(b.String()); m == nil || m[1] != tt.want {
					t.Fatalf("focus on %v, want %s (problems %v)", m, tt.want, ve.Problems)
				}
				// The list starts with the focused input's problem.
				if first := regexp.MustCompile(`<ul id="edit-problems"><li><a href="#([a-z-]+)"`).FindStringSubmatch(b.String()); first == nil || first[1] != tt.want {
					t.Fatalf("the list of problems starts with %v, want %s", first, tt.want)
				}
			}
		})
	}
}

// TestProblemText: every problem the edit form can cause is told in the
// form's words, with list items counted from 1.
func TestProblemText(t *testing.T) {
	long := strings.Repeat("x", quiz.MaxTextBytes+1)
	base := func(typ quiz.Type) quiz.Question {
		return quiz.Question{ExtID: "x", Type: typ, Prompt: "p", Explanation: "e"}
	}
	with := func(q quiz.Question, f func(*quiz.Question)) quiz.Question { f(&q); return q }
	questions := []quiz.Question{
		with(base(quiz.SingleChoice), func(q *quiz.Question) { q.Prompt, q.Explanation, q.Choices, q.Answer = " ", "", []string{"a"}, "z" }),
		with(base(quiz.SingleChoice), func(q *quiz.Question) { q.Choices, q.Answer = []string{"a", "b", "A"}, "" }),
		with(base(quiz.MultiChoice), func(q *quiz.Question) { q.Choices, q.Answers = []string{"a", "b"}, []string{"a", "a", "z"} }),
		with(base(quiz.MultiChoice), func(q *quiz.Question) { q.Choices = []string{"a", "b"} }),
		base(quiz.TrueFalse),
		with(base(quiz.Cloze), func(q *quiz.Question) { q.Prompt = "no gap" }),
		with(base(quiz.Cloze), func(q *quiz.Question) { q.Prompt = "{{a" }),
		with(base(quiz.Cloze), func(q *quiz.Question) { q.Prompt = "a}}" }),
		with(base(quiz.Cloze), func(q *quiz.Question) { q.Prompt = "}} {{a}}" }),
		with(base(quiz.Cloze), func(q *quiz.Question) { q.Prompt = "{{a {{b}} }}" }),
		with(base(quiz.Cloze), func(q *quiz.Question) { q.Prompt = "{{a}} {{ | }}" }),
		with(base(quiz.Typed), func(q *quiz.Question) { q.Accept = []string{" "} }),
		with(base(quiz.Order), func(q *quiz.Question) { q.Items = []string{"a"} }),
		with(base(quiz.Order), func(q *quiz.Question) { q.Items = []string{"a", "b", "a", ""} }),
		with(base(quiz.Flashcard), func(q *quiz.Question) { q.Prompt, q.Explanation = long, "\xff" }),
	}
	seen := 0
	for _, q := range questions {
		var ve *quiz.ValidationError
		if !errors.As(q.Validate(), &ve) {
			t.Fatalf("%+v is valid", q)
		}
		for _, pr := range ve.Problems {
			seen++
			got := problemText(pr.Msg)
			if got == pr.Msg || regexp.MustCompile(`\b(?:is|not|the|choices)\b|\[\d+\]`).MatchString(got) {
				t.Errorf("%s %s: %q is told as %q", q.Type, pr.Field, pr.Msg, got)
			}
		}
	}
	if seen < 20 {
		t.Errorf("only %d problems seen", seen)
	}
	for msg, want := range map[string]string{
		`"A" repeats choices[0]`:                            `"A" は 1 つ目と同じです。`,
		"needs at least 2 choices, got 0":                   "選択肢がありません。2 つ以上入力してください。",
		"needs at least 2 choices, got 1":                   "選択肢が 1 つだけです。2 つ以上にしてください。",
		"an order question needs at least two items, got 0": "項目がありません。2 つ以上入力してください。",
	} {
		if got := problemText(msg); got != want {
			t.Errorf("problemText(%q) = %q, want %q", msg, got, want)
		}
	}
}
