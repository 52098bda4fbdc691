package quiz

import (
	"fmt"
	"strings"
)

// NotAnswered is how an answer left empty reads.
const NotAnswered = "(未回答)"

// TruthText renders a true/false value as the learner reads it: 正しい or
// 誤り, and NotAnswered for none.
func TruthText(b *bool) string {
	switch {
	case b == nil:
		return NotAnswered
	case *b:
		return "正しい"
	}
	return "誤り"
}

// AnswerText renders r, a learner's answer to q, as text, as the study
// page's feedback shows it: the chosen choices, the items in the learner's
// order, the typed texts (each gap of a cloze of several numbered as the
// form numbers it), 正しい or 誤り, and NotAnswered for an empty answer.
// Indices outside q's choices or items are left out. A flashcard, which
// the learner only turns over, has no answer to show: its text is empty.
func (q Question) AnswerText(r Response) string {
	var parts []string
	sep := ", "
	switch q.Type {
	case Flashcard:
		return ""
	case SingleChoice:
		if r.Choice >= 0 && r.Choice < len(q.Choices) {
			parts = append(parts, q.Choices[r.Choice])
		}
	case MultiChoice:
		for _, i := range r.Selected {
			if i >= 0 && i < len(q.Choices) {
				parts = append(parts, q.Choices[i])
			}
		}
	case TrueFalse:
		return TruthText(r.Bool)
	case Cloze, Typed:
		sep = " / "
		if len(r.Texts) > 1 {
			// Several gaps: each answer with its gap's number, as the
			// form named them, an empty one included.
			answered := false
			for i, t := range r.Texts {
				if strings.TrimSpace(t) == "" {
					t = NotAnswered
				} else {
					answered = true
				}
				parts = append(parts, fmt.Sprintf("空欄 %d: %s", i+1, t))
			}
			if !answered {
				parts = nil
			}
			break
		}
		for _, t := range r.Texts {
			if strings.TrimSpace(t) != "" {
				parts = append(parts, t)
			}
		}
	case Order:
		sep = " → "
		for _, i := range r.Order {
			if i >= 0 && i < len(q.Items) {
				parts = append(parts, q.Items[i])
			}
		}
	}
	if len(parts) == 0 {
		return NotAnswered
	}
	return strings.Join(parts, sep)
}
