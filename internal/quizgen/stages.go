package quizgen

import (
	"slices"
	"strings"

	"kubequiz/internal/changelog"
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

// factKey names a feature for telling one fact from another within a
// document: its key, with "/" and "&" read as "and", so that "Immutable
// Secrets/ConfigMaps" and "Immutable Secrets and ConfigMaps", one feature
// spelt two ways, get one set of questions. Question ids keep
// changelog.FeatureKey.
func factKey(feature string) string {
	return changelog.FeatureKey(factSpelling.Replace(feature))
}

var factSpelling = strings.NewReplacer("/", " and ", "&", " and ", "＆", " and ")
