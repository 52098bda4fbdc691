package quizgen

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// Limits on quoted text, in characters.
const (
	maxClozeText       = 300
	maxDescriptionText = 600
	maxFlashcardBack   = 800
)

// textKind reports whether entries of a kind are about a feature itself
// rather than a fix to it: worth a cloze, and a source of stand-in names.
func textKind(k changelog.Kind) bool {
	switch k {
	case changelog.KindFeature, changelog.KindAPIChange, changelog.KindDeprecation,
		changelog.KindUrgentUpgradeNote, changelog.KindHighlight, changelog.KindUncategorized:
		return true
	}
	return false
}

// describingKind reports whether an entry's text may say what a feature
// does; deprecations and upgrade notes mostly say what to do about it.
func describingKind(k changelog.Kind) bool {
	switch k {
	case changelog.KindFeature, changelog.KindAPIChange, changelog.KindHighlight, changelog.KindUncategorized:
		return true
	}
	return false
}

// changesStage reports whether the entry states a stage change of feature.
func changesStage(e *changelog.Entry, feature string) bool {
	k := changelog.FeatureKey(feature)
	for _, sc := range e.Stages {
		if changelog.FeatureKey(sc.Feature) == k {
			return true
		}
	}
	return false
}

// clip shortens a text to at most max characters, ending at the last
// sentence end before the limit; ok is false when there is none.
func clip(s string, max int) (string, bool) {
	if utf8.RuneCountInString(s) <= max {
		return s, true
	}
	rs := []rune(s)[:max]
	cut := -1
	for i := len(rs) - 1; i > max/3; i-- {
		if rs[i] == '。' || rs[i] == '\n' || rs[i] == '.' && (i+1 >= len(rs) || rs[i+1] == ' ') {
			cut = i + 1
			break
		}
	}
	if cut < 0 {
		return "", false
	}
	return strings.TrimSpace(string(rs[:cut])), true
}

// A name as a list of them holds it: a CamelCase gate, a snake_case
// metric, a --flag, or a dotted or slashed path.
const listName = `(?:--?[A-Za-z][\w-]*|[A-Za-z][\w./-]*[A-Z_./][\w./-]*)`

// Joints of a list: "and", "or", "&" and their Japanese forms, and after
// the gap a comma too. A comma before the gap may end a clause
// ("…for a PodGroup, X runs"), where a name after it is no list.
const (
	listJoint      = `(?:\band\b|\bor\b|&|および|または|と|や)`
	listJointAfter = `(?:,|、|` + listJoint + `)`
)

var (
	// ", and" (a serial comma) joins the last name on either side.
	reListAfter  = regexp.MustCompile("^[\"'`]?\\s*" + listJointAfter + "(?:\\s*" + listJoint + ")?\\s*[\"'`]?" + listName)
	reListBefore = regexp.MustCompile(listName + "[\"'`]?\\s*(?:,\\s*)?" + listJoint + "\\s*[\"'`]?$")
	// A series of single words around the gap is a list of names in
	// any case: "the CEL functions: ____, sum, min, max, …".
	reSeriesAfter  = regexp.MustCompile("^[\"'`]?(?:\\s*,\\s*[\"'`]?[\\w.-]+[\"'`]?){2}\\s*(?:,|" + listJoint + ")")
	reSeriesBefore = regexp.MustCompile("(?:,|" + listJoint + ")\\s*(?:[\"'`]?[\\w.-]+[\"'`]?\\s*,\\s*){2}[\"'`]?$")
)

// inNameList reports whether text[start:end] is one name of a list of
// names ("A, B and C"): a gap there could be any of them.
func inNameList(text string, start, end int) bool {
	return reListAfter.MatchString(text[end:]) || reListBefore.MatchString(text[:start]) ||
		reSeriesAfter.MatchString(text[end:]) || reSeriesBefore.MatchString(text[:start])
}

// clozeKind reports whether names of a category are single distinctive
// tokens a cloze may blank: a gate, a flag, a configuration field, a
// metric, a cgroup file. A feature named in words, an API version or an
// identifier the entry does not call a feature is none.
func clozeKind(c category) bool {
	switch c {
	case catGate, catFlag, catConfig, catMetric, catCgroup:
		return true
	}
	return false
}

// cloze blanks the key term of an entry in one sentence of its text: the
// sentence must name the term once, and say enough else to tell which
// term it is ("Added the ____ flag for configuring TLS key exchange
// mechanism"), not only that something changed ("Promoted the ____
// feature gate to GA"). The question opens with a question in the deck's
// language and quotes the sentence as it is written.
func (r *run) cloze() {
	type gapped struct {
		e                     *changelog.Entry
		feature, match, quote string
		cat                   category
	}
	var cands []gapped
	// templates holds the answers of each sentence with its gap blanked:
	// when two entries read the same ("Graduated ____ to beta.") with
	// other answers, either answer fills either gap, and neither is
	// asked. An entry listed twice (under two PRs) is asked once.
	templates := map[string]map[string]bool{}
	for i := range r.doc.Entries {
		if r.stopped() {
			return
		}
		e := &r.doc.Entries[i]
		feature := focusOf(e)
		if feature == "" {
			continue
		}
		cat := r.categoryOf(e, feature)
		if !clozeKind(cat) || strings.ContainsAny(feature, " \u3000") {
			continue // no single token, or a type or function name rather than a feature
		}
		if !textKind(e.Kind) && !changesStage(e, feature) || !r.usable(e, GenCloze) {
			continue // usable before the templates are counted: a text left out blocks no other
		}
		sent, loc, ok := r.clozeSentence(cleanText(e.Text), feature)
		if !ok {
			continue
		}
		blank := sent[:loc[0]] + quiz.ClozeBlank + sent[loc[1]:]
		if templates[blank] == nil {
			templates[blank] = map[string]bool{}
		}
		templates[blank][changelog.FeatureKey(feature)] = true
		match := sent[loc[0]:loc[1]]
		gap := "{{" + strings.Join(append([]string{match}, alternatives(match, feature)...), "|") + "}}"
		cands = append(cands, gapped{e: e, feature: feature, match: match, quote: sent[:loc[0]] + gap + sent[loc[1]:], cat: cat})
	}
	asked := map[string]bool{}
	for _, c := range cands {
		if r.stopped() {
			return
		}
		blank := quiz.ClozeText(c.quote)
		if len(templates[blank]) > 1 || asked[blank] {
			continue
		}
		asked[blank] = true
		e, feature := c.e, c.feature
		prs := positivePRs(e.PRs)
		l := r.lang // the deck's language; the sentence is quoted as it is
		prompt := l.clozePrompt(c.quote, c.cat, c.cat == catGate && r.isGate(feature))
		if refs := prRefs(prs); refs != "" {
			prompt += " (" + refs + ")"
		}
		expl := r.withHistory(l, l.gapIs(c.match, r.documentLabel(l), prs), feature)
		q := quiz.Question{
			ExtID:       extID(GenCloze, r.doc.Key, e.Key, feature, ""),
			Type:        quiz.Cloze,
			Prompt:      prompt,
			Explanation: expl,
			Source:      r.source(e, kindName(e.Kind)),
			Tags:        []string{feature, GenCloze},
		}
		// One cloze per term: a gate that guards five changes ("… behind
		// the TopologyAwareWorkloadScheduling feature gate") is asked
		// once, from its first entry.
		r.add(Generated{Question: q, Provenance: r.provenance(GenCloze, e, feature, "", "")}, changelog.FeatureKey(feature))
	}
}

// commonEntryWords say nothing of which term an entry is about.
var commonEntryWords = map[string]bool{
	"when": true, "that": true, "which": true, "can": true, "will": true, "also": true, "from": true, "at": true,
	"into": true, "following": true, "enhancements": true, "enhancement": true, "changes": true, "change": true,
	"behavior": true, "behaviour": true, "functionality": true, "users": true, "user": true, "use": true,
	"using": true, "used": true, "new": true, "now": true, "activates": true, "action": true, "required": true,
	"its": true, "their": true, "other": true, "more": true, "no": true, "not": true, "only": true,
	"unconditionally": true, "therefore": true, "thus": true, "release": true, "releases": true, "version": true,
	"versions": true, "future": true, "flag": true, "longer": true, "extended": true, "api": true, "kubernetes": true,
	// Where a change is made and what a stage statement says of it
	// narrow little.
	"kube": true, "controller": true, "manager": true, "apiserver": true, "kubelet": true, "scheduler": true,
	"proxy": true, "kubectl": true, "kubeadm": true, "kept": true, "keep": true, "level": true, "switched": true,
	"turned": true, "off": true, "available": true,
	// That a name is a metric, of what type and at what stability level,
	// says nothing of what it measures.
	"metric": true, "metrics": true, "gauge": true, "histogram": true, "counter": true, "summary": true, "stability": true,
	"mark": true, "marked": true,
}

// reVersionWord is a word of a version: "v1", "22", "v1beta1".
var reVersionWord = regexp.MustCompile(`^(?:v?\d+(?:(?:alpha|beta)\d*)?)$`)

// clozeSentence finds the sentence of text a cloze quotes: the first that
// names the term once, as a word of its own and not as one of a list of
// names, with no brace (gaps are written in braces), no longer than
// maxClozeText, and that with the term blanked neither gives it away nor
// says too little to tell it (identifying). loc is where the term is in
// the sentence.
func (r *run) clozeSentence(text, feature string) (sent string, loc []int, ok bool) {
	for _, span := range sentenceSpans(text) {
		sent := strings.TrimSpace(text[span[0]:span[1]])
		if strings.ContainsAny(sent, "{}") || utf8.RuneCountInString(sent) > maxClozeText {
			continue
		}
		locs := r.maskPattern(feature).FindAllStringIndex(sent, -1)
		if len(locs) != 1 || !atWordEdges(sent, locs[0][0], locs[0][1]) || inNameList(sent, locs[0][0], locs[0][1]) {
			continue
		}
		blank := sent[:locs[0][0]] + quiz.ClozeBlank + sent[locs[0][1]:]
		if r.givesAwayTokens(blank, []string{feature}) || !identifying(blank) || strings.HasSuffix(sent, ":") || strings.HasSuffix(sent, "：") ||
			maskInPath(strings.ReplaceAll(blank, quiz.ClozeBlank, maskToken)) {
			continue // given away, telling too little, introducing a list it does not hold, or a value in a path
		}
		// The sentences before it, when they fit and do not name the
		// term, set the scene: "The section is omitted … when ____ is
		// absent" says more after the sentence that adds the section.
		if lead := strings.TrimSpace(text[:span[0]]); lead != "" && !strings.Contains(lead, "\n") &&
			utf8.RuneCountInString(lead)+1+utf8.RuneCountInString(sent) <= maxClozeText &&
			len(r.maskPattern(feature).FindAllStringIndex(lead, -1)) == 0 && !r.givesAwayTokens(lead+" "+blank, []string{feature}) {
			sep := " "
			if strings.HasSuffix(lead, "。") {
				sep = ""
			}
			shift := len(lead) + len(sep)
			return lead + sep + sent, []int{locs[0][0] + shift, locs[0][1] + shift}, true
		}
		return sent, locs[0], true
	}
	return "", nil, false
}

// sentenceSpans cuts a text into sentences: at "。", at a line break, and
// at a full stop followed by a space and no lower-case letter (not "e.g.
// the").
func sentenceSpans(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); i++ {
		end := -1
		switch {
		case text[i] == '\n':
			end = i
		case strings.HasPrefix(text[i:], "。"):
			end = i + len("。")
		case text[i] == '.' && i+1 < len(text) && text[i+1] == ' ' && !reAbbrevEnd.MatchString(text[:i+1]) &&
			(i+2 >= len(text) || !unicode.IsLower(rune(text[i+2]))):
			end = i + 1
		}
		if end < 0 {
			continue
		}
		if strings.TrimSpace(text[start:end]) != "" {
			out = append(out, [2]int{start, end})
		}
		start = end
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// identifying reports whether a sentence with its term blanked still says
// enough to tell which term it is: words beyond those every stage change
// uses (see informative) and beyond the commonest ones of any entry,
// fewer than a description needs.
func identifying(blanked string) bool {
	n := 0
	for _, w := range strings.FieldsFunc(blanked, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if lw := strings.ToLower(w); !commonEntryWords[lw] && !reVersionWord.MatchString(lw) {
			n += contentLetters(w)
		}
	}
	if hasJapanese(blanked) {
		return n >= 10
	}
	return n >= 20
}

// concept is a changelog.Concept with what the generators need alongside.
type concept struct {
	changelog.Concept
	e       *changelog.Entry // nil for an article's introduction
	ordinal int              // among concepts of the same entry, term and source
	cat     category
}

// concepts lists the document's concepts with a usable term, in document
// order. Flashcards take any of them; description questions need a
// category with other names to offer as choices.
func (r *run) concepts() []concept {
	if r.cons != nil {
		return *r.cons
	}
	out := r.findConcepts()
	r.cons = &out
	return out
}

func (r *run) findConcepts() []concept {
	var out []concept
	count := map[string]int{}
	for _, c := range r.doc.Concepts() {
		if r.stopped() {
			return nil
		}
		k := c.Entry + "\x00" + changelog.FeatureKey(c.Term) + "\x00" + c.Source
		n := count[k]
		count[k]++
		if !goodTerm(c.Term) {
			continue
		}
		var e *changelog.Entry
		if c.Entry != "" {
			e = r.entries[c.Entry]
		}
		cat := r.categoryOf(e, c.Term)
		if c.TermType != "" {
			cat = r.typeCategory(c.TermType, e, c.Term)
		}
		out = append(out, concept{Concept: c, e: e, ordinal: n, cat: cat})
	}
	return out
}

// reVague starts terms that point at something instead of naming it.
var reVague = regexp.MustCompile(`(?i)^(?:the|this|these|that|those|it|its|a|an)\b`)

func goodTerm(t string) bool {
	t = strings.TrimSpace(t)
	return t != "" && utf8.RuneCountInString(t) <= 60 && !reVague.MatchString(t) &&
		!strings.ContainsAny(t, "|{}\n")
}

// reDescribes finds notes that explain what something is or does.
var reDescribes = regexp.MustCompile(`機能です|機能で|仕組み|とは|\bis an? |\ballows\b|\blets\b|\benables\b`)

// reSubject follows a term that opens a sentence about it: "X は…",
// "X (…) とは", "X is …".
var reSubject = regexp.MustCompile(`^\s*(?:\([^)]{0,60}\)\s*)?(?:とは|は|\s(?:is|are|allows|lets|returns|provides)\b)`)

// definesTerm reports whether a text opens with the term as its subject.
func definesTerm(text, term string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), term)
	return ok && reSubject.MatchString(rest)
}

// conceptKind is the source.kind of a question built on a concept.
func conceptKind(c concept) string {
	switch {
	case c.Source == "highlight":
		return kindName(changelog.KindHighlight)
	case c.Source == "text" && c.e != nil:
		return kindName(c.e.Kind)
	}
	return kindConcept
}

func (r *run) conceptSource(c concept) quiz.Source {
	return r.source(c.e, conceptKind(c))
}

func (r *run) conceptProvenance(gen string, c concept, text string) Provenance {
	p := Provenance{Document: r.doc.Key, Generator: gen, Feature: c.Term, SourceText: text}
	if c.e != nil {
		p.Entry = c.e.Key
		p.PRs = positivePRs(c.e.PRs)
	}
	return p
}

// featureFromDescription masks a feature's name in a description and asks
// which feature it is. The wrong choices are other features of the same
// release and SIG, of the same kind of name, none of them named in the
// description.
func (r *run) featureFromDescription() {
	for _, c := range r.concepts() {
		if r.stopped() {
			return
		}
		switch c.Source {
		case "text":
			if c.e == nil || !describingKind(c.e.Kind) || !c.cat.staged() {
				continue // an entry about a type or a function says little about a feature
			}
		case "note":
			if c.e == nil || !reDescribes.MatchString(c.Description) && len(r.maskLocs(c.Description, c.Term)) == 0 {
				continue
			}
		case "highlight", "definition", "intro":
		default:
			continue
		}
		if c.cat == catNone {
			continue
		}
		desc, ok := clip(cleanText(c.Description), maxDescriptionText)
		if !ok {
			continue
		}
		names := append([]string{c.Term}, c.Aliases...)
		// Only whole words are masked; a name left inside a longer word
		// still gives the answer away, and the text is not used.
		masked := r.mask(desc, c.Term)
		for _, n := range c.Aliases {
			// An alias written with another first letter is another
			// identifier ("MemoryQoS / MemoryReservationPolicy" heads a
			// text about the memoryReservationPolicy field): left as it
			// is, it gives the question away below, and none is made.
			masked = r.maskSameCase(masked, n)
		}
		if !informative(masked) || r.givesAwayTokens(masked, names) || reFixOpens.MatchString(desc) || maskInPath(masked) || maskInList(masked) {
			continue // telling too little or too much, a bug fix, a name in a path or in a list of names
		}
		id := extID(GenFeatureFromDescription, r.doc.Key, c.Entry, c.Term, c.Source+"#"+strconv.Itoa(c.ordinal))
		wrong, ok := r.siblingDistractors(c, names, desc, id)
		if !ok {
			wrong = r.featureDistractors(c, names, desc, id)
		}
		if len(wrong) < 3 && !(ok && len(wrong) == 2) {
			continue
		}
		choices := append([]string{c.Term}, wrong...)
		slices.SortFunc(choices, func(a, b string) int {
			return cmp.Compare(hash64(id, "order", changelog.FeatureKey(a)), hash64(id, "order", changelog.FeatureKey(b)))
		})
		l := r.lang // the deck's language; the description is quoted as it is
		var prs []int
		if c.e != nil {
			prs = positivePRs(c.e.PRs)
		}
		expl := r.withHistory(l, l.answerIs(c.Term, r.documentLabel(l), prs), c.Term)
		q := quiz.Question{
			ExtID:       id,
			Type:        quiz.SingleChoice,
			Prompt:      l.describePrompt(masked, c.cat),
			Choices:     choices,
			Answer:      c.Term,
			Explanation: expl,
			Source:      r.conceptSource(c),
			Tags:        []string{c.Term, GenFeatureFromDescription},
		}
		// One question per term and document: a feature that several
		// entries describe (TopologyAwareWorkloadScheduling "guarded by
		// the ____ feature gate" in five 1.36 entries) is asked once, from
		// the first description that makes a question.
		r.add(Generated{Question: q, Provenance: r.conceptProvenance(GenFeatureFromDescription, c, desc)},
			changelog.FeatureKey(c.Term))
	}
}

// givesAwayTokens reports whether a masked text still identifies one of
// the names: the whole name, or every word of a name of several words
// ("images" and "volumes" for ImageVolume). Words common to many names
// (see commonWords) are left out when two others remain: "adminAccess"
// gives DRAAdminAccess away without "DRA", which every DRA gate shares.
func (r *run) givesAwayTokens(masked string, names []string) bool {
	if givesAway(masked, names...) {
		return true
	}
	sq := squash(masked)
	for _, n := range names {
		toks := nameTokens(strings.NewReplacer("_", " ", "-", " ", ".", " ", "/", " ").Replace(n))
		if leadsName(sq, toks) {
			return true
		}
		var words, rare []string
		for _, t := range toks {
			if w := squash(t); len(w) >= 3 {
				if len(w) > 3 {
					w = strings.TrimSuffix(w, "s") // "taint" tells "Taints"
				}
				words = append(words, w)
				if !commonWords[w] {
					rare = append(rare, w)
				}
			}
		}
		if len(rare) >= 2 {
			words = rare
		}
		if len(words) < 2 {
			continue
		}
		all := true
		for _, w := range words {
			if !strings.Contains(sq, w) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// leadsName reports whether a squashed text holds the first three words
// or more of a longer name, twelve letters at least: "RestartAllContainers
// アクション" tells RestartAllContainersOnContainerExits.
func leadsName(sq string, toks []string) bool {
	if len(toks) < 4 {
		return false
	}
	lead := ""
	for i, t := range toks[:len(toks)-1] {
		lead += squash(t)
		if i >= 2 && len(lead) >= 12 && strings.Contains(sq, lead) {
			return true
		}
	}
	return false
}

// poolName is a feature an entry of the document is about, a candidate
// wrong choice for description questions.
type poolName struct {
	name string
	key  string // featureKey
	form nameForm
	e    *changelog.Entry
	cat  category
}

// namePool lists, once per run, the focus and the stage-changed features
// of every entry, in document order.
func (r *run) namePool() []poolName {
	if r.pool != nil {
		return *r.pool
	}
	var out []poolName
	docRel, _ := changelog.NormalizeRelease(r.doc.Release)
	add := func(e *changelog.Entry, name string) {
		if name == "" || !goodTerm(name) {
			return
		}
		out = append(out, poolName{name: name, key: changelog.FeatureKey(name), form: formOf(name), e: e, cat: r.categoryOf(e, name)})
	}
	for i := range r.doc.Entries {
		if r.stopped() {
			return nil
		}
		e := &r.doc.Entries[i]
		add(e, focusOf(e))
		for _, sc := range e.Stages {
			if rel, err := changelog.NormalizeRelease(sc.Release); err == nil && rel == docRel && !sc.Revert {
				add(e, sc.Feature)
			}
		}
	}
	r.pool = &out
	return out
}

// reFixOpens opens a bug fix, which tells what went wrong, not what a
// feature is.
var reFixOpens = regexp.MustCompile(`(?i)^\s*(?:[\w.-]+:\s+)?fix(?:e[sd])?\b`)

// maskInPath reports whether a mask stands inside a path or a
// placeholder ("kubernetes.io/cluster/<____>"): the name there is a value,
// not what the text describes.
func maskInPath(masked string) bool {
	for i := 0; ; {
		j := strings.Index(masked[i:], maskToken)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(maskToken)
		if start > 0 && strings.IndexByte("</{", masked[start-1]) >= 0 || end < len(masked) && strings.IndexByte(">/}", masked[end]) >= 0 {
			return true
		}
		i = end
	}
}

// maskInList reports whether a mask is one of a list of names ("A, ____,
// C & D are promoted"): any name of the list fits it as well.
func maskInList(masked string) bool {
	for i := 0; ; {
		j := strings.Index(masked[i:], maskToken)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(maskToken)
		if inNameList(masked, start, end) {
			return true
		}
		i = end
	}
}

// siblingDistractors returns, for a term defined in a list of its entry
// ("CPU Manager (static policy): …", "Memory Manager: …", "Topology
// Manager: …"), the other terms of the list: names of its kind, which
// features of the document are not. ok is false when the term is defined
// alone; with one other term only there are too few, and none is
// returned.
func (r *run) siblingDistractors(c concept, names []string, desc, seed string) (wrong []string, ok bool) {
	if c.Source != "definition" || c.e == nil {
		return nil, false
	}
	answers := make([]nameForm, len(names))
	for i, n := range names {
		answers[i] = formOf(n)
	}
	descSq := squash(desc)
	seen := map[string]bool{changelog.FeatureKey(c.Term): true}
	type pick struct {
		hash uint64
		name string
	}
	var picks []pick
	siblings := 0
	for _, o := range r.concepts() {
		k := changelog.FeatureKey(o.Term)
		if o.e != c.e || o.Source != "definition" || seen[k] {
			continue
		}
		seen[k] = true
		siblings++
		if !sameShape(c.Term, o.Term) {
			continue // "CPU Manager" is no choice for a scope
		}
		f := formOf(o.Term)
		if strings.Contains(descSq, f.sq) || slices.ContainsFunc(answers, func(a nameForm) bool { return relatedForms(a, f) }) {
			continue
		}
		picks = append(picks, pick{hash64(seed, k), o.Term})
	}
	if siblings == 0 || len(picks) < 2 && unicode.IsUpper(firstRune(c.Term)) {
		return nil, false // defined alone, or a feature the document's others stand in for
	}
	slices.SortFunc(picks, func(a, b pick) int { return cmp.Compare(a.hash, b.hash) })
	for _, p := range picks[:min(3, len(picks))] {
		wrong = append(wrong, p.name)
	}
	return wrong, true
}

// sameShape reports whether two terms of a list are names of one kind: one
// word each, or words ending alike ("CPU Manager", "Memory Manager").
func sameShape(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) == 1 || len(fb) == 1 {
		return len(fa) == len(fb)
	}
	return strings.EqualFold(fa[len(fa)-1], fb[len(fb)-1])
}

// featureDistractors returns up to three other features of the concept's
// release and SIG that cannot be the answer: of the same category, not
// related to the answer's names or to one another (see related), and not
// mentioned in the description. Which three is decided by a hash of seed.
func (r *run) featureDistractors(c concept, names []string, desc, seed string) []string {
	var sigs []string
	if r.doc.SIG == "" && c.e != nil {
		sigs = c.e.SIGs
	}
	answers := make([]nameForm, len(names))
	for i, n := range names {
		answers[i] = formOf(n)
	}
	descSq := squash(desc)
	type pick struct {
		hash uint64
		p    *poolName
	}
	var picks []pick
	seen := map[string]bool{}
	pool := r.namePool()
	for i := range pool {
		p := &pool[i]
		if seen[p.key] || p.cat != c.cat || p.form.sq == "" {
			continue
		}
		if len(sigs) > 0 && (len(p.e.SIGs) == 0 || !shareAny(sigs, p.e.SIGs)) {
			continue
		}
		if c.cat == catIdent && !textKind(p.e.Kind) {
			continue // names from bug fixes make poor stand-ins for a setting or an API
		}
		seen[p.key] = true
		if strings.Contains(descSq, p.form.sq) || slices.ContainsFunc(answers, func(a nameForm) bool { return relatedForms(a, p.form) }) {
			continue
		}
		picks = append(picks, pick{hash64(seed, p.key), p})
	}
	slices.SortFunc(picks, func(a, b pick) int { return cmp.Compare(a.hash, b.hash) })
	// Three, no two of them names of one thing.
	var out []string
	var forms []nameForm
	for _, pk := range picks {
		if len(out) == 3 {
			break
		}
		if !slices.ContainsFunc(forms, func(f nameForm) bool { return relatedForms(f, pk.p.form) }) {
			out = append(out, pk.p.name)
			forms = append(forms, pk.p.form)
		}
	}
	return out
}

func shareAny(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// backKey identifies a description by its opening, so that two clips of
// one text count as the same.
func backKey(s string) string {
	rs := []rune(squash(s))
	return string(rs[:min(len(rs), 60)])
}

// reVersionBump finds a text that only builds or moves to a version
// ("Build etcd:3.4.13-2 image", "Update to debian-base:buster-v1.3.0"): it
// says nothing of what its term is.
var reVersionBump = regexp.MustCompile(`(?i)^\s*(?:build|bump|update|upgrade)(?:s|d|ed)?\b[^.]*\d+\.\d+`)

// flashcards turn definitions, highlights and descriptive notes into "what
// is X?" cards, one per term and one per description.
// reListMarker is a list item's marker at the start of a text.
var reListMarker = regexp.MustCompile(`^(?:[-*•・]|\d+[.)])\s+`)

// reReason is a text that gives a reason rather than says what something
// is: "…ためです。", "Because …".
var reReason = regexp.MustCompile(`(?:ため|から)(?:です|でした)。?$|^(?i:because|this is because)\b`)

// cardBack makes the back of a flashcard from a description: without a
// list item's marker, clipped at a sentence, and without a last sentence
// that introduces a list the text does not hold ("…queues each Pod:").
// A description that only gives a reason makes no back.
func cardBack(desc string) (string, bool) {
	back := reListMarker.ReplaceAllString(cleanText(desc), "")
	back, ok := clip(back, maxFlashcardBack)
	if !ok {
		return "", false
	}
	if trimmed := strings.TrimRight(back, ":："); len(trimmed) < len(back) {
		back = strings.TrimSpace(trimmed[:sentenceEnd(trimmed)])
	}
	if back == "" || reReason.MatchString(back) {
		return "", false
	}
	return back, true
}

// sentenceEnd is the byte offset just after the last sentence end of s
// that is followed by more text ("。", a line break, or a full stop and a
// space, not one of an abbreviation such as "e.g."), or 0.
func sentenceEnd(s string) int {
	for i := len(s) - 1; i > 0; i-- {
		switch {
		case strings.HasPrefix(s[i:], "。") && i+len("。") < len(s):
			return i + len("。")
		case s[i] == '\n', s[i] == ' ' && s[i-1] == '.' && !reAbbrevEnd.MatchString(s[:i]):
			return i
		}
	}
	return 0
}

// reAbbrevEnd ends a text with an abbreviation whose full stop ends no
// sentence.
var reAbbrevEnd = regexp.MustCompile(`(?i)(?:^|[^\w.])(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|esp)\.$`)

func (r *run) flashcards() {
	backs := map[string]bool{}
	// A highlight that opens with a definition of another term (a PSI
	// explanation under KubeletPSI) leaves the card to that term.
	defined := map[string]bool{}
	for _, c := range r.concepts() {
		if c.Source == "definition" {
			defined[backKey(c.Description)] = true
		}
	}
	for _, c := range r.concepts() {
		if r.stopped() {
			return
		}
		if c.Source == "highlight" && defined[backKey(c.Description)] {
			continue
		}
		if c.e != nil && c.e.Kind == changelog.KindKnownIssue {
			continue // it tells what goes wrong with the term, not what the term is
		}
		switch c.Source {
		case "definition", "highlight", "intro":
		case "note":
			if !reDescribes.MatchString(c.Description) && !definesTerm(c.Description, c.Term) {
				continue
			}
		default:
			continue
		}
		back, ok := cardBack(c.Description)
		if !ok || !informative(r.mask(back, c.Term)) || reVersionBump.MatchString(back) {
			continue
		}
		if backs[backKey(back)] || r.seen[GenFlashcard+"\x00"+changelog.FeatureKey(c.Term)] {
			continue // the same text under another name, or a term already asked
		}
		backs[backKey(back)] = true
		l := r.lang
		var prs []int
		if c.e != nil {
			prs = positivePRs(c.e.PRs)
		}
		expl := r.withHistory(l, l.flashExplanation(c.Term, r.documentLabel(l), prs), c.Term)
		q := quiz.Question{
			ExtID:       extID(GenFlashcard, r.doc.Key, c.Entry, c.Term, ""),
			Type:        quiz.Flashcard,
			Prompt:      l.flashFront(c.Term),
			Answer:      back,
			Explanation: expl,
			Source:      r.conceptSource(c),
			Tags:        []string{c.Term, GenFlashcard},
		}
		r.add(Generated{Question: q, Provenance: r.conceptProvenance(GenFlashcard, c, back)}, changelog.FeatureKey(c.Term))
	}
}
