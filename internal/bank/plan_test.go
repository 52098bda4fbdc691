package bank

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kubequiz/internal/quiz"
)

func planQuestion(id, prompt string) quiz.Question {
	return quiz.Question{
		ExtID: id, Type: quiz.Flashcard, Prompt: prompt, Answer: "back",
		Explanation: "why", Source: quiz.Source{PRs: []int{1}},
	}
}

func TestPlan(t *testing.T) {
	a, b, c := planQuestion("a", "A?"), planQuestion("b", "B?"), planQuestion("c", "C?")
	b2 := planQuestion("b", "B, reworded?")
	stored := func(q quiz.Question, s quiz.Status) Stored {
		return Stored{ExtID: q.ExtID, ContentHash: q.ContentHash(), Status: s}
	}
	tests := []struct {
		name   string
		stored []Stored
		file   []quiz.Question
		prune  bool
		want   DeckPlan
	}{
		{
			name: "empty deck: everything added",
			file: []quiz.Question{a, b},
			want: DeckPlan{Added: []string{"a", "b"}},
		},
		{
			name:   "same file again: nothing changes",
			stored: []Stored{stored(a, quiz.Published), stored(b, quiz.Published)},
			file:   []quiz.Question{a, b},
			want:   DeckPlan{Unchanged: []string{"a", "b"}},
		},
		{
			name:   "reworded question keeps its id",
			stored: []Stored{stored(a, quiz.Published), stored(b, quiz.Published)},
			file:   []quiz.Question{a, b2},
			want:   DeckPlan{Updated: []string{"b"}, Unchanged: []string{"a"}, OldHash: map[string]string{"b": b.ContentHash()}},
		},
		{
			name:   "missing question kept without prune",
			stored: []Stored{stored(a, quiz.Published), stored(b, quiz.Published)},
			file:   []quiz.Question{a},
			want:   DeckPlan{Unchanged: []string{"a"}},
		},
		{
			name:   "missing question retired with prune",
			stored: []Stored{stored(a, quiz.Published), stored(b, quiz.Published), stored(c, quiz.Draft)},
			file:   []quiz.Question{a},
			prune:  true,
			want:   DeckPlan{Unchanged: []string{"a"}, Retired: []string{"b", "c"}},
		},
		{
			name:   "already retired question not retired again",
			stored: []Stored{stored(a, quiz.Published), stored(b, quiz.Retired)},
			file:   []quiz.Question{a},
			prune:  true,
			want:   DeckPlan{Unchanged: []string{"a"}},
		},
		{
			name:   "retired question back unchanged is revived",
			stored: []Stored{stored(b, quiz.Retired)},
			file:   []quiz.Question{b},
			want: DeckPlan{Updated: []string{"b"}, Revived: []string{"b"},
				OldHash: map[string]string{"b": b.ContentHash()}},
		},
		{
			name:   "retired question back reworded is revived",
			stored: []Stored{stored(b, quiz.Retired)},
			file:   []quiz.Question{b2},
			want: DeckPlan{Updated: []string{"b"}, Revived: []string{"b"},
				OldHash: map[string]string{"b": b.ContentHash()}},
		},
		{
			name:   "all at once, in file order",
			stored: []Stored{stored(c, quiz.Published), stored(b, quiz.Published), stored(a, quiz.Retired)},
			file:   []quiz.Question{planQuestion("d", "D?"), b2, a},
			prune:  true,
			want: DeckPlan{Added: []string{"d"}, Updated: []string{"b", "a"}, Revived: []string{"a"}, Retired: []string{"c"},
				OldHash: map[string]string{"a": a.ContentHash(), "b": b.ContentHash()}},
		},
	}
	deck := quiz.Deck{Slug: "d", Title: "D", Release: "1.36", Language: "en"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &File{Deck: deck, Questions: tt.file}
			got := Plan(tt.stored, f, tt.prune)
			want := tt.want
			want.Deck = deck
			if want.OldHash == nil {
				want.OldHash = map[string]string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Plan =\n %+v\nwant\n %+v", got, want)
			}
			wantChanged := len(want.Added)+len(want.Updated)+len(want.Retired) > 0
			if got.Changed() != wantChanged {
				t.Errorf("Changed() = %v, want %v", got.Changed(), wantChanged)
			}
		})
	}
}

// TestPlanDecoded plans a decoded file against a database that holds the
// same file with one question edited, then the same file after a whole
// question was dropped.
func TestPlanDecoded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode("all-types.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	var stored []Stored
	for _, q := range f.Questions {
		if q.ExtID == "memoryqos-ga-false" {
			q.Truth = ptr(true) // the stored version had the other answer
		}
		stored = append(stored, Stored{ExtID: q.ExtID, ContentHash: q.ContentHash(), Status: quiz.Published})
	}
	plan := Plan(stored, f, false)
	if want := []string{"memoryqos-ga-false"}; !reflect.DeepEqual(plan.Updated, want) {
		t.Errorf("Updated = %v, want %v", plan.Updated, want)
	}
	if got, want := len(plan.Unchanged), len(f.Questions)-1; got != want {
		t.Errorf("%d unchanged, want %d", got, want)
	}

	f.Questions = f.Questions[1:]
	plan = Plan(stored, f, true)
	if want := []string{"imagevolume-ga"}; !reflect.DeepEqual(plan.Retired, want) {
		t.Errorf("Retired = %v, want %v", plan.Retired, want)
	}
	if len(plan.Added) != 0 {
		t.Errorf("Added = %v, want none", plan.Added)
	}
}

func TestDiff(t *testing.T) {
	base := quiz.Question{
		ExtID: "q", Type: quiz.SingleChoice, Prompt: "Which release?",
		Choices: []string{"1.35", "1.36"}, Answer: "1.36", Explanation: "GA in 1.36.",
		Source: quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "feature", PRs: []int{136711}},
		Tags:   []string{"ImageVolume"},
	}
	tests := []struct {
		name string
		edit func(q *quiz.Question)
		want []FieldChange
	}{
		{"same", func(q *quiz.Question) {}, nil},
		{"prompt", func(q *quiz.Question) { q.Prompt = "Which release made it GA?" },
			[]FieldChange{{"prompt", "Which release?", "Which release made it GA?"}}},
		{"a choice with a comma", func(q *quiz.Question) { q.Choices = []string{"1.35", "1.36, then 1.37"} },
			[]FieldChange{{"choices", `["1.35", "1.36"]`, `["1.35", "1.36, then 1.37"]`}}},
		{"choices reordered", func(q *quiz.Question) { q.Choices = []string{"1.36", "1.35"} },
			[]FieldChange{{"choices", `["1.35", "1.36"]`, `["1.36", "1.35"]`}}},
		{"source and tags", func(q *quiz.Question) {
			q.Source.PRs = []int{136711, 136548}
			q.Source.URL = "https://kubernetes.io/"
			q.Tags = nil
		}, []FieldChange{
			{"source.prs", "[136711]", "[136711, 136548]"},
			{"source.url", "", "https://kubernetes.io/"},
			{"tags", `["ImageVolume"]`, ""},
		}},
		{"to true_false", func(q *quiz.Question) {
			q.Type, q.Choices, q.Answer, q.Truth = quiz.TrueFalse, nil, "", ptr(false)
		}, []FieldChange{
			{"type", "single_choice", "true_false"},
			{"choices", `["1.35", "1.36"]`, ""},
			{"answer", "1.36", "false"},
		}},
		{"order items", func(q *quiz.Question) {
			q.Type, q.Choices, q.Answer, q.Items = quiz.Order, nil, "", []string{"alpha", "GA"}
		}, []FieldChange{
			{"type", "single_choice", "order"},
			{"choices", `["1.35", "1.36"]`, ""},
			{"answer", "1.36", ""},
			{"items", "", `["alpha", "GA"]`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := base
			next.Choices = append([]string(nil), base.Choices...)
			next.Source.PRs = append([]int(nil), base.Source.PRs...)
			tt.edit(&next)
			if got := Diff(base, next); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff =\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}
