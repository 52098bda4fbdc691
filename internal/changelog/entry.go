package changelog

import (
	"regexp"
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
		add(hev, "heading")
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
	e.Focus = canon(focus)

	seen := map[string]bool{}
	for i, ev := range events {
		for _, st := range splitStage(ev) {
			sc := StageChange{
				Feature: canon(ev.feature), Stage: st, Release: ev.release, PR: ev.pr,
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

// splitStage returns the facts one folded event states: its stage, or for
// a level stated with a default state both, the level first. "Promoted to
// beta and enabled by default" is beta and on by default; "graduated to
// GA, enabled by default" is GA and on by default; "promoted to beta, and
// it is turned off by default" is beta and off by default. A Timeline
// folds them back (StageBetaDefaultOn).
func splitStage(ev event) []Stage {
	switch {
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
