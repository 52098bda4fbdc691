package quiz

import "fmt"

// CheckResponse reports whether r is a normal response to q: the fields of
// q's type only, indices within q's choices or items, the selected choices
// in increasing order without repeats, an order that is a permutation (or
// none), one text per cloze gap and exactly one typed text. Anything else
// wraps ErrInvalid. A response may be empty: an unanswered question is
// normal.
func (q Question) CheckResponse(r Response) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("response to %s: "+format+": %w", append([]any{q.Type}, append(args, ErrInvalid)...)...)
	}
	want := Response{Choice: -1}
	switch q.Type {
	case SingleChoice:
		if r.Choice < -1 || r.Choice >= len(q.Choices) {
			return bad("choice %d out of range", r.Choice)
		}
		want.Choice = r.Choice
	case MultiChoice:
		for i, c := range r.Selected {
			if c < 0 || c >= len(q.Choices) {
				return bad("choice %d out of range", c)
			}
			if i > 0 && c <= r.Selected[i-1] {
				return bad("choices not increasing")
			}
		}
		want.Selected = r.Selected
	case TrueFalse:
		want.Bool = r.Bool
	case Cloze:
		gaps, err := ParseCloze(q.Prompt)
		if err != nil {
			return bad("%v", err)
		}
		if len(r.Texts) != len(gaps) {
			return bad("%d texts for %d gaps", len(r.Texts), len(gaps))
		}
		want.Texts = r.Texts
	case Typed:
		if len(r.Texts) != 1 {
			return bad("%d texts, want 1", len(r.Texts))
		}
		want.Texts = r.Texts
	case Order:
		if r.Order != nil {
			if len(r.Order) != len(q.Items) {
				return bad("order of %d items, want %d", len(r.Order), len(q.Items))
			}
			seen := make([]bool, len(q.Items))
			for _, i := range r.Order {
				if i < 0 || i >= len(q.Items) || seen[i] {
					return bad("order is not a permutation")
				}
				seen[i] = true
			}
		}
		want.Order = r.Order
	case Flashcard:
		want.Revealed = r.Revealed
	default:
		return bad("unknown question type")
	}
	if r.Choice != want.Choice || len(r.Selected) != len(want.Selected) || (r.Bool == nil) != (want.Bool == nil) ||
		len(r.Texts) != len(want.Texts) || len(r.Order) != len(want.Order) || r.Revealed != want.Revealed {
		return bad("fields of another question type")
	}
	return nil
}
