package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
)

// This file gathers what the figures of a learner's progress are computed
// from: the statistics page (Stats), the home page (HomeSummary) and the
// counts of the study page (StudyCounts). The figures themselves are
// defined in internal/progress; the queries here read their inputs, by
// SQL aggregates where the inputs are many (reviews per study day, true
// retention's reviews by kind), and the learner's cards where a figure
// needs each card's memory (mastery).

// Stats is one learner's progress at one time over a set of decks.
type Stats struct {
	// DayStart and DayEnds bound the study day of the time asked, in the
	// learner's time zone.
	DayStart, DayEnds time.Time
	// DesiredRetention is the learner's, which mastery is judged by.
	DesiredRetention float64
	// Decks are the decks asked for that have published questions, newest
	// release first.
	Decks []DeckStats
	// SIGs sums Decks by SIG, in SIG order.
	SIGs []SIGStats
	// Total sums Decks.
	Total progress.Figures
	// Today is Total.Due within the learner's daily limits: the cards left
	// to study today.
	Today progress.Due
	// Allowance is what the daily limits leave of today.
	Allowance progress.Allowance
	// Forecast counts the cards of Decks falling due on each of the next
	// progress.ForecastDays study days, today first (overdue cards count
	// today).
	Forecast []progress.Day
	// Calendar counts the learner's reviews, of any deck, on each of the
	// last progress.CalendarDays study days, today last.
	Calendar []progress.Day
	// Streak is the learner's run of study days with reviews.
	Streak progress.Streak
	// NextDue is when the next card of Decks falls due after the time
	// asked, in the learner's time zone; zero when none does.
	NextDue time.Time
}

// DeckStats is one deck's figures for one learner.
type DeckStats struct {
	quiz.DeckSummary
	Subscribed bool
	progress.Figures
	// Today is Due within the learner's daily limits, for this deck alone
	// (Stats.Today limits the decks together).
	Today progress.Due
}

// SIGStats sums the figures of the decks of one SIG.
type SIGStats struct {
	SIG string
	// Decks counts the SIG's decks among those asked for.
	Decks int
	progress.Figures
	// Today is Due within the learner's daily limits.
	Today progress.Due
}

// learnerSettings is what the figures read of a learner.
type learnerSettings struct {
	retention              float64
	loc                    *time.Location
	newPerDay, reviewsDay  int
	newToday, reviewsToday int
	dayStart, dayEnds      time.Time
}

// allowance is what the learner's limits leave of the day.
func (l learnerSettings) allowance() progress.Allowance {
	return progress.AllowanceLeft(l.newPerDay, l.reviewsDay, l.newToday, l.reviewsToday)
}

// The queries of the figures. ?1 is the user id throughout.
const (
	learnerSettingsQuery = `SELECT desired_retention, timezone, new_per_day, reviews_per_day FROM users WHERE id = ?`
	// The learner's cards of published questions with their decks: what
	// mastery, mature cards, the cards due and the forecast count.
	statsCardsQuery = `SELECT q.deck_id, ` + statsCardColumns + `
		FROM cards c JOIN questions q ON q.id = c.question_id
		WHERE c.user_id = ?1 AND q.status = 'published'`
	// The learner's reviews from ?2 to ?3 (ms) by deck, state before and
	// rating, for true retention.
	retentionCountsQuery = `SELECT q.deck_id, r.state_before, r.rating, count(*)
		FROM review_log r JOIN questions q ON q.id = r.question_id
		WHERE r.user_id = ?1 AND r.reviewed_at >= ?2 AND r.reviewed_at < ?3
		GROUP BY q.deck_id, r.state_before, r.rating`
	// The learner's reviews on each study day of ?2, a JSON array of
	// [start, end) pairs in ms, in its order: one range of
	// review_log_user_day per day. studiedDaysQuery only tells whether
	// there is one.
	reviewDaysQuery = `SELECT (SELECT count(*) FROM review_log r
			WHERE r.user_id = ?1 AND r.reviewed_at >= d.value ->> 0 AND r.reviewed_at < d.value ->> 1)
		FROM json_each(?2) d ORDER BY d.key`
	studiedDaysQuery = `SELECT EXISTS (SELECT 1 FROM review_log r
			WHERE r.user_id = ?1 AND r.reviewed_at >= d.value ->> 0 AND r.reviewed_at < d.value ->> 1)
		FROM json_each(?2) d ORDER BY d.key`
	// The queue's count of the learning and review cards due before ?2 (the
	// end of the study day) in the decks the learner subscribes to (?3 is
	// 0), per deck: dueBeforeQuery's, grouped.
	dueByDeckQuery = `SELECT q.deck_id, 1, count(*) FROM ` + learningCards + learningWhere + ` AND c.due < ?2 GROUP BY q.deck_id
		UNION ALL SELECT q.deck_id, 2, count(*) FROM ` + reviewCards + reviewWhere + ` AND c.due < ?2 GROUP BY q.deck_id`
)

// statsCardColumns are what the figures read of a card c
// (statsCardRow); 0 for no last review.
const statsCardColumns = `c.state, c.due, c.stability, coalesce(c.last_review, 0)`

// The queue's new-card search, counting the new cards it would serve up
// to ?6 (the day's allowance) instead of taking the first: the new cards
// left today on the study page. Parameters as queueAllQuery's.
var (
	newLeftAllQuery   = `SELECT count(*) FROM (` + strings.TrimSuffix(newCardAllQuery, "LIMIT 1") + `LIMIT ?6)`
	newLeftDeckQuery  = `SELECT count(*) FROM (` + strings.TrimSuffix(newCardDeckQuery, "LIMIT 1") + `LIMIT ?6)`
	newLeftGroupQuery = `SELECT count(*) FROM (` + strings.TrimSuffix(newCardGroupQuery, "LIMIT 1") + `LIMIT ?6)`
)

// readLearner reads userID's settings and the day's counts at now.
func (db *DB) readLearner(ctx context.Context, userID int64, now time.Time) (learnerSettings, error) {
	var (
		l    learnerSettings
		zone string
	)
	err := db.read.QueryRowContext(ctx, learnerSettingsQuery, userID).Scan(&l.retention, &zone, &l.newPerDay, &l.reviewsDay)
	if errors.Is(err, sql.ErrNoRows) {
		return l, fmt.Errorf("user %d: %w", userID, quiz.ErrNotFound)
	}
	if err != nil {
		return l, fmt.Errorf("user %d: %w", userID, err)
	}
	l.loc = db.zones.location(zone)
	l.dayStart, l.dayEnds = studyDay(now, l.loc)
	if err := db.read.QueryRowContext(ctx, todayQuery, userID, ms(l.dayStart)).Scan(&l.newToday, &l.reviewsToday); err != nil {
		return l, fmt.Errorf("count today's reviews: %w", err)
	}
	return l, nil
}

// Stats returns userID's progress at now over the decks deckIDs (those
// with published questions), or, when deckIDs is empty, over every deck
// they subscribe to or have a card in. A user that does not exist is
// quiz.ErrNotFound. It reads the learner's cards of those decks and counts
// their reviews in SQL: a group's page may call it for each member.
func (db *DB) Stats(ctx context.Context, userID int64, deckIDs []int64, now time.Time) (Stats, error) {
	st, err := db.stats(ctx, userID, deckIDs, now)
	if err != nil {
		return Stats{}, fmt.Errorf("store: statistics of user %d: %w", userID, err)
	}
	return st, nil
}

func (db *DB) stats(ctx context.Context, userID int64, deckIDs []int64, now time.Time) (Stats, error) {
	l, err := db.readLearner(ctx, userID, now)
	if err != nil {
		return Stats{}, err
	}
	mem, err := db.memory(l.retention)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{DayStart: l.dayStart, DayEnds: l.dayEnds, DesiredRetention: l.retention, Allowance: l.allowance()}

	decks, err := deckProgress(ctx, db.read, userID, "", now)
	if err != nil {
		return st, fmt.Errorf("decks: %w", err)
	}
	cards, err := statsCards(ctx, db.read, userID)
	if err != nil {
		return st, err
	}
	from, to := retentionSpan(now, l.loc)
	counts, err := retentionCounts(ctx, db.read, userID, from, to)
	if err != nil {
		return st, err
	}

	var all []fsrs.Card
	for _, d := range decks {
		if !inScope(d, deckIDs, len(cards[d.ID]) > 0) {
			continue
		}
		dc := cards[d.ID]
		all = append(all, dc...)
		f := progress.Figures{
			Cards:     progress.CountCards(dc, d.Questions, now, mem),
			Retention: progress.TrueRetention(counts[d.ID]),
		}
		f.Due = progress.CountDue(dc, l.dayEnds)
		f.Due.New = f.Unseen()
		st.Decks = append(st.Decks, DeckStats{DeckSummary: d.DeckSummary, Subscribed: d.Subscribed, Figures: f,
			Today: f.Due.Limit(st.Allowance)})
		st.Total = st.Total.Add(f)
	}
	st.Today = st.Total.Due.Limit(st.Allowance)
	st.SIGs = sumSIGs(st.Decks, st.Allowance)
	forecast := progress.Days(now, l.loc, 0, progress.ForecastDays)
	st.Forecast = progress.Calendar(forecast, progress.Forecast(all, forecast))
	if next := progress.NextDue(all, now); !next.IsZero() {
		st.NextDue = next.In(l.loc)
	}

	calendar := progress.Days(now, l.loc, 1-progress.CalendarDays, progress.CalendarDays)
	reviews, err := reviewDays(ctx, db.read, reviewDaysQuery, userID, calendar)
	if err != nil {
		return st, err
	}
	st.Calendar = progress.Calendar(calendar, reviews)
	if st.Streak, err = db.streak(ctx, userID, now, l.loc, reviews); err != nil {
		return st, err
	}
	return st, nil
}

// inScope tells whether deck d is among deckIDs or, when none are named,
// whether the learner subscribes to it or has a card in it.
func inScope(d DeckProgress, deckIDs []int64, hasCards bool) bool {
	if len(deckIDs) > 0 {
		return slices.Contains(deckIDs, d.ID)
	}
	return d.Subscribed || hasCards
}

// sumSIGs sums the figures of decks by SIG.
func sumSIGs(decks []DeckStats, a progress.Allowance) []SIGStats {
	var out []SIGStats
	for _, d := range decks {
		i := slices.IndexFunc(out, func(s SIGStats) bool { return s.SIG == d.SIG })
		if i < 0 {
			out = append(out, SIGStats{SIG: d.SIG})
			i = len(out) - 1
		}
		out[i].Decks++
		out[i].Figures = out[i].Figures.Add(d.Figures)
	}
	for i := range out {
		out[i].Today = out[i].Due.Limit(a)
	}
	slices.SortFunc(out, func(a, b SIGStats) int { return strings.Compare(a.SIG, b.SIG) })
	return out
}

// statsCards reads userID's cards of published questions by deck.
func statsCards(ctx context.Context, q querier, userID int64) (map[int64][]fsrs.Card, error) {
	rows, err := q.QueryContext(ctx, statsCardsQuery, userID)
	if err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	defer rows.Close()
	out := map[int64][]fsrs.Card{}
	var deck int64
	row := newStatsCardRow(&deck)
	for rows.Next() {
		c, err := row.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("cards: %w", err)
		}
		out[deck] = append(out[deck], c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	return out, nil
}

// statsCardRow scans rows of leading columns, then statsCardColumns, one
// card a row, with the same destinations from row to row.
type statsCardRow struct {
	// int64 and float64 take the driver's values as they are (database/sql
	// converts an int64 to an int through its decimal text).
	state, due, last int64
	stability        float64
	dests            []any
}

// newStatsCardRow scans the leading columns into lead.
func newStatsCardRow(lead ...any) *statsCardRow {
	r := &statsCardRow{}
	r.dests = append(lead, &r.state, &r.due, &r.stability, &r.last)
	return r
}

// scan reads the card of the current row.
func (r *statsCardRow) scan(rows *sql.Rows) (fsrs.Card, error) {
	if err := rows.Scan(r.dests...); err != nil {
		return fsrs.Card{}, err
	}
	c := fsrs.Card{State: fsrs.State(r.state), Due: fromMS(r.due), Stability: r.stability}
	if r.last != 0 {
		c.LastReview = fromMS(r.last)
	}
	return c, nil
}

// memory is how the figures judge the memory of a learner whose desired
// retention is retention.
func (db *DB) memory(retention float64) (progress.Memory, error) {
	sched, err := db.schedulers.get(retention, false)
	if err != nil {
		return progress.Memory{}, err
	}
	return progress.Memory{Scheduler: sched, DesiredRetention: retention}, nil
}

// retentionSpan is the span true retention is measured over at now for a
// learner in loc: the last progress.RetentionDays study days, today's
// included, to the end of today.
func retentionSpan(now time.Time, loc *time.Location) (from, to time.Time) {
	days := progress.Days(now, loc, 1-progress.RetentionDays, progress.RetentionDays)
	return days[0], days[len(days)-1]
}

// retentionCounts counts userID's reviews from from to to by deck, state
// before and rating.
func retentionCounts(ctx context.Context, q querier, userID int64, from, to time.Time) (map[int64][]progress.ReviewCount, error) {
	rows, err := q.QueryContext(ctx, retentionCountsQuery, userID, ms(from), ms(to))
	if err != nil {
		return nil, fmt.Errorf("reviews by kind: %w", err)
	}
	defer rows.Close()
	out := map[int64][]progress.ReviewCount{}
	for rows.Next() {
		var (
			deck          int64
			state, rating int
			n             int
		)
		if err := rows.Scan(&deck, &state, &rating, &n); err != nil {
			return nil, fmt.Errorf("reviews by kind: %w", err)
		}
		out[deck] = append(out[deck], progress.ReviewCount{StateBefore: fsrs.State(state), Rating: fsrs.Rating(rating), Count: n})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reviews by kind: %w", err)
	}
	return out, nil
}

// reviewDays runs reviewDaysQuery or studiedDaysQuery for userID over the
// study days whose boundaries days holds (as progress.Days returns them).
func reviewDays(ctx context.Context, q querier, query string, userID int64, days []time.Time) ([]int, error) {
	if len(days) < 2 {
		return nil, nil
	}
	pairs := make([][2]int64, len(days)-1)
	for i := range pairs {
		pairs[i] = [2]int64{ms(days[i]), ms(days[i+1])}
	}
	js, err := json.Marshal(pairs)
	if err != nil {
		return nil, fmt.Errorf("reviews per day: %w", err)
	}
	rows, err := q.QueryContext(ctx, query, userID, string(js))
	if err != nil {
		return nil, fmt.Errorf("reviews per day: %w", err)
	}
	defer rows.Close()
	out := make([]int, 0, len(pairs))
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("reviews per day: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reviews per day: %w", err)
	}
	if len(out) != len(pairs) {
		return nil, fmt.Errorf("reviews per day: %d days counted of %d", len(out), len(pairs))
	}
	return out, nil
}

// maxStreakDays bounds how far back a streak is looked for.
const maxStreakDays = 100 * 366

// streak returns userID's streak at now. known counts their reviews on
// the last len(known) study days, today last (none known: nil); days
// before them are looked at only while the streak runs back to the first
// day looked at, in spans that double.
func (db *DB) streak(ctx context.Context, userID int64, now time.Time, loc *time.Location, known []int) (progress.Streak, error) {
	studied := make([]bool, len(known))
	for i, n := range known {
		studied[i] = n > 0
	}
	s := progress.CountStreak(studied)
	for (len(studied) == 0 || s.Reaches(len(studied))) && len(studied) < maxStreakDays {
		more := max(len(studied), 64)
		days := progress.Days(now, loc, 1-len(studied)-more, more)
		flags, err := reviewDays(ctx, db.read, studiedDaysQuery, userID, days)
		if err != nil {
			return s, fmt.Errorf("streak: %w", err)
		}
		earlier := make([]bool, len(flags))
		for i, f := range flags {
			earlier[i] = f > 0
		}
		studied = append(earlier, studied...)
		s = progress.CountStreak(studied)
	}
	return s, nil
}

// HomeSummary is what the home page shows of a learner's study: the
// counts of each deck they subscribe to, the cards left today, when the
// next card falls due, and their streak.
type HomeSummary struct {
	// Decks are the subscribed decks with published questions, newest
	// release first, each with the cards left today.
	Decks []HomeDeck
	// Today counts the cards left today over every subscribed deck, within
	// the daily limits: what the page of every subscribed deck serves
	// before DayEnds, as cards fall due.
	Today progress.Due
	// NewToday and ReviewsToday count the day's first reviews of new cards
	// and reviews of cards in review, as the daily limits count them.
	NewToday, ReviewsToday int
	// NextDue is when the next card of a subscribed deck falls due after
	// the time asked, in the learner's time zone; zero when none is
	// scheduled.
	NextDue time.Time
	// DayEnds is the next 04:00 in the learner's time zone.
	DayEnds time.Time
	Streak  progress.Streak
}

// HomeDeck is a subscribed deck on the home page.
type HomeDeck struct {
	// DeckProgress holds the decks page's counts (New: the new cards left).
	DeckProgress
	// Today counts the deck's learning and review cards due before the day
	// ends and its new cards, within the daily limits.
	Today progress.Due
}

// HomeSummary returns userID's summary at now. A user that does not exist
// is quiz.ErrNotFound.
func (db *DB) HomeSummary(ctx context.Context, userID int64, now time.Time) (HomeSummary, error) {
	h, err := db.homeSummary(ctx, userID, now)
	if err != nil {
		return HomeSummary{}, fmt.Errorf("store: home summary of user %d: %w", userID, err)
	}
	return h, nil
}

func (db *DB) homeSummary(ctx context.Context, userID int64, now time.Time) (HomeSummary, error) {
	l, err := db.readLearner(ctx, userID, now)
	if err != nil {
		return HomeSummary{}, err
	}
	h := HomeSummary{NewToday: l.newToday, ReviewsToday: l.reviewsToday, DayEnds: l.dayEnds}
	decks, err := deckProgress(ctx, db.read, userID, "", now)
	if err != nil {
		return h, fmt.Errorf("decks: %w", err)
	}
	due, err := dueByDeck(ctx, db.read, userID, l.dayEnds)
	if err != nil {
		return h, err
	}
	a, total := l.allowance(), progress.Due{}
	for _, d := range decks {
		if !d.Subscribed {
			continue
		}
		dd := due[d.ID]
		dd.New = d.New
		total = total.Add(dd)
		h.Decks = append(h.Decks, HomeDeck{DeckProgress: d, Today: dd.Limit(a)})
	}
	h.Today = total.Limit(a)
	var next sql.NullInt64
	if err := db.reads.QueryRowContext(ctx, nextDueQuery, userID, ms(now), 0).Scan(&next); err != nil {
		return h, fmt.Errorf("next due: %w", err)
	}
	if next.Valid {
		h.NextDue = fromMS(next.Int64).In(l.loc)
	}
	if h.Streak, err = db.streak(ctx, userID, now, l.loc, nil); err != nil {
		return h, err
	}
	return h, nil
}

// dueByDeck runs dueByDeckQuery: learning and review cards of subscribed
// decks due before end, by deck.
func dueByDeck(ctx context.Context, q querier, userID int64, end time.Time) (map[int64]progress.Due, error) {
	rows, err := q.QueryContext(ctx, dueByDeckQuery, userID, ms(end), 0)
	if err != nil {
		return nil, fmt.Errorf("cards due by deck: %w", err)
	}
	defer rows.Close()
	out := map[int64]progress.Due{}
	for rows.Next() {
		var deck int64
		var step, n int
		if err := rows.Scan(&deck, &step, &n); err != nil {
			return nil, fmt.Errorf("cards due by deck: %w", err)
		}
		d := out[deck]
		if step == stepLearning {
			d.Learning = n
		} else {
			d.Review = n
		}
		out[deck] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cards due by deck: %w", err)
	}
	return out, nil
}

// StudyCounts returns the cards left today on the study page of scope
// (one deck, a study group's decks, or every subscribed deck), as the
// queue will serve them: learning cards and review cards due before the
// study day ends, and new cards, within u's daily limits; it is meant to
// be shown with each card and so reads as NextCardIn does (u's zone and
// limits as given), and keeps what it counted until the next write
// (study_counts_cache.go). A deck that does not exist or has no published
// question is quiz.ErrNotFound, a group u is not a member of
// group.ErrNotMember (as NextCardIn).
func (db *DB) StudyCounts(ctx context.Context, u quiz.User, scope Scope, now time.Time) (progress.Due, error) {
	d, err := db.studyCounts(ctx, u, scope, now)
	if err != nil {
		return d, fmt.Errorf("store: study counts of user %d: %w", u.ID, err)
	}
	return d, nil
}

func (db *DB) studyCounts(ctx context.Context, u quiz.User, scope Scope, now time.Time) (progress.Due, error) {
	var d progress.Due
	start, end := studyDay(now, db.zones.location(u.Timezone))
	key := countsKey{user: u.ID, scope: scope, dayStart: ms(start), newPerDay: u.NewPerDay, reviewsPerDay: u.ReviewsPerDay}
	if d, ok := db.counts.get(key, now); ok {
		return d, nil
	}
	gen := db.counts.generation()
	ctx, done, err := db.quickRead(ctx)
	if err != nil {
		return d, err
	}
	defer done()
	scopeID, dueBefore, newLeft := int64(0), dueBeforeQuery, newLeftAllQuery
	switch {
	case scope.Group != 0:
		g, err := studyGroup(ctx, db.reads, scope.Group, u.ID)
		if err != nil {
			return d, err
		}
		scopeID, dueBefore, newLeft = g.ID, dueBeforeGroupQuery, newLeftGroupQuery
	case scope.Deck != "":
		deck, err := studyDeck(ctx, db.reads, scope.Deck)
		if err != nil {
			return d, err
		}
		scopeID, newLeft = deck.ID, newLeftDeckQuery
	}
	var newToday, reviewsToday int
	if err := db.reads.QueryRowContext(ctx, todayQuery, u.ID, ms(start)).Scan(&newToday, &reviewsToday); err != nil {
		return d, fmt.Errorf("count today's reviews: %w", err)
	}
	a := progress.AllowanceLeft(u.NewPerDay, u.ReviewsPerDay, newToday, reviewsToday)
	if err := db.reads.QueryRowContext(ctx, dueBefore, u.ID, ms(end), scopeID).Scan(&d.Learning, &d.Review); err != nil {
		return d, fmt.Errorf("count cards due today: %w", err)
	}
	err = db.reads.QueryRowContext(ctx, newLeft, u.ID, ms(now), scopeID, ms(start), noCursor, a.New).Scan(&d.New)
	if err != nil {
		return d, fmt.Errorf("count new cards: %w", err)
	}
	d = d.Limit(a)
	db.counts.put(gen, key, d, now)
	return d, nil
}
