package quizgen

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"

	"kubequiz/internal/changelog"
)

// FactKey names what a generated question asks, whichever document it was
// generated from: two questions with one key ask the same thing, and one
// is enough. release is the question's release (its Source.Release: the
// document's). It returns "" for a provenance it cannot place.
//
//   - stage_in_release and true_false ask where a feature stood in a
//     release: feature and release;
//   - release_of_stage asks when a feature reached a stage: feature,
//     stage (beta turned on by default counts as beta) and the release
//     that answers it;
//   - timeline_order asks a feature's whole history: the feature;
//   - cloze quotes a change: its PRs, or without PRs its release and
//     text;
//   - feature_from_description and flashcard ask what a term is, as a
//     release describes it: term and release.
//
// The keys agree with the facts Generate asks once within a document.
func FactKey(p Provenance, release string) string {
	feature := factKey(p.Feature)
	rel := release
	if r, err := changelog.NormalizeRelease(release); err == nil {
		rel = r
	}
	join := func(parts ...string) string { return p.Generator + "\x00" + strings.Join(parts, "\x00") }
	switch p.Generator {
	case GenStageInRelease, GenTrueFalse:
		r, err := changelog.NormalizeRelease(p.Release)
		if feature == "" || err != nil {
			return ""
		}
		return join(feature, r)
	case GenReleaseOfStage:
		r, err := changelog.NormalizeRelease(p.Release)
		if feature == "" || p.Stage == "" || err != nil {
			return ""
		}
		st := p.Stage
		if st == changelog.StageBetaDefaultOn {
			st = changelog.StageBeta
		}
		return join(feature, string(st), r)
	case GenTimelineOrder:
		if feature == "" {
			return ""
		}
		return join(feature)
	case GenCloze:
		if prs := positivePRs(p.PRs); len(prs) > 0 {
			parts := make([]string, len(prs))
			for i, pr := range prs {
				parts[i] = strconv.Itoa(pr)
			}
			return join("pr", strings.Join(parts, ","))
		}
		if p.SourceText == "" || rel == "" {
			return ""
		}
		return join("text", rel, textDigest(p.SourceText))
	case GenFeatureFromDescription, GenFlashcard:
		if feature == "" || rel == "" {
			return ""
		}
		return join(feature, rel)
	}
	return ""
}

// textDigest hashes the letters and digits of s, lower-cased, so that
// spacing, punctuation and markup do not count.
func textDigest(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}
