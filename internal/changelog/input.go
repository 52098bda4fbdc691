package changelog

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// checkInput rejects documents Parse must not look at.
func checkInput(doc []byte) error {
	if len(doc) > MaxDocumentSize {
		return fmt.Errorf("changelog: document is %d bytes, limit %d: %w", len(doc), MaxDocumentSize, ErrTooLarge)
	}
	if i := bytes.IndexByte(doc, 0); i >= 0 {
		return fmt.Errorf("changelog: NUL byte at offset %d: %w", i, ErrBinary)
	}
	if !utf8.Valid(doc) {
		off := 0
		for off < len(doc) {
			r, size := utf8.DecodeRune(doc[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return fmt.Errorf("changelog: invalid byte at offset %d: %w", off, ErrNotUTF8)
	}
	if len(bytes.TrimFunc(doc, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })) == 0 {
		return fmt.Errorf("changelog: %d bytes of white space: %w", len(doc), ErrEmpty)
	}
	return nil
}

// lineEndings turns CRLF and lone CR into LF.
var lineEndings = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// normalizeDocument returns the document as NFKC text with LF line endings
// and no byte-order mark, split into lines. NFKC folds full-width brackets,
// colons, digits and spaces to ASCII, so patterns need only one spelling.
func normalizeDocument(doc []byte) []string {
	s := string(doc)
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.IndexByte(s, '\r') >= 0 {
		s = lineEndings.Replace(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if !isASCII(l) {
			l = norm.NFKC.String(l)
		}
		if strings.IndexByte(l, '\t') >= 0 {
			l = strings.ReplaceAll(l, "\t", "    ")
		}
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return lines
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// indentOf returns the number of leading spaces of l.
func indentOf(l string) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// hasJapanese reports whether s contains kana (U+3040 to U+30FF, encoded
// E3 81..83 xx) or CJK ideographs (U+4000 to U+9FFF, first bytes E4..E9).
func hasJapanese(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		c := s[i]
		if c == 0xE3 && s[i+1] >= 0x81 && s[i+1] <= 0x83 || c >= 0xE4 && c <= 0xE9 {
			return true
		}
	}
	return false
}
