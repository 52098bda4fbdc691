package quizgen

import (
	"cmp"
	"slices"
	"strconv"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

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
