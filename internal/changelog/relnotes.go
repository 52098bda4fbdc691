package changelog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// The release-notes tool of the Kubernetes release team writes the notes of
// one minor release's cycle as one JSON object, keyed by an opaque id (in
// most files the PR number), whose values are notes:
//
//	{"71653": {"text": "...", "markdown": "... ([#71653](…), [@a](…))",
//	           "pr_number": 71653, "author": "a", "sigs": ["network", "node"],
//	           "kinds": ["bug"], "release_version": "1.17.0", ...}, ...}
//
// The markdown of a note is what the CHANGELOG prints for it, suffix
// included, so a note goes through the same entry reading as a CHANGELOG
// bullet and gives the same text, mentions and stage changes. The fields
// say the rest: the kinds (the CHANGELOG lists a note of several kinds
// under each; here it is one entry of the first kind in the CHANGELOG's
// order), the SIG slugs, whether the note asks users to act, and whether
// it is to be left out (do_not_publish). The release is the notes'
// release_version; files that leave it out cannot tell their release,
// and Parse then returns a document without one.

// releaseNotesKeySuffix ends the key of a release-notes document: the
// CHANGELOG of the same release and SIG is another document, with the same
// notes, that may be stored beside it.
const releaseNotesKeySuffix = "/release-notes"

// releaseNote is one note of the release-notes JSON. Fields the parser does
// not need are not decoded.
type releaseNote struct {
	Text           string     `json:"text"`
	Markdown       string     `json:"markdown"`
	PRNumber       flexInt    `json:"pr_number"`
	PRURL          string     `json:"pr_url"`
	Author         string     `json:"author"`
	AuthorURL      string     `json:"author_url"`
	SIGs           flexString `json:"sigs"`
	Kinds          flexString `json:"kinds"`
	ActionRequired bool       `json:"action_required"`
	DoNotPublish   bool       `json:"do_not_publish"`
	ReleaseVersion string     `json:"release_version"`
}

// flexInt is a number written as a JSON number or a string of digits.
type flexInt int

func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*n = flexInt(v)
	return nil
}

// flexString is a list of strings written as a JSON array or, for one
// value, a string.
type flexString []string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*f = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	*f = ss
	return nil
}

// releaseNoteKinds maps the tool's kind labels onto entry kinds, in the
// order of the CHANGELOG's "Changes by Kind": a note of several kinds is
// an entry of the first.
var releaseNoteKinds = []struct {
	label   string
	kind    Kind
	section string
}{
	{"dependency", KindDependency, "Dependency"},
	{"deprecation", KindDeprecation, "Deprecation"},
	{"api-change", KindAPIChange, "API Change"},
	{"feature", KindFeature, "Feature"},
	{"documentation", KindDocumentation, "Documentation"},
	{"failing-test", KindFailingTest, "Failing Test"},
	{"bug", KindBugOrRegression, "Bug or Regression"},
	{"regression", KindBugOrRegression, "Bug or Regression"},
	{"cleanup", KindCleanup, "Other (Cleanup or Flake)"},
	{"flake", KindCleanup, "Other (Cleanup or Flake)"},
}

// releaseNoteKind returns the kind and CHANGELOG heading of a note: an
// urgent upgrade note when it asks users to act, else its first kind in
// the CHANGELOG's order, else uncategorized.
func releaseNoteKind(n releaseNote) (Kind, string) {
	if n.ActionRequired {
		return KindUrgentUpgradeNote, "Urgent Upgrade Notes"
	}
	labels := map[string]bool{}
	for _, k := range n.Kinds {
		k = strings.ToLower(strings.TrimSpace(k))
		labels[strings.TrimPrefix(k, "kind/")] = true
	}
	for _, rk := range releaseNoteKinds {
		if labels[rk.label] {
			return rk.kind, rk.section
		}
	}
	return KindUncategorized, "Uncategorized"
}

var (
	// reCourtesy is the credit some notes end with ("Courtesy of SIG Apps,
	// and SIG Network"), which the CHANGELOG does not print: the SIGs are
	// in the note's fields.
	reCourtesy = regexp.MustCompile(`\n\s*Courtesy of SIG [^\n]*\s*$`)
	rePRURLNum = regexp.MustCompile(`/pull/(\d+)/?$`)
)

// looksLikeJSON reports whether a document opens with a JSON object or
// array: no changelog or article does.
func looksLikeJSON(doc []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(doc, " \t\r\n"), []byte("\uFEFF")), " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// releaseNotes is a release-notes document cut into raw entries.
type releaseNotes struct {
	entries []rawEntry
	release string // from the notes' release_version, or ""
	left    int    // notes marked do_not_publish
}

// parseReleaseNotes reads the release-notes JSON: an object of notes (or,
// as well, an array of them), in the order of the file.
func parseReleaseNotes(doc []byte) (releaseNotes, error) {
	var out releaseNotes
	doc = bytes.TrimPrefix(bytes.TrimLeft(doc, " \t\r\n"), []byte("\uFEFF"))
	dec := json.NewDecoder(bytes.NewReader(doc))
	notJSON := func(err error) error {
		return fmt.Errorf("changelog: not the release-notes JSON: at byte %d: %v: %w", dec.InputOffset(), err, ErrUnknownFormat)
	}
	open, err := dec.Token()
	if err != nil {
		return out, notJSON(err)
	}
	delim, ok := open.(json.Delim)
	if !ok || delim != '{' && delim != '[' {
		return out, notJSON(errors.New("want an object of notes"))
	}
	lines := newLineCounter(doc)
	releases := map[string]int{}
	var releaseOrder []string
	notes := 0
	for dec.More() {
		if delim == '{' {
			if _, err := dec.Token(); err != nil { // the note's id
				return out, notJSON(err)
			}
		}
		line := lines.at(int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out, notJSON(err)
		}
		var n releaseNote
		if len(raw) == 0 || raw[0] != '{' {
			return out, notJSON(fmt.Errorf("line %d: a note is not an object", line))
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			return out, notJSON(fmt.Errorf("line %d: %v", line, err))
		}
		notes++
		if rel, err := NormalizeRelease(n.ReleaseVersion); err == nil {
			if releases[rel] == 0 {
				releaseOrder = append(releaseOrder, rel)
			}
			releases[rel]++
		}
		if n.DoNotPublish {
			out.left++
			continue
		}
		if r, ok := releaseNoteEntry(n, line); ok {
			out.entries = append(out.entries, r)
		}
	}
	if _, err := dec.Token(); err != nil {
		return out, notJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return out, notJSON(errors.New("text after the notes"))
	}
	if notes == 0 {
		return out, fmt.Errorf("changelog: release-notes JSON without notes: %w", ErrNoEntries)
	}
	best := 0
	for _, rel := range releaseOrder {
		if releases[rel] > best {
			out.release, best = rel, releases[rel]
		}
	}
	return out, nil
}

// releaseNoteEntry turns a note into a raw entry whose lines are the
// note's markdown, with the PR suffix the CHANGELOG would print when the
// markdown lacks it. ok is false for a note without text.
func releaseNoteEntry(n releaseNote, line int) (rawEntry, bool) {
	md := n.Markdown
	if strings.TrimSpace(md) == "" {
		md = n.Text
	}
	md = reCourtesy.ReplaceAllString(strings.TrimRight(md, " \t\r\n"), "")
	if strings.TrimSpace(md) == "" {
		return rawEntry{}, false
	}
	pr := int(n.PRNumber)
	if pr <= 0 {
		if m := rePRURLNum.FindStringSubmatch(n.PRURL); m != nil {
			pr, _ = strconv.Atoi(m[1])
		}
	}
	if pr > 0 && !strings.Contains(md, "/pull/"+strconv.Itoa(pr)+")") {
		url := n.PRURL
		if url == "" {
			url = "https://github.com/kubernetes/kubernetes/pull/" + strconv.Itoa(pr)
		}
		sfx := " ([#" + strconv.Itoa(pr) + "](" + url + ")"
		if author := strings.TrimPrefix(strings.TrimSpace(n.Author), "@"); author != "" && !strings.ContainsAny(author, "[]() ") {
			aurl := n.AuthorURL
			if aurl == "" {
				aurl = "https://github.com/" + author
			}
			sfx += ", [@" + author + "](" + aurl + ")"
		}
		md += sfx + ")"
	}
	kind, section := releaseNoteKind(n)
	lines := normalizeDocument([]byte(md))
	lines[0] = strings.TrimSpace(lines[0])
	var sigs []string
	for _, s := range n.SIGs {
		if name := NormalizeSIG(s); name != "" && !containsString(sigs, name) {
			sigs = append(sigs, name)
		}
	}
	return rawEntry{
		kind: kind, section: section, sigs: sigs, lines: lines, line: line,
		action: n.ActionRequired,
	}, true
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// lineCounter turns byte offsets, asked in increasing order, into 1-based
// line numbers.
type lineCounter struct {
	doc  []byte
	off  int
	line int
}

func newLineCounter(doc []byte) *lineCounter { return &lineCounter{doc: doc, line: 1} }

func (c *lineCounter) at(off int) int {
	off = min(off, len(c.doc))
	if off > c.off {
		c.line += bytes.Count(c.doc[c.off:off], []byte{'\n'})
		c.off = off
	}
	// The decoder stands after a note's key, or after the comma before
	// a note of an array: the note starts at the next other byte.
	rest := c.doc[c.off:]
	skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n,:"))
	return c.line + bytes.Count(rest[:skip], []byte{'\n'})
}
