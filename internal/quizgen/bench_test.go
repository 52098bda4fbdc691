package quizgen

import (
	"os"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/testshared"
)

// BenchmarkGenerate generates every question of the 1.36 CHANGELOG, with a
// timeline of that document alone.
func BenchmarkGenerate(b *testing.B) {
	data, err := os.ReadFile(testshared.Path(b, "changelogs", "CHANGELOG-1.36.0.md"))
	if err != nil {
		b.Fatalf("read: %v", err)
	}
	doc, err := changelog.Parse(data, changelog.Options{})
	if err != nil {
		b.Fatalf("parse: %v", err)
	}
	tl, err := changelog.NewTimeline(doc)
	if err != nil {
		b.Fatalf("timeline: %v", err)
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		n = len(Generate(doc, tl, Options{}))
	}
	b.ReportMetric(float64(n), "questions")
}

// BenchmarkParseGenerate parses a document and generates its questions, as
// an ingest's preview does: the 1.36 CHANGELOG, and a synthetic upstream
// CHANGELOG of MaxDocumentSize whose entries each promote another gate
// ("- Graduated FeatureGateN to GA. (#N, @someone) [SIG Node]"). peak-MB
// is the most heap in use while it ran, sampled every millisecond.
func BenchmarkParseGenerate(b *testing.B) {
	cases := []struct {
		name string
		data func(testing.TB) []byte
	}{
		{"changelog-1.36", func(tb testing.TB) []byte {
			data, err := os.ReadFile(testshared.Path(tb, "changelogs", "CHANGELOG-1.36.0.md"))
			if err != nil {
				tb.Fatalf("read: %v", err)
			}
			return data
		}},
		{"synthetic-2MiB", func(testing.TB) []byte { return testshared.SyntheticChangelog(changelog.MaxDocumentSize) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			data := c.data(b)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			peak := testshared.WatchHeap()
			n := 0
			for b.Loop() {
				doc, err := changelog.Parse(data, changelog.Options{})
				if err != nil {
					b.Fatalf("parse: %v", err)
				}
				tl, err := changelog.NewTimeline(doc)
				if err != nil {
					b.Fatalf("timeline: %v", err)
				}
				n = len(Generate(doc, tl, Options{}))
			}
			b.ReportMetric(float64(n), "questions")
			b.ReportMetric(float64(peak())/(1<<20), "peak-MB")
		})
	}
}
