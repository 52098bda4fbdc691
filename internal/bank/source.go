package bank

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// utf8BOM is skipped by the YAML reader: it does not count as a column.
const utf8BOM = "\xEF\xBB\xBF"

// source maps between byte offsets and the line:col positions the YAML
// parser reports. Lines are broken where the parser breaks them (LF, CR,
// CRLF, NEL, LS, PS) and columns count characters, so that positions found
// by scanning the bytes agree with those of the parsed nodes.
type source struct {
	data   []byte
	starts []int  // starts[i] is the offset at which line i+1 begins
	ascii  []bool // ascii[i] reports whether line i+1 is all ASCII

	// The last position offset found: nodes are mostly looked up in
	// document order, so walking on from there keeps long lines linear.
	lastLine, lastCol, lastOff int
}

func newSource(data []byte) *source {
	s := &source{data: data, starts: []int{0}}
	if bytes.HasPrefix(data, []byte(utf8BOM)) {
		s.starts[0] = len(utf8BOM)
	}
	ascii := true
	for i := 0; i < len(data); {
		n := lineBreak(data[i:])
		if n == 0 {
			ascii = ascii && data[i] < utf8.RuneSelf
			i++
			continue
		}
		i += n
		s.starts = append(s.starts, i)
		s.ascii = append(s.ascii, ascii)
		ascii = true
	}
	s.ascii = append(s.ascii, ascii)
	return s
}

// lineBreak returns the length of the line break at the start of b, or 0.
func lineBreak(b []byte) int {
	switch {
	case len(b) >= 2 && b[0] == '\r' && b[1] == '\n':
		return 2
	case b[0] == '\r' || b[0] == '\n':
		return 1
	case len(b) >= 2 && b[0] == 0xC2 && b[1] == 0x85: // NEL
		return 2
	case len(b) >= 3 && b[0] == 0xE2 && b[1] == 0x80 && (b[2] == 0xA8 || b[2] == 0xA9): // LS, PS
		return 3
	}
	return 0
}

// blank reports whether the data holds nothing but white space and
// comments.
func (s *source) blank() bool {
	for i, start := range s.starts {
		end := len(s.data)
		if i+1 < len(s.starts) {
			end = s.starts[i+1]
		}
		line := bytes.TrimLeft(s.data[start:end], " \t")
		if len(line) > 0 && line[0] != '#' && lineBreak(line) == 0 {
			return false
		}
	}
	return true
}

// pos returns the 1-based line and column of a byte offset.
func (s *source) pos(off int) (line, col int) {
	i := sort.Search(len(s.starts), func(i int) bool { return s.starts[i] > off }) - 1
	if i < 0 {
		return 1, 1
	}
	start := s.starts[i]
	if off < start {
		return i + 1, 1
	}
	return i + 1, utf8.RuneCount(s.data[start:off]) + 1
}

// offset returns the byte offset of a 1-based line and column, or -1 when
// the position lies outside the data.
func (s *source) offset(line, col int) int {
	if line < 1 || line > len(s.starts) || col < 1 {
		return -1
	}
	off, c := s.starts[line-1], 1
	switch {
	case s.ascii[line-1]:
		off, c = off+col-1, col
	case line == s.lastLine && col >= s.lastCol:
		off, c = s.lastOff, s.lastCol
	}
	for ; c < col && off < len(s.data); c++ {
		_, size := utf8.DecodeRune(s.data[off:])
		off += size
	}
	if off >= len(s.data) {
		return -1
	}
	s.lastLine, s.lastCol, s.lastOff = line, col, off
	return off
}

// token returns the text at a position up to the next space, comma or
// bracket (at most 40 bytes): what was written there, for messages.
func (s *source) token(line, col int) string {
	off := s.offset(line, col)
	if off < 0 {
		return ""
	}
	end := off
	for end < len(s.data) && end-off < 40 && strings.IndexByte(" \t\r\n,[]{}", s.data[end]) < 0 {
		end++
	}
	return strings.ToValidUTF8(string(s.data[off:end]), "?")
}

// checkText reports what is not YAML text: invalid UTF-8 (only the first
// place, since such a file is most likely binary), NUL bytes and the other
// characters the YAML reader refuses. It returns whether the text is usable.
func (s *source) checkText(ps *problems) bool {
	data := s.data
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size == 1 {
			line, col := s.pos(off)
			ps.addf(line, col, "", "not valid UTF-8 (byte 0x%02X): a question file must be UTF-8 text", data[off])
			return false
		}
		off += size
	}
	ok := true
	for off, r := range string(data) {
		if allowedRune(r) || (r == 0xFEFF && off == 0) {
			continue
		}
		ok = false
		if len(ps.list) > maxProblems {
			ps.dropped++ // only the first ones are shown
			continue
		}
		line, col := s.pos(off)
		if r == 0 {
			ps.add(line, col, "", "NUL byte: a question file must be text")
		} else {
			ps.addf(line, col, "", "control character %U is not allowed", r)
		}
	}
	return ok
}

// allowedRune mirrors the YAML reader's rule for characters.
func allowedRune(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r':
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85:
		return true
	case r >= 0xA0 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// isParserProblem reports whether msg comes from the YAML parser (as
// opposed to its scanner). go.yaml.in/yaml/v3 reports the line of a parser
// error 0-based and of a scanner error 1-based, and leaves the line out when
// it is the first one.
func isParserProblem(msg string) bool {
	switch msg {
	case "did not find expected <stream-start>",
		"did not find expected <document start>",
		"did not find expected node content",
		"did not find expected '-' indicator",
		"did not find expected key",
		"did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"found undefined tag handle",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found duplicate %TAG directive":
		return true
	}
	return false
}

// syntaxProblem turns an error of the YAML parser into a problem with the
// best line it can tell. The parser gives no column.
func (s *source) syntaxProblem(ps *problems, err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		line, col := s.findAlias(name)
		ps.addf(line, col, "", "alias *%s refers to no anchor (anchors and aliases are not allowed)", name)
		return
	}
	printed := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				printed, msg = n, text
			}
		}
	}
	line := printed
	if isParserProblem(msg) {
		line++
	}
	line = max(line, 1)
	if line > len(s.starts) {
		line = len(s.starts)
	}
	ps.addf(line, 0, "", "invalid YAML: %s", msg)
}

// findAlias returns the position of the first "*name" written as an alias,
// or 0, 0 when there is none.
func (s *source) findAlias(name string) (line, col int) {
	needle := []byte("*" + name)
	for from := 0; from < len(s.data); {
		i := bytes.Index(s.data[from:], needle)
		if i < 0 {
			break
		}
		at := from + i
		end := at + len(needle)
		before := at == 0 || strings.IndexByte(" \t\r\n[{,:-?", s.data[at-1]) >= 0
		after := end == len(s.data) || strings.IndexByte(" \t\r\n]},", s.data[end]) >= 0
		if before && after {
			return s.pos(at)
		}
		from = at + 1
	}
	return 0, 0
}

// sizeProblem reports a file refused for its size.
func sizeProblem(ps *problems, size int) {
	ps.add(0, 0, "", fmt.Sprintf("file is %d bytes, over the limit of %d bytes (256 KiB)", size, MaxFileSize))
}
