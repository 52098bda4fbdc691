package quiz

import (
	"strconv"
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
	switch q.Type {
	case Flashcard:
		return ""
	case TrueFalse:
		return TruthText(r.Bool)
	case SingleChoice:
		if r.Choice >= 0 && r.Choice < len(q.Choices) {
			return q.Choices[r.Choice]
		}
	case MultiChoice:
		return joinPicked(r.Selected, q.Choices, ", ")
	case Order:
		return joinPicked(r.Order, q.Items, " → ")
	case Cloze, Typed:
		return joinTexts(r.Texts)
	}
	return NotAnswered
}

// joinPicked joins the entries of list that idx picks, in idx's order,
// with sep; NotAnswered when it picks none.
func joinPicked(idx []int, list []string, sep string) string {
	var b strings.Builder
	picked := 0
	for _, i := range idx {
		if i < 0 || i >= len(list) {
			continue
		}
		if picked > 0 {
			b.WriteString(sep)
		}
		b.WriteString(list[i])
		picked++
	}
	if picked == 0 {
		return NotAnswered
	}
	return b.String()
}

// joinTexts joins typed texts: one text as it is; several (the gaps of a
// cloze) each with its gap's number, as the form named them, an empty one
// included; NotAnswered when every text is blank.
func joinTexts(texts []string) string {
	if len(texts) <= 1 {
		if len(texts) == 0 || strings.TrimSpace(texts[0]) == "" {
			return NotAnswered
		}
		return texts[0]
	}
	var b strings.Builder
	answered := false
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			t = NotAnswered
		} else {
			answered = true
		}
		if i > 0 {
			b.WriteString(" / ")
		}
		b.WriteString("空欄 ")
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(": ")
		b.WriteString(t)
	}
	if !answered {
		return NotAnswered
	}
	return b.String()
}
