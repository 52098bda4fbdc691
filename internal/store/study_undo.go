package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// This file undoes a learner's grade. An undo takes back the learner's
// most recent review, as Anki's does, when it was recorded on the current
// study day: the card goes back to what it was before the review (a card
// first graded by it goes back to being new, which is no card at all), the
// review's row leaves review_log, the day's counts for the daily limits
// lose it, and a new card's deck offers the card again as its next new
// one. After an undo, the review before it is the most recent: it may be
// undone in turn while it is of the same study day.
//
// An undo writes on the write connection in a transaction of its own, as
// the review writer does (review_writer.go), so the two never interleave:
// a grade recorded before the undo begins is the one it takes back, and a
// grade recorded after it reads the card as the undo left it. It changes
// no user, no session and no question, so neither the session cache nor
// the question cache holds anything it makes stale; the writer keeps no
// other state of a learner between reviews.

// Errors of UndoLastReview.
var (
	// ErrNothingToUndo: the learner has no review.
	ErrNothingToUndo = fmt.Errorf("no review to undo: %w", quiz.ErrNotFound)
	// ErrUndoOtherDay: the learner's most recent review was on an earlier
	// study day; only the day's reviews are undone.
	ErrUndoOtherDay = fmt.Errorf("the most recent review is of another study day: %w", quiz.ErrConflict)
	// ErrUndoUnrecorded: the most recent review was recorded before
	// reviews kept what an undo needs (migration 0016).
	ErrUndoUnrecorded = fmt.Errorf("the most recent review was recorded without the card as it was: %w", quiz.ErrConflict)
	// ErrUndoCardChanged: the card is no longer as the most recent review
	// left it, so putting back the card before it would lose a change.
	ErrUndoCardChanged = fmt.Errorf("the card changed after the most recent review: %w", quiz.ErrConflict)
)

// Undo describes the review an undo takes back: what LastUndoable finds,
// or what UndoLastReview took back.
type Undo struct {
	// QuestionID is the question graded, to put to the learner again, and
	// DeckSlug its deck's.
	QuestionID int64
	DeckSlug   string
	RequestID  string
	Rating     fsrs.Rating
	ReviewedAt time.Time
	// WasNew tells that the review was the card's first: undoing it makes
	// the question new again.
	WasNew bool
	// Before is the card as it was before the review, which the undo puts
	// back: its ScheduledDays is the interval it had. For a card that was
	// new (WasNew) it is fsrs.NewCard at the review's time.
	Before fsrs.Card
	// After is the card as the review left it, which the undo takes back:
	// its State, Due and ScheduledDays (the interval the grade gave).
	After fsrs.Card
}

// lastReviewQuery reads user ?1's most recent review with their time zone
// and the question's deck and position; no row when they have none. It
// reads review_log_user_day backwards and stops at the first row.
const lastReviewQuery = `SELECT r.id, r.request_id, r.question_id, r.rating, r.reviewed_at,
		r.state_before, r.due_before, r.stability_before, r.difficulty_before,
		r.elapsed_days_before, r.scheduled_days_before, r.learning_steps_before, r.reps_before, r.lapses_before,
		r.last_review_before, r.state_after, r.due_after, r.stability_after, r.difficulty_after, r.scheduled_days,
		u.timezone, q.deck_id, q.position, d.slug
	FROM review_log r
	JOIN users u ON u.id = r.user_id
	JOIN questions q ON q.id = r.question_id
	JOIN decks d ON d.id = q.deck_id
	WHERE r.user_id = ?1
	ORDER BY r.reviewed_at DESC, r.id DESC
	LIMIT 1`

// The statements of an undo.
const (
	undoCardQuery = `SELECT state, due, stability, difficulty, last_review FROM cards
		WHERE user_id = ? AND question_id = ?`
	restoreCardQuery = `UPDATE cards SET state = ?3, due = ?4, stability = ?5, difficulty = ?6,
			elapsed_days = ?7, scheduled_days = ?8, learning_steps = ?9, reps = ?10, lapses = ?11, last_review = ?12
		WHERE user_id = ?1 AND question_id = ?2`
	forgetCardQuery   = `DELETE FROM cards WHERE user_id = ? AND question_id = ?`
	deleteReviewQuery = `DELETE FROM review_log WHERE id = ? AND user_id = ?`
	// countDayQuery backwards: ?1 user id, ?2 start of the study day (ms),
	// ?3 the card's state before the review. While the day has no row the
	// queue counts review_log, which has lost the review already.
	uncountDayQuery = `UPDATE daily_reviews SET new_count = max(new_count - (?3 = 0), 0),
			review_count = max(review_count - (?3 = 2), 0)
		WHERE user_id = ?1 AND day_start = ?2`
	// The new-card cursor (migration 0008) of user ?1 in deck ?2 moves back
	// below position ?3, that of the question that is new again, as the
	// triggers move it when a question becomes new; the subscription is no
	// longer exhausted (migration 0013).
	rewindCursorQuery = `UPDATE new_card_cursors SET covered_through = ?3 - 1
		WHERE user_id = ?1 AND deck_id = ?2 AND covered_through >= ?3`
	reopenSubscriptionQuery = `UPDATE subscriptions SET exhausted = 0
		WHERE user_id = ?1 AND deck_id = ?2 AND exhausted = 1`
)

// lastReview is a learner's most recent review as lastReviewQuery reads it.
type lastReview struct {
	Undo
	id          int64
	timezone    string
	deckID      int64
	position    int
	recorded    bool // the before columns are set
	beforeState int
}

// readLastReview reads userID's most recent review; ErrNothingToUndo when
// there is none.
func readLastReview(ctx context.Context, q querier, userID int64) (lastReview, error) {
	var (
		lr                                             lastReview
		rating, stateAfter                             int
		reviewed, dueBefore, dueAfter                  int64
		elapsed, scheduled, steps, reps, lapses, lastR sql.NullInt64
	)
	err := q.QueryRowContext(ctx, lastReviewQuery, userID).Scan(&lr.id, &lr.RequestID, &lr.QuestionID, &rating, &reviewed,
		&lr.beforeState, &dueBefore, &lr.Before.Stability, &lr.Before.Difficulty,
		&elapsed, &scheduled, &steps, &reps, &lapses,
		&lastR, &stateAfter, &dueAfter, &lr.After.Stability, &lr.After.Difficulty, &lr.After.ScheduledDays,
		&lr.timezone, &lr.deckID, &lr.position, &lr.DeckSlug)
	if errors.Is(err, sql.ErrNoRows) {
		return lr, ErrNothingToUndo
	}
	if err != nil {
		return lr, fmt.Errorf("last review: %w", err)
	}
	lr.Rating, lr.ReviewedAt = fsrs.Rating(rating), fromMS(reviewed)
	lr.WasNew = fsrs.State(lr.beforeState) == fsrs.New
	lr.recorded = reps.Valid
	lr.Before.State, lr.Before.Due = fsrs.State(lr.beforeState), fromMS(dueBefore)
	lr.Before.ElapsedDays, lr.Before.ScheduledDays = int(elapsed.Int64), int(scheduled.Int64)
	lr.Before.LearningSteps, lr.Before.Reps, lr.Before.Lapses = int(steps.Int64), int(reps.Int64), int(lapses.Int64)
	if lastR.Valid {
		lr.Before.LastReview = fromMS(lastR.Int64)
	}
	lr.After.State, lr.After.Due, lr.After.LastReview = fsrs.State(stateAfter), fromMS(dueAfter), lr.ReviewedAt
	return lr, nil
}

// undoable refuses a review an undo at now may not take back.
func (db *DB) undoable(lr lastReview, now time.Time) error {
	loc := db.zones.location(lr.timezone)
	today, _ := studyDay(now, loc)
	if day, _ := studyDay(lr.ReviewedAt, loc); !day.Equal(today) {
		return ErrUndoOtherDay
	}
	if !lr.recorded {
		return ErrUndoUnrecorded
	}
	return nil
}

// LastUndoable returns the review UndoLastReview would take back at now,
// for a page to offer the undo only when there is one: userID's most
// recent review, when it is of the current study day (in their time zone)
// and recorded with what an undo needs. ok is false when there is none.
func (db *DB) LastUndoable(ctx context.Context, userID int64, now time.Time) (u Undo, ok bool, err error) {
	lr, err := readLastReview(ctx, db.read, userID)
	if errors.Is(err, ErrNothingToUndo) {
		return Undo{}, false, nil
	}
	if err != nil {
		return Undo{}, false, fmt.Errorf("store: last undoable review of user %d: %w", userID, err)
	}
	if err := db.undoable(lr, now); err != nil {
		return Undo{}, false, nil
	}
	return lr.Undo, true, nil
}

// UndoLastReview takes back userID's most recent review, in one
// transaction: their card goes back to what it was before it (a question
// first graded by it becomes new again, and its deck's next new card), the
// review's row is deleted from review_log, and the day's counts for the
// daily limits no longer count it. It returns the review taken back.
//
// A learner without a review is ErrNothingToUndo; a most recent review of
// an earlier study day (04:00 in their time zone starts one) is
// ErrUndoOtherDay, and one recorded before reviews kept the card as it was
// ErrUndoUnrecorded. Nothing changes then. Repeated, it takes back the
// day's reviews one by one, most recent first.
func (db *DB) UndoLastReview(ctx context.Context, userID int64, now time.Time) (Undo, error) {
	var out Undo
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		lr, err := readLastReview(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := db.undoable(lr, now); err != nil {
			return err
		}
		if err := checkUndoCard(ctx, tx, userID, lr); err != nil {
			return err
		}
		if err := db.undoReview(ctx, tx, userID, lr); err != nil {
			return err
		}
		out = lr.Undo
		return nil
	})
	if err != nil {
		return Undo{}, fmt.Errorf("store: undo the last review of user %d: %w", userID, err)
	}
	return out, nil
}

// checkUndoCard refuses an undo of lr when the card is not as lr left it.
func checkUndoCard(ctx context.Context, tx *sql.Tx, userID int64, lr lastReview) error {
	var (
		state                  int
		due                    int64
		stability, difficulty  float64
		last                   sql.NullInt64
		wantStab, wantDiff     = lr.After.Stability, lr.After.Difficulty
		wantState, wantDue, at = int(lr.After.State), ms(lr.After.Due), ms(lr.ReviewedAt)
	)
	err := tx.QueryRowContext(ctx, undoCardQuery, userID, lr.QuestionID).Scan(&state, &due, &stability, &difficulty, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("question %d has no card: %w", lr.QuestionID, ErrUndoCardChanged)
	}
	if err != nil {
		return fmt.Errorf("card of question %d: %w", lr.QuestionID, err)
	}
	if state != wantState || due != wantDue || stability != wantStab || difficulty != wantDiff || !last.Valid || last.Int64 != at {
		return fmt.Errorf("question %d: %w", lr.QuestionID, ErrUndoCardChanged)
	}
	return nil
}

// undoReview puts back the card lr changed, deletes lr's row and takes it
// out of the day's counts, within tx; for a card that was new, it moves the
// deck's new-card cursor back to the question.
func (db *DB) undoReview(ctx context.Context, tx *sql.Tx, userID int64, lr lastReview) error {
	if lr.WasNew {
		if _, err := tx.ExecContext(ctx, forgetCardQuery, userID, lr.QuestionID); err != nil {
			return fmt.Errorf("forget card: %w", err)
		}
	} else {
		b := lr.Before
		if _, err := tx.ExecContext(ctx, restoreCardQuery, userID, lr.QuestionID, int(b.State), ms(b.Due), b.Stability,
			b.Difficulty, b.ElapsedDays, b.ScheduledDays, b.LearningSteps, b.Reps, b.Lapses, lastReviewMS(b)); err != nil {
			return fmt.Errorf("restore card: %w", err)
		}
	}
	if err := expectOne(tx.ExecContext(ctx, deleteReviewQuery, lr.id, userID)); err != nil {
		return fmt.Errorf("delete review: %w", err)
	}
	day, _ := studyDay(lr.ReviewedAt, db.zones.location(lr.timezone))
	if _, err := tx.ExecContext(ctx, uncountDayQuery, userID, ms(day), lr.beforeState); err != nil {
		return fmt.Errorf("uncount the day's review: %w", err)
	}
	if !lr.WasNew {
		return nil
	}
	if _, err := tx.ExecContext(ctx, rewindCursorQuery, userID, lr.deckID, lr.position); err != nil {
		return fmt.Errorf("rewind new-card cursor: %w", err)
	}
	if _, err := tx.ExecContext(ctx, reopenSubscriptionQuery, userID, lr.deckID); err != nil {
		return fmt.Errorf("reopen subscription: %w", err)
	}
	return nil
}

// lastReviewMS is c's last review as stored: unix ms, or NULL when it has
// never been reviewed.
func lastReviewMS(c fsrs.Card) any {
	if c.LastReview.IsZero() {
		return nil
	}
	return ms(c.LastReview)
}
