package quiz

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"kubequiz/internal/fsrs"
)

// Gap is one blank of a cloze prompt: the accepted spellings, first the
// canonical one.
type Gap struct {
	Accept []string
}

// ClozeBlank is what a gap shows in place of its answer.
const ClozeBlank = "____"

// ParseCloze finds the gaps of a cloze prompt. A gap is written {{answer}}
// or {{answer|alternative|...}}.
func ParseCloze(prompt string) ([]Gap, error) {
	var gaps []Gap
	rest := prompt
	for {
		i := strings.Index(rest, "{{")
		j := strings.Index(rest, "}}")
		if i < 0 {
			if j >= 0 {
				return nil, errors.New(`"}}" without a matching "{{"`)
			}
			return gaps, nil
		}
		if j < 0 {
			return nil, errors.New(`"{{" without a matching "}}"`)
		}
		if j < i {
			return nil, errors.New(`"}}" before "{{"`)
		}
		inner := rest[i+2 : j]
		if strings.Contains(inner, "{{") {
			return nil, errors.New("nested gap")
		}
		var g Gap
		for _, alt := range strings.Split(inner, "|") {
			if Normalize(alt) == "" {
				return nil, fmt.Errorf("gap %d has an empty answer", len(gaps)+1)
			}
			g.Accept = append(g.Accept, strings.TrimSpace(alt))
		}
		gaps = append(gaps, g)
		rest = rest[j+2:]
	}
}

// ClozeText returns the cloze prompt with every gap blanked out.
func ClozeText(prompt string) string {
	return strings.Join(ClozeParts(prompt), ClozeBlank)
}

// ClozeParts splits a cloze prompt around its gaps: the text before the
// first gap, between gaps, and after the last, one more part than gaps.
func ClozeParts(prompt string) []string {
	var parts []string
	rest := prompt
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			break
		}
		parts = append(parts, rest[:i])
		rest = rest[i+j+2:]
	}
	return append(parts, rest)
}

// ClozeFilled returns the cloze prompt with every gap filled by its canonical answer.
func ClozeFilled(prompt string) string {
	gaps, err := ParseCloze(prompt)
	if err != nil {
		return prompt
	}
	var b strings.Builder
	rest := prompt
	for _, g := range gaps {
		i := strings.Index(rest, "{{")
		j := strings.Index(rest, "}}")
		b.WriteString(rest[:i])
		b.WriteString(g.Accept[0])
		rest = rest[j+2:]
	}
	b.WriteString(rest)
	return b.String()
}

// Normalize prepares typed text for comparison: Unicode NFKC (so full-width
// and half-width forms compare equal), lower case, surrounding space trimmed
// and inner runs of space collapsed to one, and hyphens as ASCII '-' (see
// foldHyphens). Format characters (Unicode Cf: zero-width spaces and
// joiners, bidi marks such as a trailing RLM) and control characters other
// than white space are dropped first: they are invisible, and a right
// answer pasted with one is still right.
func Normalize(s string) string {
	s = strings.Map(dropInvisible, s)
	s = norm.NFKC.String(s)
	s = strings.ToLower(s)
	s = foldHyphens(s)
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// dropInvisible maps a format or non-space control character to nothing.
func dropInvisible(r rune) rune {
	if unicode.Is(unicode.Cf, r) || (unicode.IsControl(r) && !unicode.IsSpace(r)) {
		return -1
	}
	return r
}

// foldHyphens turns the dashes a keyboard or a Japanese input method may
// give for '-' into '-': the Unicode hyphens and dashes and the minus sign,
// and the prolonged sound mark ー in a run of marks and hyphens that
// touches an ASCII letter or digit and has nothing Japanese on its other
// side (a Japanese input method types ー for '-': "kubeーproxy",
// "ーーreserved-cpus"), never within Japanese words such as サーバー.
func foldHyphens(s string) string {
	if !strings.ContainsFunc(s, isHyphenLike) {
		return s
	}
	rs := []rune(s)
	for i, r := range rs {
		if isDash(r) {
			rs[i] = '-'
		}
	}
	for i := 0; i < len(rs); {
		if rs[i] != 'ー' && rs[i] != '-' {
			i++
			continue
		}
		j := i
		for j < len(rs) && (rs[j] == 'ー' || rs[j] == '-') {
			j++
		}
		before, after := rune(' '), rune(' ') // the ends of the text count as spaces
		if i > 0 {
			before = rs[i-1]
		}
		if j < len(rs) {
			after = rs[j]
		}
		if (isASCIIAlnum(before) || isASCIIAlnum(after)) && !isJapanese(before) && !isJapanese(after) {
			for k := i; k < j; k++ {
				rs[k] = '-'
			}
		}
		i = j
	}
	return string(rs)
}

func isHyphenLike(r rune) bool { return isDash(r) || r == 'ー' }

// isDash reports whether r is a Unicode hyphen or dash (U+2010 to U+2015)
// or the minus sign.
func isDash(r rune) bool { return r >= '\u2010' && r <= '\u2015' || r == '\u2212' }

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z'
}

// isJapanese reports whether r is kana or a CJK ideograph, beside which ー
// is part of a word.
func isJapanese(r rune) bool {
	return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han)
}

// Response is a learner's answer. Choice indices refer to Question.Choices
// and Items in their stored (canonical) order, whatever order was shown.
type Response struct {
	Choice   int      `json:"choice"`             // single_choice; -1 when none was picked
	Selected []int    `json:"selected,omitempty"` // multi_choice
	Bool     *bool    `json:"bool,omitempty"`     // true_false
	Texts    []string `json:"texts,omitempty"`    // cloze: one per gap; typed: one
	Order    []int    `json:"order,omitempty"`    // order: item indices in the order the learner put them
	Revealed bool     `json:"revealed,omitempty"` // flashcard: the learner turned the card over
}

// Result is the outcome of grading one response.
type Result struct {
	Correct bool
	// SelfGraded is true for flashcards: there is nothing to check.
	SelfGraded bool
	// Expected is the correct answer as the learner should see it.
	Expected string
	// Partial counts right picks of a multi_choice answer (right of total).
	PartialRight, PartialTotal int
	// GapsRight tells, for a cloze answered in every gap, which gaps were
	// filled right, in the prompt's order.
	GapsRight []bool
}

// Grade checks r against q.
func (q Question) Grade(r Response) Result {
	res := Result{Expected: q.ExpectedAnswer()}
	switch q.Type {
	case SingleChoice:
		res.Correct = r.Choice >= 0 && r.Choice < len(q.Choices) && q.Choices[r.Choice] == q.Answer
	case MultiChoice:
		want := map[int]bool{}
		for i, c := range q.Choices {
			if slices.Contains(q.Answers, c) {
				want[i] = true
			}
		}
		got := map[int]bool{}
		for _, i := range r.Selected {
			if i >= 0 && i < len(q.Choices) {
				got[i] = true
			}
		}
		right := 0
		for i := range got {
			if want[i] {
				right++
			}
		}
		res.PartialRight, res.PartialTotal = right, len(want)
		res.Correct = right == len(want) && len(got) == len(want)
	case TrueFalse:
		res.Correct = r.Bool != nil && q.Truth != nil && *r.Bool == *q.Truth
	case Cloze:
		gaps, err := ParseCloze(q.Prompt)
		if err != nil || len(r.Texts) != len(gaps) {
			return res
		}
		res.Correct = true
		res.GapsRight = make([]bool, len(gaps))
		for i, g := range gaps {
			res.GapsRight[i] = matches(r.Texts[i], g.Accept)
			if !res.GapsRight[i] {
				res.Correct = false
			}
		}
	case Typed:
		res.Correct = len(r.Texts) == 1 && matches(r.Texts[0], append([]string{q.Answer}, q.Accept...))
	case Order:
		res.Correct = len(r.Order) == len(q.Items)
		for i, idx := range r.Order {
			if idx != i {
				res.Correct = false
			}
		}
	case Flashcard:
		res.SelfGraded = true
		res.Correct = r.Revealed
	}
	return res
}

// CorrectRated reports whether the answer counts as correct once the
// learner has rated it: a flashcard, which has nothing to check and is
// graded by the learner themself, when rated Hard or better; any other
// question as Grade found it.
func (r Result) CorrectRated(rating fsrs.Rating) bool {
	if r.SelfGraded {
		return rating >= fsrs.Hard
	}
	return r.Correct
}

// ExpectedAnswer renders the correct answer of q as text.
func (q Question) ExpectedAnswer() string {
	switch q.Type {
	case SingleChoice, Typed, Flashcard:
		return q.Answer
	case MultiChoice:
		return strings.Join(q.Answers, ", ")
	case TrueFalse:
		if q.Truth != nil && *q.Truth {
			return "true"
		}
		return "false"
	case Cloze:
		return ClozeFilled(q.Prompt)
	case Order:
		return strings.Join(q.Items, " → ")
	}
	return ""
}

func matches(got string, accept []string) bool {
	g := Normalize(got)
	if g == "" {
		return false
	}
	for _, a := range accept {
		if Normalize(a) == g {
			return true
		}
	}
	return false
}
