package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"kubequiz/internal/quiz"
)

// decodeAnswer reads a review's answer column, the JSON of a quiz.Response
// that RecordReview wrote. An export reads one per review, and
// encoding/json took a quarter of its time, so the JSON that encoding/json
// writes for a Response is read directly (parseAnswer); anything else (a
// text with an escape, spaces, null) goes to encoding/json, which decides.
func decodeAnswer(s string) (quiz.Response, error) {
	if r, ok := parseAnswer(s); ok {
		return r, nil
	}
	r := quiz.Response{Choice: -1}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return quiz.Response{Choice: -1}, fmt.Errorf("decode answer: %w", err)
	}
	return r, nil
}

// parseAnswer reads s when it is a JSON object of quiz.Response's fields
// without white space, numbers that are plain integers and texts without
// escapes, as encoding/json writes them; ok is false for anything else.
// The texts it returns share s's memory. When ok, the result is what
// json.Unmarshal gives.
func parseAnswer(s string) (r quiz.Response, ok bool) {
	r.Choice = -1
	p := answerParser{s: s}
	if !p.skip('{') {
		return r, false
	}
	if p.skip('}') {
		return r, p.i == len(s)
	}
	for {
		key, ok := p.text()
		if !ok || !p.skip(':') {
			return r, false
		}
		switch key {
		case "choice":
			r.Choice, ok = p.int()
		case "selected":
			r.Selected, ok = p.ints()
		case "order":
			r.Order, ok = p.ints()
		case "texts":
			r.Texts, ok = p.texts()
		case "bool":
			var b bool
			if b, ok = p.bool(); ok {
				r.Bool = &b
			}
		case "revealed":
			r.Revealed, ok = p.bool()
		default:
			return r, false
		}
		switch {
		case !ok:
			return r, false
		case p.skip(','):
		case p.skip('}'):
			return r, p.i == len(s)
		default:
			return r, false
		}
	}
}

// answerParser reads s from i on.
type answerParser struct {
	s string
	i int
}

// skip moves past c when it comes next.
func (p *answerParser) skip(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// int reads an integer: an optional minus and digits, the first not a
// zero unless it is the only one, that fit an int.
func (p *answerParser) int() (int, bool) {
	start := p.i
	p.skip('-')
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || (p.s[digits] == '0' && p.i-digits > 1) {
		return 0, false
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	return n, err == nil
}

// ints reads an array of integers.
func (p *answerParser) ints() ([]int, bool) {
	if !p.skip('[') {
		return nil, false
	}
	out := []int{}
	if p.skip(']') {
		return out, true
	}
	for {
		n, ok := p.int()
		if !ok {
			return nil, false
		}
		out = append(out, n)
		if p.skip(']') {
			return out, true
		}
		if !p.skip(',') {
			return nil, false
		}
	}
}

// text reads a string without escapes or control characters, in valid
// UTF-8.
func (p *answerParser) text() (string, bool) {
	if !p.skip('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			t := p.s[start:p.i]
			p.i++
			return t, utf8.ValidString(t)
		case c == '\\' || c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// texts reads an array of strings.
func (p *answerParser) texts() ([]string, bool) {
	if !p.skip('[') {
		return nil, false
	}
	out := []string{}
	if p.skip(']') {
		return out, true
	}
	for {
		t, ok := p.text()
		if !ok {
			return nil, false
		}
		out = append(out, t)
		if p.skip(']') {
			return out, true
		}
		if !p.skip(',') {
			return nil, false
		}
	}
}

// bool reads true or false.
func (p *answerParser) bool() (bool, bool) {
	rest := p.s[p.i:]
	switch {
	case len(rest) >= 4 && rest[:4] == "true":
		p.i += 4
		return true, true
	case len(rest) >= 5 && rest[:5] == "false":
		p.i += 5
		return false, true
	}
	return false, false
}
