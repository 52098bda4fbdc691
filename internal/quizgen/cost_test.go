package quizgen

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/testshared"
)

// countdownCtx is a context whose Err turns to DeadlineExceeded after it
// has answered nil a given number of times.
type countdownCtx struct {
	context.Context
	left int
}

func (c *countdownCtx) Err() error {
	if c.left <= 0 {
		return context.DeadlineExceeded
	}
	c.left--
	return nil
}

func TestGenerateContextStops(t *testing.T) {
	doc, err := changelog.Parse(testshared.SyntheticChangelog(64<<10), changelog.Options{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	tl, err := changelog.NewTimeline(doc)
	if err != nil {
		t.Fatalf("timeline: %v", err)
	}
	want := Generate(doc, tl, Options{})
	if len(want) == 0 {
		t.Fatalf("no questions from %d entries", len(doc.Entries))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"done before it starts", cancelled, context.Canceled},
		{"deadline in the first generator", &countdownCtx{Context: context.Background(), left: 10}, context.DeadlineExceeded},
		{"deadline later on", &countdownCtx{Context: context.Background(), left: 3 * len(doc.Entries)}, context.DeadlineExceeded},
		{"time enough", &countdownCtx{Context: context.Background(), left: 1 << 30}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GenerateContext(tt.ctx, doc, tl, Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("GenerateContext error = %v, want %v", err, tt.want)
			}
			switch {
			case tt.want != nil && (got != nil || !strings.HasPrefix(err.Error(), "quizgen: generate 1.99: ")):
				t.Errorf("stopped: %d questions, error %q; want none and an error naming the document", len(got), err)
			case tt.want == nil && len(got) != len(want):
				t.Errorf("%d questions, want %d as Generate makes", len(got), len(want))
			}
		})
	}
}
