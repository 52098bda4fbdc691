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
