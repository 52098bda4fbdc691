package quizgen

import (
	"iter"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// maskToken replaces a hidden name in a description question.
const maskToken = "____"

// hasJapanese reports whether s holds hiragana, katakana or kanji.
func hasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

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

// squash keeps only the letters and digits of s, in lower case: the form
// in which a masked text must no longer contain the name.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// givesAway reports whether text still contains one of the names.
func givesAway(text string, names ...string) bool {
	sq := squash(text)
	for _, n := range names {
		if k := squash(n); k != "" && strings.Contains(sq, k) {
			return true
		}
	}
	return false
}

var (
	reURL   = regexp.MustCompile(`https?://\S+`)
	rePRRef = regexp.MustCompile(`[(（]?#\d+[)）]?`)
	// Notes that only point elsewhere.
	reLinkLabel = regexp.MustCompile(`(?i)^\s*(?:kep|blog|doc|docs|issue|pr|参考|関連|link)\b\s*[:：]`)
)

// boilerplateJa are Japanese words that every stage change uses and that
// say nothing about what a feature does.
var boilerplateJa = strings.NewReplacer(
	"フィーチャーゲート", " ", "フィーチャー", " ", "ゲート", " ", "機能", " ", "デフォルト", " ", "有効化", " ",
	"無効化", " ", "有効", " ", "無効", " ", "昇格", " ", "無条件", " ", "ベータ", " ", "アルファ", " ",
	"安定版", " ", "削除", " ", "非推奨", " ", "導入", " ", "追加", " ",
	"固定", " ", "明示的", " ", "設定", " ", "場合", " ", "今すぐ", " ", "値", " ",
)

// boilerplateEn are such English words; boilerplateStems start them.
var (
	boilerplateEn = map[string]bool{
		"general": true, "availability": true, "generally": true, "available": true, "ga": true, "beta": true,
		"alpha": true, "stable": true, "feature": true, "gate": true, "gates": true, "by": true, "default": true,
		"the": true, "a": true, "an": true, "to": true, "is": true, "are": true, "was": true, "were": true,
		"now": true, "has": true, "have": true, "been": true, "be": true, "and": true, "of": true, "in": true,
		"on": true, "for": true, "with": true, "as": true, "this": true, "it": true,
		"unconditionally": true, "therefore": true, "thus": true, "will": true, "release": true, "releases": true,
		"version": true, "future": true, "longer": true, "flag": true,
	}
	boilerplateStems = []string{"promot", "graduat", "enabl", "disabl", "remov", "deprecat", "introduc", "add"}
)

func boilerplateWord(w string) bool {
	if boilerplateEn[w] {
		return true
	}
	for _, p := range boilerplateStems {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// informative reports whether a text says enough, once its masked names,
// links, PR references and stage boilerplate are set aside, to identify
// something. Hiragana, mostly grammar, does not count.
func informative(text string) bool {
	if reLinkLabel.MatchString(text) {
		return false
	}
	t := strings.ReplaceAll(text, maskToken, " ")
	if strings.Contains(t, "http") {
		t = reURL.ReplaceAllString(t, " ")
	}
	if strings.Contains(t, "#") {
		t = rePRRef.ReplaceAllString(t, " ")
	}
	n := contentLetters(t)
	if hasJapanese(text) {
		return n >= 12
	}
	return n >= 40
}

// contentLetters counts the letters and digits of a text outside masks,
// links, PR references, hiragana and the words every stage change uses.
func contentLetters(text string) int {
	t := strings.ReplaceAll(text, maskToken, " ")
	if strings.Contains(t, "http") {
		t = reURL.ReplaceAllString(t, " ")
	}
	if strings.Contains(t, "#") {
		t = rePRRef.ReplaceAllString(t, " ")
	}
	t = boilerplateJa.Replace(t)
	n := 0
	for _, w := range strings.FieldsFunc(t, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) || unicode.Is(unicode.Hiragana, r)
	}) {
		if lw := strings.ToLower(w); !boilerplateWord(lw) && !reVersionWord.MatchString(lw) {
			n += utf8.RuneCountInString(w)
		}
	}
	return n
}

// reStageWords finds stage words in a text: which stages it mentions.
var stageWords = []struct {
	re     *regexp.Regexp
	stages []changelog.Stage
}{
	{regexp.MustCompile(`(?i)\balpha\b|アルファ`), []changelog.Stage{changelog.StageAlpha}},
	{regexp.MustCompile(`(?i)\bbeta\b|ベータ`), []changelog.Stage{changelog.StageBeta, changelog.StageBetaDefaultOn}},
	// A gate that is locked or can no longer be turned off is at GA.
	{regexp.MustCompile(`(?i)\bga\b|\bstable\b|general(?:ly)? availab|安定版|\block(?:ed|s)?\b|unconditionally enabled|(?:cannot|can't|can not|can no longer) be disabled`), []changelog.Stage{changelog.StageGA}},
	{regexp.MustCompile(`(?i)by default|デフォルト|無条件`), []changelog.Stage{changelog.StageDefaultOn, changelog.StageDefaultOff, changelog.StageBetaDefaultOn}},
	{regexp.MustCompile(`(?i)deprecat|非推奨|廃止予定`), []changelog.Stage{changelog.StageDeprecated}},
	{regexp.MustCompile(`(?i)remov|withdraw|削除|取り下げ`), []changelog.Stage{changelog.StageRemoved}},
}

// mentionedStages lists the stages a text talks about.
func mentionedStages(text string) map[changelog.Stage]bool {
	out := map[changelog.Stage]bool{}
	for _, w := range stageWords {
		if w.re.MatchString(text) {
			for _, s := range w.stages {
				out[s] = true
			}
		}
	}
	return out
}

// alternatives lists other accepted spellings of a gap: the canonical
// name, and the name with its words joined or (for names of up to three
// words and nothing but letters and spaces) apart. A match written as a
// code token ("managed-fields", "legacy-service-account-token-clean-up")
// takes no other form: it is spelt that way in the flag or path it names,
// and a flag --show-managedFields does not exist.
func alternatives(match, name string) []string {
	if codeToken(match) {
		return nil
	}
	seen := map[string]bool{quiz.Normalize(match): true}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		n := quiz.Normalize(s)
		if n == "" || seen[n] || strings.ContainsAny(s, "|{}") {
			return
		}
		seen[n] = true
		out = append(out, s)
	}
	add(name)
	for _, s := range []string{match, name} {
		toks := nameTokens(s)
		add(strings.Join(toks, ""))
		if len(toks) <= 3 && onlyLetters(s) {
			add(strings.Join(toks, " "))
		}
	}
	return out
}

// nameWords are the lower-case words of a name of three letters or more,
// without a plural "s" and without the commonest words.
func nameWords(name string) []string {
	var out []string
	for _, t := range nameTokens(strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ").Replace(name)) {
		w := squash(t)
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		if len(w) >= 3 && !commonWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// commonWords are too frequent in feature names to tell two apart.
var commonWords = map[string]bool{
	"kubelet": true, "node": true, "pod": true, "container": true, "dra": true, "api": true,
	"feature": true, "gate": true, "support": true, "the": true, "and": true, "for": true, "with": true,
	// A metric's unit says nothing of what it measures.
	"total": true, "second": true, "seconds": true, "count": true, "byte": true, "bytes": true, "sum": true,
}

// nameForm is a name prepared for related.
type nameForm struct {
	sq    string   // squash of the name
	words []string // its distinct nameWords, sorted
}

func formOf(name string) nameForm {
	return nameForm{sq: squash(name), words: slices.Compact(slices.Sorted(slices.Values(nameWords(name))))}
}

// related reports whether two names may well mean the same thing: one
// contains the other, or they share more than half the words of the
// shorter one ("Immutable Secrets/ConfigMaps" and "Immutable Secrets and
// ConfigMaps").
func related(a, b string) bool { return relatedForms(formOf(a), formOf(b)) }

func relatedForms(a, b nameForm) bool {
	if a.sq == "" || b.sq == "" {
		return false
	}
	if strings.Contains(a.sq, b.sq) || strings.Contains(b.sq, a.sq) {
		return true
	}
	if len(a.words) == 0 || len(b.words) == 0 {
		return false
	}
	shared := 0
	for _, w := range a.words {
		if _, ok := slices.BinarySearch(b.words, w); ok {
			shared++
		}
	}
	return 2*shared > min(len(a.words), len(b.words))
}

// codeToken reports whether s is one word whose parts a hyphen,
// underscore, dot or slash joins: "managed-fields", "spec.externalIPs".
func codeToken(s string) bool {
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	rs := []rune(s)
	for i := 1; i+1 < len(rs); i++ {
		if joiner(rs[i]) && asciiAlnum(rs[i-1]) && asciiAlnum(rs[i+1]) {
			return true
		}
	}
	return false
}

func onlyLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != ' ' {
			return false
		}
	}
	return true
}

// atWordEdges reports whether text[start:end] neither starts nor ends
// inside a word of Latin letters and digits. A hyphen, underscore, dot or
// slash between the match and a letter or digit joins them into one longer
// word: "managed-fields" in "--show-managed-fields", a gate name in
// "--legacy-service-account-token-clean-up-period" or in an API path.
func atWordEdges(text string, start, end int) bool {
	before, n := utf8.DecodeLastRuneInString(text[:start])
	after, m := utf8.DecodeRuneInString(text[end:])
	if asciiAlnum(before) || asciiAlnum(after) {
		return false
	}
	if joiner(before) {
		if r, _ := utf8.DecodeLastRuneInString(text[:start-n]); asciiAlnum(r) {
			return false
		}
	}
	if joiner(after) {
		if r, _ := utf8.DecodeRuneInString(text[end+m:]); asciiAlnum(r) {
			return false
		}
	}
	return true
}

// joiner reports whether r joins two words into one token: "a-b", "a_b",
// "a.b", "a/b".
func joiner(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' }

func asciiAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// tail returns the last n bytes of s or fewer, starting at a rune.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
