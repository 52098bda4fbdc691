package store

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
)

// BenchmarkStats measures gathering the statistics of a learner with a
// year of study (Stats), the home page's summary (HomeSummary), the study
// page's counts (StudyCounts) and the undo button's check (LastUndoable),
// each on its own; p50-ms is the median of the calls.
func BenchmarkStats(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "stats.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	user, err := db.SeedStatsBench(ctx, now)
	if err != nil {
		b.Fatal(err)
	}
	if n := countRows(b, db, `SELECT count(*) FROM review_log WHERE user_id = ?`, user); n != statsBenchReviews {
		b.Fatalf("%d reviews", n)
	}
	u := learner(b, db, user)

	calls := []struct {
		name string
		call func() error
	}{
		{"Stats", func() error { _, err := db.Stats(ctx, user, nil, now); return err }},
		{"HomeSummary", func() error { _, err := db.HomeSummary(ctx, user, now); return err }},
		// Counted each time, as after a write: not the kept counts.
		{"StudyCounts", func() error { db.counts.invalidate(); _, err := db.StudyCounts(ctx, u, Scope{}, now); return err }},
		{"LastUndoable", func() error { _, _, err := db.LastUndoable(ctx, user, now); return err }},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if err := c.call(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// TestStatsBenchData checks that the benchmark's learner is what its
// figures say: reviews every day of the year, and figures in range.
func TestStatsBenchData(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	h := benchHistory(rng, 1, []int64{1, 2, 3}, 3650, now, benchYear)
	days := map[string]int{}
	for _, r := range h {
		if r.at.After(now) || r.at.Before(now.Add(-366*24*time.Hour)) {
			t.Fatalf("review at %v, outside the year before %v", r.at, now)
		}
		days[r.at.Format(time.DateOnly)]++
	}
	if len(days) < 365 {
		t.Errorf("reviews on %d days of the year", len(days))
	}
	for _, c := range benchCards(rng, 100, now) {
		if !c.State.Valid() || c.State == fsrs.New || c.Stability < 1 || c.Stability > 365 || c.LastReview.After(now) {
			t.Errorf("card %+v", c)
		}
	}
}
