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

// StudyCard is a published question with one learner's card for it.
type StudyCard struct {
	Question StoredQuestion
	// Card is the learner's FSRS card; for a question they have never
	// graded, a new card due at the time asked.
	Card      fsrs.Card
	IsNew     bool
	DeckTitle string
}

// StudyNext is what the study queue serves next or, when nothing is due,
// what is coming.
type StudyNext struct {
	// Deck is the deck studied; its ID is 0 when studying every subscribed deck.
	Deck quiz.DeckSummary
	// Found is true when Card is set.
	Found bool
	Card  StudyCard
	// NewToday and ReviewsToday count the first reviews of new cards and
	// the reviews of cards in review since the study day began. They are
	// left at 0 when a learning card was served.
	NewToday, ReviewsToday int

	// The fields below describe an empty queue; they are zero when Found.

	// NextDue is when the next card falls due, in the learner's time zone;
	// zero when no card is scheduled.
	NextDue time.Time
	// DayEnds is the next 04:00 in the learner's time zone, when the daily
	// limits reset.
	DayEnds time.Time
	// DueToday counts cards due before DayEnds.
	DueToday int
	// NewLimitReached and ReviewLimitReached tell that cards are waiting but
	// the learner's daily limit holds them back.
	NewLimitReached, ReviewLimitReached bool
	// Subscriptions counts the learner's subscribed decks (set only when
	// studying every subscribed deck).
	Subscriptions int
}

// cardColumns lists the FSRS state of cards c, in cardRow.dests order.
const cardColumns = `c.state, c.due, c.stability, c.difficulty, c.elapsed_days, c.scheduled_days,
	c.learning_steps, c.reps, c.lapses, c.last_review`

// cardRow receives cardColumns; every column is NULL when a LEFT JOIN found
// no card.
type cardRow struct {
	state, due, elapsed, scheduled, steps, reps, lapses, lastReview sql.NullInt64
	stability, difficulty                                           sql.NullFloat64
}

func (r *cardRow) dests() []any {
	return []any{&r.state, &r.due, &r.stability, &r.difficulty, &r.elapsed, &r.scheduled,
		&r.steps, &r.reps, &r.lapses, &r.lastReview}
}

// card returns the stored card, or a new card due at now when there is none.
func (r *cardRow) card(now time.Time) (c fsrs.Card, isNew bool) {
	if !r.state.Valid {
		return fsrs.NewCard(now), true
	}
	c = fsrs.Card{
		State:         fsrs.State(r.state.Int64),
		Due:           fromMS(r.due.Int64),
		Stability:     r.stability.Float64,
		Difficulty:    r.difficulty.Float64,
		ElapsedDays:   int(r.elapsed.Int64),
		ScheduledDays: int(r.scheduled.Int64),
		LearningSteps: int(r.steps.Int64),
		Reps:          int(r.reps.Int64),
		Lapses:        int(r.lapses.Int64),
	}
	if r.lastReview.Valid {
		c.LastReview = fromMS(r.lastReview.Int64)
	}
	return c, false
}

// wrapScanner scans prefix destinations before the ones asked for and
// suffix ones after, so that scanQuestion can read a row with more columns.
type wrapScanner struct {
	row            scanner
	prefix, suffix []any
}

func (w wrapScanner) Scan(dest ...any) error {
	all := make([]any, 0, len(w.prefix)+len(dest)+len(w.suffix))
	all = append(append(append(all, w.prefix...), dest...), w.suffix...)
	return w.row.Scan(all...)
}

// scanStudyCard reads a row of cardColumns, questionColumns and d.title;
// prefix receives columns before those.
func scanStudyCard(row scanner, now time.Time, prefix ...any) (StudyCard, error) {
	var (
		cr cardRow
		sc StudyCard
	)
	sq, err := scanQuestion(wrapScanner{row: row, prefix: append(prefix, cr.dests()...), suffix: []any{&sc.DeckTitle}})
	if err != nil {
		return StudyCard{}, err
	}
	sc.Question = sq
	sc.Card, sc.IsNew = cr.card(now)
	return sc, nil
}

// scanNewCard reads a row of questionColumns and d.title: a question
// without a card.
func scanNewCard(row scanner, now time.Time) (StudyCard, error) {
	sc := StudyCard{Card: fsrs.NewCard(now), IsNew: true}
	sq, err := scanQuestion(wrapScanner{row: row, suffix: []any{&sc.DeckTitle}})
	if err != nil {
		return StudyCard{}, err
	}
	sc.Question = sq
	return sc, nil
}

// The queue's queries. Parameters: ?1 user id, ?2 a time (ms), ?3 a deck id
// or 0 for every deck the user subscribes to. The card queries walk the
// cards_user_due index in due order and stop at the first match; INDEXED BY
// keeps the planner from driving them from questions instead.
const (
	scopeFilter = ` AND CASE WHEN ?3 = 0
		THEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ?1 AND s.deck_id = q.deck_id)
		ELSE q.deck_id = ?3 END`

	dueCardQuery = `SELECT ` + cardColumns + `, ` + questionColumns + `, d.title
		FROM cards c INDEXED BY cards_user_due
		JOIN questions q ON q.id = c.question_id
		JOIN decks d ON d.id = q.deck_id
		WHERE c.user_id = ?1 AND c.due <= ?2 AND q.status = 'published'` + scopeFilter

	// Step 1: learning and relearning cards that are due, earliest first.
	dueLearningQuery = dueCardQuery + ` AND c.state IN (1, 3) ORDER BY c.due LIMIT 1`
	// Step 2: due reviews, most overdue first.
	dueReviewQuery = dueCardQuery + ` AND c.state = 2 ORDER BY c.due LIMIT 1`

	// Step 3: new cards in deck order, from each deck's new-card cursor
	// (migration 0008) on. ?1 user id, ?2 the position below every other
	// (noCursor); subscribed decks in deck id order (subscriptions' key,
	// then questions_deck_status).
	newCardAllQuery = `SELECT ` + questionColumns + `, d.title
		FROM subscriptions s
		JOIN decks d ON d.id = s.deck_id
		JOIN questions q ON q.deck_id = s.deck_id AND q.status = 'published'
		  AND q.position > coalesce((SELECT k.covered_through FROM new_card_cursors k
		                             WHERE k.user_id = ?1 AND k.deck_id = s.deck_id), ?2)
		WHERE s.user_id = ?1
		  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = ?1 AND c.question_id = q.id)
		ORDER BY s.deck_id, q.position, q.id
		LIMIT 1`
	// ?1 user id, ?2 noCursor, ?3 deck id.
	newCardDeckQuery = `SELECT ` + questionColumns + `, d.title
		FROM questions q
		JOIN decks d ON d.id = q.deck_id
		WHERE q.deck_id = ?3 AND q.status = 'published'
		  AND q.position > coalesce((SELECT k.covered_through FROM new_card_cursors k
		                             WHERE k.user_id = ?1 AND k.deck_id = ?3), ?2)
		  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = ?1 AND c.question_id = q.id)
		ORDER BY q.position, q.id
		LIMIT 1`

	// First reviews of new cards and reviews of review cards since ?2.
	todayQuery = `SELECT coalesce(sum(state_before = 0), 0), coalesce(sum(state_before = 2), 0)
		FROM review_log WHERE user_id = ?1 AND reviewed_at >= ?2`

	nextDueQuery = `SELECT c.due
		FROM cards c INDEXED BY cards_user_due
		JOIN questions q ON q.id = c.question_id
		WHERE c.user_id = ?1 AND c.due > ?2 AND q.status = 'published'` + scopeFilter + `
		ORDER BY c.due LIMIT 1`

	dueBeforeQuery = `SELECT count(*)
		FROM cards c INDEXED BY cards_user_due
		JOIN questions q ON q.id = c.question_id
		WHERE c.user_id = ?1 AND c.due < ?2 AND q.status = 'published'` + scopeFilter

	subscriptionCountQuery = `SELECT count(*) FROM subscriptions WHERE user_id = ?`

	studyDeckQuery = `SELECT d.id, d.slug, d.title, d.release, d.sig, d.language, d.description,
		(SELECT count(*) FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')
		FROM decks d WHERE d.slug = ?`
)

// NextCard returns the card userID should study next at now: due learning
// and relearning cards first, then due reviews (most overdue first, up to
// the daily review limit), then new cards in deck order up to the daily new
// limit. The study day rolls over at 04:00 in the user's time zone. With
// deckSlug empty it serves every deck the user subscribes to; otherwise that
// one deck, subscribed or not. A deck that does not exist or has no
// published question is quiz.ErrNotFound. Draft and retired questions are
// never served.
func (db *DB) NextCard(ctx context.Context, userID int64, deckSlug string, now time.Time) (StudyNext, error) {
	n, err := db.nextCard(ctx, userID, deckSlug, now)
	if err != nil {
		return n, fmt.Errorf("store: next card for user %d: %w", userID, err)
	}
	return n, nil
}

func (db *DB) nextCard(ctx context.Context, userID int64, deckSlug string, now time.Time) (StudyNext, error) {
	var n StudyNext
	// One read transaction: every step sees the same snapshot, and the
	// connection takes its WAL read lock once.
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return n, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()

	q := db.reads.in(tx)
	set, err := loadStudySettings(ctx, q, userID)
	if err != nil {
		return n, err
	}
	if deckSlug != "" {
		if n.Deck, err = studyDeck(ctx, q, deckSlug); err != nil {
			return n, err
		}
	}
	deckID, at := n.Deck.ID, ms(now)

	if n.Card, n.Found, err = dueCard(ctx, q, dueLearningQuery, userID, at, deckID, now); err != nil || n.Found {
		return n, err
	}

	loc := db.zones.location(set.timezone)
	start, end := studyDay(now, loc)
	if err := q.QueryRowContext(ctx, todayQuery, userID, ms(start)).Scan(&n.NewToday, &n.ReviewsToday); err != nil {
		return n, fmt.Errorf("count today's reviews: %w", err)
	}

	c, ok, err := dueCard(ctx, q, dueReviewQuery, userID, at, deckID, now)
	if err != nil {
		return n, err
	}
	if ok {
		if n.ReviewsToday < set.reviewsPerDay {
			n.Card, n.Found = c, true
			return n, nil
		}
		n.ReviewLimitReached = true
	}

	var row *sql.Row
	if deckID == 0 {
		row = q.QueryRowContext(ctx, newCardAllQuery, userID, noCursor)
	} else {
		row = q.QueryRowContext(ctx, newCardDeckQuery, userID, noCursor, deckID)
	}
	c, err = scanNewCard(row, now)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return n, fmt.Errorf("new card: %w", err)
	case n.NewToday < set.newPerDay:
		n.Card, n.Found = c, true
		return n, nil
	default:
		n.NewLimitReached = true
	}

	// Nothing to study now: say what is coming.
	n.DayEnds = end
	var next sql.NullInt64
	err = q.QueryRowContext(ctx, nextDueQuery, userID, at, deckID).Scan(&next)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return n, fmt.Errorf("next due: %w", err)
	}
	if next.Valid {
		n.NextDue = fromMS(next.Int64).In(loc)
	}
	if err := q.QueryRowContext(ctx, dueBeforeQuery, userID, ms(end), deckID).Scan(&n.DueToday); err != nil {
		return n, fmt.Errorf("count cards due today: %w", err)
	}
	if deckID == 0 {
		err := q.QueryRowContext(ctx, subscriptionCountQuery, userID).Scan(&n.Subscriptions)
		if err != nil {
			return n, fmt.Errorf("count subscriptions: %w", err)
		}
	}
	return n, nil
}

// dueCard runs one of the due-card queries.
func dueCard(ctx context.Context, q querier, query string, userID, at, deckID int64, now time.Time) (StudyCard, bool, error) {
	c, err := scanStudyCard(q.QueryRowContext(ctx, query, userID, at, deckID), now)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("due card: %w", err)
	}
	return c, true, nil
}

// studyDeck returns the deck slug if it has published questions.
func studyDeck(ctx context.Context, q querier, slug string) (quiz.DeckSummary, error) {
	var d quiz.DeckSummary
	err := q.QueryRowContext(ctx, studyDeckQuery, slug).Scan(&d.ID, &d.Slug, &d.Title, &d.Release, &d.SIG,
		&d.Language, &d.Description, &d.Questions)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && d.Questions == 0) {
		return quiz.DeckSummary{}, fmt.Errorf("deck %s: %w", slug, quiz.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("deck %s: %w", slug, err)
	}
	return d, nil
}
