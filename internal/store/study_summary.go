package store

import (
	"context"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
)

// DaySummary is what a learner did on one study day: the study page's
// summary when the day's queue ends.
type DaySummary struct {
	// DayStart and DayEnds bound the study day, in the learner's zone.
	DayStart, DayEnds time.Time
	// Reviews counts the day's reviews, a card graded twice counting
	// twice (as Anki counts the cards studied).
	Reviews int
	// Correct counts the reviews whose answer was right
	// (quiz.Result.CorrectRated, review_log's correct).
	Correct int
	// Time is the sum of the time the learner took to answer each.
	Time time.Duration
}

// daySummaryQuery sums user ?1's reviews from ?2 to ?3 (ms): a range of
// review_log_user_day.
const daySummaryQuery = `SELECT count(*), coalesce(sum(correct), 0), coalesce(sum(duration_ms), 0)
	FROM review_log WHERE user_id = ?1 AND reviewed_at >= ?2 AND reviewed_at < ?3`

// DaySummary sums u's reviews of the study day of now (04:00 to 04:00 in
// u's time zone, as given: the caller has just read u).
func (db *DB) DaySummary(ctx context.Context, u quiz.User, now time.Time) (DaySummary, error) {
	start, end := studyDay(now, db.zones.location(u.Timezone))
	s := DaySummary{DayStart: start, DayEnds: end}
	var durMS int64
	err := db.read.QueryRowContext(ctx, daySummaryQuery, u.ID, ms(start), ms(end)).Scan(&s.Reviews, &s.Correct, &durMS)
	if err != nil {
		return DaySummary{}, fmt.Errorf("store: day summary of user %d: %w", u.ID, err)
	}
	s.Time = time.Duration(durMS) * time.Millisecond
	return s, nil
}
