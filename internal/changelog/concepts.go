package changelog

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Concept is a description of a named feature or setting, the material of a
// "which feature is this?" question: mask Term (and Aliases) in Description
// and ask for it.
type Concept struct {
	Term string `json:"term"`
	// TermType is the kind of name the term is in its entry, when known;
	// generators may prefer feature gates and settings over API kinds.
	TermType MentionType `json:"term_type,omitempty"`
	// Aliases are other names of the same thing (a highlight about
	// "MemoryQoS / MemoryReservationPolicy").
	Aliases     []string `json:"aliases,omitempty"`
	Description string   `json:"description"`
	Release     string   `json:"release"`
	SIG         string   `json:"sig,omitempty"`
	Document    string   `json:"document"`
	Entry       string   `json:"entry,omitempty"`
	// Source is "highlight" (a highlight's body), "text" (an entry's text),
	// "note" (an author's note), "definition" (a "Term: …" line or a
	// sentence defining a term) or "intro" (the article's introduction).
	Source string `json:"source"`
}

var (
	// "memory.min: cgroup の…", "TieredReservation: Guaranteed Pod には…"
	reDefLine = regexp.MustCompile(`^\s*- ([A-Za-z][A-Za-z0-9 ./_-]{0,40}?)\s*(?:\([^)]{0,40}\))?\s*:\s+(\S.{9,})$`)
	// "container scope" as a list item with items under it.
	reTermItem = regexp.MustCompile(`^(\s*)- ([A-Za-z][A-Za-z0-9 ./_-]{1,40})$`)
	// "PSI (Pressure Stall Information) は、…", "GetAllocatableResourcesは…"
	reJaDefines = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9./_-]*(?: [A-Za-z0-9./_-]+){0,3})\s*(?:\([^)]{0,60}\))?\s*(?:とは|は)[、,\s]?`)
	// "X という…機能", "KEP-5825 CRI List Streaming の機能です"
	reJaCalled  = regexp.MustCompile(`([A-Za-z][A-Za-z0-9./_-]*(?: [A-Za-z0-9./_-]+){0,3})\s*という`)
	reJaFeature = regexp.MustCompile(`([A-Za-z][A-Za-z0-9./_-]*(?: [A-Za-z0-9./_-]+){0,4})\s*の?機能です`)
	// A sentence in the past tense or telling what must be done tells of a
	// change, not what its subject is: "kube-proxy は…可能になりました",
	// "DRA driver は…付与される必要がある".
	reJaNotDefining = regexp.MustCompile(`(?:た|必要がある|必要があります)\s*[。．.]?\s*$`)
	// A subject that acts ("DRA driver は … を利用できる") is what a
	// sentence tells of, not what it defines.
	reJaCopula = regexp.MustCompile(`(?:です|である)\s*[。．.]?\s*$`)
	reActor    = regexp.MustCompile(`(?i)(?:^|\s)(?:drivers?|controllers?|plugins?|users?|operators?|admins?|administrators?)$`)
	// "Foo is a …", "Foo allows …"
	reEnDefines = regexp.MustCompile(`^(?:The\s+)?([A-Z][A-Za-z0-9./_-]*(?: [A-Za-z][A-Za-z0-9./_-]*){0,3}?)(?: feature| feature gate)? (?:is an?|is the|allows|lets|enables|provides) `)
	reKEPLead   = regexp.MustCompile(`^(?:KEP[- ]?#?\d+\s*:?\s*)+`)
	reURL       = regexp.MustCompile(`https?://\S+`)
	reLinkLabel = regexp.MustCompile(`(?i)^(?:kep|blog|doc|docs|issue|pr|gist|slides?)\s*:`)
	// Labels that look like terms but introduce links or asides.
	notTerms = map[string]bool{
		"kep": true, "blog": true, "doc": true, "docs": true, "http": true, "https": true, "issue": true,
		"pr": true, "note": true, "tl;dr": true, "e.g": true, "example": true, "none": true, "true": true,
		"false": true, "default": true, "kubelet": true, "kubernetes": true, "pod": true, "node": true,
		"kubeadm": true, "kubectl": true, "scheduler": true, "controller": true, "api": true, "api server": true,
		"this": true, "it": true, "the feature": true, "this feature": true, "version": true, "author": true,
	}
)

// Concepts returns description candidates for "feature from description"
// questions: highlight bodies, entry texts and notes under the feature they
// are about, "Term: description" lines, and sentences that define a term.
// The order follows the document.
func (d *Document) Concepts() []Concept {
	var out []Concept
	seen := map[string]bool{}
	add := func(c Concept) {
		c.Term = strings.TrimSpace(c.Term)
		c.Description = strings.TrimSpace(c.Description)
		if !goodTerm(c.Term) || utf8.RuneCountInString(c.Description) < 15 {
			return
		}
		if len(c.Description) <= len(c.Term)+2 || reLinkLabel.MatchString(c.Description) {
			return // nothing but the term, or a link
		}
		if utf8.RuneCountInString(reURL.ReplaceAllString(c.Description, "")) < 15 {
			return
		}
		k := FeatureKey(c.Term) + "\x00" + c.Description
		if seen[k] {
			return
		}
		seen[k] = true
		c.Release, c.SIG, c.Document = d.Release, d.SIG, d.Key
		out = append(out, c)
	}
	typeIn := func(e *Entry, term string) MentionType {
		for _, m := range e.Mentions {
			if FeatureKey(m.Name) == FeatureKey(term) {
				return m.Type
			}
		}
		return ""
	}
	for _, line := range d.Intro {
		for _, c := range definitions(line) {
			c.Source = "intro"
			add(c)
		}
	}
	for i := range d.Entries {
		e := &d.Entries[i]
		focus := e.Focus
		if e.Kind == KindHighlight || e.Kind == KindKnownIssue && e.Title != "" {
			if focus != "" {
				desc := e.Text
				if len(e.Notes) > 0 {
					desc += "\n" + strings.Join(e.Notes, "\n")
				}
				add(Concept{Term: focus, TermType: typeIn(e, focus), Aliases: highlightAliases(e), Description: desc, Entry: e.Key, Source: "highlight"})
			}
		} else if focus != "" {
			add(Concept{Term: focus, TermType: typeIn(e, focus), Description: e.Text, Entry: e.Key, Source: "text"})
		}
		for _, c := range definitions(e.Text) {
			c.Entry, c.TermType = e.Key, typeIn(e, c.Term)
			add(c)
		}
		for _, n := range e.Notes {
			defs := definitions(n)
			term := focus
			if len(defs) > 0 && strings.HasPrefix(n, firstLine(defs[0].Description)) {
				term = defs[0].Term // the note defines its own subject
			}
			if term != "" {
				add(Concept{Term: term, TermType: typeIn(e, term), Description: n, Entry: e.Key, Source: "note"})
			}
			for _, c := range defs {
				c.Entry, c.TermType = e.Key, typeIn(e, c.Term)
				add(c)
			}
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func highlightAliases(e *Entry) []string {
	var out []string
	for _, sc := range e.Stages {
		if sc.Source == "heading" && FeatureKey(sc.Feature) != FeatureKey(e.Focus) {
			out = appendUniqueStr(out, sc.Feature)
		}
	}
	return out
}

func goodTerm(t string) bool {
	if t == "" || utf8.RuneCountInString(t) > 60 || !hasLetter(t) {
		return false
	}
	return !notTerms[strings.ToLower(t)]
}

// definitions finds terms defined in a text: "Term: description" lines,
// list items with items under them, and sentences such as "X は…です",
// "X という…機能", "X is a …".
func definitions(text string) []Concept {
	var out []Concept
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if m := reDefLine.FindStringSubmatch(l); m != nil && nameWords(m[1]) {
			desc := m[2] + children(lines, i)
			out = append(out, Concept{Term: m[1], Description: desc, Source: "definition"})
			continue
		}
		if m := reTermItem.FindStringSubmatch(l); m != nil && nameWords(m[2]) {
			if c := children(lines, i); c != "" {
				out = append(out, Concept{Term: m[2], Description: strings.TrimSpace(c), Source: "definition"})
				continue
			}
		}
		body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		body = reKEPLead.ReplaceAllString(body, "")
		for _, sn := range splitSentences(body) {
			sent := body[sn.start:sn.end]
			rest := strings.TrimSpace(body[sn.start:])
			term := ""
			switch {
			case hasJapanese(sent):
				if m := reJaDefines.FindStringSubmatch(sent); m != nil {
					// "X は…" defines X in the present tense, and an actor
					// only with a copula ("CSI driver は…プラグインです").
					if !reJaNotDefining.MatchString(sent) && (!reActor.MatchString(m[1]) || reJaCopula.MatchString(sent)) {
						term = m[1]
					}
				} else if m := reJaCalled.FindStringSubmatch(sent); m != nil {
					term = m[1]
				} else if m := reJaFeature.FindStringSubmatch(sent); m != nil {
					term = reKEPLead.ReplaceAllString(m[1], "")
				}
			default:
				if m := reEnDefines.FindStringSubmatch(sent); m != nil && enDefinition(m[1], sent) {
					term = m[1]
				}
			}
			if term != "" {
				out = append(out, Concept{Term: term, Description: rest, Source: "definition"})
			}
		}
	}
	return out
}

// notTermWords are words no name is made of: a sentence that opens with
// them ("There is a new …", "Note that this is …", "Port mapping now
// allows …") tells of a change rather than defines its first words.
var notTermWords = map[string]bool{
	"there": true, "here": true, "this": true, "that": true, "these": true, "those": true, "it": true,
	"if": true, "when": true, "once": true, "note": true, "now": true, "also": true, "then": true,
	"add": true, "adds": true, "added": true, "is": true, "are": true, "was": true, "were": true,
}

// reBackRef is a word that points back to what an earlier sentence said:
// "Pod Security admission allows this sysctl …" defines nothing alone.
var reBackRef = regexp.MustCompile(`(?i)\b(?:this|these|those|such)\b`)

// enDefinition reports whether an English sentence that reads "X is a …"
// or "X allows …" defines the term X: a term of words a name is made of,
// in a sentence that does not point back to another.
func enDefinition(term, sent string) bool {
	return nameWords(term) && !reBackRef.MatchString(sent)
}

// nameWords reports whether a term is made of words a name has: "Two
// flags are added to kube-apiserver: …" names nothing.
func nameWords(term string) bool {
	for _, w := range strings.Fields(term) {
		if notTermWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// children returns the lines indented under line i, joined.
func children(lines []string, i int) string {
	ind := indentOf(lines[i])
	var b strings.Builder
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" || indentOf(l) <= ind {
			break
		}
		b.WriteString("\n" + strings.TrimSpace(l))
	}
	return b.String()
}
