package quizgen

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"kubequiz/internal/quiz"
)

// givesAnswer reports whether a question's prompt shows its answer: a
// choice question's answer written in the prompt in any case as a word of
// its own ("beta" in "… the AllBeta gate" is none, "1.36" in "v1.36" is,
// "1.3" in "1.36" is none),
// or a name there with other spacing ("image volume" for ImageVolume); a
// gap's accepted answer left in the text around the gaps. Generators
// avoid it; no question that does is kept.
func givesAnswer(q quiz.Question) bool {
	switch q.Type {
	case quiz.SingleChoice, quiz.MultiChoice:
		answers := append([]string{q.Answer}, q.Answers...)
		for _, a := range answers {
			if a != "" && shows(q.Prompt, a) {
				return true
			}
		}
	case quiz.Cloze:
		gaps, err := quiz.ParseCloze(q.Prompt)
		if err != nil {
			return false // Validate refuses it
		}
		text := quiz.ClozeText(q.Prompt)
		for _, g := range gaps {
			for _, a := range g.Accept {
				if shows(text, a) {
					return true
				}
			}
		}
	case quiz.Typed:
		for _, a := range q.Accept {
			if shows(q.Prompt, a) {
				return true
			}
		}
	}
	return false
}

// shows reports whether text holds answer: as a word of its own in any
// case, or, for an answer of five letters or more, squashed (letters and
// digits only, lower case) anywhere in the squashed text.
func shows(text, answer string) bool {
	if letterCount(answer) >= 5 && strings.Contains(squash(text), squash(answer)) {
		return true
	}
	lt, la := strings.ToLower(text), strings.ToLower(strings.TrimSpace(answer))
	if la == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(lt[i:], la)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(la)
		before := wordByte(lt, start-1, true)
		if before && isDigitByte(la[0]) && lt[start-1] == 'v' && !wordByte(lt, start-2, true) {
			before = false // "v1.36" writes the release 1.36
		}
		if !before && !wordByte(lt, end, false) {
			return true
		}
		i = start + 1
	}
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// wordByte reports whether the rune before (or at) i of s continues a word
// of Latin letters and digits: then a match beside it is inside a longer
// word. A dot between digits continues a version ("1.36" in "1.36.1").
func wordByte(s string, i int, before bool) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return true
	}
	if r == '.' {
		if before {
			p, _ := utf8.DecodeLastRuneInString(s[:i])
			return i > 0 && unicode.IsDigit(p)
		}
		n, _ := utf8.DecodeRuneInString(s[i+1:])
		return i+1 < len(s) && unicode.IsDigit(n)
	}
	return false
}
