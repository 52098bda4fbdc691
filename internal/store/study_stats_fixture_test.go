package store

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
)

// pastReview is a review written straight into review_log, for the
// statistics' tests and benchmark: only what the figures read is real.
type pastReview struct {
	user, question int64
	at             time.Time
	before         fsrs.State
	rating         fsrs.Rating
}

// addPastReviews inserts reviews in one transaction, request ids made from
// their order and a prefix.
func addPastReviews(tb testing.TB, db *DB, prefix string, reviews []pastReview) {
	tb.Helper()
	err := db.tx(tb.Context(), func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT INTO review_log (request_id, user_id, question_id, rating, correct, reviewed_at,
			state_before, due_before, stability_before, difficulty_before, elapsed_days, retrievability,
			state_after, due_after, stability_after, difficulty_after, scheduled_days)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 3, 5, 3, 0.9, 2, ?, 5, 5, 4)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, r := range reviews {
			at := ms(r.at)
			if _, err := st.Exec(fmt.Sprintf("%s-%d", prefix, i), r.user, r.question, int(r.rating), r.rating >= fsrs.Hard,
				at, int(r.before), at, at+4*86_400_000); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("add reviews: %v", err)
	}
}
