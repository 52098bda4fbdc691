// Package bank reads the question bank: the YAML files of questions/ whose
// format is specified in questions/README.md. Decode turns the bytes of one
// file into a deck and its questions, or into a list of every problem found,
// each with its line, column and field. Plan and Diff compute what importing
// a decoded file would change. The package does no I/O: bytes in, values out.
//
// Decoding is strict and defensive, because files may be uploaded:
//
//   - a file over MaxFileSize is refused before it is parsed;
//   - it must be UTF-8 text without NUL bytes or control characters;
//   - it must hold exactly one YAML document, which must not be empty;
//   - anchors, aliases, merge keys (<<) and explicit tags are refused, so no
//     value is ever expanded;
//   - nesting is limited to 32 levels, one string to 8 KiB and one list to
//     100 entries;
//   - unknown fields, wrong types, duplicate keys, missing fields and
//     duplicate question ids are errors.
//
// Scalars keep the text they were written with: "release: 1.30" gives the
// release "1.30", not 1.3.
package bank

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"

	"kubequiz/internal/quiz"
)

// MaxFileSize is the largest question file Decode accepts, in bytes.
const MaxFileSize = 256 << 10

// Limits on the shape of a file. The format itself nests 7 levels deep.
const (
	maxDepth   = 32
	maxTextLen = quiz.MaxTextBytes
	maxListLen = 100
)

// File is one decoded question file: a deck and its questions.
type File struct {
	Name      string // as given to Decode, used in problems
	Deck      quiz.Deck
	Questions []quiz.Question
	Lines     []int // Lines[i] is the line where Questions[i] starts
}

// Decode decodes and validates one question file. name is used only in the
// problems reported. On failure it returns a nil *File and an *Error listing
// every problem found in the file.
func Decode(name string, data []byte) (*File, error) {
	ps := &problems{file: name}
	f := decode(ps, name, data)
	if err := ps.err(); err != nil {
		err.tooLarge = len(data) > MaxFileSize
		return nil, err
	}
	return f, nil
}

func decode(ps *problems, name string, data []byte) *File {
	if len(data) > MaxFileSize {
		sizeProblem(ps, len(data))
		return nil
	}
	src := newSource(data)
	if !src.checkText(ps) {
		return nil
	}
	if src.blank() {
		ps.add(0, 0, "", "file is empty: only blanks, comments or an empty document")
		return nil
	}
	root, second, err := parse(data)
	var pf parserFailure
	switch {
	case errors.As(err, &pf):
		ps.add(0, 0, "", pf.Error())
		return nil
	case err != nil:
		src.syntaxProblem(ps, err)
		return nil
	}
	if root == nil || len(root.Content) == 0 || isNull(root.Content[0]) {
		ps.add(0, 0, "", "file is empty: only blanks, comments or an empty document")
		return nil
	}
	if second != nil {
		ps.add(second.Line, second.Column, "", "a second YAML document: a file holds one deck and its questions")
	}
	d := &decoder{ps: ps, src: src, tagged: map[[2]int]bool{}}
	d.hazards(root.Content[0], "", 0)
	f := d.file(root.Content[0])
	f.Name = name
	return f
}

// parse parses data into a node tree and makes sure that no second document
// follows. The parser's own limits (nesting depth 10000) apply; an
// unexpected panic of the parser becomes an error.
func parse(data []byte) (root, second *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, second, err = nil, nil, parserFailure{r}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return &doc, nil, nil
	case err != nil:
		return nil, nil, err
	}
	return &doc, &next, nil
}

// parserFailure is a panic of the YAML parser, turned into an error.
type parserFailure struct{ value any }

func (p parserFailure) Error() string {
	return fmt.Sprintf("the YAML parser failed on this file: %v", p.value)
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Style == 0
}

// decoder maps the node tree of one file to quiz values, reporting problems.
type decoder struct {
	ps     *problems
	src    *source
	tagged map[[2]int]bool // positions already reported for a tag
}

func (d *decoder) at(n *yaml.Node, field, msg string) {
	d.ps.add(n.Line, n.Column, field, msg)
}

func (d *decoder) atf(n *yaml.Node, field, format string, args ...any) {
	d.ps.addf(n.Line, n.Column, field, format, args...)
}

// hazards walks the tree and reports anchors, aliases (never following
// them), merge keys, explicit tags and nesting beyond maxDepth. path is the
// field path of n.
func (d *decoder) hazards(n *yaml.Node, path string, depth int) {
	if depth > maxDepth {
		d.atf(n, path, "nested deeper than %d levels", maxDepth)
		return
	}
	if n.Kind == yaml.AliasNode {
		d.atf(n, path, "alias *%s: anchors and aliases are not allowed", clip(n.Value))
		return
	}
	if n.Anchor != "" {
		d.atf(n, path, "anchor &%s: anchors and aliases are not allowed", clip(n.Anchor))
	}
	d.checkTag(n, path)
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if isMergeKey(k) {
				d.at(k, join(path, "<<"), "merge key: anchors, aliases and merge keys are not allowed")
			}
			d.hazards(k, path, depth+1)
			field := path
			if k.Kind == yaml.ScalarNode && !isMergeKey(k) {
				field = join(path, clip(k.Value))
			}
			d.hazards(v, field, depth+1)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.hazards(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
	}
}

// checkTag reports a tag written in the file. The parser marks most of them
// with TaggedStyle; the non-specific tag "!" leaves no trace in the node, so
// the text at the node's position is checked as well (no plain scalar can
// start with "!").
func (d *decoder) checkTag(n *yaml.Node, path string) {
	pos := [2]int{n.Line, n.Column}
	if d.tagged[pos] {
		return
	}
	written := ""
	if off := d.src.offset(n.Line, n.Column); off >= 0 && d.src.data[off] == '!' {
		written = d.src.token(n.Line, n.Column)
	}
	if written == "" && (n.Style&yaml.TaggedStyle != 0 || !standardTag(n.Tag)) {
		written = n.Tag
	}
	if written == "" {
		return
	}
	d.tagged[pos] = true
	d.atf(n, path, "explicit tag %s is not allowed", clip(written))
}

func standardTag(tag string) bool {
	switch tag {
	case "!!str", "!!int", "!!float", "!!bool", "!!null", "!!timestamp", "!!map", "!!seq", "!!merge":
		return true
	}
	return false
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Tag == "!!merge"
}
