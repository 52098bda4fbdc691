package store

import (
	"context"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// TestDaySummary sums a learner's reviews of the study day: theirs only,
// from 04:00 in their zone to 04:00 the next day, right answers and time
// taken; an undone review no longer counts.
func TestDaySummary(t *testing.T) {
	ctx := context.Background()
	f := newUndoFixture(t)
	tokyo := mustZone(t, "Asia/Tokyo")
	day := time.Date(2026, 5, 1, 4, 0, 0, 0, tokyo)
	grade := func(user int64, ext string, choice int, rating fsrs.Rating, at time.Time, took time.Duration) {
		t.Helper()
		f.n++
		_, err := f.db.RecordReview(ctx, Review{UserID: user, QuestionID: f.q[ext], RequestID: reqID(f.n),
			Rating: rating, Response: quiz.Response{Choice: choice}, At: at, Duration: took})
		if err != nil {
			t.Fatalf("grade %s: %v", ext, err)
		}
	}
	// Alice: one review at 03:59, before the day began; three during it,
	// two of them right (choice 1); one on the next day. Bob: one today.
	grade(f.alice, "review", 1, fsrs.Good, day.Add(-time.Minute), 9*time.Second)
	grade(f.alice, "learn", 1, fsrs.Good, day, 3*time.Second)
	grade(f.alice, "relearn", 0, fsrs.Again, day.Add(8*time.Hour), 5*time.Second)
	grade(f.alice, "n1", 1, fsrs.Easy, day.Add(17*time.Hour), 7500*time.Millisecond)
	grade(f.bob, "bobs", 1, fsrs.Good, day.Add(10*time.Hour), 11*time.Second)
	grade(f.alice, "n2", 1, fsrs.Good, day.Add(24*time.Hour), 13*time.Second)

	tests := []struct {
		name string
		user int64
		at   time.Time
		want DaySummary
	}{
		{"alice today", f.alice, day.Add(20 * time.Hour),
			DaySummary{DayStart: day, DayEnds: day.AddDate(0, 0, 1), Reviews: 3, Correct: 2, Time: 15500 * time.Millisecond}},
		{"alice at the day's start", f.alice, day,
			DaySummary{DayStart: day, DayEnds: day.AddDate(0, 0, 1), Reviews: 3, Correct: 2, Time: 15500 * time.Millisecond}},
		{"alice the day before", f.alice, day.Add(-time.Second),
			DaySummary{DayStart: day.AddDate(0, 0, -1), DayEnds: day, Reviews: 1, Correct: 1, Time: 9 * time.Second}},
		{"alice the next day", f.alice, day.Add(24 * time.Hour),
			DaySummary{DayStart: day.AddDate(0, 0, 1), DayEnds: day.AddDate(0, 0, 2), Reviews: 1, Correct: 1, Time: 13 * time.Second}},
		{"bob today", f.bob, day.Add(20 * time.Hour),
			DaySummary{DayStart: day, DayEnds: day.AddDate(0, 0, 1), Reviews: 1, Correct: 1, Time: 11 * time.Second}},
		{"alice two days later", f.alice, day.Add(50 * time.Hour),
			DaySummary{DayStart: day.AddDate(0, 0, 2), DayEnds: day.AddDate(0, 0, 3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.db.DaySummary(ctx, learner(t, f.db, tt.user), tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if !got.DayStart.Equal(tt.want.DayStart) || !got.DayEnds.Equal(tt.want.DayEnds) {
				t.Errorf("day %v to %v, want %v to %v", got.DayStart, got.DayEnds, tt.want.DayStart, tt.want.DayEnds)
			}
			got.DayStart, got.DayEnds, tt.want.DayStart, tt.want.DayEnds = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if got != tt.want {
				t.Errorf("DaySummary = %+v, want %+v", got, tt.want)
			}
		})
	}

	// The next day's review undone, the next day has none.
	next := day.Add(25 * time.Hour)
	if _, err := f.db.UndoLastReview(ctx, f.alice, next); err != nil {
		t.Fatal(err)
	}
	if got, err := f.db.DaySummary(ctx, learner(t, f.db, f.alice), next); err != nil || got.Reviews != 0 || got.Time != 0 {
		t.Errorf("after the undo DaySummary = %+v, %v; want no review", got, err)
	}
}
