package changelog

import (
	"html"
	"regexp"
	"strings"
)

var (
	// A link's address may hold one level of parentheses, as Wikipedia's
	// do: "[label](https://host/a_(b))"; reMDLinkPlain takes what is left,
	// an address cut at its first ")".
	reMDLink      = regexp.MustCompile(`!?\[([^\]\n]*)\]\(((?:[^()\s]|\([^()\s]*\))*)\)`)
	reMDLinkPlain = regexp.MustCompile(`!?\[([^\]\n]*)\]\(([^)\s]*)\)`)
	reEmphasis    = regexp.MustCompile(`\*\*|__`)
	reUpdateNote  = regexp.MustCompile(`\s*\(\d{4}/\d{1,2}/\d{1,2}\s*(?:Update|update|更新|追記)\)`)
	// "GracePeriodfeature gate" and "feature gateWindowsGMSA" lost a space.
	reGlueBefore = regexp.MustCompile(`([a-z0-9])(feature[ -]?gates?)\b`)
	reGlueAfter  = regexp.MustCompile(`(feature[ -]?gates?)([A-Z])`)
)

// plainText is text with inline markdown removed, plus the byte ranges that
// were code spans and the text with ASCII letters lower-cased (same offsets).
type plainText struct {
	text string
	low  string
	code [][2]int
}

func newPlain(s string) plainText { return plainText{text: s, low: asciiLower(s)} }

// toPlain removes links (keeping their text), emphasis markers and code
// quotes, unescapes HTML entities and collapses runs of spaces. Code spans
// are remembered so that names inside them can be classified.
func toPlain(s string) plainText {
	if strings.ContainsAny(s, "&") {
		s = html.UnescapeString(s)
	}
	if strings.Contains(s, "](") {
		s = reMDLink.ReplaceAllString(s, "$1")
		if strings.Contains(s, "](") {
			s = reMDLinkPlain.ReplaceAllString(s, "$1")
		}
	}
	if strings.Contains(s, "**") || strings.Contains(s, "__") {
		s = reEmphasis.ReplaceAllString(s, "")
	}
	if strings.Contains(s, "Update)") || strings.Contains(s, "update)") || strings.Contains(s, "更新)") || strings.Contains(s, "追記)") {
		s = reUpdateNote.ReplaceAllString(s, "")
	}
	if gluedFeatureGate(s) {
		s = reGlueBefore.ReplaceAllString(s, "$1 $2")
		s = reGlueAfter.ReplaceAllString(s, "$1 $2")
	}
	s = collapseSpaces(s)
	var (
		b    strings.Builder
		code [][2]int
		open = -1
	)
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '`' {
			b.WriteByte(c)
			continue
		}
		if open < 0 {
			// Only open a span when a closing quote follows on the same line.
			rest := s[i+1:]
			if j := strings.IndexByte(rest, '`'); j >= 0 && !strings.Contains(rest[:j], "\n") {
				open = b.Len()
			}
			continue
		}
		if b.Len() > open {
			code = append(code, [2]int{open, b.Len()})
		}
		open = -1
	}
	out := strings.TrimSpace(b.String())
	return plainText{text: out, low: asciiLower(out), code: trimSpans(b.String(), code)}
}

// gluedFeatureGate reports whether "feature gate" touches a name without a
// space, which is rare enough to check before running the fixes.
func gluedFeatureGate(s string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], "feature")
		if i < 0 {
			return false
		}
		i += off
		if i > 0 && isAlnum(s[i-1]) {
			return true
		}
		j := i + len("feature")
		for j < len(s) && (s[j] == ' ' || s[j] == '-') {
			j++
		}
		if strings.HasPrefix(s[j:], "gate") {
			k := j + 4
			if k < len(s) && s[k] == 's' {
				k++
			}
			if k < len(s) && isUpper(s[k]) {
				return true
			}
		}
		off = j
	}
}

// collapseSpaces turns runs of spaces and tabs after a non-space character
// into one space, keeping the indentation at the start of each line.
func collapseSpaces(s string) string {
	if !strings.Contains(s, "  ") && !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	atStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			atStart = true
			b.WriteByte(c)
		case c == ' ' || c == '\t':
			if atStart {
				b.WriteByte(c)
				continue
			}
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			b.WriteByte(' ')
			i = j - 1
		default:
			atStart = false
			b.WriteByte(c)
		}
	}
	return b.String()
}

// trimSpans shifts spans after TrimSpace removed leading white space.
func trimSpans(s string, spans [][2]int) [][2]int {
	cut := len(s) - len(strings.TrimLeft(s, " \t\n"))
	if cut == 0 {
		return spans
	}
	out := spans[:0]
	for _, sp := range spans {
		sp[0] -= cut
		sp[1] -= cut
		if sp[0] >= 0 {
			out = append(out, sp)
		}
	}
	return out
}

// stripInlineMarkdown returns the plain form of a short string such as a
// heading.
func stripInlineMarkdown(s string) string { return toPlain(s).text }
