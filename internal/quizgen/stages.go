package quizgen

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// stages returns the stage changes an entry states as the questions ask
// them: a level and the default state stated with it, two facts of the
// parser ("promoted to beta, enabled by default"), are one stage: beta and
// on by default StageBetaDefaultOn, GA and on by default GA, a level and
// off by default the level.
func (r *run) stages(e *changelog.Entry) []changelog.StageChange {
	if sc, ok := r.merged[e]; ok {
		return sc
	}
	sc := mergedStages(e.Stages)
	r.merged[e] = sc
	return sc
}

func mergedStages(in []changelog.StageChange) []changelog.StageChange {
	out := make([]changelog.StageChange, 0, len(in))
	used := make([]bool, len(in))
	for i, a := range in {
		if used[i] {
			continue
		}
		if level := a.Stage == changelog.StageAlpha || a.Stage == changelog.StageBeta || a.Stage == changelog.StageGA; level {
			for j := i + 1; j < len(in); j++ {
				b := in[j]
				if used[j] || (b.Stage != changelog.StageDefaultOn && b.Stage != changelog.StageDefaultOff) ||
					changelog.FeatureKey(b.Feature) != changelog.FeatureKey(a.Feature) || b.Release != a.Release ||
					b.PR != a.PR || b.Source != a.Source || b.Evidence != a.Evidence {
					continue
				}
				used[j] = true
				if a.Stage == changelog.StageBeta && b.Stage == changelog.StageDefaultOn {
					a.Stage = changelog.StageBetaDefaultOn
				}
				break
			}
		}
		out = append(out, a)
	}
	return out
}

// stageOrder is the order in which stage choices are shown.
var stageOrder = []changelog.Stage{
	changelog.StageAlpha, changelog.StageBeta, changelog.StageBetaDefaultOn, changelog.StageDefaultOn,
	changelog.StageGA, changelog.StageDeprecated, changelog.StageRemoved,
}

func stageRank(s changelog.Stage) int {
	if i := slices.Index(stageOrder, s); i >= 0 {
		return i
	}
	return len(stageOrder)
}

// maturity orders the stages a feature normally goes through; a timeline
// question needs them strictly increasing.
func maturity(s changelog.Stage) int {
	switch s {
	case changelog.StageAlpha:
		return 1
	case changelog.StageBeta:
		return 2
	case changelog.StageBetaDefaultOn, changelog.StageDefaultOn:
		return 3
	case changelog.StageGA:
		return 4
	case changelog.StageDeprecated:
		return 5
	case changelog.StageRemoved:
		return 6
	}
	return 0
}

// askable are the stages questions are asked about. A switch to off by
// default and a bare revert say too little about where a feature stands.
func askable(s changelog.Stage) bool {
	return maturity(s) > 0
}

// overlaps reports whether a statement that a feature moved to d could also
// be true of a feature that moved to a in the same release: the same stage,
// one that Stage.Matches the other, GA (which is on by default) and on by
// default, or on by default and beta (a feature turned on by default is
// usually beta).
func overlaps(a, d changelog.Stage) bool {
	if a == d || a.Matches(d) || d.Matches(a) {
		return true
	}
	pair := func(x, y changelog.Stage) bool { return a == x && d == y || a == y && d == x }
	return pair(changelog.StageGA, changelog.StageDefaultOn) || pair(changelog.StageDefaultOn, changelog.StageBeta)
}

// reached reports whether a release that ended in stage ev counts as one
// where the feature reached stage asked: Stage.Matches, and GA counts as
// turned on by default.
func reached(ev, asked changelog.Stage) bool {
	return ev.Matches(asked) || asked == changelog.StageDefaultOn && ev == changelog.StageGA
}

// distractorPreference lists, for an answer, the wrong stages worth
// offering, most plausible first.
var distractorPreference = map[changelog.Stage][]changelog.Stage{
	changelog.StageAlpha:         {changelog.StageBeta, changelog.StageGA, changelog.StageBetaDefaultOn, changelog.StageDeprecated, changelog.StageRemoved},
	changelog.StageBeta:          {changelog.StageAlpha, changelog.StageGA, changelog.StageDeprecated, changelog.StageRemoved},
	changelog.StageBetaDefaultOn: {changelog.StageAlpha, changelog.StageGA, changelog.StageDeprecated, changelog.StageRemoved},
	changelog.StageGA:            {changelog.StageBeta, changelog.StageAlpha, changelog.StageBetaDefaultOn, changelog.StageDeprecated, changelog.StageRemoved},
	changelog.StageDefaultOn:     {changelog.StageAlpha, changelog.StageDeprecated, changelog.StageRemoved},
	changelog.StageDeprecated:    {changelog.StageRemoved, changelog.StageGA, changelog.StageBeta, changelog.StageAlpha},
	changelog.StageRemoved:       {changelog.StageDeprecated, changelog.StageGA, changelog.StageBeta, changelog.StageAlpha},
}

// stageFact is one clean statement of a stage change in the document's
// release: not reverted, not contradicted within the document, and agreeing
// with the timeline.
type stageFact struct {
	e       *changelog.Entry
	sc      changelog.StageChange
	release string
	cat     category
	evStage changelog.Stage // the timeline's state of the feature in release
	// intro: the entry says the feature is new, so an alpha stage is its
	// introduction (see introduced).
	intro bool
}

// prs are the PRs to cite for the fact: its own, else the entry's.
func (f stageFact) prs() []int { return citedPRs(f.e, f.sc, true) }

// citedPRs are the PRs to cite for a change an entry states: its own,
// else, for a change of the entry's own release (own), the entry's. The
// entry's PRs made its own release's changes: a change it recalls from an
// earlier release ("GA since v1.18") cites only a PR named with it.
func citedPRs(e *changelog.Entry, sc changelog.StageChange, own bool) []int {
	switch {
	case sc.PR > 0:
		return []int{sc.PR}
	case own:
		return positivePRs(e.PRs)
	}
	return nil
}

// factScore ranks entries that state the same fact: the entry of the PR
// that made the change first, then an ordinary entry before a highlight,
// then a statement in the text before one in a note.
func factScore(e *changelog.Entry, sc changelog.StageChange) int {
	n := 0
	if sc.PR > 0 && slices.Contains(e.PRs, sc.PR) {
		n += 4
	}
	if e.Kind != changelog.KindHighlight {
		n += 2
	}
	if sc.Source == "text" {
		n++
	}
	return n
}

// best keeps, for each key, the candidate with the highest factScore (the
// first on a tie), in document order.
func best[T any](cands []T, key func(T) string, score func(T) int) []T {
	top := map[string]int{}
	for i, c := range cands {
		k := key(c)
		if j, ok := top[k]; !ok || score(c) > score(cands[j]) {
			top[k] = i
		}
	}
	var out []T
	for i, c := range cands {
		if top[key(c)] == i {
			out = append(out, c)
		}
	}
	return out
}

// stageFacts lists the clean stage changes of the document's own release,
// one per feature, in document order. Historical changes (a note's "alpha
// in 1.31") are left to releaseOfStage and timelineOrder.
func (r *run) stageFacts() []stageFact {
	if r.facts != nil {
		return *r.facts
	}
	out := r.findStageFacts()
	r.facts = &out
	return out
}

func (r *run) findStageFacts() []stageFact {
	docRel, err := changelog.NormalizeRelease(r.doc.Release)
	if err != nil {
		return nil
	}
	// What the document says about each feature in its release, and what
	// each PR changed.
	type said struct {
		stages map[changelog.Stage]bool
		revert bool
	}
	type prChange struct {
		feature string
		stage   changelog.Stage
	}
	says := map[string]*said{}
	byPR := map[int][]prChange{}
	for i := range r.doc.Entries {
		if r.stopped() {
			return nil
		}
		for _, sc := range r.stages(&r.doc.Entries[i]) {
			rel, err := changelog.NormalizeRelease(sc.Release)
			if err != nil || rel != docRel {
				continue
			}
			k := changelog.FeatureKey(sc.Feature)
			s := says[k]
			if s == nil {
				s = &said{stages: map[changelog.Stage]bool{}}
				says[k] = s
			}
			s.stages[sc.Stage] = true
			s.revert = s.revert || sc.Revert
			if sc.PR > 0 {
				byPR[sc.PR] = append(byPR[sc.PR], prChange{sc.Feature, sc.Stage})
			}
		}
	}
	// contradicted reports whether the same PR is said to have moved a
	// feature of a related name to another stage ("Device Binding
	// Conditions" and "DRA Device Binding Conditions").
	contradicted := func(sc changelog.StageChange) bool {
		for _, o := range byPR[sc.PR] {
			if o.stage != sc.Stage && changelog.FeatureKey(o.feature) != changelog.FeatureKey(sc.Feature) && related(o.feature, sc.Feature) {
				return true
			}
		}
		return false
	}
	var cands []stageFact
	for i := range r.doc.Entries {
		if r.stopped() {
			return nil
		}
		e := &r.doc.Entries[i]
		for _, sc := range r.stages(e) {
			rel, err := changelog.NormalizeRelease(sc.Release)
			if err != nil || rel != docRel || sc.Revert || !askable(sc.Stage) {
				continue
			}
			if s := says[changelog.FeatureKey(sc.Feature)]; s.revert || !oneStage(s.stages, sc.Stage) || contradicted(sc) {
				continue // undone, or stated two ways
			}
			cat := r.categoryOf(e, sc.Feature)
			if !r.stageSubject(e, sc) {
				continue
			}
			ev, ok := r.eventIn(sc.Feature, rel)
			if !ok || ev.Revert || !(ev.Stage == sc.Stage || ev.Stage.Matches(sc.Stage)) {
				continue // another document says otherwise
			}
			if r.noStep(e, sc, rel) {
				continue // a stage reached before, or a statement that is no change
			}
			cands = append(cands, stageFact{e: e, sc: sc, release: rel, cat: cat, evStage: ev.Stage, intro: r.introduced(e, sc, rel)})
		}
	}
	return best(cands,
		func(f stageFact) string { return factKey(f.sc.Feature) },
		func(f stageFact) int { return factScore(f.e, f.sc) })
}

// oneStage reports whether the stages a document gives a feature in its
// release come to one, st: the only one, or the deprecation of a gate
// whose feature reached a level ("Pod process namespace sharing is now
// Generally Available. The PodShareProcessNamespace feature gate is now
// deprecated"), which is what the release did to the gate.
func oneStage(stages map[changelog.Stage]bool, st changelog.Stage) bool {
	if len(stages) == 1 {
		return stages[st]
	}
	if len(stages) != 2 || !stages[changelog.StageDeprecated] || st != changelog.StageDeprecated {
		return false
	}
	for s := range stages {
		if s != changelog.StageDeprecated && (s == changelog.StageAlpha || s == changelog.StageBeta || s == changelog.StageBetaDefaultOn || s == changelog.StageGA) {
			return true
		}
	}
	return false
}

// named is how a stage question names a feature: a feature gate's
// removal is the gate's.
func (r *run) named(feature string, stage changelog.Stage) string {
	if stage == changelog.StageRemoved && r.isGate(feature) {
		return r.lang.gateName(feature)
	}
	return feature
}

// isGate reports whether the document calls feature, spelt so, a feature
// gate in so many words ("the X feature gate", "feature gate X", "X
// フィーチャーゲート"): a gate-shaped name may be a constant ("Deprecated
// MaxNodeScore in favor of …"), a kind, a runtime handler or a feature
// whose gate is spelt otherwise (RunAsUsername, gated by
// WindowsRunAsUserName). A name with a dot, a slash or a space is none:
// "The alpha DynamicAuditing feature gate and auditregistration.k8s.io/v1alpha1
// API have been removed" calls only DynamicAuditing a gate.
func (r *run) isGate(feature string) bool {
	g, ok := r.gates[feature]
	if !ok {
		if r.gateTexts == nil {
			r.gateTexts = newGateTexts(r.doc)
		}
		g = !strings.ContainsAny(feature, "./ ") && r.gateTexts.calls(feature)
		r.gates[feature] = g
	}
	return g
}

// stageDistractors returns wrong stages for a fact, most plausible first:
// none could also be true of the feature in that release, none is a stage
// the entry's text talks about, and for a deprecation or removal none is a
// stage the feature held before.
func (r *run) stageDistractors(f stageFact) []changelog.Stage {
	answer := f.sc.Stage
	pref := distractorPreference[answer]
	if !f.cat.gateLike() {
		// Flags, metrics, fields and API versions are deprecated or
		// removed, not promoted.
		pref = nil
		for _, s := range []changelog.Stage{changelog.StageDeprecated, changelog.StageRemoved} {
			if s != answer {
				pref = append(pref, s)
			}
		}
	}
	// The sentence that states the change, and for a deprecation or
	// removal the whole entry with its notes: they often say where the
	// feature stands ("X is now GA. The X feature gate is deprecated").
	evidence := f.sc.Evidence
	if evidence == "" || answer == changelog.StageDeprecated || answer == changelog.StageRemoved {
		evidence = f.e.Text
	}
	if answer == changelog.StageDeprecated || answer == changelog.StageRemoved {
		evidence += "\n" + strings.Join(f.e.Notes, "\n")
	}
	mentioned := r.mentionedStages(evidence)
	held := map[changelog.Stage]bool{}
	if answer == changelog.StageDeprecated || answer == changelog.StageRemoved {
		for _, ev := range r.history(f.sc.Feature) {
			held[ev.Stage] = true
			if ev.Stage == changelog.StageBetaDefaultOn {
				held[changelog.StageBeta] = true
			}
		}
	}
	var out []changelog.Stage
	for _, d := range pref {
		if overlaps(answer, d) || overlaps(f.evStage, d) || mentioned[d] || held[d] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// mentionedStages is mentionedStages, once per text: a fact's evidence is
// read for its stage question and again for its true/false statement.
func (r *run) mentionedStages(text string) map[changelog.Stage]bool {
	if m, ok := r.mentioned[text]; ok {
		return m
	}
	m := mentionedStages(text)
	r.mentioned[text] = m
	return m
}

// stageInRelease asks which stage a feature moved to in the document's
// release (or, for an alpha the entry does not call new, was at).
func (r *run) stageInRelease() {
	l := r.lang
	for _, f := range r.stageFacts() {
		if r.stopped() {
			return
		}
		// The choices must not tell the answer: every question offers
		// stages of the same five, alpha, beta, GA, deprecated and
		// removed, picked by the question's hash. "beta (on by default)"
		// is asked as beta (it is that too); "on by default" alone is no
		// stage.
		answer := f.sc.Stage
		if answer == changelog.StageBetaDefaultOn {
			answer = changelog.StageBeta
		}
		if !f.cat.gateLike() || answer == changelog.StageDefaultOn {
			continue
		}
		id := extID(GenStageInRelease, r.doc.Key, f.e.Key, f.sc.Feature, "")
		var ds []changelog.Stage
		for _, d := range r.stageDistractors(f) {
			if d != changelog.StageBetaDefaultOn && d != changelog.StageDefaultOn && !overlaps(answer, d) {
				ds = append(ds, d)
			}
		}
		if len(ds) < 2 {
			continue
		}
		slices.SortFunc(ds, func(a, b changelog.Stage) int {
			return cmp.Compare(hash64(id, "distractor", string(a)), hash64(id, "distractor", string(b)))
		})
		if len(ds) > 3 {
			ds = ds[:3]
		}
		stages := append([]changelog.Stage{answer}, ds...)
		slices.SortFunc(stages, func(a, b changelog.Stage) int { return stageRank(a) - stageRank(b) })
		choices := make([]string, len(stages))
		for i, s := range stages {
			choices[i] = l.label[s]
		}
		feature := f.sc.Feature
		expl := r.withHistory(l, l.sentence(l.fact(f.release, r.named(feature, f.sc.Stage), f.sc.Stage, f.intro), f.prs()), feature)
		// The prompt names a gate as one whatever the answer: worded so
		// only when the answer is a removal, it would give that away.
		asked := feature
		if r.isGate(feature) {
			asked = l.gateName(feature)
		}
		q := quiz.Question{
			ExtID:       id,
			Type:        quiz.SingleChoice,
			Prompt:      l.stageQuestion(f.release, asked),
			Choices:     choices,
			Answer:      l.label[answer],
			Explanation: expl,
			Source:      r.source(f.e, kindName(f.e.Kind)),
			Tags:        []string{feature, GenStageInRelease},
		}
		r.add(Generated{Question: q, Provenance: r.provenance(GenStageInRelease, f.e, feature, f.sc.Stage, f.release)},
			factKey(feature)+"\x00"+f.release)
	}
}

func (r *run) provenance(gen string, e *changelog.Entry, feature string, stage changelog.Stage, release string) Provenance {
	p := Provenance{Document: r.doc.Key, Generator: gen, Feature: feature, Stage: stage, Release: release}
	if e != nil {
		p.Entry = e.Key
		p.PRs = positivePRs(e.PRs)
		p.SourceText = r.entryText(e)
	}
	return p
}

// releaseOfStage asks in which release a feature reached a stage other
// than one of the document's own release: its answer is never the deck's
// release, which the deck's title gives away. It asks of a stage the
// document recalls ("1.31 で alpha、1.33 で beta") and of the stages the
// timeline knows of a feature the document changes ("ImageVolume went GA
// in v1.36: which release introduced it as alpha?"). The timeline must
// know exactly one release where the feature reached the stage; the wrong
// choices are releases of the feature's other stages first, then nearby
// releases where it did not reach it, before the document's release when
// the stage comes before the one the document gives.
func (r *run) releaseOfStage() {
	docRel, err := changelog.NormalizeRelease(r.doc.Release)
	if err != nil {
		return
	}
	type cand struct {
		e   *changelog.Entry
		sc  changelog.StageChange
		rel string
	}
	var cands []cand
	// Stages the document itself states for another release.
	for i := range r.doc.Entries {
		if r.stopped() {
			return
		}
		e := &r.doc.Entries[i]
		for _, sc := range r.stages(e) {
			if sc.Revert || !askable(sc.Stage) {
				continue
			}
			rel, err := changelog.NormalizeRelease(sc.Release)
			if err != nil || rel == docRel || !r.stageSubject(e, sc) {
				continue
			}
			if r.onlyRelease(sc.Feature, sc.Stage) != rel || r.noStep(e, sc, rel) {
				continue
			}
			said := r.statedStages(sc.Feature, rel)
			if (sc.Stage == changelog.StageDefaultOn || sc.Stage == changelog.StageBetaDefaultOn) && len(said) > 1 {
				continue // "beta" here and "on by default" there: unsure about the default
			}
			if (sc.Stage == changelog.StageRemoved || sc.Stage == changelog.StageDeprecated) && said[changelog.StageRemoved] && said[changelog.StageDeprecated] {
				// "Removed X" in one entry and "X is not removed, but
				// deprecated" in another: the notes of a release merge its
				// pre-releases, and which one stands is not said.
				continue
			}
			if _, held := r.lang.held[sc.Stage]; held && !r.introduced(e, sc, rel) {
				// "alpha in 1.21" with no word that it is new there: it
				// may have been alpha in earlier releases too ("a second
				// Alpha"), so no one release is the answer.
				continue
			}
			cands = append(cands, cand{e, sc, rel})
		}
	}
	// The other stages the timeline knows of the features the document
	// changes.
	given := map[string]stageFact{}
	for _, f := range r.stageFacts() {
		if r.stopped() {
			return
		}
		k := factKey(f.sc.Feature)
		if _, ok := given[k]; ok {
			continue
		}
		given[k] = f
		for _, ev := range r.history(f.sc.Feature) {
			if ev.Revert || !askable(ev.Stage) || changelog.CompareReleases(ev.Release, docRel) == 0 ||
				r.onlyRelease(f.sc.Feature, ev.Stage) != ev.Release {
				continue
			}
			if _, held := r.lang.held[ev.Stage]; held && !reIntroduced.MatchString(ev.Evidence) {
				continue
			}
			sc := changelog.StageChange{Feature: f.sc.Feature, Stage: ev.Stage, Release: ev.Release, PR: ev.PR, Source: "timeline", Evidence: ev.Evidence}
			cands = append(cands, cand{f.e, sc, ev.Release})
		}
	}
	cands = best(cands,
		func(c cand) string { return factKey(c.sc.Feature) + "\x00" + string(c.sc.Stage) },
		func(c cand) int { return factScore(c.e, c.sc) })
	l := r.lang
	for _, c := range cands {
		if r.stopped() {
			return
		}
		feature, stage, rel := c.sc.Feature, c.sc.Stage, c.rel
		id := extID(GenReleaseOfStage, r.doc.Key, c.e.Key, feature, string(stage))
		g, hasGiven := given[factKey(feature)]
		before := ""
		if hasGiven && maturity(stage) < maturity(g.sc.Stage) && changelog.CompareReleases(rel, docRel) < 0 {
			before = docRel // asked of an earlier step: it came before the document's
		}
		wrong := r.timelineDistractors(feature, stage, rel, before, id)
		if len(wrong) < 3 {
			continue
		}
		choices := append([]string{rel}, wrong...)
		slices.SortFunc(choices, changelog.CompareReleases)
		prs := citedPRs(c.e, c.sc, false)
		named := r.named(feature, stage)
		prompt := l.releaseQuestion(named, stage)
		if hasGiven {
			prompt = l.releaseQuestionGiven(r.named(feature, g.sc.Stage), g.sc.Stage, docRel, named, stage)
		}
		expl := r.withHistory(l, l.sentence(l.fact(rel, named, stage, true), prs), feature)
		q := quiz.Question{
			ExtID:       id,
			Type:        quiz.SingleChoice,
			Prompt:      prompt,
			Choices:     choices,
			Answer:      rel,
			Explanation: expl,
			Source:      r.source(c.e, kindName(c.e.Kind)),
			Tags:        []string{feature, GenReleaseOfStage},
		}
		r.add(Generated{Question: q, Provenance: r.provenance(GenReleaseOfStage, c.e, feature, stage, rel)},
			factKey(feature)+"\x00"+string(stage))
	}
}

// timelineDistractors returns three wrong releases for a feature's stage:
// the releases of its other stages first (real releases of the feature,
// none where it reached the stage), then nearby releases as
// releaseDistractors gives them; before, when set, is a release the
// answer must come before, and no choice is at or after it.
func (r *run) timelineDistractors(feature string, stage changelog.Stage, answer, before, seed string) []string {
	var out []string
	seen := map[string]bool{answer: true}
	ok := func(rel string) bool {
		return !seen[rel] && (before == "" || changelog.CompareReleases(rel, before) < 0)
	}
	for _, ev := range r.history(feature) {
		if rel := ev.Release; ok(rel) && !reached(ev.Stage, stage) {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	if len(out) > 3 {
		slices.SortFunc(out, func(a, b string) int { return cmp.Compare(hash64(seed, "timeline", a), hash64(seed, "timeline", b)) })
		out = out[:3]
	}
	if len(out) < 3 {
		for _, rel := range r.releaseDistractors(feature, stage, answer, seed, before) {
			if len(out) == 3 {
				break
			}
			if ok(rel) {
				seen[rel] = true
				out = append(out, rel)
			}
		}
	}
	return out
}

// statedStages returns the stages the document gives a feature in a
// release.
func (r *run) statedStages(feature, release string) map[changelog.Stage]bool {
	if r.stated == nil {
		r.stated = map[string]map[changelog.Stage]bool{}
		for i := range r.doc.Entries {
			for _, sc := range r.stages(&r.doc.Entries[i]) {
				rel, err := changelog.NormalizeRelease(sc.Release)
				if err != nil {
					continue
				}
				k := changelog.FeatureKey(sc.Feature) + "\x00" + rel
				if r.stated[k] == nil {
					r.stated[k] = map[changelog.Stage]bool{}
				}
				r.stated[k][sc.Stage] = true
			}
		}
	}
	return r.stated[changelog.FeatureKey(feature)+"\x00"+release]
}

// onlyRelease returns the one release in which the timeline says the
// feature reached stage, or "" when there is none, more than one, the
// change was reverted, or the feature's history is not consistent (see
// steadyHistory).
func (r *run) onlyRelease(feature string, stage changelog.Stage) string {
	events, consistent, _ := r.steadyHistory(feature)
	if !consistent {
		return "" // the answer would rest on statements that contradict each other
	}
	found := ""
	for _, ev := range events {
		if !reached(ev.Stage, stage) {
			continue
		}
		if found != "" || ev.Revert {
			return ""
		}
		found = ev.Release
	}
	if first, ok := r.tl.ReleaseOf(feature, stage); !ok || first != found {
		return ""
	}
	return found
}

// releaseDistractors returns up to three releases near answer in which the
// feature did not reach stage. How many come after the answer is picked
// from seed, so that the answer is not always the newest choice.
func (r *run) releaseDistractors(feature string, stage changelog.Stage, answer, seed, before string) []string {
	major, minor, ok := changelog.ParseRelease(answer)
	if !ok {
		return nil
	}
	bad := map[string]bool{answer: true}
	for _, ev := range r.history(feature) {
		if reached(ev.Stage, stage) {
			bad[ev.Release] = true
		}
	}
	// Later releases go up to one past the newest the timeline knows.
	_, newestMinor, _ := changelog.ParseRelease(r.newestRelease())
	var earlier, after []string
	for d := 1; d <= 6 && len(earlier) < 3; d++ {
		if m := minor - d; m >= 0 {
			if rel := strconv.Itoa(major) + "." + strconv.Itoa(m); !bad[rel] {
				earlier = append(earlier, rel)
			}
		}
	}
	for d := 1; d <= 3; d++ {
		if rel := strconv.Itoa(major) + "." + strconv.Itoa(minor+d); !bad[rel] && minor+d <= newestMinor+1 &&
			(before == "" || changelog.CompareReleases(rel, before) < 0) {
			after = append(after, rel)
		}
	}
	nAfter := int(hash64(seed, "later") % 4)
	var out []string
	for i := 0; i < len(after) && i < nAfter; i++ {
		out = append(out, after[i])
	}
	for i := 0; i < len(earlier) && len(out) < 3; i++ {
		out = append(out, earlier[i])
	}
	for i := nAfter; i < len(after) && len(out) < 3; i++ {
		out = append(out, after[i])
	}
	return out
}

// timelineOrder asks to order a feature's stage changes when it has at
// least three, none reverted, and they go forward (alpha before beta before
// GA ...). The question belongs to the document of the newest change.
func (r *run) timelineOrder() {
	docRel, err := changelog.NormalizeRelease(r.doc.Release)
	if err != nil {
		return
	}
	l := r.lang
	for i := range r.doc.Entries {
		if r.stopped() {
			return
		}
		e := &r.doc.Entries[i]
		for _, sc := range r.stages(e) {
			rel, err := changelog.NormalizeRelease(sc.Release)
			if err != nil || rel != docRel || !r.stageSubject(e, sc) {
				continue
			}
			feature := sc.Feature
			events := r.history(feature)
			if len(events) < 3 || events[len(events)-1].Release != docRel {
				continue
			}
			if st, _, forward := r.steadyHistory(feature); !forward || len(st) != len(events) {
				continue // a release's statements are no change, or contradict each other
			}
			items := make([]string, 0, len(events))
			var prs []int
			okOrder := true
			for j, ev := range events {
				if ev.Revert || !askable(ev.Stage) || j > 0 && maturity(ev.Stage) <= maturity(events[j-1].Stage) {
					okOrder = false
					break
				}
				items = append(items, l.stageLabel(ev.Stage, r.isGate(feature)))
				if ev.PR > 0 {
					prs = append(prs, ev.PR)
				}
			}
			if !okOrder {
				continue
			}
			src := r.source(nil, kindName(e.Kind))
			src.PRs = positivePRs(prs)
			q := quiz.Question{
				ExtID:       extID(GenTimelineOrder, r.doc.Key, "", feature, ""),
				Type:        quiz.Order,
				Prompt:      l.orderPrompt(feature),
				Items:       items,
				Explanation: l.orderExplanation(feature, events, r.isGate(feature)),
				Source:      src,
				Tags:        []string{feature, GenTimelineOrder},
			}
			p := Provenance{
				Document: r.doc.Key, Generator: GenTimelineOrder, PRs: src.PRs,
				SourceText: l.history(events), Feature: feature,
				Stage: events[len(events)-1].Stage, Release: docRel,
			}
			r.add(Generated{Question: q, Provenance: p}, factKey(feature))
		}
	}
}

// trueFalse states a stage change of the document's release, either as it
// is or perturbed (a wrong stage or a wrong release), chosen from a hash
// of the entry and feature.
//
// A wrong stage is chosen so that no wording gives its truth away: over
// the document, each stage claimed ("introduced as alpha", "deprecated")
// should be true about as often as false. Left to the hash, the commonest
// wrong stages (alpha above all) would make their claims nearly always
// false, and the claims no statement is made false with always true.
// The cost: a false statement's wording depends on the rest of its
// document, so an ingest of a changed document may reword a statement
// whose own fact did not change (its id, and so its review history, stay).
func (r *run) trueFalse() {
	l := r.lang
	type statement struct {
		f          stageFact
		h          uint64
		truth      bool
		claimStage changelog.Stage
		claimRel   string
		wrong      []changelog.Stage // wrong stages to claim, when false
	}
	var sts []statement
	balance := claimBalance{}
	for _, f := range r.stageFacts() {
		if r.stopped() {
			return
		}
		if l.holds(f.sc.Stage, f.intro) {
			// "X was alpha in v1.21", where the entry does not say X is
			// new: a wrong stage is claimed as an introduction (below),
			// so this wording would only ever be true.
			continue
		}
		feature := f.sc.Feature
		st := statement{f: f, h: hash64(r.doc.Key, f.e.Key, changelog.FeatureKey(feature), GenTrueFalse),
			claimStage: f.sc.Stage, claimRel: f.release}
		st.truth = st.h%2 == 0
		if !st.truth {
			// A wrong stage first: every true statement names the
			// document's release, so a statement naming another one
			// would give itself away as false.
			st.wrong = r.stageDistractors(f)
			if len(st.wrong) == 0 {
				st.claimRel = r.wrongRelease(f, st.h)
				st.truth = st.claimRel == f.release
			}
		}
		if len(st.wrong) == 0 {
			balance.count(st.claimStage, st.truth)
		}
		sts = append(sts, st)
	}
	for i := range sts {
		if st := &sts[i]; len(st.wrong) > 0 {
			st.claimStage = balance.pick(st.wrong, st.h>>8)
			balance.count(st.claimStage, false)
		}
	}
	for _, st := range sts {
		if r.stopped() {
			return
		}
		f, feature, truth := st.f, st.f.sc.Feature, st.truth
		expl := r.withHistory(l, l.verdict(truth)+l.sentence(l.fact(f.release, r.named(feature, f.sc.Stage), f.sc.Stage, f.intro), f.prs()), feature)
		// A wrong alpha is claimed as an introduction, "In v1.36, X was
		// introduced as alpha": plainly false of a feature that moved on
		// from alpha then, where "X was alpha in v1.36" could be read as
		// true of its state before the move.
		claimIntro := f.intro || st.claimStage != f.sc.Stage
		q := quiz.Question{
			ExtID:       extID(GenTrueFalse, r.doc.Key, f.e.Key, feature, ""),
			Type:        quiz.TrueFalse,
			Prompt:      l.sentence(l.fact(st.claimRel, r.named(feature, st.claimStage), st.claimStage, claimIntro), nil),
			Truth:       &truth,
			Explanation: expl,
			Source:      r.source(f.e, kindName(f.e.Kind)),
			Tags:        []string{feature, GenTrueFalse},
		}
		r.add(Generated{Question: q, Provenance: r.provenance(GenTrueFalse, f.e, feature, f.sc.Stage, f.release)},
			factKey(feature)+"\x00"+f.release)
	}
}

// wrongRelease returns a release to claim a fact in instead of its own,
// or the fact's own release when no claim of another would be plainly
// false.
func (r *run) wrongRelease(f stageFact, h uint64) string {
	if _, held := r.lang.held[f.sc.Stage]; held && !f.intro {
		return f.release // "X was alpha in v1.35" may be true as well
	}
	if r.onlyRelease(f.sc.Feature, f.sc.Stage) != f.release {
		return f.release
	}
	rs := r.releaseDistractors(f.sc.Feature, f.sc.Stage, f.release, strconv.FormatUint(h, 16), "")
	if len(rs) == 0 {
		return f.release
	}
	return rs[(h>>16)%uint64(len(rs))]
}

// claimBalance counts, for each stage a statement claims, its true
// statements less its false ones.
type claimBalance map[changelog.Stage]int

func (b claimBalance) count(s changelog.Stage, truth bool) {
	if truth {
		b[s]++
	} else {
		b[s]--
	}
}

// pick returns the stage among cands whose claims are true the most
// often so far; a tie goes to the first from position start on, so that
// the hash still spreads the stages.
func (b claimBalance) pick(cands []changelog.Stage, start uint64) changelog.Stage {
	n := uint64(len(cands))
	best := cands[start%n]
	for i := uint64(1); i < n; i++ {
		if c := cands[(start+i)%n]; b[c] > b[best] {
			best = c
		}
	}
	return best
}

// A statement of a stage is not always a change made in the release it is
// dated in. The filters below keep such statements out of the facts the
// stage questions rest on and out of the histories explanations quote.
var (
	// reSince dates a stage to a release: "GA since v1.17", "graduated to
	// GA in v1.35", "v1.17 から GA". Only a date next to a stage word
	// counts: "… were accidentally removed since 1.12" dates something
	// else.
	reSince = regexp.MustCompile(`(?i)\b(?:GA|stable|beta|alpha|enabled|locked|available)\)?\s+(?:since|in)\s+v?(\d+\.\d+)|\bv?(\d+\.\d+)\s*(?:から|以降|以来)\s*(?:GA|stable|beta|alpha|安定版|ベータ|アルファ)`)
	// reDeprecatedGates calls the gates deprecated: gates on their way
	// out are being locked, not promoted.
	reDeprecatedGates = regexp.MustCompile(`(?i)\bdeprecated\s+(?:feature[- ]?)?gates?\b|非推奨の\s*(?:feature[- ]?gates?|フィーチャーゲート|ゲート)`)
	// reLocked says a gate can no longer be turned off.
	reLocked = regexp.MustCompile(`(?i)\bunconditionally\s+enabled\b|\blocked\b|無条件(?:で|に)有効`)
	// rePromotes says a feature moved up a stage.
	rePromotes = regexp.MustCompile(`(?i)promot|graduat|\bGA\b|\bstable\b|general(?:ly)?\s+availab|\bbeta\b|\balpha\b|昇格|安定版|ベータ|アルファ`)
	// reNamesRemovable names something a removal takes out of Kubernetes:
	// a feature gate, a flag or a metric.
	reNamesRemovable = regexp.MustCompile(`(?i)\bfeature[- ]?gates?\b|\bflags?\b|\bmetrics?\b|フィーチャーゲート|ゲート|フラグ|メトリクス`)
)

// promotion reports whether a stage is a step up: alpha to GA, or on by
// default.
func promotion(s changelog.Stage) bool {
	m := maturity(s)
	return m >= 1 && m <= 4
}

// datedEarlier reports whether a text dates something to a release before
// release.
func datedEarlier(text, release string) bool {
	for _, m := range reSince.FindAllStringSubmatch(text, -1) {
		rel := m[1] + m[2]
		if changelog.CompareReleases(rel, release) < 0 {
			return true
		}
	}
	return false
}

// noChange reports whether a statement that a feature stood at stage in
// release, read from the sentence evidence of an entry of kind whose
// whole text is text, is no change made in that release:
//   - a promotion the sentence dates to an earlier release ("the gate that
//     is GA since v1.17 is unconditionally enabled");
//   - a promotion of gates the sentence calls deprecated, or a gate locked
//     on in an entry with no word of a promotion: both lock a gate that
//     reached its stage before;
//   - a removal read from a bug fix that names no feature gate, flag or
//     metric ("Remove CSI topology from migrated in-tree gcepd volume"
//     takes something out of a volume, not a feature out of Kubernetes).
func noChange(kind changelog.Kind, stage changelog.Stage, release, evidence, text string) bool {
	switch {
	case promotion(stage):
		return datedEarlier(evidence, release) || reDeprecatedGates.MatchString(evidence) ||
			stage == changelog.StageGA && reLocked.MatchString(evidence) && !rePromotes.MatchString(evidence+"\n"+text)
	case stage == changelog.StageRemoved:
		return kind == changelog.KindBugOrRegression && !reNamesRemovable.MatchString(evidence)
	}
	return false
}

// stageEvidence is the sentence a stage change was read from, else its
// entry's text.
func stageEvidence(e *changelog.Entry, sc changelog.StageChange) string {
	if sc.Evidence != "" {
		return sc.Evidence
	}
	return e.Text
}

// entryDatesEarlier reports whether an entry puts the feature of a
// promotion at that stage, or further, in an earlier release too: then
// the promotion happened there, not in rel.
func entryDatesEarlier(e *changelog.Entry, sc changelog.StageChange, rel string) bool {
	if !promotion(sc.Stage) {
		return false
	}
	k := changelog.FeatureKey(sc.Feature)
	for _, o := range e.Stages {
		if changelog.FeatureKey(o.Feature) == k && !o.Revert && maturity(o.Stage) >= maturity(sc.Stage) &&
			changelog.CompareReleases(o.Release, rel) < 0 {
			return true
		}
	}
	return false
}

// heldBefore reports whether the feature's history has it at stage, or
// further, in a release before rel: a statement of stage in rel then tells
// of no step.
func (r *run) heldBefore(feature string, stage changelog.Stage, rel string) bool {
	events, _, _ := r.steadyHistory(feature)
	for _, ev := range events {
		if changelog.CompareReleases(ev.Release, rel) < 0 && !ev.Revert && askable(ev.Stage) && maturity(ev.Stage) >= maturity(stage) {
			return true
		}
	}
	return false
}

// noStep reports whether a stage change an entry states for rel is no step
// taken in rel (see noChange, entryDatesEarlier, heldBefore and
// headingDatedEarlier).
func (r *run) noStep(e *changelog.Entry, sc changelog.StageChange, rel string) bool {
	return noChange(e.Kind, sc.Stage, rel, stageEvidence(e, sc), e.Text) || entryDatesEarlier(e, sc, rel) ||
		r.heldBefore(sc.Feature, sc.Stage, rel) || r.headingDatedEarlier(e, sc.Source, sc.Feature, rel)
}

var (
	// reIntroduced says an entry brings something new.
	reIntroduced = regexp.MustCompile(`(?i)\bnew(?:ly)?\b|\badd(?:s|ed|ing)?\b|\bintroduc|新規|新しい|新た|追加|導入`)
	// reBefore speaks of the time before a release: "1.35 以前は …".
	reBefore = regexp.MustCompile(`(?i)以前|\bpreviously\b|\bprior to\b|\bearlier releases?\b`)
	// reReleaseNumber finds a Kubernetes release in a text ("1.35",
	// "v1.36.0"); only major 1, so that "2.5 倍" is no release.
	reReleaseNumber = regexp.MustCompile(`\bv?(1\.\d{1,2})(?:\.\d+)?\b`)
	// reSentenceEnd ends a sentence.
	reSentenceEnd = regexp.MustCompile(`[。\n]|\.\s`)
)

// introduced reports whether an entry says the feature of an alpha stage
// is new in rel: only then does the stage read as its introduction. The
// sentence the stage was read from counts, and for a stage of the
// document's own release also the entry's title and text (a list under
// "Alpha 追加:"). "being released as a second Alpha" is no introduction.
func (r *run) introduced(e *changelog.Entry, sc changelog.StageChange, rel string) bool {
	text := stageEvidence(e, sc)
	if docRel, err := changelog.NormalizeRelease(r.doc.Release); err == nil && docRel == rel {
		text += "\n" + e.Title + "\n" + e.Text
	}
	return reIntroduced.MatchString(text)
}

// headingDatedEarlier reports whether a stage read from a heading alone
// ("Alpha: MemoryQoS") is belied by its section: a sentence there puts the
// feature in an earlier release ("1.35 以前は MemoryQoS feature gate を
// 有効化すると…"), so the heading names the stage the feature is at, not a
// step taken in rel. A heading whose stage the section's text states as
// well ("CSI Migration Beta" over "… is now beta in Kubernetes v1.17. CSI
// migration was introduced as alpha in Kubernetes v1.14.") rests on that
// text, not on the heading.
func (r *run) headingDatedEarlier(e *changelog.Entry, source, feature, rel string) bool {
	if source != "heading" || e == nil {
		return false
	}
	k := changelog.FeatureKey(feature)
	for _, o := range e.Stages {
		if o.Source != "heading" && changelog.FeatureKey(o.Feature) == k && changelog.CompareReleases(o.Release, rel) == 0 {
			return false
		}
	}
	re := r.maskPattern(feature)
	for _, text := range append([]string{e.Text}, e.Notes...) {
		for _, sent := range reSentenceEnd.Split(text, -1) {
			for _, span := range releaseSpans(sent, rel) {
				if !span.earlier {
					continue
				}
				for _, loc := range re.FindAllStringIndex(span.text, -1) {
					if atWordEdges(span.text, loc[0], loc[1]) {
						return true
					}
				}
			}
		}
	}
	return false
}

// span is a piece of a sentence; earlier is set when it names a release
// before the one it was cut for, or says "以前".
type span struct {
	text    string
	earlier bool
}

// releaseSpans cuts a sentence where it names rel or a later release:
// "1.35 以前は X …が、1.36 では Y …" speaks of the past for X only.
func releaseSpans(sent, rel string) []span {
	var out []span
	start := 0
	flush := func(end int) {
		if end <= start {
			return
		}
		t := sent[start:end]
		earlier := reBefore.MatchString(t)
		for _, m := range reReleaseNumber.FindAllStringSubmatch(t, -1) {
			earlier = earlier || changelog.CompareReleases(m[1], rel) < 0
		}
		out = append(out, span{t, earlier})
		start = end
	}
	for _, m := range reReleaseNumber.FindAllStringSubmatchIndex(sent, -1) {
		if changelog.CompareReleases(sent[m[2]:m[3]], rel) >= 0 {
			flush(m[0])
		}
	}
	flush(len(sent))
	return out
}

// steady is a feature's history as the stage questions may use it.
type steady struct {
	events []changelog.Event
	// consistent: no release mixes statements that are no change with
	// others, and none contradicts itself.
	consistent bool
	// forward: consistent, and every event a clean step up from the last.
	forward bool
}

// steadyHistory returns the timeline's events of a feature without the
// releases where every statement of it is no change (see noChange: a
// statement from another document is weighed by its Kind and Evidence).
// consistent is false when a release mixes such statements with others or
// its statements contradict each other; forward is false unless the
// history is consistent and every event is a clean step up (no revert, no
// stage the questions do not ask about, none that does not go forward).
func (r *run) steadyHistory(feature string) (events []changelog.Event, consistent, forward bool) {
	k := changelog.FeatureKey(feature)
	if s, ok := r.steady[k]; ok {
		return s.events, s.consistent, s.forward
	}
	raw := r.tl.History(feature)
	// doubtful: noChange, a promotion whose entry dates the stage to an
	// earlier release as well, or a removal its entry dates before a
	// promotion it states.
	doubtful := func(ev changelog.Event) bool {
		text := ev.Evidence
		if e := r.entries[ev.Entry]; e != nil && ev.Document == r.doc.Key {
			text = e.Text
		}
		if noChange(ev.Kind, ev.Stage, ev.Release, ev.Evidence, text) {
			return true
		}
		if ev.Document == r.doc.Key && r.headingDatedEarlier(r.entries[ev.Entry], ev.Source, ev.Feature, ev.Release) {
			return true
		}
		if ev.Stage == changelog.StageRemoved {
			// A removal dated before a promotion the same entry states
			// ("The feature gates CSIMigrationGCE is graduated to GA and
			// were unconditionally enabled have been removed in v1.25"):
			// which release each belongs to is not clear.
			// The parser leaves the GA out as the gate's past; a sentence
			// that speaks of a promotion and names one release, the
			// removal's, may date either.
			for _, o := range raw {
				if o.Document == ev.Document && o.Entry == ev.Entry && !o.Revert && promotion(o.Stage) &&
					changelog.CompareReleases(o.Release, ev.Release) > 0 {
					return true
				}
			}
			if rePromotes.MatchString(ev.Evidence) {
				if rels := reReleaseNumber.FindAllStringSubmatch(ev.Evidence, -1); len(rels) == 1 && changelog.CompareReleases(rels[0][1], ev.Release) == 0 {
					return true
				}
			}
			return false
		}
		if !promotion(ev.Stage) {
			return false
		}
		for _, o := range raw {
			if o.Document == ev.Document && o.Entry == ev.Entry && !o.Revert && maturity(o.Stage) >= maturity(ev.Stage) &&
				changelog.CompareReleases(o.Release, ev.Release) < 0 {
				return true
			}
		}
		return false
	}
	consistent = true
	drop := map[string]bool{}
	for i := 0; i < len(raw); {
		j := i
		var clean []changelog.Event
		for j < len(raw) && raw[j].Release == raw[i].Release {
			if !doubtful(raw[j]) {
				clean = append(clean, raw[j])
			}
			j++
		}
		switch {
		case len(clean) == 0:
			drop[raw[i].Release] = true
		case len(clean) < j-i || contradictory(clean):
			consistent = false
		}
		i = j
	}
	events = r.history(feature)
	if len(drop) > 0 {
		var kept []changelog.Event
		for _, ev := range events {
			if !drop[ev.Release] {
				kept = append(kept, ev)
			}
		}
		events = kept
	}
	forward = consistent
	for j, ev := range events {
		if ev.Revert || !askable(ev.Stage) || j > 0 && maturity(ev.Stage) <= maturity(events[j-1].Stage) {
			forward = false
		}
	}
	r.steady[k] = steady{events, consistent, forward}
	return events, consistent, forward
}

// contradictory reports whether statements of one release disagree: two
// levels among alpha, beta and GA, or a promotion and a removal (the
// EndpointSlice controllers going GA and a field of the EndpointSlice API
// being removed, both read as EndpointSlice).
func contradictory(evs []changelog.Event) bool {
	level := 0
	promoted, removed := false, false
	for _, ev := range evs {
		l := 0
		switch ev.Stage {
		case changelog.StageAlpha:
			l = 1
		case changelog.StageBeta, changelog.StageBetaDefaultOn:
			l = 2
		case changelog.StageGA:
			l = 4
		}
		if l > 0 && level > 0 && l != level {
			return true
		}
		if l > 0 {
			level = l
		}
		promoted = promoted || promotion(ev.Stage)
		removed = removed || ev.Stage == changelog.StageRemoved
	}
	return promoted && removed
}

// factKey names a feature for telling one fact from another within a
// document: its key, with "/" and "&" read as "and", so that "Immutable
// Secrets/ConfigMaps" and "Immutable Secrets and ConfigMaps", one feature
// spelt two ways, get one set of questions. Question ids keep
// changelog.FeatureKey.
func factKey(feature string) string {
	return changelog.FeatureKey(factSpelling.Replace(feature))
}

var factSpelling = strings.NewReplacer("/", " and ", "&", " and ", "＆", " and ")
