package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
)

// The statistics benchmark's learner: a year of study, 100,000 reviews
// (about 274 a day) of 4,000 cards in 20 subscribed decks of 250
// questions (1,000 still new), among 10 other learners with 10,000
// reviews each.
const (
	statsBenchDecks     = 20
	statsBenchPerDeck   = 250
	statsBenchCards     = 4000
	statsBenchReviews   = 100_000
	statsBenchOthers    = 10
	statsBenchOtherRevs = 10_000
)

// addBenchCards writes cards in one transaction.
func addBenchCards(tb testing.TB, db *DB, user int64, questions []int64, cards []fsrs.Card) {
	tb.Helper()
	err := db.tx(tb.Context(), func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT INTO cards (user_id, question_id, state, due, stability, difficulty,
			elapsed_days, scheduled_days, learning_steps, reps, lapses, last_review) VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, c := range cards {
			if _, err := st.Exec(user, questions[i], int(c.State), ms(c.Due), c.Stability, c.Difficulty, c.ScheduledDays,
				c.Reps, c.Lapses, ms(c.LastReview)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("add cards: %v", err)
	}
}

// benchHistory returns n reviews of user over the year before now, about
// as many each day, of questions, the first of each card from new.
func benchHistory(rng *rand.Rand, user int64, questions []int64, n int, now time.Time) []pastReview {
	out := make([]pastReview, n)
	seen := map[int64]bool{}
	year := int64(365 * 24 * time.Hour)
	for i := range out {
		at := now.Add(-time.Duration(year) + time.Duration(float64(i)/float64(n)*float64(year)) +
			time.Duration(rng.Int64N(int64(time.Hour))))
		q := questions[rng.IntN(len(questions))]
		before := fsrs.Review
		switch p := rng.IntN(100); {
		case !seen[q]:
			before, seen[q] = fsrs.New, true
		case p < 10:
			before = fsrs.Learning
		case p < 15:
			before = fsrs.Relearning
		}
		rating := fsrs.Good
		switch p := rng.IntN(100); {
		case p < 10:
			rating = fsrs.Again
		case p < 20:
			rating = fsrs.Hard
		case p < 30:
			rating = fsrs.Easy
		}
		out[i] = pastReview{user, q, at, before, rating}
	}
	return out
}

// benchCards returns n cards as a year of study leaves them: a tenth in
// learning or relearning, stabilities from a day to a year, due from ten
// days ago to four months ahead.
func benchCards(rng *rand.Rand, n int, now time.Time) []fsrs.Card {
	out := make([]fsrs.Card, n)
	for i := range out {
		s := math.Exp(rng.Float64() * math.Log(365))
		due := now.Add(time.Duration(rng.Int64N(int64(130*24*time.Hour))) - 10*24*time.Hour)
		c := fsrs.Card{State: fsrs.Review, Stability: s, Difficulty: 1 + 9*rng.Float64(), ScheduledDays: int(s),
			Reps: 1 + rng.IntN(20), Lapses: rng.IntN(3), Due: due, LastReview: due.Add(-time.Duration(s * float64(24*time.Hour)))}
		if c.LastReview.After(now) {
			c.LastReview = now.Add(-time.Hour)
		}
		if i%10 == 0 {
			c.State = fsrs.Learning + fsrs.State(2*(i%20/10)) // Learning or Relearning
			c.Due, c.LastReview = now.Add(time.Duration(rng.IntN(60))*time.Minute), now.Add(-time.Hour)
		}
		out[i] = c
	}
	return out
}

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
	rng := rand.New(rand.NewPCG(7, 11))
	var questions []int64
	for d := range statsBenchDecks {
		deck := addStudyDeck(b, db, fmt.Sprintf("deck-%02d", d), fmt.Sprintf("1.%d", 20+d/5))
		if _, err := db.write.Exec(`UPDATE decks SET sig = ? WHERE id = ?`, fmt.Sprintf("sig-%d", d%5), deck); err != nil {
			b.Fatal(err)
		}
		err := db.tx(ctx, func(tx *sql.Tx) error {
			for i := range statsBenchPerDeck {
				q := sampleQuestion(fmt.Sprintf("d%d-q%d", d, i))
				payload, prs, tags, err := encodeQuestion(q)
				if err != nil {
					return err
				}
				res, err := tx.Exec(`INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation,
					release, sig, pr_numbers, tags, origin, status, content_hash, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, 'yaml', 'published', ?, 0, 0)`,
					deck, q.ExtID, i, string(q.Type), q.Prompt, payload, q.Explanation, prs, tags, q.ContentHash())
				if err != nil {
					return err
				}
				id, _ := res.LastInsertId()
				questions = append(questions, id)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	user := addStudyUser(b, db, "learner", studyUserOpts{})
	for d := range statsBenchDecks {
		subscribe(b, db, user, fmt.Sprintf("deck-%02d", d))
	}
	// The learner's cards are the first 200 questions of each deck.
	var carded []int64
	for d := range statsBenchDecks {
		carded = append(carded, questions[d*statsBenchPerDeck:d*statsBenchPerDeck+statsBenchCards/statsBenchDecks]...)
	}
	addBenchCards(b, db, user, carded, benchCards(rng, len(carded), now))
	addPastReviews(b, db, "learner", benchHistory(rng, user, carded, statsBenchReviews, now))
	for o := range statsBenchOthers {
		other := addStudyUser(b, db, fmt.Sprintf("other%d", o), studyUserOpts{})
		addPastReviews(b, db, fmt.Sprintf("other%d", o), benchHistory(rng, other, carded, statsBenchOtherRevs, now))
	}
	if _, err := db.write.Exec(`ANALYZE`); err != nil {
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
		{"StudyCounts", func() error { db.counts.invalidate(); _, err := db.StudyCounts(ctx, u, "", now); return err }},
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
	h := benchHistory(rng, 1, []int64{1, 2, 3}, 3650, now)
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
