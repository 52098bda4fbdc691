package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
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
	// AnswerKey is the question's quiz.Question.AnswerKey: a page that
	// puts the card to the learner sends it back with the answer (Review).
	AnswerKey string
}

// StudyNext is what the study queue serves next or, when nothing is due,
// what is coming.
type StudyNext struct {
	// Deck is the deck studied; its ID is 0 when studying every subscribed
	// deck or a group's decks.
	Deck quiz.DeckSummary
	// Group is the study group whose decks are studied; its ID is 0 when
	// studying one deck or every subscribed deck.
	Group StudyGroup
	// Found is true when Card is set.
	Found bool
	Card  StudyCard
	// Extra tells that Card is an extra review of the meetup mode: a card
	// not due, put before a group's meetup (group.ExtraReview). It takes
	// nothing of the daily review limit.
	Extra bool
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
	// DueToday counts the cards the queue will serve before DayEnds as
	// they fall due: learning cards, and review cards up to what is left
	// of the day's review limit.
	DueToday int
	// NewLimitReached and ReviewLimitReached tell that cards are waiting but
	// the learner's daily limit holds them back.
	NewLimitReached, ReviewLimitReached bool
	// Subscriptions counts the learner's subscribed decks (set only when
	// studying every subscribed deck).
	Subscriptions int
}

// StudyGroup names the study group whose decks a study page serves.
type StudyGroup struct {
	ID   int64
	Name string
}

// Presented checks that a page which put the card to the learner at
// shownAt, with the question's answerKey, still shows the card as it is: a
// card graded since is ErrCardReviewed (another tab's page, or one reached
// again with the Back button), a question edited since ErrQuestionChanged.
// An empty key or a zero time is not checked.
func (sc StudyCard) Presented(answerKey string, shownAt time.Time) error {
	if !shownAt.IsZero() && !sc.IsNew && shownAt.Before(sc.Card.LastReview) {
		return fmt.Errorf("question %d, shown at %s: %w", sc.Question.ID, shownAt.UTC().Format(time.RFC3339Nano), ErrCardReviewed)
	}
	if answerKey != "" && answerKey != sc.AnswerKey {
		return fmt.Errorf("question %d: %w", sc.Question.ID, ErrQuestionChanged)
	}
	return nil
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

// scanStudyCard reads a row of cardColumns and studyQuestionColumns;
// prefix receives columns before those. The card's Question holds only
// what the row has: resolve it with the question cache once the row is
// read.
func scanStudyCard(row scanner, now time.Time, prefix ...any) (StudyCard, questionRef, error) {
	var (
		cr  cardRow
		ref questionRef
	)
	if err := row.Scan(append(append(prefix, cr.dests()...), ref.dests()...)...); err != nil {
		return StudyCard{}, ref, err
	}
	sc := StudyCard{DeckTitle: ref.deckTitle}
	sc.Card, sc.IsNew = cr.card(now)
	return sc, ref, nil
}

// resolveStudyCard fills in the question of a card scanStudyCard read.
func (db *DB) resolveStudyCard(ctx context.Context, q querier, sc *StudyCard, ref questionRef) error {
	sq, key, err := db.questions.resolve(ctx, q, ref)
	if err != nil {
		return err
	}
	sc.Question, sc.AnswerKey = sq, key
	return nil
}

// The queue's queries. Parameters: ?1 user id, ?2 a time (ms), ?3 a deck id
// or 0 for every deck the user subscribes to. Ids are compared as +?N:
// since SQLite 3.54, a statement with joins that compares a column with a
// plain parameter is prepared again whenever the value bound changes from
// 0 or 1 to another (user 1 and user 2 in turn on one connection), which
// cost up to 0.5 ms a time; the unary plus keeps the index and avoids that
// (TestStatementsNotReprepared). The card queries walk a partial index of
// the learner's learning cards or review cards (migration 0012) in due
// order and stop at the first match, so that cards of the other kind due
// before it are never read; INDEXED BY keeps the planner from driving them
// from questions instead.
const (
	scopeFilter = ` AND CASE WHEN ?3 = 0
		THEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = +?1 AND s.deck_id = q.deck_id)
		ELSE q.deck_id = +?3 END`

	// The two kinds of scheduled cards, each with its index: the cards and
	// their questions, then the conditions, between which a statement may
	// join decks.
	learningCards = `cards c INDEXED BY cards_user_learning_due JOIN questions q ON q.id = c.question_id`
	reviewCards   = `cards c INDEXED BY cards_user_review_due JOIN questions q ON q.id = c.question_id`
	learningWhere = ` WHERE c.state IN (1, 3)` + cardFilter
	reviewWhere   = ` WHERE c.state = 2` + cardFilter
	cardFilter    = ` AND c.user_id = +?1 AND q.status = 'published'` + scopeFilter
	withDeck      = ` JOIN decks d ON d.id = q.deck_id`

	// Step 1: learning and relearning cards that are due, earliest first.
	dueLearningQuery = `SELECT ` + cardColumns + `, ` + studyQuestionColumns + ` FROM ` + learningCards + withDeck + learningWhere + `
		AND c.due <= ?2 ORDER BY c.due LIMIT 1`
	// Step 2: due reviews, most overdue first.
	dueReviewQuery = `SELECT ` + cardColumns + `, ` + studyQuestionColumns + ` FROM ` + reviewCards + withDeck + reviewWhere + `
		AND c.due <= ?2 ORDER BY c.due LIMIT 1`

	// Step 3: new cards in deck order, from each deck's new-card cursor
	// (migration 0008) on. ?5 is noCursor, the position below every other.
	// Every subscribed deck: in deck id order (subscriptions_open, which
	// leaves out the decks with nothing new left, migration 0013; then
	// questions_deck_status).
	newCardAllQuery = `SELECT ` + studyQuestionColumns + `
		FROM subscriptions s INDEXED BY subscriptions_open
		JOIN decks d ON d.id = s.deck_id
		JOIN questions q ON q.deck_id = s.deck_id AND q.status = 'published'
		  AND q.position > coalesce((SELECT k.covered_through FROM new_card_cursors k
		                             WHERE k.user_id = +?1 AND k.deck_id = s.deck_id), ?5)
		WHERE s.user_id = +?1 AND s.exhausted = 0
		  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = +?1 AND c.question_id = q.id)
		ORDER BY s.deck_id, q.position, q.id
		LIMIT 1`
	newCardDeckQuery = `SELECT ` + studyQuestionColumns + `
		FROM questions q
		JOIN decks d ON d.id = q.deck_id
		WHERE q.deck_id = +?3 AND q.status = 'published'
		  AND q.position > coalesce((SELECT k.covered_through FROM new_card_cursors k
		                             WHERE k.user_id = +?1 AND k.deck_id = +?3), ?5)
		  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = +?1 AND c.question_id = q.id)
		ORDER BY q.position, q.id
		LIMIT 1`

	// The day's first reviews of new cards and reviews of review cards
	// that the daily limit counts (countedReview), since ?4, the start of
	// the study day: the day's daily_reviews row (migration 0009), or a
	// count in review_log while there is none.
	newTodayColumn = `coalesce(
		(SELECT new_count FROM daily_reviews WHERE user_id = +?1 AND day_start = ?4),
		(SELECT count(*) FROM review_log WHERE user_id = +?1 AND reviewed_at >= ?4 AND state_before = 0))`
	reviewsTodayColumn = `coalesce(
		(SELECT review_count FROM daily_reviews WHERE user_id = +?1 AND day_start = ?4),
		(SELECT count(*) FROM review_log WHERE user_id = +?1 AND reviewed_at >= ?4 AND ` + countedReview + `))`

	// queueAllQuery and queueDeckQuery are the three steps in one
	// statement: at most one row per step, in step order (SQLite returns
	// the arms of a UNION ALL in turn; TestNextCardOrder would see
	// otherwise), each row with
	// its step number, the day's counts (0 for a learning card, which no
	// limit holds back), whether the learner has the meetup mode on in a
	// group (0 for a learning card, which comes before extra reviews) and
	// the card (NULL card columns for a new card).
	// SQLite runs a step only when the rows before it have been read, so
	// a due learning card costs one lookup. ?1 user id, ?2 now (ms), ?3
	// deck id or 0, ?4 start of the study day (ms), ?5 noCursor.
	queueAllQuery  = queueSteps + ` UNION ALL SELECT * FROM (SELECT 3, ` + stepColumns + `, ` + nullCardColumns + `, * FROM (` + newCardAllQuery + `))`
	queueDeckQuery = queueSteps + ` UNION ALL SELECT * FROM (SELECT 3, ` + stepColumns + `, ` + nullCardColumns + `, * FROM (` + newCardDeckQuery + `))`
	queueSteps     = `SELECT * FROM (SELECT 1, 0, 0, 0, * FROM (` + dueLearningQuery + `))
		UNION ALL SELECT * FROM (SELECT 2, ` + stepColumns + `, * FROM (` + dueReviewQuery + `))`
	dayCounts   = newTodayColumn + `, ` + reviewsTodayColumn
	stepColumns = dayCounts + `, ` + meetupModeColumn
	// meetupModeColumn tells whether the learner ?1 has the meetup mode
	// on in any group: only then does the queue look for extra reviews
	// (nextExtra) when no due card is served.
	meetupModeColumn = `EXISTS (SELECT 1 FROM study_group_members m INDEXED BY study_group_members_mode
		WHERE m.user_id = +?1 AND m.meetup_mode = 1)`
	nullCardColumns = `NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`

	nextDueQuery = `SELECT min(due) FROM (
		SELECT * FROM (SELECT c.due FROM ` + learningCards + learningWhere + ` AND c.due > ?2 ORDER BY c.due LIMIT 1)
		UNION ALL SELECT * FROM (SELECT c.due FROM ` + reviewCards + reviewWhere + ` AND c.due > ?2 ORDER BY c.due LIMIT 1))`

	dueBeforeQuery = `SELECT (SELECT count(*) FROM ` + learningCards + learningWhere + ` AND c.due < ?2),
		(SELECT count(*) FROM ` + reviewCards + reviewWhere + ` AND c.due < ?2)`

	subscriptionCountQuery = `SELECT count(*) FROM subscriptions WHERE user_id = ?`

	// A study group's page: ?3 is the group's id, and its decks take the
	// place of the subscribed ones; new cards come deck by deck in the
	// group's order. studyGroupQuery names the group for its member ?2.
	groupScopeFilter  = ` AND q.deck_id IN (SELECT gd.deck_id FROM study_group_decks gd WHERE gd.group_id = +?3)`
	newCardGroupQuery = `SELECT ` + studyQuestionColumns + `
		FROM study_group_decks gd
		JOIN decks d ON d.id = gd.deck_id
		JOIN questions q ON q.deck_id = gd.deck_id AND q.status = 'published'
		  AND q.position > coalesce((SELECT k.covered_through FROM new_card_cursors k
		                             WHERE k.user_id = +?1 AND k.deck_id = gd.deck_id), ?5)
		WHERE gd.group_id = +?3
		  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = +?1 AND c.question_id = q.id)
		ORDER BY gd.position, q.position, q.id
		LIMIT 1`
	studyGroupQuery = `SELECT g.id, g.name FROM study_groups g
		JOIN study_group_members m ON m.group_id = g.id AND m.user_id = ?2
		WHERE g.id = ?1`

	// The meetup mode (group.ExtraReview). meetupDecksQuery lists, for
	// user ?1, the decks of their groups with the mode on, with each
	// group's meetup, leaving out meetups two days or more before ?2 (a
	// meetup without a time lasts its day). extraCandidatesQuery walks
	// their cards in review, not due at ?2 and not reviewed since ?4, the
	// start of the study day, in the decks ?6 (a JSON array of ids), in
	// due order, within the page's scope (?3 as in the queue).
	meetupDecksQuery = `SELECT gd.deck_id, g.meetup_at, g.meetup_has_time, g.meetup_zone
		FROM study_group_members m INDEXED BY study_group_members_mode
		JOIN study_groups g ON g.id = m.group_id
		JOIN study_group_decks gd ON gd.group_id = m.group_id
		WHERE m.user_id = ?1 AND m.meetup_mode = 1 AND g.meetup_at > ?2 - 172800000`
	extraCandidatesQuery = `SELECT ` + cardColumns + `, ` + studyQuestionColumns + ` FROM ` + reviewCards + withDeck + reviewWhere + `
		AND c.due > ?2 AND c.last_review < ?4 AND q.deck_id IN (SELECT value FROM json_each(?6))
		ORDER BY c.due`

	studyDeckQuery = `SELECT d.id, d.slug, d.title, d.release, d.sig, d.language, d.description,
		(SELECT count(*) FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')
		FROM decks d WHERE d.slug = ?`
)

// todayQuery counts the day's reviews as the queue does, for an empty
// queue: ?1 user id, ?2 start of the study day (ms).
var todayQuery = `SELECT ` + strings.ReplaceAll(dayCounts, "?4", "?2")

// The queue's queries on a study group's page: those of one deck's page,
// with the group's decks in place of the deck (groupScopeFilter).
var (
	queueGroupQuery = strings.ReplaceAll(queueSteps, scopeFilter, groupScopeFilter) +
		` UNION ALL SELECT * FROM (SELECT 3, ` + stepColumns + `, ` + nullCardColumns + `, * FROM (` + newCardGroupQuery + `))`
	nextDueGroupQuery         = strings.ReplaceAll(nextDueQuery, scopeFilter, groupScopeFilter)
	dueBeforeGroupQuery       = strings.ReplaceAll(dueBeforeQuery, scopeFilter, groupScopeFilter)
	extraCandidatesGroupQuery = strings.ReplaceAll(extraCandidatesQuery, scopeFilter, groupScopeFilter)
)

// scopeQueries are the queue's queries of one kind of study page.
type scopeQueries struct{ queue, nextDue, dueBefore, extra string }

var (
	allDecksQueries  = scopeQueries{queueAllQuery, nextDueQuery, dueBeforeQuery, extraCandidatesQuery}
	oneDeckQueries   = scopeQueries{queueDeckQuery, nextDueQuery, dueBeforeQuery, extraCandidatesQuery}
	groupDeckQueries = scopeQueries{queueGroupQuery, nextDueGroupQuery, dueBeforeGroupQuery, extraCandidatesGroupQuery}
)

// Steps of the study queue, as queueAllQuery numbers its rows.
const (
	stepLearning = 1
	stepReview   = 2
	stepNew      = 3
)

// NextCard returns the card u should study next at now: due learning and
// relearning cards first, then due reviews (most overdue first, up to the
// daily review limit), then the meetup mode's extra reviews (nextExtra),
// then new cards in deck order up to the daily new limit. The study day
// rolls over at 04:00 in the user's time zone. With deckSlug empty it
// serves every deck the user subscribes to; otherwise that one deck,
// subscribed or not. A deck that does not exist or has no published
// question is quiz.ErrNotFound. Draft and retired questions are never
// served. u's time zone and daily limits are used as given: the caller has
// just read them (the session lookup).
func (db *DB) NextCard(ctx context.Context, u quiz.User, deckSlug string, now time.Time) (StudyNext, error) {
	return db.NextCardIn(ctx, u, Scope{Deck: deckSlug}, now)
}

// NextCardIn is NextCard on the study page of scope: one deck, a study
// group's decks (subscribed or not; a group u is not a member of is
// quiz.ErrNotFound, as one that does not exist), or every subscribed deck.
func (db *DB) NextCardIn(ctx context.Context, u quiz.User, scope Scope, now time.Time) (StudyNext, error) {
	n, err := db.nextCard(ctx, u, scope, now)
	if err != nil {
		return n, fmt.Errorf("store: next card for user %d: %w", u.ID, err)
	}
	return n, nil
}

func (db *DB) nextCard(ctx context.Context, u quiz.User, scope Scope, now time.Time) (StudyNext, error) {
	var n StudyNext
	ctx, done, err := db.quickRead(ctx)
	if err != nil {
		return n, err
	}
	defer done()
	queries, scopeID := allDecksQueries, int64(0)
	switch {
	case scope.Group != 0:
		if n.Group, err = studyGroup(ctx, db.reads, scope.Group, u.ID); err != nil {
			return n, err
		}
		queries, scopeID = groupDeckQueries, n.Group.ID
	case scope.Deck != "":
		if n.Deck, err = studyDeck(ctx, db.reads, scope.Deck); err != nil {
			return n, err
		}
		queries, scopeID = oneDeckQueries, n.Deck.ID
	}
	loc := db.zones.location(u.Timezone)
	start, end := studyDay(now, loc)
	at := ms(now)
	rows, err := db.reads.QueryContext(ctx, queries.queue, u.ID, at, scopeID, ms(start), noCursor)
	if err != nil {
		return n, fmt.Errorf("queue: %w", err)
	}
	defer rows.Close()
	var (
		ref        questionRef
		step       int
		meetupMode bool
	)
	for !n.Found && rows.Next() {
		c, r, err := scanStudyCard(rows, now, &step, &n.NewToday, &n.ReviewsToday, &meetupMode)
		if err != nil {
			return n, fmt.Errorf("queue: %w", err)
		}
		switch {
		case step == stepLearning,
			step == stepReview && n.ReviewsToday < u.ReviewsPerDay,
			step == stepNew && n.NewToday < u.NewPerDay:
			n.Card, n.Found, ref = c, true, r
		case step == stepReview:
			n.ReviewLimitReached = true
		case step == stepNew:
			n.NewLimitReached = true
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("queue: %w", err)
	}
	// Closed before the question is resolved, which may read again: this
	// read holds one of the pool's connections until then.
	if err := rows.Close(); err != nil {
		return n, fmt.Errorf("queue: %w", err)
	}
	// After the due cards, the meetup mode's extra reviews: for a learner
	// whose queue gave no row at all, the mode is not known yet.
	if (!n.Found || step == stepNew) && (meetupMode || step == 0) {
		c, r, ok, err := db.nextExtra(ctx, u, queries.extra, scopeID, now, start, loc)
		if err != nil {
			return n, fmt.Errorf("queue: %w", err)
		}
		if ok {
			n.Card, n.Found, n.Extra, ref = c, true, true, r
		}
	}
	if n.Found {
		if err := db.resolveStudyCard(ctx, db.reads, &n.Card, ref); err != nil {
			return n, fmt.Errorf("queue: %w", err)
		}
		return n, nil
	}

	// Nothing to study now: say what is coming.
	q := db.reads
	n.DayEnds = end
	if err := q.QueryRowContext(ctx, todayQuery, u.ID, ms(start)).Scan(&n.NewToday, &n.ReviewsToday); err != nil {
		return n, fmt.Errorf("count today's reviews: %w", err)
	}
	var next sql.NullInt64
	err = q.QueryRowContext(ctx, queries.nextDue, u.ID, at, scopeID).Scan(&next)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return n, fmt.Errorf("next due: %w", err)
	}
	if next.Valid {
		n.NextDue = fromMS(next.Int64).In(loc)
	}
	var learning, reviews int
	if err := q.QueryRowContext(ctx, queries.dueBefore, u.ID, ms(end), scopeID).Scan(&learning, &reviews); err != nil {
		return n, fmt.Errorf("count cards due today: %w", err)
	}
	n.DueToday = learning + min(reviews, max(u.ReviewsPerDay-n.ReviewsToday, 0))
	if scope == (Scope{}) {
		err := q.QueryRowContext(ctx, subscriptionCountQuery, u.ID).Scan(&n.Subscriptions)
		if err != nil {
			return n, fmt.Errorf("count subscriptions: %w", err)
		}
	}
	return n, nil
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

// studyGroup names the group groupID for its member userID; a group they
// are not a member of is quiz.ErrNotFound.
func studyGroup(ctx context.Context, q querier, groupID, userID int64) (StudyGroup, error) {
	var g StudyGroup
	err := q.QueryRowContext(ctx, studyGroupQuery, groupID, userID).Scan(&g.ID, &g.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("group %d: %w", groupID, group.ErrNotMember)
	}
	if err != nil {
		return g, fmt.Errorf("group %d: %w", groupID, err)
	}
	return g, nil
}

// nextExtra returns the first card, in due order, that the meetup mode
// puts to u at now for an extra review (group.ExtraReview), within the
// page's scope (candidates, the scope's extraCandidatesQuery, and
// scopeID). A deck's meetup is the nearest of u's groups with the mode on
// that study it. ok is false when no card is due for one; for most
// learners, without the mode on, that costs one lookup of an index.
func (db *DB) nextExtra(ctx context.Context, u quiz.User, candidates string, scopeID int64, now, dayStart time.Time,
	loc *time.Location) (sc StudyCard, ref questionRef, ok bool, err error) {
	meetups, err := db.meetupDecks(ctx, u.ID, now, loc)
	if err != nil || len(meetups) == 0 {
		return sc, ref, false, err
	}
	decks := make([]int64, 0, len(meetups))
	for id := range meetups {
		decks = append(decks, id)
	}
	sched, err := db.schedulers.get(u.DesiredRetention, false)
	if err != nil {
		return sc, ref, false, err
	}
	mem := group.Memory{Scheduler: sched, DesiredRetention: u.DesiredRetention}
	rows, err := db.reads.QueryContext(ctx, candidates, u.ID, ms(now), scopeID, ms(dayStart), noCursor, groupDeckList(decks))
	if err != nil {
		return sc, ref, false, fmt.Errorf("extra reviews: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		c, r, err := scanStudyCard(rows, now)
		if err != nil {
			return sc, ref, false, fmt.Errorf("extra reviews: %w", err)
		}
		if group.ExtraReview(c.Card, meetups[r.deckID], now, dayStart, loc, mem) {
			return c, r, true, rows.Close()
		}
	}
	return sc, ref, false, rows.Err()
}

// meetupDecks returns, by deck id, the nearest meetup of userID's groups
// with the meetup mode on that study the deck, for the decks whose extra
// reviews are open at now (group.Meetup.ExtraReviewsOpen) in the
// learner's time zone loc.
func (db *DB) meetupDecks(ctx context.Context, userID int64, now time.Time, loc *time.Location) (map[int64]group.Meetup, error) {
	rows, err := db.reads.QueryContext(ctx, meetupDecksQuery, userID, ms(now))
	if err != nil {
		return nil, fmt.Errorf("meetups: %w", err)
	}
	defer rows.Close()
	all := map[int64][]group.Meetup{}
	for rows.Next() {
		var (
			deck, at int64
			hasTime  bool
			zone     string
		)
		if err := rows.Scan(&deck, &at, &hasTime, &zone); err != nil {
			return nil, fmt.Errorf("meetups: %w", err)
		}
		all[deck] = append(all[deck], meetup(&db.zones, at, hasTime, zone))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meetups: %w", err)
	}
	out := map[int64]group.Meetup{}
	for deck, list := range all {
		if m, ok := group.Nearest(list, now); ok && m.ExtraReviewsOpen(now, loc) {
			out[deck] = m
		}
	}
	return out, nil
}
