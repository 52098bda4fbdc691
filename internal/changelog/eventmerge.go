package changelog

import (
	"strings"
)

// mergeEvents folds the events of one part into one per feature and release,
// in the order they were stated.
func mergeEvents(raw []event) []event {
	type key struct{ f, rel string }
	var order []key
	byKey := map[key][]event{}
	for _, e := range raw {
		k := key{FeatureKey(e.feature), e.release}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], e)
	}
	out := make([]event, 0, len(order))
	for _, k := range order {
		out = append(out, foldGroup(byKey[k])...)
	}
	return out
}

// foldGroup folds the statements about one feature in one release. A
// feature that reaches a level and whose gate is then deprecated ("Pod
// process namespace sharing is now Generally Available. The
// PodShareProcessNamespace feature gate is now deprecated") changed twice:
// both stay, the level first. Otherwise the statements fold into one
// (foldStages).
func foldGroup(es []event) []event {
	var level, deprecation []event
	removed := false
	for _, e := range es {
		switch e.stage {
		case StageDeprecated:
			deprecation = append(deprecation, e)
		case StageRemoved, StageReverted:
			removed = true
		default:
			level = append(level, e)
		}
	}
	if removed || len(deprecation) == 0 || len(level) == 0 {
		return []event{foldStages(es)}
	}
	lv := foldStages(level)
	switch lv.stage {
	case StageAlpha, StageBeta, StageBetaDefaultOn, StageGA:
		return []event{lv, foldStages(deprecation)}
	}
	return []event{foldStages(es)}
}

// foldStages applies a sequence of statements about one feature: a promotion
// to beta followed by "enabled by default" is StageBetaDefaultOn; removal
// wins over GA ("GA gates removed"); a revert followed by a state records
// that state as a revert.
func foldStages(es []event) event {
	final := es[0]
	final.stage = ""
	revert := false
	for _, e := range es {
		if e.stage == StageReverted {
			revert = true
			if final.stage == "" {
				final.pr, final.evidence, final.stage = e.pr, e.evidence, StageReverted
			}
			continue
		}
		cur := final.stage
		if cur == StageReverted {
			cur = ""
		}
		next := combineStages(cur, e.stage, final.promo)
		if (e.stage == StageDefaultOn || e.stage == StageDefaultOff) && isLevel(next) {
			final.def = e.stage // stated with the level, folded into it
		}
		if next != final.stage {
			final.pr, final.evidence, final.promo = e.pr, e.evidence, e.promo
			final.stage = next
			final.revert = revert
			final.explicit = e.explicit
		}
		if final.mtype != MentionFeatureGate && e.mtype == MentionFeatureGate {
			final.mtype, final.feature = e.mtype, e.feature
		}
	}
	if final.stage == StageReverted {
		final.revert = true
	}
	switch {
	case final.stage == StageBetaDefaultOn:
		final.def = StageDefaultOn
	case !isLevel(final.stage):
		final.def = ""
	}
	return final
}

// isLevel reports whether s is a maturity level: alpha, beta (on by
// default or not) or GA.
func isLevel(s Stage) bool {
	switch s {
	case StageAlpha, StageBeta, StageBetaDefaultOn, StageGA:
		return true
	}
	return false
}

// combineStages returns the state after next is stated about a feature that
// is in state cur; promo says whether cur came from a promotion.
func combineStages(cur, next Stage, promo bool) Stage {
	switch next {
	case StageBeta:
		if cur == StageDefaultOn || cur == StageBetaDefaultOn {
			return StageBetaDefaultOn
		}
	case StageGA, StageDeprecated:
		if cur == StageRemoved {
			return cur
		}
	case StageDefaultOn:
		switch cur {
		case StageBeta, StageBetaDefaultOn:
			return StageBetaDefaultOn
		case StageGA, StageRemoved:
			return cur
		}
	case StageDefaultOff:
		if cur == StageRemoved || cur == StageGA || cur == StageBeta && promo {
			return cur
		}
	case StageReverted:
		if cur != "" {
			return cur
		}
	}
	return next
}

// FeatureKey is the identity of a feature name: case and spaces ignored, so
// "Graceful Node Shutdown" and "GracefulNodeShutdown" are one feature.
func FeatureKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '\u3000' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
