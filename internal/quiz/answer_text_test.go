package quiz

import "testing"

// TestAnswerText: a learner's answer as the feedback and the export show
// it, for every question type.
func TestAnswerText(t *testing.T) {
	single := Question{Type: SingleChoice, Choices: []string{"=1+1", "1.36", "-beta"}}
	multi := Question{Type: MultiChoice, Choices: []string{"ImageVolume", "KubeletPSI", "MemoryQoS"}}
	tf := Question{Type: TrueFalse}
	two := Question{Type: Cloze, Prompt: "{{ImageVolume}} は v{{1.36}} で GA"}
	one := Question{Type: Cloze, Prompt: "{{ImageVolume}} は GA"}
	typed := Question{Type: Typed, Answer: "memory.low"}
	order := Question{Type: Order, Items: []string{"alpha", "beta", "GA"}}
	flash := Question{Type: Flashcard, Answer: "back"}
	tests := []struct {
		name string
		q    Question
		r    Response
		want string
	}{
		{"single", single, Response{Choice: 1}, "1.36"},
		{"single, formula-like text as it is", single, Response{Choice: 0}, "=1+1"},
		{"single, none", single, Response{Choice: -1}, NotAnswered},
		{"single, out of range", single, Response{Choice: 3}, NotAnswered},
		{"multi", multi, Response{Choice: -1, Selected: []int{0, 2}}, "ImageVolume, MemoryQoS"},
		{"multi, one out of range", multi, Response{Choice: -1, Selected: []int{1, 7}}, "KubeletPSI"},
		{"multi, none", multi, Response{Choice: -1}, NotAnswered},
		{"true", tf, Response{Choice: -1, Bool: ptr(true)}, "正しい"},
		{"false", tf, Response{Choice: -1, Bool: ptr(false)}, "誤り"},
		{"true_false, none", tf, Response{Choice: -1}, NotAnswered},
		{"two gaps, the first empty", two, Response{Choice: -1, Texts: []string{"", "１．２５"}}, "空欄 1: " + NotAnswered + " / 空欄 2: １．２５"},
		{"two gaps", two, Response{Choice: -1, Texts: []string{"ImageVolume", "1.36"}}, "空欄 1: ImageVolume / 空欄 2: 1.36"},
		{"two gaps, none answered", two, Response{Choice: -1, Texts: []string{" ", ""}}, NotAnswered},
		{"one gap", one, Response{Choice: -1, Texts: []string{"ImageVolume"}}, "ImageVolume"},
		{"one gap, empty", one, Response{Choice: -1, Texts: []string{""}}, NotAnswered},
		{"typed, as typed", typed, Response{Choice: -1, Texts: []string{" Memory.Low "}}, " Memory.Low "},
		{"typed Japanese", typed, Response{Choice: -1, Texts: []string{"メモリー"}}, "メモリー"},
		{"typed, blank", typed, Response{Choice: -1, Texts: []string{"  "}}, NotAnswered},
		{"order", order, Response{Choice: -1, Order: []int{1, 0, 2}}, "beta → alpha → GA"},
		{"order, none", order, Response{Choice: -1}, NotAnswered},
		{"flashcard turned over", flash, Response{Choice: -1, Revealed: true}, ""},
		{"flashcard", flash, Response{Choice: -1}, ""},
		{"unknown type", Question{Type: "essay"}, Response{Choice: -1, Texts: []string{"x"}}, NotAnswered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.q.AnswerText(tt.r); got != tt.want {
				t.Errorf("AnswerText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTruthText(t *testing.T) {
	tests := []struct {
		in   *bool
		want string
	}{{nil, NotAnswered}, {ptr(true), "正しい"}, {ptr(false), "誤り"}}
	for _, tt := range tests {
		if got := TruthText(tt.in); got != tt.want {
			t.Errorf("TruthText(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
