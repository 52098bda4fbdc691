package quiz

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// FieldError is one problem with one field of a question. Field uses the
// names of the YAML format ("choices", "answer", "source.prs", "items[2]").
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Msg }

// ValidationError collects every problem found in a question.
type ValidationError struct {
	Problems []FieldError
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return "invalid question: " + strings.Join(msgs, "; ")
}

// Is makes errors.Is(err, ErrInvalid) true for validation errors.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Validate checks q against the rules of its type. It returns nil or a
// *ValidationError listing every problem, not just the first.
func (q Question) Validate() error {
	var v validator
	if strings.TrimSpace(q.ExtID) == "" {
		v.add("id", "is empty")
	}
	if !q.Type.Valid() {
		v.add("type", fmt.Sprintf("unknown type %q (want one of %s)", q.Type, typeList()))
	}
	if strings.TrimSpace(q.Prompt) == "" {
		v.add("prompt", "is empty")
	}
	if strings.TrimSpace(q.Explanation) == "" {
		v.add("explanation", "is empty")
	}
	for i, pr := range q.Source.PRs {
		if pr <= 0 {
			v.add(fmt.Sprintf("source.prs[%d]", i), fmt.Sprintf("PR number %d is not positive", pr))
		}
	}
	// In a fixed order, so that the problems come in the same order on
	// every run.
	for _, f := range []struct{ name, text string }{{"id", q.ExtID}, {"prompt", q.Prompt}, {"explanation", q.Explanation}, {"answer", q.Answer}} {
		if !utf8.ValidString(f.text) {
			v.add(f.name, "is not valid UTF-8")
		}
		v.length(f.name, f.text)
	}
	for _, f := range []struct {
		name string
		list []string
	}{{"choices", q.Choices}, {"answers", q.Answers}, {"accept", q.Accept}, {"items", q.Items}} {
		for i, s := range f.list {
			v.length(fmt.Sprintf("%s[%d]", f.name, i), s)
		}
	}

	switch q.Type {
	case SingleChoice:
		v.choices(q.Choices, 2)
		if strings.TrimSpace(q.Answer) == "" {
			v.add("answer", "is empty")
		} else if !contains(q.Choices, q.Answer) {
			v.add("answer", fmt.Sprintf("%q is not among the choices", q.Answer))
		}
		v.unused(q, "answers", "truth", "accept", "items")
	case MultiChoice:
		v.choices(q.Choices, 2)
		if len(q.Answers) == 0 {
			v.add("answers", "is empty (a multi_choice question needs at least one correct choice)")
		}
		seen := map[string]bool{}
		for i, a := range q.Answers {
			if !contains(q.Choices, a) {
				v.add(fmt.Sprintf("answers[%d]", i), fmt.Sprintf("%q is not among the choices", a))
			}
			if seen[a] {
				v.add(fmt.Sprintf("answers[%d]", i), fmt.Sprintf("%q is listed twice", a))
			}
			seen[a] = true
		}
		v.unused(q, "answer", "truth", "accept", "items")
	case TrueFalse:
		if q.Truth == nil {
			v.add("answer", "is missing (true or false)")
		}
		v.unused(q, "choices", "answers", "accept", "items")
	case Cloze:
		gaps, err := ParseCloze(q.Prompt)
		if err != nil {
			v.add("prompt", err.Error())
		} else if len(gaps) == 0 {
			v.add("prompt", "a cloze needs at least one gap written {{answer}}")
		}
		v.unused(q, "choices", "answer", "answers", "truth", "items")
	case Typed:
		if strings.TrimSpace(q.Answer) == "" {
			v.add("answer", "is empty")
		}
		for i, a := range q.Accept {
			if Normalize(a) == "" {
				v.add(fmt.Sprintf("accept[%d]", i), "is empty")
			}
		}
		v.unused(q, "choices", "answers", "truth", "items")
	case Order:
		if len(q.Items) < 2 {
			v.add("items", fmt.Sprintf("an order question needs at least two items, got %d", len(q.Items)))
		}
		v.distinct("items", q.Items)
		v.unused(q, "choices", "answer", "answers", "truth", "accept")
	case Flashcard:
		if strings.TrimSpace(q.Answer) == "" {
			v.add("answer", "is empty (the back of the card)")
		}
		v.unused(q, "choices", "answers", "truth", "accept", "items")
	}
	return v.err()
}

type validator struct{ problems []FieldError }

func (v *validator) add(field, msg string) {
	v.problems = append(v.problems, FieldError{Field: field, Msg: msg})
}

func (v *validator) err() error {
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: v.problems}
}

// MaxTextBytes bounds each text of a question (a prompt, an explanation, a
// choice), however it is written: in a question file or in the edit form.
const MaxTextBytes = 8 << 10

func (v *validator) length(field, s string) {
	if len(s) > MaxTextBytes {
		v.add(field, fmt.Sprintf("is %d bytes long, over the limit of %d", len(s), MaxTextBytes))
	}
}

func (v *validator) choices(choices []string, min int) {
	if len(choices) < min {
		v.add("choices", fmt.Sprintf("needs at least %d choices, got %d", min, len(choices)))
	}
	v.distinct("choices", choices)
}

func (v *validator) distinct(field string, list []string) {
	seen := map[string]int{}
	for i, c := range list {
		if strings.TrimSpace(c) == "" {
			v.add(fmt.Sprintf("%s[%d]", field, i), "is empty")
			continue
		}
		n := Normalize(c)
		if j, ok := seen[n]; ok {
			v.add(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("%q repeats %s[%d]", c, field, j))
			continue
		}
		seen[n] = i
	}
}

// unused reports answer fields that do not belong to q's type, so that a
// misplaced field is an error rather than silently ignored.
func (v *validator) unused(q Question, fields ...string) {
	for _, f := range fields {
		set := false
		switch f {
		case "choices":
			set = len(q.Choices) > 0
		case "answer":
			set = q.Answer != ""
		case "answers":
			set = len(q.Answers) > 0
		case "truth":
			set = q.Truth != nil
		case "accept":
			set = len(q.Accept) > 0
		case "items":
			set = len(q.Items) > 0
		}
		if set {
			v.add(f, fmt.Sprintf("is not used by a %s question", q.Type))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func typeList() string {
	names := make([]string, 0, len(Types()))
	for _, t := range Types() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}
