package quizgen

import (
	"iter"
	"regexp"
	"strings"
	"unicode"

	"kubequiz/internal/changelog"
)

// category groups names that can stand in for one another as choices.
type category int

const (
	catNone   category = iota // not a feature: a word the parser caught by accident
	catGate                   // feature gates: one CamelCase word
	catNamed                  // features named in words ("Graceful Node Shutdown")
	catFlag                   // command-line flags
	catMetric                 // metric names
	catAPI                    // API group versions
	catConfig                 // configuration fields and API field paths
	catCgroup                 // cgroup interface files
	catIdent                  // other identifiers: API kinds, RPCs, settings the parser could not place
)

// staged reports whether names of a category have stages worth asking
// about; an identifier that its entry does not call a feature has none.
func (c category) staged() bool { return c != catNone && c != catIdent }

// gateLike reports whether a category names something that goes through
// alpha, beta and GA.
func (c category) gateLike() bool { return c == catGate || c == catNamed }

// categoryOf says what kind of name feature is in an entry, from the
// parser's mentions or, failing that, from its shape.
func (r *run) categoryOf(e *changelog.Entry, feature string) category {
	key := changelog.FeatureKey(feature)
	ck := key
	if e != nil {
		ck = e.Key + "\x00" + key
	}
	if c, ok := r.cats[ck]; ok {
		return c
	}
	c := r.categorize(e, feature)
	r.cats[ck] = c
	return c
}

func (r *run) categorize(e *changelog.Entry, feature string) category {
	key := changelog.FeatureKey(feature)
	if e != nil {
		var found *changelog.Mention
		for i := range e.Mentions {
			m := &e.Mentions[i]
			if changelog.FeatureKey(m.Name) == key && (found == nil || found.InNote && !m.InNote) {
				found = m
			}
		}
		if found != nil {
			return r.typeCategory(found.Type, e, feature)
		}
	}
	c := shapeOf(feature)
	if e != nil && c == catIdent && !strings.ContainsAny(feature, " \u3000") && levelStated(e, feature) {
		// "Sysctls graduates to General Availability": one word, but
		// only features go through alpha, beta and GA.
		return catGate
	}
	if e != nil && c == catNone && reFlagAfter.MatchString(wordsAfter(e.Text, feature)) {
		return catFlag // "deprecate cleanup-ipvs flag"
	}
	return c
}

// levelStated reports whether an entry moves feature to alpha, beta or GA.
func levelStated(e *changelog.Entry, feature string) bool {
	k := changelog.FeatureKey(feature)
	for _, sc := range e.Stages {
		if changelog.FeatureKey(sc.Feature) == k && !sc.Revert {
			switch sc.Stage {
			case changelog.StageAlpha, changelog.StageBeta, changelog.StageBetaDefaultOn, changelog.StageGA:
				return true
			}
		}
	}
	return false
}

// wordsAfter returns the text after the first whole-word occurrence of
// name, or "".
func wordsAfter(text, name string) string {
	for _, end := range wholeWords(text, name) {
		return text[end:]
	}
	return ""
}

// occurrences yields where name occurs in text, start and end, in order.
func occurrences(text, name string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; name != ""; {
			j := strings.Index(text[i:], name)
			if j < 0 {
				return
			}
			start, end := i+j, i+j+len(name)
			if !yield(start, end) {
				return
			}
			i = end
		}
	}
}

// wholeWords yields the occurrences of name in text that are words of
// their own (atWordEdges).
func wholeWords(text, name string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for start, end := range occurrences(text, name) {
			if atWordEdges(text, start, end) && !yield(start, end) {
				return
			}
		}
	}
}

var reFlagAfter = regexp.MustCompile(`^["']?\s*flags?\b`)

// typeCategory maps the parser's kind of name to a category.
func (r *run) typeCategory(t changelog.MentionType, e *changelog.Entry, feature string) category {
	switch t {
	case changelog.MentionFeatureGate, changelog.MentionFeature:
		return gateOrNamed(feature)
	case changelog.MentionFlag:
		return catFlag
	case changelog.MentionMetric:
		return catMetric
	case changelog.MentionAPIVersion:
		return catAPI
	case changelog.MentionConfigField:
		return catConfig
	case changelog.MentionFieldPath:
		if last := feature[strings.LastIndexByte(feature, '.')+1:]; last != "" && unicode.IsUpper(firstRune(last)) {
			return catIdent // "fake.NewClientset", "metav1.FieldsV1": code of a Go package
		}
		return catConfig
	case changelog.MentionCgroupFile:
		return catCgroup
	case changelog.MentionComponent:
		return catNone
	}
	// An identifier or a piece of code is a feature only when the entry
	// calls it one: a gate-shaped name in an entry about features or
	// gates, or a name the entry calls a feature gate.
	if e != nil && (shapeOf(feature).gateLike() && r.callsFeature(e) || calledGate(e.Text, feature)) {
		return gateOrNamed(feature)
	}
	if t == changelog.MentionIdentifier && shapeOf(feature).gateLike() {
		return catIdent
	}
	return catNone
}

// callsFeature reports whether an entry's text calls something a feature
// or a gate.
func (r *run) callsFeature(e *changelog.Entry) bool {
	if v, ok := r.featureWords[e.Key]; ok {
		return v
	}
	v := reFeatureWord.MatchString(e.Text)
	r.featureWords[e.Key] = v
	return v
}

func gateOrNamed(name string) category {
	if strings.ContainsAny(name, " \u3000") {
		return phraseCategory(name)
	}
	return catGate
}

// phraseCategory is the category of a name in words: a feature, unless
// its last word says it is a thing of another kind ("export query
// parameter", "EndpointSlice topology field", "kubectl alpha debug
// command"), which goes through no alpha, beta and GA.
func phraseCategory(name string) category {
	f := strings.Fields(name)
	switch last := strings.ToLower(f[len(f)-1]); {
	case last == "parameter" || last == "parameters" || last == "field" || last == "fields" || last == "enum":
		return catConfig
	case last == "flag" || last == "flags":
		return catFlag
	case thingWords[last]:
		return catIdent
	}
	return catNamed
}

// thingWords end names of things that are no features: commands, plugins,
// images and the like.
var thingWords = map[string]bool{
	"command": true, "commands": true, "plugin": true, "plugins": true, "image": true, "images": true, "addon": true,
	"addons": true, "script": true, "scripts": true, "suite": true, "package": true, "endpoint": true, "label": true,
	"labels": true, "annotation": true, "annotations": true, "directory": true, "tarball": true, "entries": true,
}

// shapeOf guesses the category of a name from how it is written.
func shapeOf(name string) category {
	low := strings.ToLower(name)
	switch {
	case !hasLetter(name):
		return catNone
	case strings.HasPrefix(name, "-"):
		return catFlag
	case reGroupVersion.MatchString(name):
		return catAPI // "batch/v2alpha1", "discovery.k8s.io/v1beta1 EndpointSlices"
	case strings.ContainsAny(name, " \u3000"):
		return phraseCategory(name)
	case strings.Contains(name, "/"):
		return catAPI
	case strings.Contains(name, "_") && low == name:
		return catMetric
	case strings.Contains(name, "_"):
		return catNone // a Go or test identifier
	case reCgroupFile.MatchString(name):
		return catCgroup
	case strings.Contains(name, ".") && unicode.IsLower(firstRune(name)):
		return catConfig
	case gateShaped(name):
		return catGate
	case unicode.IsUpper(firstRune(name)):
		// One capitalised word ("OpenStack" aside, "Kubeadm", "Cinder")
		// is a product or a component as often as a gate.
		return catIdent
	}
	return catNone // "etcd", "vSphere": a program or a product
}

// reGroupVersion starts an API group/version.
var reGroupVersion = regexp.MustCompile(`^[a-z][a-z0-9.-]*/v\d+(?:(?:alpha|beta)\d+)?(?:\s|$)`)

// gateShaped reports whether a name is written as a feature gate is:
// UpperCamel with at least two humps ("ImageVolume", "CSIMigration").
func gateShaped(name string) bool {
	if !unicode.IsUpper(firstRune(name)) {
		return false
	}
	for _, r := range name {
		if !asciiAlnum(r) {
			return false
		}
	}
	return len(nameTokens(name)) >= 2
}

// calledGate reports whether a text calls name a feature gate: "the
// Sysctls feature gate", "feature gates Sysctls and RunAsGroup", "the A
// and B feature gates", "feature gates: A, B, and C", "AとBフィーチャーゲート",
// "フィーチャーゲート A, B".
func calledGate(text, name string) bool {
	if name == "" || strings.ContainsAny(name, " \u3000") {
		return false
	}
	for start, end := range wholeWords(text, name) {
		if reGateAfter.MatchString(text[end:]) || reGateBefore.MatchString(tail(text[:start], gateLookBack)) {
			return true
		}
	}
	return false
}

// gateTexts finds, for a name, the texts of a document that may call it a
// feature gate: every text (entry text, title, note) is cut once into its
// words of ASCII letters and digits, and a name is looked up by the word of
// it that the fewest texts hold. A name written whole in a text has each of
// its words as a word of that text, so no text that calls it a gate is
// missed, and the cost of the lookups grows with the document, not with the
// document times its names.
type gateTexts struct {
	texts []string
	words map[string][]int32 // word -> texts holding it, in order, no repeats
}

func newGateTexts(doc *changelog.Document) *gateTexts {
	g := &gateTexts{words: map[string][]int32{}}
	add := func(text string) {
		if text == "" {
			return
		}
		id := int32(len(g.texts))
		g.texts = append(g.texts, text)
		for _, w := range alnumWords(text) {
			if ids := g.words[w]; len(ids) == 0 || ids[len(ids)-1] != id {
				g.words[w] = append(ids, id)
			}
		}
	}
	for i := range doc.Entries {
		e := &doc.Entries[i]
		add(e.Text)
		add(e.Title)
		for _, n := range e.Notes {
			add(n)
		}
	}
	return g
}

// alnumWords returns the runs of ASCII letters and digits in s.
func alnumWords(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !asciiAlnum(rune(s[i])) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && asciiAlnum(rune(s[j])) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// calls reports whether some text of the document calls name a feature
// gate (calledGate).
func (g *gateTexts) calls(name string) bool {
	if name == "" || strings.ContainsAny(name, " \u3000") {
		return false
	}
	var ids []int32
	found := false
	for _, w := range alnumWords(name) {
		list := g.words[w]
		if len(list) == 0 {
			return false // a word of the name is in no text
		}
		if !found || len(list) < len(ids) {
			ids, found = list, true
		}
	}
	for _, id := range ids {
		if calledGate(g.texts[id], name) {
			return true
		}
	}
	return false
}

// gateLookBack is how far before a name reGateBefore looks for "feature
// gates:", in bytes: a list of up to seven names after it fits.
const gateLookBack = 512

var (
	reGateAfter  = regexp.MustCompile(`(?i)^(?:\s*(?:,|、|と|and|or)\s*[A-Za-z][A-Za-z0-9]*){0,6}\s*(?:(?:feature[- ]?gates?|gates?)\b|フィーチャーゲート|ゲート)`)
	reGateBefore = regexp.MustCompile(`(?i)(?:\bfeature[- ]?gates?|フィーチャーゲート)\s*[:：]?\s*(?:[A-Za-z0-9]+\s*(?:,|、|と)?\s*(?:and\s+|or\s+)?){0,6}$`)
)

// stageSubject reports whether a stage change an entry states is about a
// name that can hold a stage: one of a staged category, written whole
// (not inside {…}, where it is a placeholder of a path such as
// "{kubelet_root_dir}/plugins"), and not the first word of a longer noun
// phrase ("OpenStack Cinder CSI migration", "vSphere volume plugin",
// "etcd flags"), which is what changed.
func (r *run) stageSubject(e *changelog.Entry, sc changelog.StageChange) bool {
	cat := r.categoryOf(e, sc.Feature)
	if !cat.staged() {
		return false
	}
	for _, text := range []string{sc.Evidence, e.Text} {
		if inBraces(text, sc.Feature) {
			return false
		}
	}
	// An API version comes before the kinds it serves ("policy/v1beta1
	// PodSecurityPolicy"), which leaves it the subject.
	return cat == catAPI || !modifies(sc.Evidence, sc.Feature)
}

// inBraces reports whether name occurs in text between "{" and "}".
func inBraces(text, name string) bool {
	for start, end := range occurrences(text, name) {
		before := strings.TrimRight(text[:start], " ")
		after := strings.TrimLeft(text[end:], " ")
		if strings.HasSuffix(before, "{") || strings.HasPrefix(after, "}") {
			return true
		}
	}
	return false
}

// thingNouns are nouns a name is often the first word of when it is no
// feature itself: "vSphere volume plugin", "Multi vCenter support".
var thingNouns = map[string]bool{
	"volume": true, "volumes": true, "plugin": true, "plugins": true, "support": true, "driver": true,
	"drivers": true, "migration": true, "controller": true, "controllers": true, "provider": true,
	"providers": true, "integration": true,
}

// modifies reports whether name, where text first writes it, is followed by
// a word that continues a noun phrase: another capitalised name
// ("OpenStack Cinder CSI migration") or a noun such as "volume" or
// "support".
func modifies(text, name string) bool {
	if strings.ContainsAny(name, " \u3000") {
		return false // a name in words is the noun phrase itself
	}
	rest := strings.TrimLeft(wordsAfter(text, name), " ")
	w := rest
	if k := strings.IndexFunc(rest, func(r rune) bool { return !asciiAlnum(r) && r != '-' }); k >= 0 {
		w = rest[:k]
	}
	if w == "" {
		return false // punctuation, the end, or Japanese after the name
	}
	return unicode.IsUpper(firstRune(w)) && strings.IndexFunc(w, unicode.IsLower) >= 0 || thingNouns[strings.ToLower(w)]
}

var (
	// reFeatureWord finds an entry calling a name a feature or a gate.
	reFeatureWord = regexp.MustCompile(`(?i)\bfeature(?:[- ]gates?)?\b|\bgates?\b|ゲート|機能`)
	reCgroupFile  = regexp.MustCompile(`^(?:memory|cpu|cpuset|io|pids|hugetlb|cgroup)\.[a-z_.]+$`)
)
