package quiz

import (
	"errors"
	"testing"
)

func TestCheckResponse(t *testing.T) {
	single := validSingle()
	multi := Question{Type: MultiChoice, Choices: []string{"a", "b", "c"}}
	order := Question{Type: Order, Items: []string{"a", "b", "c"}}
	cloze := Question{Type: Cloze, Prompt: "{{one}} and {{two}}"}
	typed := Question{Type: Typed}
	tf := Question{Type: TrueFalse}
	flash := Question{Type: Flashcard}
	tests := []struct {
		name string
		q    Question
		r    Response
		ok   bool
	}{
		{"single answered", single, Response{Choice: 2}, true},
		{"single unanswered", single, Response{Choice: -1}, true},
		{"single out of range", single, Response{Choice: 3}, false},
		{"single below -1", single, Response{Choice: -2}, false},
		{"single with texts", single, Response{Choice: 0, Texts: []string{"x"}}, false},
		{"multi", multi, Response{Choice: -1, Selected: []int{0, 2}}, true},
		{"multi none", multi, Response{Choice: -1}, true},
		{"multi with a choice", multi, Response{Choice: 0, Selected: []int{0}}, false},
		{"multi out of range", multi, Response{Choice: -1, Selected: []int{3}}, false},
		{"multi repeated", multi, Response{Choice: -1, Selected: []int{1, 1}}, false},
		{"multi unsorted", multi, Response{Choice: -1, Selected: []int{2, 0}}, false},
		{"order", order, Response{Choice: -1, Order: []int{2, 0, 1}}, true},
		{"order none", order, Response{Choice: -1}, true},
		{"order repeated", order, Response{Choice: -1, Order: []int{0, 0, 1}}, false},
		{"order short", order, Response{Choice: -1, Order: []int{0, 1}}, false},
		{"order empty", order, Response{Choice: -1, Order: []int{}}, false},
		{"cloze", cloze, Response{Choice: -1, Texts: []string{"", "two"}}, true},
		{"cloze one text", cloze, Response{Choice: -1, Texts: []string{"one"}}, false},
		{"typed", typed, Response{Choice: -1, Texts: []string{""}}, true},
		{"typed none", typed, Response{Choice: -1}, false},
		{"true/false", tf, Response{Choice: -1, Bool: ptr(true)}, true},
		{"true/false none", tf, Response{Choice: -1}, true},
		{"true/false with revealed", tf, Response{Choice: -1, Revealed: true}, false},
		{"flashcard", flash, Response{Choice: -1, Revealed: true}, true},
		{"flashcard with a bool", flash, Response{Choice: -1, Bool: ptr(false)}, false},
		{"flashcard with choice 0", flash, Response{Revealed: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.q.CheckResponse(tt.r)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckResponse(%+v) = %v, want ok=%v", tt.r, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}
