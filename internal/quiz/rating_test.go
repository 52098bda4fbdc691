package quiz

import (
	"testing"

	"kubequiz/internal/fsrs"
)

func TestRatingLabel(t *testing.T) {
	tests := []struct {
		r    fsrs.Rating
		want string
	}{
		{fsrs.Again, "もう一度"},
		{fsrs.Hard, "難しい"},
		{fsrs.Good, "正解"},
		{fsrs.Easy, "簡単"},
		{0, ""},
		{5, ""},
		{-1, ""},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		got := RatingLabel(tt.r)
		if got != tt.want {
			t.Errorf("RatingLabel(%d) = %q, want %q", tt.r, got, tt.want)
		}
		if tt.r.Valid() {
			if seen[got] {
				t.Errorf("RatingLabel(%d) = %q, the label of another rating too", tt.r, got)
			}
			seen[got] = true
		}
	}
}
