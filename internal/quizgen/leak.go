package quizgen

import (
	"slices"
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
		return clozeAnswerIn(q.Prompt, shows)
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

// givesNameAway reports whether a question whose answer is a name (which
// feature a description tells, which term fills a gap) holds in its text,
// the answer hidden, so many words of that name that it all but spells
// it: see nameGivenAway.
func givesNameAway(q quiz.Question) bool {
	switch q.Type {
	case quiz.SingleChoice:
		return q.Answer != "" && nameGivenAway(q.Prompt, q.Answer)
	case quiz.Cloze:
		return clozeAnswerIn(q.Prompt, nameGivenAway)
	}
	return false
}

// nameGivenAway reports whether text, with the name itself masked out,
// still holds both words of a two-word name or all but one of the words
// of a longer one. Names and text are split into lower-case words alike:
// at spaces, '-', '_', '.', '/' and other marks, between a lower-case
// letter and a capital, before the capital that ends an acronym
// ("CSIDriver": csi driver) and after digits ("v1beta1Foo": v1beta1
// foo). Words of one or two letters and generic ones ("the", "with", a
// metric's unit) do not count; a word counts in another form
// ("disabling" for Disable, "pods" for Pod, "Kube-proxy" for Proxying).
// Japanese text holds no such words and is ignored.
func nameGivenAway(text, name string) bool {
	nw := splitWords(name)
	var want []string
	seen := map[string]bool{}
	for _, w := range nw {
		if len(w) <= 2 || genericNameWords[w] {
			continue
		}
		if s := wordStem(w); !seen[s] {
			seen[s] = true
			want = append(want, s)
		}
	}
	if len(want) < 2 {
		return false
	}
	tw := maskWords(splitWords(text), nw)
	have := map[string]bool{}
	for _, w := range tw {
		have[wordStem(w)] = true
	}
	n := 0
	for _, w := range want {
		if have[w] {
			n++
		}
	}
	if len(want) == 2 {
		return n == 2
	}
	return n >= len(want)-1
}

// genericNameWords are words of names that say nothing of their own.
var genericNameWords = map[string]bool{
	"the": true, "of": true, "and": true, "for": true, "to": true, "with": true, "from": true,
	"into": true, "per": true, "via": true, "are": true, "all": true, "its": true,
	"seconds": true, "bytes": true, "total": true,
}

// maskWords drops from words every run that spells the whole name.
func maskWords(words, name []string) []string {
	if len(name) == 0 {
		return words
	}
	var out []string
	for i := 0; i < len(words); {
		if i+len(name) <= len(words) && slices.Equal(words[i:i+len(name)], name) {
			i += len(name)
			continue
		}
		out = append(out, words[i])
		i++
	}
	return out
}

// splitWords splits a text or a name into lower-case words of Latin
// letters and digits.
func splitWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		latin := r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !latin {
			flush()
			continue
		}
		if len(cur) > 0 {
			p := cur[len(cur)-1]
			switch {
			case unicode.IsLower(p) && unicode.IsUpper(r):
				flush()
			case unicode.IsDigit(p) && unicode.IsUpper(r):
				flush()
			case unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) &&
				!(rs[i+1] == 's' && (i+2 == len(rs) || !unicode.IsLower(rs[i+2]))):
				flush() // "CSIDriver" splits before "Driver"; "IPs" stays whole
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// wordStem strips a plural or verb ending: "disabling", "disabled" and
// "disable" share "disabl", "pods" and "pod" share "pod".
func wordStem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// clozeAnswerIn reports whether match finds any accepted answer of a
// gap in the cloze's text with its gaps blanked; a prompt that is no
// cloze has none (Validate refuses it).
func clozeAnswerIn(prompt string, match func(text, answer string) bool) bool {
	gaps, err := quiz.ParseCloze(prompt)
	if err != nil {
		return false
	}
	text := quiz.ClozeText(prompt)
	for _, g := range gaps {
		for _, a := range g.Accept {
			if match(text, a) {
				return true
			}
		}
	}
	return false
}
