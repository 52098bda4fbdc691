package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// TestDailyReviewCounts checks the day's counts that the daily limits use
// through the ways the daily_reviews row can be missing or keyed by another
// day start: a row lost, and the learner's zone changed and changed back
// within one day.
func TestDailyReviewCounts(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) // 21:00 in Tokyo
	user := addStudyUser(t, db, "alice", studyUserOpts{newPerDay: 5})
	deck := addStudyDeck(t, db, "d1", "1.36")
	for p := range 10 {
		addStudyQuestion(t, db, deck, p, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", p)))
	}
	subscribe(t, db, user, "d1")
	reviews := 0
	gradeNew := func(at time.Time) {
		t.Helper()
		n, err := db.NextCard(ctx, learner(t, db, user), "", at)
		if err != nil || !n.Found || !n.Card.IsNew {
			t.Fatalf("NextCard = found %v new %v, %v; want a new card", n.Found, n.Card.IsNew, err)
		}
		reviews++
		if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: n.Card.Question.ID, RequestID: reqID(reviews),
			Rating: fsrs.Easy, Response: quiz.Response{Choice: 1}, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.write.Exec(query, args...); err != nil {
			t.Fatal(err)
		}
	}
	setZone := func(zone string) { exec(`UPDATE users SET timezone = ? WHERE id = ?`, zone, user) }
	steps := []struct {
		name      string
		do        func()
		at        time.Time
		wantNew   int
		wantLimit bool
		wantRows  int
	}{
		{"two new cards", func() { gradeNew(now); gradeNew(now) }, now, 2, false, 1},
		{"row lost, as before the table existed", func() { exec(`DELETE FROM daily_reviews`) }, now, 2, false, 0},
		{"third card recreates the row from review_log", func() { gradeNew(now) }, now, 3, false, 1},
		{"time zone changed: another day start", func() { setZone("America/New_York") }, now, 3, false, 0},
		{"a card under the other zone", func() { gradeNew(now) }, now, 4, false, 1},
		{"time zone changed back", func() { setZone("Asia/Tokyo") }, now, 4, false, 0},
		{"fifth card reaches the limit", func() { gradeNew(now) }, now, 5, true, 1},
		{"next study day", func() {}, now.Add(24 * time.Hour), 0, false, 1},
		{"a card the next day", func() { gradeNew(now.Add(24 * time.Hour)) }, now.Add(24 * time.Hour), 1, false, 2},
	}
	for _, s := range steps {
		s.do()
		n, err := db.NextCard(ctx, learner(t, db, user), "", s.at)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if n.NewToday != s.wantNew || n.NewLimitReached != s.wantLimit {
			t.Errorf("%s: new today %d, limit reached %v; want %d, %v", s.name, n.NewToday, n.NewLimitReached,
				s.wantNew, s.wantLimit)
		}
		if got := countRows(t, db, `SELECT count(*) FROM daily_reviews`); got != s.wantRows {
			t.Errorf("%s: %d daily_reviews rows, want %d", s.name, got, s.wantRows)
		}
	}
	if got := countRows(t, db, `SELECT sum(new_count) FROM daily_reviews`); got != 6 {
		t.Errorf("daily_reviews counts %d new cards, want 6", got)
	}
}
