package changelog

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

var (
	// "GA / Stable: KubeletPSI", "Alpha: Pod Level Resource Managers"
	reTitleStage = regexp.MustCompile(`(?i)^(ga\s*/\s*stable|stable\s*/\s*ga|ga|stable|beta|alpha|deprecated|deprecation|removed|removal|非推奨|削除)\s*:\s*(.+)$`)
	reNameSplit  = regexp.MustCompile(`\s+/\s+|、|,\s+`)
	reItemPR     = regexp.MustCompile(`\(#(\d{4,7})\)`)
	reLatinTitle = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ./'&-]*$`)
	// "CSI Migration Beta"
	reTitleStageSuffix = regexp.MustCompile(`(?i)^(.+?)\s+(ga|stable|beta|alpha)$`)
)

// entryAnalyzer finds the mentions and stage changes of one entry.
type entryAnalyzer struct {
	release   string
	minor     int
	defaultPR int
}

func (a entryAnalyzer) ctx(context []string, all bool) analysisCtx {
	return analysisCtx{release: a.release, minor: a.minor, defaultPR: a.defaultPR, context: context, contextAll: all}
}

func (a entryAnalyzer) analyze(e *Entry, r rawEntry, text plainText, notes []plainText) {
	textMs := extractMentions(text)
	var events []event
	var sources []string
	add := func(evs []event, source string) {
		for _, ev := range evs {
			events = append(events, ev)
			sources = append(sources, source)
		}
	}

	// Highlights: the title names the feature and may state its stage; lists
	// under a stage header ("GA に昇格:") state stages for their items.
	var heading []string
	if r.prose && r.title != "" {
		var hev []event
		heading, hev = a.titleFeatures(r.title, firstOr(r.refs, 0))
		var kept []event
		for _, ev := range hev {
			if !a.datedEarlier(ev.feature, text, notes) {
				kept = append(kept, ev)
			}
		}
		add(kept, "heading")
		add(a.listStages(r.lines, firstOr(r.refs, a.defaultPR)), "text")
	}

	context := heading
	if len(context) == 0 {
		context = singleGate(textMs)
	}
	add(analyzeStages(text, textMs, a.ctx(context, len(heading) > 0)), "text")

	// The focus from the text and title comes first: notes are read with it
	// as their subject when they name nothing. A titled section is about
	// what its title names, or about nothing in particular.
	focus := focusOf(events, heading, textMs)
	if r.prose && r.title != "" {
		focus = ""
		if len(heading) > 0 {
			focus = heading[0]
		}
	}
	var noteMs [][]mention
	for _, n := range notes {
		ms := extractMentions(n)
		noteMs = append(noteMs, ms)
		var ctxNames []string
		if focus != "" {
			ctxNames = []string{focus}
		}
		add(analyzeStages(n, ms, a.ctx(ctxNames, true)), "note")
	}
	if focus == "" && !(r.prose && r.title != "") {
		focus = focusFallback(events, noteMs, text.text, textMs)
	}

	e.Mentions = collectMentions(textMs, noteMs, events)
	gates := map[string]string{}
	for _, m := range e.Mentions {
		if m.Type == MentionFeatureGate {
			gates[strings.ToLower(m.Name)] = m.Name
		}
	}
	canon := func(name string) string {
		if g, ok := gates[strings.ToLower(strings.TrimSuffix(name, "s"))]; ok && strings.HasSuffix(name, "s") {
			return g
		}
		return name
	}
	e.Focus, _ = usableName(canon(focus))

	seen := map[string]bool{}
	for i, ev := range events {
		name, ok := usableName(canon(ev.feature))
		if !ok {
			continue
		}
		for _, st := range splitStage(ev) {
			sc := StageChange{
				Feature: name, Stage: st, Release: ev.release, PR: ev.pr,
				Revert: ev.revert, Source: sources[i], Evidence: ev.evidence,
			}
			k := FeatureKey(sc.Feature) + "|" + string(sc.Stage) + "|" + sc.Release + "|" + sc.Source
			if seen[k] {
				continue
			}
			seen[k] = true
			e.Stages = append(e.Stages, sc)
		}
	}
}

// usableName returns the name a fact is about as a reader would name the
// feature, or false when it is none: a verb that opens an entry is no part
// of a name ("Bumped distroless-iptables"); a group, version and kind
// written as one path is the versioned kind ("storage.k8s.io/v1alpha1
// VolumeAttachment"); a name of words with an API field path or a
// resource path in it ("DRA PodGroup spec.resourceClaims"), or of more
// words than a name has, is a fragment of a sentence.
func usableName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", false
	}
	if m := reVersionedKindPath.FindStringSubmatch(name); m != nil {
		return m[1] + " " + m[2], true
	}
	words := strings.Fields(name)
	if len(words) > 1 && reLeadVerb.MatchString(words[0]) {
		words = words[1:]
		name = strings.Join(words, " ")
	}
	if len(words) > 1 && reTrailVerb.MatchString(words[len(words)-1]) {
		// "CSIMigrationGCE upgraded to GA": the verb ends the subject.
		words = words[:len(words)-1]
		name = strings.Join(words, " ")
	}
	if len(words) > 6 {
		return "", false
	}
	if len(words) > 1 {
		for _, w := range words {
			if w = strings.Trim(w, "`'\".,:;()"); isFieldPath(w) || apiPath(w) || notNameWord[strings.ToLower(w)] {
				return "", false
			}
		}
	}
	return name, true
}

// notNameWord are words no name is made of: a subject with one of them is
// a piece of a sentence ("Feature gates that graduated …", "Please note
// that this flag …", "The Kubelet feature gate is now enabled …").
var notNameWord = map[string]bool{
	"this": true, "that": true, "these": true, "those": true, "is": true, "are": true, "was": true,
	"were": true, "into": true, "please": true, "note": true,
}

// apiPath reports whether a word is a path of the API or of files
// ("resourceclaims/binding", "/stats/container"), not a group/version nor
// names joined by a slash ("Secrets/ConfigMaps").
func apiPath(w string) bool {
	if !strings.Contains(w, "/") || reAPIVersion.MatchString(w) {
		return false
	}
	for _, seg := range strings.Split(w, "/") {
		if seg == "" || !isUpper(seg[0]) {
			return true
		}
	}
	return false
}

var (
	// reVersionedKindPath is "group/version/Kind".
	reVersionedKindPath = regexp.MustCompile(`^([a-z0-9][a-z0-9.-]*/v\d+(?:(?:alpha|beta)\d+)?)/([A-Z][A-Za-z0-9]+)$`)
	// reLeadVerb is a verb that opens an entry, caught before a name.
	// reTrailVerb is the past tense of such a verb, which no name ends
	// with.
	reTrailVerb = regexp.MustCompile(`^(?:[Bb]ump|[Uu]pdat|[Uu]pgrad|[Aa]dd|[Rr]emov|[Pp]romot|[Gg]raduat|[Dd]eprecat|[Ee]nabl|[Dd]isabl|[Mm]ov|[Ii]ntroduc|[Ii]mplement|[Cc]hang|[Ff]ix|[Rr]enam|[Ss]witch|[Ll]ock)ed$`)
	reLeadVerb  = regexp.MustCompile(`^(?:[Bb]ump|[Uu]pdat|[Uu]pgrad|[Aa]dd|[Rr]emov|[Pp]romot|[Gg]raduat|[Dd]eprecat|[Ee]nabl|[Dd]isabl|[Mm]ov|[Ii]ntroduc|[Ii]mplement|[Cc]hang|[Ff]ix|[Rr]enam|[Ss]witch|[Ll]ock)(?:e|es|ed|s|ing)?$`)
)

// splitStage returns the facts one folded event states: its stage, or for
// a level stated with a default state both, the level first; after a
// revert, only the default the revert brought back. "Promoted to
// beta and enabled by default" is beta and on by default; "graduated to
// GA, enabled by default" is GA and on by default; "promoted to beta, and
// it is turned off by default" is beta and off by default. A Timeline
// folds them back (StageBetaDefaultOn).
func splitStage(ev event) []Stage {
	switch {
	case ev.stage == StageBetaDefaultOn && ev.revert:
		// "#137946 で revert され、 v1.36.0 リリース時点では beta で
		// デフォルト有効 に戻っています": the revert turned it back on;
		// beta is where it stayed.
		return []Stage{StageDefaultOn}
	case ev.stage == StageBetaDefaultOn:
		return []Stage{StageBeta, StageDefaultOn}
	case ev.def != "" && isLevel(ev.stage):
		return []Stage{ev.stage, ev.def}
	}
	return []Stage{ev.stage}
}

// focusOf picks the focus from what the text and title say: the first
// feature whose maturity changes, else the first changed feature, else the
// highlight's own name, else the first gate or named feature in the text.
func focusOf(events []event, heading []string, textMs []mention) string {
	for _, ev := range events {
		if isMaturity(ev.stage) {
			return ev.feature
		}
	}
	switch {
	case len(events) > 0:
		return events[0].feature
	case len(heading) > 0:
		return heading[0]
	}
	return firstMention(textMs, MentionFeatureGate, MentionFeature)
}

// focusFallback picks a focus for an entry whose text names no feature: a
// change stated in a note, a gate or feature in a note, the object of a
// Japanese sentence, any other name, and last a component.
func focusFallback(events []event, noteMs [][]mention, text string, textMs []mention) string {
	if len(events) > 0 {
		return events[0].feature
	}
	for _, ms := range noteMs {
		if f := firstMention(ms, MentionFeatureGate, MentionFeature); f != "" {
			return f
		}
	}
	if f := japaneseObject(text, textMs); f != "" {
		return f
	}
	if f := firstMention(textMs, MentionIdentifier, MentionConfigField, MentionCode, MentionFlag,
		MentionAPIVersion, MentionMetric, MentionCgroupFile, MentionFieldPath); f != "" {
		return f
	}
	// A component, but not the "kubeadm:" that labels the entry.
	label := 0
	if loc := reSubjectLead.FindStringIndex(text); loc != nil {
		label = loc[1]
	}
	for _, m := range textMs {
		if m.typ == MentionComponent && m.start >= label {
			return m.name
		}
	}
	return ""
}

// japaneseObject returns the name marked as the object of the first
// sentence ("… MemoryReservationPolicy を追加した"), or "".
func japaneseObject(s string, ms []mention) string {
	if !hasJapanese(s) {
		return ""
	}
	end := len(s)
	if sn := splitSentences(s); len(sn) > 0 {
		end = sn[0].end
	}
	o := strings.Index(s[:end], "を")
	if o < 0 {
		return ""
	}
	name := ""
	for _, m := range ms {
		if m.end <= o && m.typ != MentionComponent {
			name = m.name
		}
	}
	return name
}

// singleGate returns the entry's feature gate when it names exactly one.
func singleGate(ms []mention) []string {
	name := ""
	for _, m := range ms {
		if m.typ != MentionFeatureGate {
			continue
		}
		if name != "" && FeatureKey(name) != FeatureKey(m.name) {
			return nil
		}
		name = m.name
	}
	if name == "" {
		return nil
	}
	return []string{name}
}

func firstMention(ms []mention, types ...MentionType) string {
	for _, t := range types {
		for _, m := range ms {
			if m.typ == t {
				return m.name
			}
		}
	}
	return ""
}

// collectMentions merges the names of the text and the notes, keeping the
// most specific type seen for each name; names whose maturity changes are
// feature gates.
func collectMentions(text []mention, notes [][]mention, events []event) []Mention {
	rank := map[MentionType]int{
		MentionFeatureGate: 9, MentionFeature: 8, MentionAPIVersion: 7, MentionCgroupFile: 7,
		MentionMetric: 6, MentionFlag: 6, MentionConfigField: 5, MentionFieldPath: 4,
		MentionIdentifier: 3, MentionCode: 2, MentionComponent: 1,
	}
	staged := map[string]bool{}
	for _, ev := range events {
		if isMaturity(ev.stage) {
			staged[FeatureKey(ev.feature)] = true
		}
	}
	var out []Mention
	idx := map[string]int{}
	put := func(m mention, inNote bool) {
		t := m.typ
		if t == MentionIdentifier && staged[FeatureKey(m.name)] {
			t = MentionFeatureGate
		}
		k := FeatureKey(m.name)
		if i, ok := idx[k]; ok {
			if rank[t] > rank[out[i].Type] {
				out[i].Type = t
			}
			if !inNote {
				out[i].InNote = false
			}
			return
		}
		idx[k] = len(out)
		out = append(out, Mention{Name: m.name, Type: t, InNote: inNote})
	}
	for _, m := range text {
		put(m, false)
	}
	for _, ms := range notes {
		for _, m := range ms {
			put(m, true)
		}
	}
	return out
}

// reBeforeWord speaks of the time before a release: "1.35 以前は …".
var reBeforeWord = regexp.MustCompile(`(?i)以前|\bpreviously\b|\bprior to\b|\bearlier releases?\b|\buntil now\b|これまで`)

// datedEarlier reports whether a section puts feature in a release before
// the document's: "Alpha: MemoryQoS" heads a text that says "1.35 以前は
// MemoryQoS feature gate を有効化すると…", so the heading names the stage
// the feature is at, not one it reached in this release. A sentence is
// cut where it names the document's release or a later one, so that "1.35
// 以前は X …が、1.36 では Y …" speaks of the past for X only.
func (a entryAnalyzer) datedEarlier(feature string, text plainText, notes []plainText) bool {
	if a.minor == 0 {
		return false
	}
	key := strings.ToLower(feature)
	parts := append([]plainText{text}, notes...)
	for _, pt := range parts {
		for _, sn := range splitSentences(pt.text) {
			sent := pt.text[sn.start:sn.end]
			start := 0
			cuts := append(reAnyRelease.FindAllStringSubmatchIndex(sent, -1), []int{len(sent), len(sent), len(sent), len(sent)})
			for _, m := range cuts {
				minor := a.minor
				if m[2] < m[3] {
					if n, err := strconv.Atoi(sent[m[2]:m[3]]); err == nil {
						minor = n
					}
				}
				if minor < a.minor && m[0] < len(sent) {
					continue // an earlier release belongs to this span
				}
				span := sent[start:m[0]]
				start = m[0]
				earlier := reBeforeWord.MatchString(span)
				for _, r := range reAnyRelease.FindAllStringSubmatch(span, -1) {
					if n, err := strconv.Atoi(r[1]); err == nil && n < a.minor {
						earlier = true
					}
				}
				if earlier && strings.Contains(strings.ToLower(span), key) {
					return true
				}
			}
		}
	}
	return false
}

// titleFeatures reads a highlight title: the features it names and any stage
// it states ("GA / Stable: KubeletPSI", "Volume Snapshot Moves to Beta").
func (a entryAnalyzer) titleFeatures(title string, pr int) ([]string, []event) {
	var stage Stage
	rest := title
	if m := reTitleStage.FindStringSubmatch(title); m != nil {
		stage, rest = titleStage(m[1]), m[2]
	}
	var names []string
	pt := newPlain(rest)
	ms := extractMentions(pt)
	if stage == "" {
		for _, ev := range analyzeStages(pt, ms, a.ctx(nil, false)) {
			ev.pr = pr
			return []string{ev.feature}, []event{ev}
		}
		if m := reTitleStageSuffix.FindStringSubmatch(title); m != nil && reLatinTitle.MatchString(title) {
			stage, rest = titleStage(m[2]), m[1]
		}
	}
	switch {
	case stage != "" || reLatinTitle.MatchString(rest) && len(strings.Fields(rest)) <= 5:
		for _, n := range reNameSplit.Split(rest, -1) {
			if n = strings.TrimSpace(reAnyParens.ReplaceAllString(n, "")); n != "" && utf8.RuneCountInString(n) <= 60 {
				names = append(names, n)
			}
		}
	default:
		for _, m := range ms {
			if m.typ == MentionFeatureGate || m.typ == MentionIdentifier || m.typ == MentionFeature {
				names = append(names, m.name)
			}
		}
	}
	if stage == "" {
		return names, nil
	}
	evs := make([]event, 0, len(names))
	for _, n := range names {
		evs = append(evs, event{feature: n, mtype: MentionFeature, stage: stage, release: a.release, pr: pr, evidence: title})
	}
	return names, evs
}

func titleStage(w string) Stage {
	w = strings.ToLower(strings.Join(strings.Fields(w), ""))
	switch w {
	case "alpha":
		return StageAlpha
	case "beta":
		return StageBeta
	case "deprecated", "deprecation", "非推奨":
		return StageDeprecated
	case "removed", "removal", "削除":
		return StageRemoved
	}
	return StageGA
}

// listStages reads lists whose header states a stage and whose items name
// features: "GA に昇格:" followed by "DRAAdminAccess: … (#137373)".
func (a entryAnalyzer) listStages(lines []string, defaultPR int) []event {
	type header struct {
		indent int
		stage  Stage
	}
	var (
		stack []header
		out   []event
	)
	for _, l := range lines {
		al := splitArticleLine(l)
		if !al.bullet {
			if strings.TrimSpace(l) != "" {
				stack = nil
			}
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= al.indent {
			stack = stack[:len(stack)-1]
		}
		c := al.content
		if strings.HasSuffix(c, ":") {
			head := strings.TrimSpace(strings.TrimSuffix(c, ":"))
			if len(extractMentions(newPlain(head))) == 0 {
				if ms := findStageMatches(head, asciiLower(head), a.minor); len(ms) > 0 {
					evs := make([]event, len(ms))
					for i, m := range ms {
						evs[i] = event{stage: m.stage, promo: m.promo}
					}
					stack = append(stack, header{al.indent, foldStages(evs).stage})
					continue
				}
			}
		}
		if len(stack) == 0 {
			continue
		}
		name, _, ok := strings.Cut(c, ": ")
		if !ok {
			continue
		}
		name = strings.TrimSpace(reAnyParens.ReplaceAllString(name, ""))
		if name == "" || hasJapanese(name) || len(strings.Fields(name)) > 6 {
			continue
		}
		pr := defaultPR
		if m := reItemPR.FindAllStringSubmatch(c, -1); m != nil {
			pr = atoiOr(m[len(m)-1][1], pr)
		}
		st := stack[len(stack)-1].stage
		for _, n := range reNameSplit.Split(name, -1) {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, event{feature: n, mtype: MentionFeature, stage: st, release: a.release, pr: pr, evidence: c})
			}
		}
	}
	return out
}

func atoiOr(s string, d int) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) || n > 1e8 {
			return d
		}
		n = n*10 + int(s[i]-'0')
	}
	if s == "" {
		return d
	}
	return n
}
