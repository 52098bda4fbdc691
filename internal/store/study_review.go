package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// CardPreview is a card about to be graded: the question, the learner's
// card, and the card each rating would produce.
type CardPreview struct {
	StudyCard
	Outcomes fsrs.Outcomes
	// Subscribed tells whether the learner subscribes to the question's
	// deck.
	Subscribed bool
	// Groups are the ids of the learner's study groups that study the
	// question's deck.
	Groups []int64
	// History is the version of the stored feature history at the read
	// (FeaturesWithHistory's asOf).
	History HistoryVersion
}

// cardForAnswerQuery loads, for user ?1, the published question ?2 with the
// user's card (all card columns NULL when there is none), their desired
// retention and time zone, whether they subscribe to its deck, and the ids
// of their study groups that study the deck (NULL for none), and the
// version of the stored feature history. No row: the question does not
// exist or is not published.
const cardForAnswerQuery = `SELECT u.desired_retention, u.timezone,
	EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = +?1 AND s.deck_id = q.deck_id),
	(SELECT group_concat(gd.group_id) FROM study_group_decks gd
	 JOIN study_group_members m ON m.group_id = gd.group_id AND m.user_id = +?1
	 WHERE gd.deck_id = q.deck_id),
	(SELECT version FROM history_version WHERE id = 1), ` + cardColumns + `, ` + studyQuestionColumns + `
	FROM questions q
	JOIN decks d ON d.id = q.deck_id
	JOIN users u ON u.id = +?1
	LEFT JOIN cards c ON c.user_id = +?1 AND c.question_id = q.id
	WHERE q.id = +?2 AND q.status = 'published'`

// answerer is what cardForAnswer reads of the learner.
type answerer struct {
	retention  float64
	timezone   string
	subscribed bool
	groups     []int64
	history    HistoryVersion
}

// cardForAnswer runs cardForAnswerQuery; a missing row is quiz.ErrNotFound.
func (db *DB) cardForAnswer(ctx context.Context, q querier, userID, questionID int64, now time.Time) (StudyCard, answerer, error) {
	var (
		a      answerer
		groups sql.NullString
	)
	row := q.QueryRowContext(ctx, cardForAnswerQuery, userID, questionID)
	sc, ref, err := scanStudyCard(row, now, &a.retention, &a.timezone, &a.subscribed, &groups, &a.history)
	if err == nil {
		a.groups, err = idList(groups.String)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return sc, a, fmt.Errorf("question %d: %w", questionID, quiz.ErrNotFound)
	}
	if err == nil {
		err = db.resolveStudyCard(ctx, q, &sc, ref)
	}
	if err != nil {
		return sc, a, fmt.Errorf("question %d: %w", questionID, err)
	}
	return sc, a, nil
}

// PreviewCard returns the published question questionID with userID's card
// for it and what each rating would do at now, for labelling the grade
// buttons: intervals before fuzz (schedulers.get). A question that does not
// exist or is not published is quiz.ErrNotFound.
func (db *DB) PreviewCard(ctx context.Context, userID, questionID int64, now time.Time) (CardPreview, error) {
	ctx, done, err := db.quickRead(ctx)
	if err != nil {
		return CardPreview{}, fmt.Errorf("store: preview card for user %d: %w", userID, err)
	}
	defer done()
	sc, a, err := db.cardForAnswer(ctx, db.reads, userID, questionID, now)
	if err != nil {
		return CardPreview{}, fmt.Errorf("store: preview card for user %d: %w", userID, err)
	}
	sched, err := db.schedulers.get(a.retention, false) // labels: no fuzz
	if err != nil {
		return CardPreview{}, fmt.Errorf("store: preview card for user %d: %w", userID, err)
	}
	out, err := sched.Preview(sc.Card, reviewTime(sc.Card, now))
	if err != nil {
		return CardPreview{}, fmt.Errorf("store: preview card %d for user %d: %w", questionID, userID, err)
	}
	return CardPreview{StudyCard: sc, Outcomes: out, Subscribed: a.subscribed, Groups: a.groups, History: a.history}, nil
}

// reviewTime is now, or the card's last review if the clock is behind it
// (FSRS refuses a review on an earlier day than the last one).
func reviewTime(c fsrs.Card, now time.Time) time.Time {
	if now.Before(c.LastReview) {
		return c.LastReview
	}
	return now
}

// Review is one graded answer to record.
type Review struct {
	UserID     int64
	QuestionID int64
	// RequestID identifies the presentation answered. Recording the same
	// RequestID again records nothing.
	RequestID string
	Rating    fsrs.Rating
	// Response is the learner's answer; it is graded again here. One that
	// is not normal for the question (quiz.Question.CheckResponse) is
	// quiz.ErrInvalid.
	Response quiz.Response
	// Scope is the study page the review comes from: a question it
	// cannot show is quiz.ErrNotFound (ErrNotSubscribed on the page of
	// every subscribed deck).
	Scope Scope
	// AnswerKey, when not empty, is the StudyCard.AnswerKey of the
	// question as it was put to the learner: a question edited since is
	// ErrQuestionChanged.
	AnswerKey string
	// ShownAt, when not zero, is when the card was put to the learner: a
	// card graded after that (from another tab, or from the same page
	// reached again with the Back button) is ErrCardReviewed.
	ShownAt time.Time
	// Duration is how long the learner took to answer.
	Duration time.Duration
	At       time.Time
}

// ErrQuestionChanged refuses a review of a question edited (by an import,
// say) after it was put to the learner: their answer was to a version that
// is gone, and nothing is recorded.
var ErrQuestionChanged = fmt.Errorf("the question changed after it was shown: %w", quiz.ErrConflict)

// ErrNotSubscribed refuses a review from the page of every subscribed deck
// of a card whose deck the learner no longer (or never did) subscribe to;
// nothing is recorded. It is a quiz.ErrNotFound.
var ErrNotSubscribed = fmt.Errorf("the question is in no deck the learner subscribes to: %w", quiz.ErrNotFound)

// ErrCardReviewed refuses a review of a card that has been graded since it
// was put to the learner: the card their answer was to is gone, and nothing
// is recorded.
var ErrCardReviewed = fmt.Errorf("the card was graded after it was shown: %w", quiz.ErrConflict)

// noCursor is the position of a cursor that covers nothing: below every
// question's.
const noCursor = math.MinInt64

// maxRequestID bounds the length of a request id.
const maxRequestID = 64

// Recorded is what RecordReview stored.
type Recorded struct {
	// Duplicate is true when the request id had been recorded already:
	// nothing changed, and the fields describe the earlier review.
	Duplicate  bool
	Rating     fsrs.Rating
	Correct    bool
	ReviewedAt time.Time
	// State and Due are the card's state and due time after the review.
	State fsrs.State
	Due   time.Time
}

// The statements of recording a review.
const (
	insertReviewQuery = `INSERT INTO review_log (request_id, user_id, question_id, rating, answer,
			correct, reviewed_at, duration_ms, state_before, due_before, stability_before, difficulty_before,
			elapsed_days, retrievability, state_after, due_after, stability_after, difficulty_after, scheduled_days,
			elapsed_days_before, scheduled_days_before, learning_steps_before, reps_before, lapses_before, last_review_before)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (request_id) DO NOTHING`
	saveCardQuery = `INSERT INTO cards (user_id, question_id, state, due, stability, difficulty,
			elapsed_days, scheduled_days, learning_steps, reps, lapses, last_review)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, question_id) DO UPDATE SET
			state = excluded.state, due = excluded.due, stability = excluded.stability,
			difficulty = excluded.difficulty, elapsed_days = excluded.elapsed_days,
			scheduled_days = excluded.scheduled_days, learning_steps = excluded.learning_steps,
			reps = excluded.reps, lapses = excluded.lapses, last_review = excluded.last_review`
	// Counting a review in daily_reviews (migration 0009): ?1 user id, ?2
	// start of its study day (ms), ?3 1 for the first review of a new
	// card, ?4 1 for a review the daily review limit counts (countedReview).
	// The day's first review creates the row from review_log, which holds
	// the review.
	countDayQuery = `UPDATE daily_reviews SET new_count = new_count + ?3, review_count = review_count + ?4
		WHERE user_id = ?1 AND day_start = ?2`
	startDayQuery = `INSERT INTO daily_reviews (user_id, day_start, new_count, review_count)
		SELECT ?1, ?2, count(*) FILTER (WHERE state_before = 0), count(*) FILTER (WHERE ` + countedReview + `)
		FROM review_log WHERE user_id = ?1 AND reviewed_at >= ?2`
	// countedReview is the condition on a review_log row that the daily
	// review limit counts it: a review of a card in review that was due.
	// A review before the card fell due (the meetup mode's extra reviews)
	// takes nothing of the limit.
	countedReview = `state_before = 2 AND due_before <= reviewed_at`
	// The new-card cursor of migration 0008: ?1 user id, ?2 deck id; ?3 is
	// noCursor for a cursor's start, then the position of the question
	// first graded. The cursor moves to it when no published question
	// between the two lacks a card.
	startCursorQuery = `INSERT INTO new_card_cursors (user_id, deck_id, covered_through)
		VALUES (?1, ?2, ?3) ON CONFLICT (user_id, deck_id) DO NOTHING`
	advanceCursorQuery = `UPDATE new_card_cursors SET covered_through = ?3
		WHERE user_id = +?1 AND deck_id = +?2 AND covered_through < +?3
		  AND NOT EXISTS (SELECT 1 FROM questions q
		      WHERE q.deck_id = +?2 AND q.status = 'published'
		        AND q.position > new_card_cursors.covered_through AND q.position <= +?3
		        AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = +?1 AND c.question_id = q.id))`
	// Migration 0013: ?1 user id, ?2 deck id, ?3 noCursor. A subscription
	// is marked exhausted when no published question of the deck past the
	// learner's cursor (before it every one has a card) lacks their card.
	markExhaustedQuery = `UPDATE subscriptions SET exhausted = 1
		WHERE user_id = +?1 AND deck_id = +?2 AND exhausted = 0
		  AND NOT EXISTS (SELECT 1 FROM questions q
		      WHERE q.deck_id = +?2 AND q.status = 'published'
		        AND q.position > coalesce((SELECT k.covered_through FROM new_card_cursors k
		                                   WHERE k.user_id = +?1 AND k.deck_id = +?2), ?3)
		        AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = +?1 AND c.question_id = q.id))`
	earlierReviewQuery = `SELECT rating, correct, reviewed_at, state_after, due_after
		FROM review_log WHERE request_id = ? AND user_id = ? AND question_id = ?`
	gradedQuery = `SELECT rating, correct, reviewed_at, state_after, due_after
		FROM review_log WHERE request_id = ? AND user_id = ?`
)

// Graded returns userID's review recorded under requestID, for telling
// what a grade did after a plain form post's redirect. Another user's
// request id, or one never recorded, is quiz.ErrNotFound.
func (db *DB) Graded(ctx context.Context, userID int64, requestID string) (Recorded, error) {
	if requestID == "" || len(requestID) > maxRequestID {
		return Recorded{}, fmt.Errorf("store: review id of %d bytes: %w", len(requestID), quiz.ErrNotFound)
	}
	out, err := scanRecorded(db.read.QueryRowContext(ctx, gradedQuery, requestID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("store: review %q of user %d: %w", requestID, userID, quiz.ErrNotFound)
	}
	if err != nil {
		return out, fmt.Errorf("store: review %q of user %d: %w", requestID, userID, err)
	}
	return out, nil
}

// scanRecorded reads a review_log row of rating, correct, reviewed_at,
// state_after and due_after.
func scanRecorded(row scanner) (Recorded, error) {
	var (
		out           Recorded
		rating, state int
		due, reviewed int64
	)
	if err := row.Scan(&rating, &out.Correct, &reviewed, &state, &due); err != nil {
		return out, err
	}
	out.Rating, out.State = fsrs.Rating(rating), fsrs.State(state)
	out.ReviewedAt, out.Due = fromMS(reviewed), fromMS(due)
	return out, nil
}

// RecordReview grades r's response to the published question, applies the
// rating to the user's card with the user's FSRS scheduler, and stores the
// review log row and the new card state in one transaction, which other
// reviews recorded at the same moment may share (review_writer.go). The same
// request id recorded twice stores one review and leaves the card as the
// first recording left it; a request id already used by another user or
// question is quiz.ErrConflict. A question that does not exist or is not
// published is quiz.ErrNotFound. Whether the answer counts as correct is
// quiz.Result.CorrectRated's rule.
func (db *DB) RecordReview(ctx context.Context, r Review) (Recorded, error) {
	if !r.Rating.Valid() {
		return Recorded{}, fmt.Errorf("store: record review: rating %d: %w", r.Rating, quiz.ErrInvalid)
	}
	if r.RequestID == "" || len(r.RequestID) > maxRequestID {
		return Recorded{}, fmt.Errorf("store: record review: request id of %d bytes: %w", len(r.RequestID), quiz.ErrInvalid)
	}
	answer, err := json.Marshal(r.Response)
	if err != nil {
		return Recorded{}, fmt.Errorf("store: record review: encode answer: %w", err)
	}
	out, err := db.reviews.record(ctx, pendingReview{review: r, answer: string(answer)})
	if err != nil {
		return Recorded{}, fmt.Errorf("store: record review of question %d by user %d: %w", r.QuestionID, r.UserID, err)
	}
	return out, nil
}

// recordReview records one review within tx. wrote tells whether it
// changed anything before failing: an error after a write leaves the
// transaction unusable for other reviews.
func (db *DB) recordReview(ctx context.Context, q txStmts, p pendingReview) (out Recorded, wrote bool, err error) {
	r := p.review
	sc, a, err := db.cardForAnswer(ctx, q, r.UserID, r.QuestionID, r.At)
	if err == nil {
		err = checkReview(r, sc, a)
	}
	if err != nil {
		return refused(ctx, q, r, err)
	}
	sched, err := db.schedulers.get(a.retention, true)
	if err != nil {
		return out, false, err
	}
	at := reviewTime(sc.Card, r.At)
	next, log, err := sched.Review(sc.Card, r.Rating, at)
	if err != nil {
		return out, false, err
	}
	correct := sc.Question.Question.Grade(r.Response).CorrectRated(r.Rating)
	out = Recorded{Rating: r.Rating, Correct: correct, ReviewedAt: at, State: next.State, Due: next.Due}

	ins, err := q.ExecContext(ctx, insertReviewQuery,
		r.RequestID, r.UserID, r.QuestionID, int(r.Rating), p.answer,
		correct, ms(at), max(r.Duration.Milliseconds(), 0), int(log.State), ms(log.Due), log.Stability, log.Difficulty,
		log.ElapsedDays, log.Retrievability, int(next.State), ms(next.Due), next.Stability, next.Difficulty, next.ScheduledDays,
		sc.Card.ElapsedDays, sc.Card.ScheduledDays, sc.Card.LearningSteps, sc.Card.Reps, sc.Card.Lapses, lastReviewMS(sc.Card))
	if err != nil {
		return out, true, fmt.Errorf("insert review: %w", err)
	}
	if n, err := ins.RowsAffected(); err != nil {
		return out, true, err
	} else if n == 0 {
		out, err = earlierReview(ctx, q, r)
		return out, false, err
	}

	day, _ := studyDay(at, db.zones.location(a.timezone))
	counted := log.State == fsrs.Review && ms(log.Due) <= ms(at) // countedReview
	if err := countReview(ctx, q, r.UserID, day, log.State == fsrs.New, counted); err != nil {
		return out, true, err
	}
	var last any
	if !next.LastReview.IsZero() {
		last = ms(next.LastReview)
	}
	_, err = q.ExecContext(ctx, saveCardQuery,
		r.UserID, r.QuestionID, int(next.State), ms(next.Due), next.Stability, next.Difficulty,
		next.ElapsedDays, next.ScheduledDays, next.LearningSteps, next.Reps, next.Lapses, last)
	if err != nil {
		return out, true, fmt.Errorf("save card: %w", err)
	}
	if sc.IsNew {
		return out, true, advanceCursor(ctx, q, r.UserID, sc.Question)
	}
	return out, true, nil
}

// checkReview refuses a review that does not fit the card it is for.
func checkReview(r Review, sc StudyCard, a answerer) error {
	if err := r.Scope.check(sc, a.subscribed, a.groups); err != nil {
		return err
	}
	if err := sc.Presented(r.AnswerKey, r.ShownAt); err != nil {
		return err
	}
	return sc.Question.Question.CheckResponse(r.Response)
}

// Scope is a study page: that of one deck, that of one study group's
// decks, or, the zero Scope, that of every deck the learner subscribes to.
type Scope struct {
	// Deck is the slug of the one deck; empty for every subscribed deck.
	Deck string
	// Group is the id of the study group whose decks are studied; 0 for
	// none. Deck is then empty.
	Group int64
}

// check refuses a card the study page cannot show: of another deck than
// the page's one, of a deck that the page's group does not study (or of a
// group the learner is not a member of), or, on the page of every
// subscribed deck, of a deck the learner does not subscribe to
// (ErrNotSubscribed). A deck may be studied on its own page or a group's,
// subscribed or not. groups are the learner's groups that study the
// card's deck.
func (p Scope) check(sc StudyCard, subscribed bool, groups []int64) error {
	if p.Group != 0 {
		if !slices.Contains(groups, p.Group) {
			return fmt.Errorf("question %d is not in the decks of group %d: %w", sc.Question.ID, p.Group, quiz.ErrNotFound)
		}
		return nil
	}
	if p.Deck == "" {
		if !subscribed {
			return fmt.Errorf("question %d: %w", sc.Question.ID, ErrNotSubscribed)
		}
		return nil
	}
	if p.Deck != sc.Question.DeckSlug {
		return fmt.Errorf("question %d is not in deck %q: %w", sc.Question.ID, p.Deck, quiz.ErrNotFound)
	}
	return nil
}

// ScopeError refuses the card if the study page p cannot show it, as a
// review from that page is refused.
func (c CardPreview) ScopeError(p Scope) error {
	return p.check(c.StudyCard, c.Subscribed, c.Groups)
}

// refused answers a review refused before it wrote anything (err). When its
// request id is recorded already for the same user and question, it is the
// retry of a review recorded before the question was retired or edited, and
// gets that review, as a duplicate; otherwise err.
func refused(ctx context.Context, q querier, r Review, err error) (Recorded, bool, error) {
	if !errors.Is(err, quiz.ErrNotFound) && !errors.Is(err, quiz.ErrInvalid) && !errors.Is(err, quiz.ErrConflict) {
		return Recorded{}, false, err
	}
	out, found, lookErr := findEarlierReview(ctx, q, r)
	switch {
	case lookErr != nil:
		return Recorded{}, false, lookErr
	case found:
		return out, false, nil
	}
	return Recorded{}, false, err
}

// countReview counts a review in the daily_reviews row of userID's study
// day starting at day: as the first review of a new card, as a review the
// daily review limit counts (countedReview), or as neither.
func countReview(ctx context.Context, tx txStmts, userID int64, day time.Time, isNew, counted bool) error {
	res, err := tx.ExecContext(ctx, countDayQuery, userID, ms(day), isNew, counted)
	if err != nil {
		return fmt.Errorf("count the day's reviews: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, startDayQuery, userID, ms(day)); err != nil {
		return fmt.Errorf("start the day's review count: %w", err)
	}
	return nil
}

// advanceCursor moves userID's new-card cursor in the deck of q, a question
// they have just graded for the first time, up to q when every published
// question before it has a card, and marks their subscription to the deck
// exhausted when no published question of it is left without a card.
func advanceCursor(ctx context.Context, tx txStmts, userID int64, q StoredQuestion) error {
	if _, err := tx.ExecContext(ctx, startCursorQuery, userID, q.DeckID, noCursor); err != nil {
		return fmt.Errorf("start new-card cursor: %w", err)
	}
	if _, err := tx.ExecContext(ctx, advanceCursorQuery, userID, q.DeckID, q.Position); err != nil {
		return fmt.Errorf("advance new-card cursor: %w", err)
	}
	if _, err := tx.ExecContext(ctx, markExhaustedQuery, userID, q.DeckID, noCursor); err != nil {
		return fmt.Errorf("mark the deck studied through: %w", err)
	}
	return nil
}

// earlierReview returns the review already recorded under r's request id.
// It must belong to the same user and question.
func earlierReview(ctx context.Context, q querier, r Review) (Recorded, error) {
	out, found, err := findEarlierReview(ctx, q, r)
	if err == nil && !found {
		err = fmt.Errorf("request id used for another review: %w", quiz.ErrConflict)
	}
	return out, err
}

// findEarlierReview looks up the review recorded under r's request id for
// the same user and question, as a duplicate.
func findEarlierReview(ctx context.Context, q querier, r Review) (out Recorded, found bool, err error) {
	out, err = scanRecorded(q.QueryRowContext(ctx, earlierReviewQuery, r.RequestID, r.UserID, r.QuestionID))
	out.Duplicate = true
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return out, false, nil
	case err != nil:
		return out, false, fmt.Errorf("earlier review: %w", err)
	}
	return out, true, nil
}

// idList reads ids as group_concat lists them: "3,7", or "" for none.
func idList(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("id list %q: %w", s, err)
		}
		out[i] = id
	}
	return out, nil
}
