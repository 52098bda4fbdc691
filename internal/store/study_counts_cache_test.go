package store

import (
	"context"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
)

// TestStudyCountsCache: the study page's counts are kept until a write of
// this process or countsCacheTTL; a change written behind the store's back
// (another process) shows after the TTL, one through the store at once.
func TestStudyCountsCache(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	u := learner(t, f.db, f.alice)
	count := func(at time.Time) progress.Due {
		t.Helper()
		d, err := f.db.StudyCounts(ctx, u, Scope{}, at)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first := count(f.now)
	if first != (progress.Due{Learning: 1, Review: 1, New: 4}) {
		t.Fatalf("counts %+v", first)
	}
	// Another process makes e, a new card, due for review: unseen until
	// the TTL has passed.
	setCard(t, f.db, f.alice, f.q["e"], reviewCard(fsrs.Review, f.now.Add(-time.Hour)))
	if got := count(f.now.Add(countsCacheTTL - time.Millisecond)); got != first {
		t.Errorf("within the TTL the counts are %+v, want the kept %+v", got, first)
	}
	moved := progress.Due{Learning: 1, Review: 2, New: 3}
	if got := count(f.now.Add(countsCacheTTL)); got != moved {
		t.Errorf("after the TTL the counts are %+v, want %+v", got, moved)
	}
	// Other limits, another deck, another day: counted on their own.
	u2 := u
	u2.NewPerDay = 1
	if d, err := f.db.StudyCounts(ctx, u2, Scope{}, f.now.Add(countsCacheTTL)); err != nil || d.New != 1 {
		t.Errorf("with 1 new card a day: %+v, %v", d, err)
	}
	if d, err := f.db.StudyCounts(ctx, u, Scope{Deck: "d2"}, f.now.Add(countsCacheTTL)); err != nil || d != (progress.Due{New: 1}) {
		t.Errorf("deck d2: %+v, %v", d, err)
	}

	// Writes through the store show at once: a review, an undo, a
	// subscription.
	at := f.now.Add(countsCacheTTL + time.Second)
	if got := count(at); got != moved {
		t.Fatalf("counts %+v, want %+v", got, moved)
	}
	if _, err := f.db.RecordReview(ctx, Review{UserID: f.alice, QuestionID: f.q["e"], RequestID: reqID(1),
		Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, At: at}); err != nil {
		t.Fatal(err)
	}
	if got := count(at); got != (progress.Due{Learning: 1, Review: 1, New: 3}) {
		t.Errorf("after a review the counts are %+v", got)
	}
	if _, err := f.db.UndoLastReview(ctx, f.alice, at); err != nil {
		t.Fatal(err)
	}
	if got := count(at); got != moved {
		t.Errorf("after the undo the counts are %+v, want %+v", got, moved)
	}
	if _, err := f.db.SetSubscription(ctx, f.alice, "d2", false, at); err != nil {
		t.Fatal(err)
	}
	if got := count(at); got != (progress.Due{Learning: 1, Review: 2, New: 2}) {
		t.Errorf("after unsubscribing from d2 the counts are %+v", got)
	}
}

// TestCountsCacheGeneration: counts begun before an invalidation are not
// kept; a full cache is emptied.
func TestCountsCacheGeneration(t *testing.T) {
	var c countsCache
	now := time.Unix(1000, 0)
	k := countsKey{user: 1}
	gen := c.generation()
	c.invalidate()
	c.put(gen, k, progress.Due{New: 1}, now)
	if _, ok := c.get(k, now); ok {
		t.Error("counts begun before an invalidation were kept")
	}
	c.put(c.generation(), k, progress.Due{New: 2}, now)
	if d, ok := c.get(k, now); !ok || d.New != 2 {
		t.Errorf("get = %+v, %v", d, ok)
	}
	if _, ok := c.get(k, now.Add(-time.Second)); ok {
		t.Error("counts from the future were believed")
	}
	for i := range countsCacheMax {
		c.put(c.generation(), countsKey{user: int64(i + 2)}, progress.Due{}, now)
	}
	if len(c.entries) > countsCacheMax {
		t.Errorf("%d entries, want at most %d", len(c.entries), countsCacheMax)
	}
	if _, ok := c.get(k, now); ok {
		t.Error("a full cache was not emptied")
	}
}
