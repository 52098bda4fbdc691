package quizgen

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maskToken replaces a hidden name in a description question.
const maskToken = "____"

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// nameTokens splits a name into the words a text may write apart: at
// spaces and at case changes ("ImageVolume" -> Image, Volume; "KubeletPSI"
// -> Kubelet, PSI).
func nameTokens(name string) []string {
	var out []string
	for _, w := range strings.Fields(name) {
		rs := []rune(w)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			// "PSIData" splits before "Data"; "IPs" (a plural) stays whole.
			plural := rs[min(i+1, len(rs)-1)] == 's' && (i+2 == len(rs) || i+2 < len(rs) && !unicode.IsLower(rs[i+2]))
			acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1]) && !plural
			if lowerUpper || acronymEnd {
				out = append(out, string(rs[start:i]))
				start = i
			}
		}
		out = append(out, string(rs[start:]))
	}
	return out
}

// letterCount counts letters and digits.
func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// namePattern matches a name wherever a text writes it: any case, with or
// without spaces, hyphens or underscores between its words, even inside
// longer words (see maskLocs for the matches that are words of their own).
// Names of fewer than four letters match only in their own case, so that
// "DRA" does not hide part of "hydrant". It finds what the regular
// expression of the name's words joined by [\s_\-]* would find, (?i)
// included, without compiling one per name.
type namePattern struct {
	toks []string
	fold bool // case-insensitive, as (?i): Unicode simple folding
}

// maskPattern returns the pattern of a name, made once per run.
func (r *run) maskPattern(name string) *namePattern {
	if p, ok := r.masks[name]; ok {
		return p
	}
	p := &namePattern{toks: nameTokens(name), fold: letterCount(name) >= 4}
	r.masks[name] = p
	return p
}

// FindAllStringIndex returns the leftmost non-overlapping matches in text,
// as regexp.Regexp.FindAllStringIndex(text, -1) does.
func (p *namePattern) FindAllStringIndex(text string, _ int) [][]int {
	if len(p.toks) == 0 {
		return nil
	}
	var out [][]int
	for i := 0; i < len(text); {
		if end := p.matchAt(text, i, 0); end >= 0 {
			out = append(out, []int{i, end})
			i = end
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return out
}

// matchAt returns the end of a match of the tokens from k on at i, or -1.
// The gap before a token takes as many separators as it can and gives
// them back one by one, as the greedy [\s_\-]* does.
func (p *namePattern) matchAt(text string, i, k int) int {
	end := p.tokenAt(text, i, p.toks[k])
	if end < 0 {
		return -1
	}
	if k+1 == len(p.toks) {
		return end
	}
	gap := end
	for gap < len(text) && isGapByte(text[gap]) {
		gap++
	}
	for j := gap; j >= end; j-- {
		if m := p.matchAt(text, j, k+1); m >= 0 {
			return m
		}
	}
	return -1
}

// isGapByte reports whether c is one of [\s_\-]: \s is [\t\n\f\r ].
func isGapByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '_' || c == '-'
}

// tokenAt returns the end of tok written at i of text, or -1.
func (p *namePattern) tokenAt(text string, i int, tok string) int {
	if !p.fold {
		if strings.HasPrefix(text[i:], tok) {
			return i + len(tok)
		}
		return -1
	}
	for _, want := range tok {
		if i >= len(text) {
			return -1
		}
		got, size := utf8.DecodeRuneInString(text[i:])
		if !sameFold(got, want) {
			return -1
		}
		i += size
	}
	return i
}

// sameFold reports whether two runes are equal under Unicode simple
// folding, as (?i) compares them.
func sameFold(a, b rune) bool {
	if a == b {
		return true
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		return a|0x20 == b|0x20 && a|0x20 >= 'a' && a|0x20 <= 'z'
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// maskLocs returns the matches of a name in text that are words of their
// own, with a plural "s" allowed after them ("image volumes"). A match
// inside a longer word ("configuration" for ManifestBasedAdmissionControl-
// Config, DenyServiceExternalIPs for Service externalIPs) is not one:
// masking it would cut the word ("____uration", "Deny____").
func (r *run) maskLocs(text, name string) [][]int {
	var out [][]int
	for _, loc := range r.maskPattern(name).FindAllStringIndex(text, -1) {
		plural := loc[1] < len(text) && text[loc[1]] == 's' && atWordEdges(text, loc[0], loc[1]+1)
		if atWordEdges(text, loc[0], loc[1]) || plural {
			out = append(out, loc)
		}
	}
	return out
}

// mask replaces the whole-word matches of a name in text with maskToken.
func (r *run) mask(text, name string) string {
	return masked(text, r.maskLocs(text, name))
}

// maskSameCase is mask for the occurrences of name that start with a
// letter of the same case as name.
func (r *run) maskSameCase(text, name string) string {
	upper := unicode.IsUpper(firstRune(name))
	locs := slices.DeleteFunc(r.maskLocs(text, name), func(loc []int) bool {
		return unicode.IsUpper(firstRune(text[loc[0]:])) != upper
	})
	return masked(text, locs)
}

// masked writes text with maskToken at locs.
func masked(text string, locs [][]int) string {
	if len(locs) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		b.WriteString(text[last:loc[0]])
		b.WriteString(maskToken)
		last = loc[1]
	}
	b.WriteString(text[last:])
	return b.String()
}
