package quizgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/testshared"
)

// Grading sample: docs/content-quality.md grades drafts drawn by
// gradingSample. Redraw and print them with
//
//	KUBEQUIZ_GRADING_SAMPLE=1 go test ./internal/quizgen -run TestGradingSample -v
const (
	gradingSize = 40 // drafts per format
	gradingSeed = 23 // the PCG seed, with stream 1
)

// gradingSample draws n of the drafts, the same for the same drafts: they
// are ordered by id and shuffled with a PCG of the seed.
func gradingSample(drafts []Generated, n int, seed uint64) []Generated {
	all := slices.Clone(drafts)
	slices.SortFunc(all, func(a, b Generated) int { return strings.Compare(a.Question.ExtID, b.Question.ExtID) })
	rng := rand.New(rand.NewPCG(seed, 1))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:min(n, len(all))]
}

// gradingDrafts generates the Japanese drafts of each reference document as
// `kubequiz ingest -dry-run -json FILE` does on an empty database (the
// timeline of the document alone), pooled by format: the four upstream
// CHANGELOGs, the four Japanese articles and the eleven release-notes
// files of 1.17 to 1.27.
func gradingDrafts(t *testing.T) (upstream, article, relnotes []Generated) {
	for _, f := range sharedFiles {
		qs := gradingDraftsOf(t, f.name, "", f.path...)
		if f.seed {
			article = append(article, qs...)
		} else {
			upstream = append(upstream, qs...)
		}
	}
	for minor := 17; minor <= 27; minor++ {
		name := fmt.Sprintf("release-notes-1.%d.0.json", minor)
		relnotes = append(relnotes, gradingDraftsOf(t, name, fmt.Sprintf("1.%d", minor), "release-notes", name)...)
	}
	return upstream, article, relnotes
}

// gradingDraftsOf generates the Japanese drafts of one shared document,
// its format detected. The release is given, as the command's -release,
// only where the document does not tell it.
func gradingDraftsOf(t *testing.T, name, release string, path ...string) []Generated {
	t.Helper()
	b, err := os.ReadFile(testshared.Path(t, path...))
	if err != nil {
		t.Fatal(err)
	}
	d, err := changelog.Parse(b, changelog.Options{})
	if err == nil && d.Release == "" && release != "" {
		d, err = changelog.Parse(b, changelog.Options{Release: release})
	}
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	if d.Release == "" {
		t.Fatalf("%s: no release", name)
	}
	tl, err := changelog.NewTimeline(d)
	if err != nil {
		t.Fatal(err)
	}
	return Generate(d, tl, Options{Language: LangJapanese})
}

func TestGradingSample(t *testing.T) {
	upstream, article, relnotes := gradingDrafts(t)
	for _, pool := range []struct {
		name   string
		drafts []Generated
	}{{"upstream CHANGELOG", upstream}, {"Japanese article", article}, {"release-notes JSON", relnotes}} {
		sample := gradingSample(pool.drafts, gradingSize, gradingSeed)
		if len(sample) != gradingSize {
			t.Fatalf("%s: %d drafts sampled from %d, want %d", pool.name, len(sample), len(pool.drafts), gradingSize)
		}
		// The same drafts in another order draw the same sample.
		rev := slices.Clone(pool.drafts)
		slices.Reverse(rev)
		again := gradingSample(rev, gradingSize, gradingSeed)
		for i := range sample {
			if again[i].Question.ExtID != sample[i].Question.ExtID {
				t.Fatalf("%s: draw %d is %s, then %s", pool.name, i, sample[i].Question.ExtID, again[i].Question.ExtID)
			}
		}
		if os.Getenv("KUBEQUIZ_GRADING_SAMPLE") == "" {
			continue
		}
		t.Logf("%s: %d drafts", pool.name, len(pool.drafts))
		for i, g := range sample {
			t.Logf("%s %d: %s", pool.name, i+1, describeDraft(g))
		}
	}
}

// describeDraft writes a draft on one line for grading.
func describeDraft(g Generated) string {
	q := g.Question
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] %q", q.ExtID, g.Provenance.Generator, q.Prompt)
	switch q.Type {
	case quiz.SingleChoice:
		fmt.Fprintf(&b, " choices %q answer %q", q.Choices, q.Answer)
	case quiz.TrueFalse:
		fmt.Fprintf(&b, " truth %v", *q.Truth)
	case quiz.Order:
		fmt.Fprintf(&b, " items %q", q.Items)
	case quiz.Flashcard:
		fmt.Fprintf(&b, " back %q", q.Answer)
	}
	fmt.Fprintf(&b, " explanation %q source %q", q.Explanation, g.Provenance.SourceText)
	return b.String()
}
