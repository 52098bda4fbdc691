package changelog

import (
	"os"
	"testing"

	"kubequiz/internal/testshared"
)

// BenchmarkParse parses the 1.36.0 upstream notes (about 123 KB). Goal:
// under 20 ms per document.
func BenchmarkParse(b *testing.B) {
	doc, err := os.ReadFile(testshared.Path(b, "changelogs", "CHANGELOG-1.36.0.md"))
	if err != nil {
		b.Fatalf("read: %v", err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(doc, Options{}); err != nil {
			b.Fatalf("Parse: %v", err)
		}
	}
}
