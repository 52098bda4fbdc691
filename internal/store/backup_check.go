package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"kubequiz/internal/fsrs"
)

// CheckBackup runs PRAGMA integrity_check on the kubequiz database file
// at path, a backup, read-only, and returns its schema version when the
// check says ok.
func CheckBackup(ctx context.Context, path string) (schema int, err error) {
	schema, err = checkCopy(ctx, path)
	if err != nil {
		return 0, fmt.Errorf("store: check %s: %w", path, err)
	}
	return schema, nil
}

// LoggedReview is one row of a review log, as ReviewLogOf reads it.
type LoggedReview struct {
	Login      string
	QuestionID int64
	Rating     fsrs.Rating
	At         time.Time
	RequestID  string
}

const reviewLogOfQuery = `SELECT u.login, r.question_id, r.rating, r.reviewed_at, r.request_id
	FROM review_log r JOIN users u ON u.id = r.user_id ORDER BY r.id`

// ReviewLogOf reads every review recorded in the kubequiz database file at
// path, read-only, with the login of its learner: what a backup holds,
// for checking it against the reviews a server acknowledged.
func ReviewLogOf(ctx context.Context, path string) ([]LoggedReview, error) {
	db, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, reviewLogOfQuery)
	if err != nil {
		return nil, fmt.Errorf("store: review log of %s: %w", path, err)
	}
	defer rows.Close()
	var out []LoggedReview
	for rows.Next() {
		var (
			r      LoggedReview
			rating int
			at     int64
		)
		if err := rows.Scan(&r.Login, &r.QuestionID, &rating, &at, &r.RequestID); err != nil {
			return nil, fmt.Errorf("store: review log of %s: %w", path, err)
		}
		r.Rating, r.At = fsrs.Rating(rating), fromMS(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: review log of %s: %w", path, err)
	}
	return out, nil
}
