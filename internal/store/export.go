package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// The export of a learner's own data: their reviews and their cards, for
// a CSV file (internal/csvx) that the web page and the command both write.
//
// An export is read a page at a time, each page one short statement that
// ends before its rows are handed out: however long the caller takes to
// write them, no reader connection is held and no read transaction keeps
// the write-ahead log from being checkpointed. Each page continues after
// the last row of the one before (keyset pagination on an index), so a
// page costs the same at the end of a long history as at its start, and
// memory does not grow with the number of rows. The questions the rows
// are of are read once per export, a page's new ones in one statement.
//
// Every statement names the learner: no row of another learner is read.
// Rows committed while an export runs appear in it when they fall after
// the page being read; each row appears once.

// exportPageRows is how many rows one page of an export reads.
const exportPageRows = 1000

// ExportedReview is one review of a learner's, as the export reads it.
type ExportedReview struct {
	// ReviewedAt is when the review was recorded.
	ReviewedAt time.Time
	// Deck is the slug of the question's deck.
	Deck string
	// Question is the question reviewed as it is now; its ExtID is the
	// stable id of the YAML file or the generator. The rows of one
	// question share it: it must not be changed.
	Question *quiz.Question
	Rating   fsrs.Rating
	// Correct is the verdict recorded: the answer was right (a flashcard:
	// rated Hard or better).
	Correct bool
	// Response is the learner's answer as recorded. Its indices refer to
	// the question's choices and items as they are now.
	Response quiz.Response
	// Duration is how long the learner took to answer.
	Duration time.Duration
	// StateBefore is the card's state before the review: fsrs.New for the
	// first review of a new card.
	StateBefore fsrs.State
	// DueBefore is when the card was due before the review (for a new card,
	// when it was first shown), DueAfter when the review scheduled it.
	DueBefore, DueAfter time.Time
	// PreviousReview is when the card was reviewed before this review: the
	// zero time for the first review of a new card, and for a review whose
	// card has no earlier review in the log. DueBefore - PreviousReview is
	// the interval that review scheduled.
	PreviousReview time.Time
}

// ExportedCard is one of a learner's cards, as the export reads it.
type ExportedCard struct {
	// Deck is the slug of the question's deck.
	Deck string
	// Question is the card's question as it is now; see
	// ExportedReview.Question.
	Question *quiz.Question
	// Card is the card's FSRS state.
	Card fsrs.Card
	// Retrievability is the probability of recalling the card at the time
	// the export was asked for, by the forgetting curve of the learner's
	// scheduler (fsrs.Scheduler.Retrievability).
	Retrievability float64
}

// The statements of an export. ?1 is the learner's id throughout.
const (
	exportLearnerQuery = `SELECT desired_retention FROM users WHERE id = ?1`
	// A page of reviews in the order of review_log_user_day (migration
	// 0006): time, then state before, then id, which makes the order total.
	// The row value continues after the last row of the page before. (Two
	// reviews of one card share a millisecond only after the clock was set
	// back; they then come in the order of their states, and so does
	// PreviousReview.)
	exportReviewsQuery = `SELECT r.id, r.question_id, r.reviewed_at, r.state_before, r.rating, r.answer,
		r.correct, r.duration_ms, r.due_before, r.due_after
		FROM review_log r
		WHERE r.user_id = ?1 AND (r.reviewed_at, r.state_before, r.id) > (?2, ?3, ?4)
		ORDER BY r.reviewed_at, r.state_before, r.id
		LIMIT ?5`
	// A page of cards in question order, by the cards' primary key.
	exportCardsQuery = `SELECT c.question_id, ` + cardColumns + `
		FROM cards c
		WHERE c.user_id = ?1 AND c.question_id > ?2
		ORDER BY c.question_id
		LIMIT ?3`
	// The questions whose ids the JSON array ?1 lists.
	exportQuestionsQuery = `SELECT ` + questionColumns + `
		FROM questions q JOIN decks d ON d.id = q.deck_id
		WHERE q.id IN (SELECT value FROM json_each(?1))`
)

// ExportReviews returns userID's reviews, earliest first. A learner that
// does not exist is quiz.ErrNotFound. The sequence ends at its first error,
// which it yields.
func (db *DB) ExportReviews(ctx context.Context, userID int64) iter.Seq2[ExportedReview, error] {
	return db.exportReviews(ctx, userID, exportPageRows)
}

// ExportCards returns userID's cards, in question order: one for every
// question the learner has graded, none for a question never graded. Their
// retrievability is computed at now. A learner that does not exist is
// quiz.ErrNotFound. The sequence ends at its first error, which it yields.
func (db *DB) ExportCards(ctx context.Context, userID int64, now time.Time) iter.Seq2[ExportedCard, error] {
	return db.exportCards(ctx, userID, now, exportPageRows)
}

// reviewRow is a row of exportReviewsQuery.
type reviewRow struct {
	id, questionID, at, stateBefore int64
	rating                          int64
	answer                          string
	correct                         int64 // 0 or 1: an int scans faster than a bool
	durationMS, dueBefore, dueAfter int64
}

func (db *DB) exportReviews(ctx context.Context, userID int64, pageRows int) iter.Seq2[ExportedReview, error] {
	return func(yield func(ExportedReview, error) bool) {
		stopped := false
		err := db.walkReviews(ctx, userID, pageRows, func(r ExportedReview) bool {
			stopped = !yield(r, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(ExportedReview{}, fmt.Errorf("store: export reviews of user %d: %w", userID, err))
		}
	}
}

// walkReviews hands userID's reviews to emit, a page at a time, until emit
// returns false.
func (db *DB) walkReviews(ctx context.Context, userID int64, pageRows int, emit func(ExportedReview) bool) (err error) {
	if _, err := db.exportLearner(ctx, userID); err != nil {
		return err
	}
	// Prepared once for the pages: parsing it again for each was a
	// twentieth of an export's time.
	stmt, err := db.read.PrepareContext(ctx, exportReviewsQuery)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer func() { err = errors.Join(err, stmt.Close()) }()
	qs := exportQuestions{}
	page := make([]reviewRow, 0, pageRows)
	ids := make([]int64, 0, pageRows)
	after := reviewRow{id: math.MinInt64, at: math.MinInt64, stateBefore: math.MinInt64}
	for {
		if page, err = reviewPage(ctx, stmt, userID, after, pageRows, page[:0]); err != nil {
			return err
		}
		ids = ids[:0]
		for i := range page {
			ids = append(ids, page[i].questionID)
		}
		if err := db.loadExportQuestions(ctx, qs, ids); err != nil {
			return err
		}
		for i := range page {
			out, err := page[i].exported(qs)
			if err != nil {
				return err
			}
			if !emit(out) {
				return nil
			}
		}
		if len(page) < pageRows {
			return nil
		}
		after = page[len(page)-1]
	}
}

// reviewPage reads the page of userID's reviews after the row after into
// page, with exportReviewsQuery prepared.
func reviewPage(ctx context.Context, stmt *sql.Stmt, userID int64, after reviewRow, pageRows int, page []reviewRow) ([]reviewRow, error) {
	rows, err := stmt.QueryContext(ctx, userID, after.at, after.stateBefore, after.id, pageRows)
	if err != nil {
		return page, fmt.Errorf("read reviews: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		// Scanned into the page itself: a row of its own would be
		// allocated for every review.
		page = append(page, reviewRow{})
		r := &page[len(page)-1]
		if err := rows.Scan(&r.id, &r.questionID, &r.at, &r.stateBefore, &r.rating, &r.answer,
			&r.correct, &r.durationMS, &r.dueBefore, &r.dueAfter); err != nil {
			return page, fmt.Errorf("read reviews: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("read reviews: %w", err)
	}
	return page, nil
}

// exported turns the row into an ExportedReview and records it as its
// question's latest review.
func (r *reviewRow) exported(qs exportQuestions) (ExportedReview, error) {
	q := qs[r.questionID]
	out := ExportedReview{
		ReviewedAt:  fromMS(r.at),
		Deck:        q.deck,
		Question:    &q.question,
		Rating:      fsrs.Rating(r.rating),
		Correct:     r.correct != 0,
		Duration:    time.Duration(r.durationMS) * time.Millisecond,
		StateBefore: fsrs.State(r.stateBefore),
		DueBefore:   fromMS(r.dueBefore),
		DueAfter:    fromMS(r.dueAfter),
	}
	if q.reviewed && out.StateBefore != fsrs.New {
		out.PreviousReview = fromMS(q.lastReview)
	}
	q.reviewed, q.lastReview = true, r.at
	var err error
	if out.Response, err = decodeAnswer(r.answer); err != nil {
		return out, fmt.Errorf("review %d: %w", r.id, err)
	}
	return out, nil
}

func (db *DB) exportCards(ctx context.Context, userID int64, now time.Time, pageRows int) iter.Seq2[ExportedCard, error] {
	return func(yield func(ExportedCard, error) bool) {
		stopped := false
		err := db.walkCards(ctx, userID, now, pageRows, func(c ExportedCard) bool {
			stopped = !yield(c, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(ExportedCard{}, fmt.Errorf("store: export cards of user %d: %w", userID, err))
		}
	}
}

// walkCards hands userID's cards to emit, a page at a time, until emit
// returns false.
func (db *DB) walkCards(ctx context.Context, userID int64, now time.Time, pageRows int, emit func(ExportedCard) bool) (err error) {
	retention, err := db.exportLearner(ctx, userID)
	if err != nil {
		return err
	}
	// The scheduler the learner's reviews are recorded with.
	sched, err := db.schedulers.get(retention, true)
	if err != nil {
		return err
	}
	stmt, err := db.read.PrepareContext(ctx, exportCardsQuery)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer func() { err = errors.Join(err, stmt.Close()) }()
	qs := exportQuestions{}
	page := make([]exportCardRow, 0, pageRows)
	ids := make([]int64, 0, pageRows)
	after := int64(math.MinInt64)
	for {
		if page, err = cardPage(ctx, stmt, userID, after, pageRows, page[:0]); err != nil {
			return err
		}
		ids = ids[:0]
		for i := range page {
			ids = append(ids, page[i].questionID)
		}
		if err := db.loadExportQuestions(ctx, qs, ids); err != nil {
			return err
		}
		for i := range page {
			q := qs[page[i].questionID]
			card, _ := page[i].card.card(now)
			if !emit(ExportedCard{Deck: q.deck, Question: &q.question, Card: card, Retrievability: sched.Retrievability(card, now)}) {
				return nil
			}
		}
		if len(page) < pageRows {
			return nil
		}
		after = page[len(page)-1].questionID
	}
}

// exportCardRow is a row of exportCardsQuery.
type exportCardRow struct {
	questionID int64
	card       cardRow
}

// cardPage reads the page of userID's cards after question after into
// page, with exportCardsQuery prepared.
func cardPage(ctx context.Context, stmt *sql.Stmt, userID, after int64, pageRows int, page []exportCardRow) ([]exportCardRow, error) {
	rows, err := stmt.QueryContext(ctx, userID, after, pageRows)
	if err != nil {
		return page, fmt.Errorf("read cards: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		page = append(page, exportCardRow{})
		r := &page[len(page)-1]
		if err := rows.Scan(append([]any{&r.questionID}, r.card.dests()...)...); err != nil {
			return page, fmt.Errorf("read cards: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("read cards: %w", err)
	}
	return page, nil
}

// exportLearner returns the desired retention of userID, or
// quiz.ErrNotFound when there is no such user.
func (db *DB) exportLearner(ctx context.Context, userID int64) (float64, error) {
	var retention float64
	err := db.read.QueryRowContext(ctx, exportLearnerQuery, userID).Scan(&retention)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("user %d: %w", userID, quiz.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("user %d: %w", userID, err)
	}
	return retention, nil
}

// exportQuestion is a question an export has read, and the time of the
// latest review of it the export has handed out.
type exportQuestion struct {
	deck       string
	question   quiz.Question
	reviewed   bool
	lastReview int64
}

// exportQuestions are the questions an export has read, by row id. They
// are a learner's (questions with a card or a review), so few enough to
// keep for the whole export.
type exportQuestions map[int64]*exportQuestion

// loadExportQuestions reads into qs the questions of ids it does not hold
// yet, in one statement.
func (db *DB) loadExportQuestions(ctx context.Context, qs exportQuestions, ids []int64) error {
	var missing []int64
	list := []byte{'['}
	for _, id := range ids {
		if _, ok := qs[id]; ok {
			continue
		}
		qs[id] = nil // asked for; filled in below
		if len(missing) > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, id, 10)
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return nil
	}
	list = append(list, ']')
	rows, err := db.read.QueryContext(ctx, exportQuestionsQuery, string(list))
	if err != nil {
		return fmt.Errorf("read questions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		sq, err := scanQuestion(rows)
		if err != nil {
			return fmt.Errorf("read questions: %w", err)
		}
		qs[sq.ID] = &exportQuestion{deck: sq.DeckSlug, question: sq.Question}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read questions: %w", err)
	}
	for _, id := range missing {
		if qs[id] == nil {
			return fmt.Errorf("question %d: %w", id, quiz.ErrNotFound)
		}
	}
	return nil
}
