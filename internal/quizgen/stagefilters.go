package quizgen

import (
	"regexp"

	"kubequiz/internal/changelog"
)

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
