package store

import (
	"context"
	"database/sql"
	"fmt"

	"kubequiz/internal/quiz"
)

// SetDesiredRetention sets the probability of recall at which userID's
// cards fall due, and above which the figures count a card as mastered.
// A value the rule refuses (quiz.CheckDesiredRetention: 0.70 to 0.97) is
// its quiz.SettingProblem, a quiz.ErrInvalid, and changes nothing; an
// unknown user is quiz.ErrNotFound. Reviews recorded afterwards are
// scheduled with it; cards keep the due times they have.
func (db *DB) SetDesiredRetention(ctx context.Context, userID int64, r float64) error {
	if err := quiz.CheckDesiredRetention(r); err != nil {
		return fmt.Errorf("store: desired retention %v: %w", r, err)
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return expectOne(tx.ExecContext(ctx, `UPDATE users SET desired_retention = ? WHERE id = ?`, r, userID))
	})
	if err != nil {
		return fmt.Errorf("store: set desired retention of user %d: %w", userID, err)
	}
	return nil
}
