package quizgen

import (
	"testing"

	"kubequiz/internal/changelog"
)

func TestFactKey(t *testing.T) {
	stage := func(gen, feature string, st changelog.Stage, rel string) Provenance {
		return Provenance{Generator: gen, Feature: feature, Stage: st, Release: rel, Document: "1.21", Entry: "1.21/feature/pr-1", PRs: []int{1}}
	}
	for _, c := range []struct {
		name  string
		a, b  Provenance
		relA  string
		relB  string
		same  bool
		empty bool
	}{
		{"stage in release: one per feature and release, whatever the documents",
			stage(GenStageInRelease, "CronJobs", changelog.StageGA, "1.21"),
			Provenance{Generator: GenStageInRelease, Feature: "Cron Jobs", Stage: changelog.StageGA, Release: "v1.21", Document: "1.21/node", Entry: "1.21/node/feature/pr-1"},
			"1.21", "1.21", true, false},
		{"stage in release: another release", stage(GenStageInRelease, "X", changelog.StageBeta, "1.21"), stage(GenStageInRelease, "X", changelog.StageGA, "1.22"), "1.21", "1.22", false, false},
		{"true or false is its own question", stage(GenStageInRelease, "X", changelog.StageBeta, "1.21"), stage(GenTrueFalse, "X", changelog.StageBeta, "1.21"), "1.21", "1.21", false, false},
		{"release of a stage: one per feature and stage, asked from any release",
			stage(GenReleaseOfStage, "X", changelog.StageBeta, "1.20"), stage(GenReleaseOfStage, "x", changelog.StageBeta, "1.20"), "1.21", "1.27", true, false},
		{"release of another stage", stage(GenReleaseOfStage, "X", changelog.StageBeta, "1.20"), stage(GenReleaseOfStage, "X", changelog.StageGA, "1.22"), "1.22", "1.22", false, false},
		{"release of beta, on by default or not", stage(GenReleaseOfStage, "X", changelog.StageBeta, "1.21"), stage(GenReleaseOfStage, "X", changelog.StageBetaDefaultOn, "1.21"), "1.21", "1.21", true, false},
		{"release of beta, and of beta turned on later", stage(GenReleaseOfStage, "X", changelog.StageBeta, "1.20"), stage(GenReleaseOfStage, "X", changelog.StageBetaDefaultOn, "1.21"), "1.21", "1.21", false, false},
		{"a timeline: one per feature", stage(GenTimelineOrder, "X/Y", changelog.StageGA, "1.22"), stage(GenTimelineOrder, "X and Y", changelog.StageGA, "1.24"), "1.22", "1.24", true, false},
		{"a cloze: one per PR",
			Provenance{Generator: GenCloze, Feature: "X", PRs: []int{5, 3}, SourceText: "Added X."},
			Provenance{Generator: GenCloze, Feature: "Y", PRs: []int{3, 5, 0}, SourceText: "X を追加した。"}, "1.21", "1.21", true, false},
		{"a cloze without PR: one per text", Provenance{Generator: GenCloze, SourceText: "Added `X`."}, Provenance{Generator: GenCloze, SourceText: "added x"}, "1.21", "1.21", true, false},
		{"a cloze of another text", Provenance{Generator: GenCloze, SourceText: "Added X."}, Provenance{Generator: GenCloze, SourceText: "Added Y."}, "1.21", "1.21", false, false},
		{"a flashcard: one per term and release", Provenance{Generator: GenFlashcard, Feature: "PSI"}, Provenance{Generator: GenFlashcard, Feature: "psi"}, "1.36", "v1.36.0", true, false},
		{"a flashcard of another release", Provenance{Generator: GenFlashcard, Feature: "PSI"}, Provenance{Generator: GenFlashcard, Feature: "PSI"}, "1.35", "1.36", false, false},
		{"no feature", stage(GenStageInRelease, "", changelog.StageGA, "1.21"), stage(GenStageInRelease, "", changelog.StageGA, "1.21"), "1.21", "1.21", true, true},
		{"no stage", stage(GenReleaseOfStage, "X", "", ""), stage(GenReleaseOfStage, "X", "", ""), "1.21", "1.21", true, true},
		{"unknown generator", Provenance{Generator: "other", Feature: "X"}, Provenance{Generator: "other", Feature: "X"}, "1.21", "1.21", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := FactKey(c.a, c.relA), FactKey(c.b, c.relB)
			if (a == "") != c.empty || (b == "") != c.empty {
				t.Fatalf("keys %q and %q, want empty %v", a, b, c.empty)
			}
			if (a == b) != c.same {
				t.Errorf("keys %q and %q, want the same: %v", a, b, c.same)
			}
		})
	}
}
