package changelog

import (
	"regexp"
	"strconv"
	"strings"
)

// suffix is the "(#PR, @author) [SIG …]" tail of an entry.
type suffix struct {
	start, end int // byte range in the searched text
	prs        []int
	author     string
	sigs       []string
}

var (
	// Plain text: (#1, #2, @login) [SIG A and B] | [sig/a,sig/b] | SIG A
	rePlainSuffix = regexp.MustCompile(`\(\s*((?:#\d+\s*[,、]\s*)+)@([A-Za-z0-9][\w.-]*)\s*\)(?:\s*\[((?:SIG|sig)[ /][^\]\n]+)\]|[ \t]+SIG ([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*){0,2}))?[ \t]*[.。]?[ \t]*(?:\n|$)`)
	rePlainPR     = regexp.MustCompile(`#(\d+)`)
	rePullURL     = regexp.MustCompile(`github\.com/kubernetes/kubernetes/pull/(\d+)`)
)

// findSuffixes returns every PR suffix in text, in order: upstream markdown
// suffixes ("([#1](…), [@login](…)) [SIG …]") when markdown is set, else
// plain ones ("(#1, @login) [sig/…]"). Only suffixes that end a line count:
// a parenthesised PR reference inside a sentence is text.
func findSuffixes(text string, markdown bool) []suffix {
	mark := "(#"
	if markdown {
		mark = "([#"
	}
	var out []suffix
	for lineStart := 0; lineStart < len(text); {
		lineEnd := strings.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += lineStart
		}
		line, base := text[lineStart:lineEnd], lineStart
		lineStart = lineEnd + 1
		// A suffix opens at the last "([#" (or "(#") of its line.
		open := strings.LastIndex(line, mark)
		if open < 0 {
			continue
		}
		var (
			s  suffix
			ok bool
		)
		if markdown {
			s, ok = parseMDSuffix(line, open)
		} else {
			s, ok = parsePlainSuffix(line, open)
		}
		if ok {
			s.start += base
			s.end += base
			out = append(out, s)
		}
	}
	return out
}

// parsePlainSuffix reads a plain suffix that opens at line[open] and ends the
// line.
func parsePlainSuffix(line string, open int) (suffix, bool) {
	m := rePlainSuffix.FindStringSubmatchIndex(line[open:])
	if m == nil {
		return suffix{}, false
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += open
		}
	}
	s := suffix{start: m[0], end: m[1], author: line[m[4]:m[5]]}
	for _, pm := range rePlainPR.FindAllStringSubmatch(line[m[2]:m[3]], -1) {
		if n, err := strconv.Atoi(pm[1]); err == nil {
			s.prs = append(s.prs, n)
		}
	}
	switch {
	case m[6] >= 0:
		s.sigs = parseSIGPart(line[m[6]:m[7]])
	case m[8] >= 0:
		s.sigs = parseSIGPart(line[m[8]:m[9]])
	}
	return s, true
}

// parseMDSuffix reads a markdown suffix that opens at line[open] and ends
// the line: "([#1](url), [#2](url), [@login](url)) [SIG A and B]." It is
// written out by hand because a regular expression for it was the slowest
// part of parsing.
func parseMDSuffix(line string, open int) (suffix, bool) {
	s := suffix{start: open}
	p := open
	skip := func() {
		for p < len(line) && (line[p] == ' ' || line[p] == '\t') {
			p++
		}
	}
	// link reads "[<prefix>label](url)" and returns the label.
	link := func(prefix string) (string, bool) {
		if !strings.HasPrefix(line[p:], "["+prefix) {
			return "", false
		}
		q := p + 1 + len(prefix)
		end := strings.IndexByte(line[q:], ']')
		if end <= 0 {
			return "", false
		}
		label := line[q : q+end]
		q += end + 1
		if q >= len(line) || line[q] != '(' {
			return "", false
		}
		close := strings.IndexByte(line[q:], ')')
		if close < 0 || strings.ContainsAny(line[q:q+close], " \t") {
			return "", false
		}
		p = q + close + 1
		return label, true
	}
	if p >= len(line) || line[p] != '(' {
		return s, false
	}
	p++
	skip()
	for {
		label, ok := link("#")
		if !ok {
			break
		}
		n, err := strconv.Atoi(label)
		if err != nil {
			return s, false
		}
		s.prs = append(s.prs, n)
		skip()
		if p >= len(line) || line[p] != ',' {
			return s, false
		}
		p++
		skip()
	}
	if len(s.prs) == 0 {
		return s, false
	}
	author, ok := link("@")
	if !ok || author == "" {
		return s, false
	}
	s.author = author
	skip()
	if p >= len(line) || line[p] != ')' {
		return s, false
	}
	p++
	s.end = p
	rest := strings.TrimLeft(line[p:], " \t")
	if strings.HasPrefix(rest, "[SIG ") {
		if end := strings.IndexByte(rest, ']'); end > 0 {
			s.sigs = parseSIGPart(rest[1:end])
			rest = rest[end+1:]
		}
	}
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "."))
	if rest != "" {
		return s, false // text follows: a reference inside the sentence
	}
	s.end = len(line)
	return s, true
}

// parseSIGPart reads "SIG A, B and C", "A, B and C" or "sig/a,sig/b".
func parseSIGPart(s string) []string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "SIG ") || strings.HasPrefix(s, "sig ") {
		s = s[4:]
	}
	return splitSIGList(s)
}

// removeSuffixes cuts the suffixes out of text.
func removeSuffixes(text string, sfx []suffix) string {
	if len(sfx) == 0 {
		return text
	}
	var b strings.Builder
	prev := 0
	for _, s := range sfx {
		b.WriteString(text[prev:s.start])
		prev = s.end
	}
	b.WriteString(text[prev:])
	return b.String()
}
