// Package progress defines the figures of a learner's progress that the
// statistics page, the home page, the study page and study groups show:
// mastery, true retention, mature and seen cards, the cards due today, the
// due forecast, the calendar of reviews and the streak of days studied.
// Each is defined once here, as a pure function over plain values that the
// store gathers. It does no I/O and never reads the clock: the time is an
// argument.
package progress

import (
	"sort"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// The figures' spans and thresholds.
const (
	// MatureStability is the stability, in days, from which a card counts
	// as mature.
	MatureStability = 21
	// RetentionDays is the number of study days, today included, over
	// which true retention is measured.
	RetentionDays = 30
	// ForecastDays is the number of study days, today first, of the due
	// forecast.
	ForecastDays = 30
	// CalendarDays is the number of study days, today last, of the
	// calendar of reviews.
	CalendarDays = 365
)

// Share is a part of a whole: mastered cards of a deck's cards, passed
// reviews of the reviews counted.
type Share struct {
	Part, Whole int
}

// Ratio is Part / Whole; ok is false when Whole is 0, which has no ratio.
func (s Share) Ratio() (r float64, ok bool) {
	if s.Whole == 0 {
		return 0, false
	}
	return float64(s.Part) / float64(s.Whole), true
}

// Add returns the share of both parts in both wholes: of two decks, the
// share of their cards together.
func (s Share) Add(t Share) Share {
	return Share{Part: s.Part + t.Part, Whole: s.Whole + t.Whole}
}

// Memory is how the figures judge a learner's memory of a card: by the
// FSRS scheduler of their parameters, at their desired retention.
type Memory struct {
	Scheduler        *fsrs.Scheduler
	DesiredRetention float64
}

// Mastered reports whether the learner has mastered card c at now: the
// card is in the Review state and its retrievability at now
// (Scheduler.Retrievability: the forgetting curve at the card's stability
// and the whole days since its last review) is at or above the desired
// retention. A card still in learning or relearning is not mastered,
// however recently it was answered: its retrievability speaks of minutes,
// not of days.
func (m Memory) Mastered(c fsrs.Card, now time.Time) bool {
	return c.State == fsrs.Review && m.Scheduler.Retrievability(c, now) >= m.DesiredRetention
}

// Mature reports whether card c is mature: reviewed, with a stability of
// at least MatureStability days.
func Mature(c fsrs.Card) bool {
	return c.State != fsrs.New && c.Stability >= MatureStability
}

// Cards counts the cards of a deck (or of several) as the figures see
// them.
type Cards struct {
	// Total counts every card: the published questions, whether the
	// learner has seen them or not.
	Total int
	// Seen counts the cards the learner has reviewed.
	Seen int
	// Mature counts the mature cards (Mature).
	Mature int
	// Mastered counts the mastered cards (Memory.Mastered).
	Mastered int
}

// CountCards counts the learner's cards of a deck of total cards at now.
// cards are the ones the learner has (reviewed cards; one in the New state
// counts as unseen), at most total; the other cards of the deck are unseen.
func CountCards(cards []fsrs.Card, total int, now time.Time, m Memory) Cards {
	out := Cards{Total: total}
	for _, c := range cards {
		out = out.Count(c, now, m)
	}
	return out
}

// Count returns the counts with one more of the learner's cards, card, as
// CountCards counts it at now; Total stays. Counting the cards of a deck
// one by one, from Cards{Total: total}, gives CountCards' counts.
func (c Cards) Count(card fsrs.Card, now time.Time, m Memory) Cards {
	if card.State == fsrs.New {
		return c
	}
	c.Seen++
	if Mature(card) {
		c.Mature++
	}
	if m.Mastered(card, now) {
		c.Mastered++
	}
	return c
}

// Mastery is the share of the deck's cards that are mastered: unseen
// cards count, as not mastered.
func (c Cards) Mastery() Share { return Share{Part: c.Mastered, Whole: c.Total} }

// Unseen counts the cards the learner has not reviewed yet.
func (c Cards) Unseen() int { return max(c.Total-c.Seen, 0) }

// Add returns the counts of both decks together.
func (c Cards) Add(d Cards) Cards {
	return Cards{Total: c.Total + d.Total, Seen: c.Seen + d.Seen, Mature: c.Mature + d.Mature, Mastered: c.Mastered + d.Mastered}
}

// Mastery is the mastery of a deck of total cards at now, of which the
// learner has cards: CountCards(...).Mastery().
func Mastery(cards []fsrs.Card, total int, now time.Time, m Memory) Share {
	return CountCards(cards, total, now, m).Mastery()
}

// ReviewCount counts the reviews of one kind: of cards in one state
// before the review, with one rating.
type ReviewCount struct {
	StateBefore fsrs.State
	Rating      fsrs.Rating
	Count       int
}

// Passed reports whether a review with rating r recalled the card: Hard
// or better.
func Passed(r fsrs.Rating) bool { return r >= fsrs.Hard }

// TrueRetention is, as Anki's true retention, the share of passed reviews
// among the reviews of cards that were in the Review state before the
// review; reviews of new, learning and relearning cards are left out. The
// counts are those of the span measured (RetentionDays for the figures).
func TrueRetention(counts []ReviewCount) Share {
	var s Share
	for _, c := range counts {
		if c.StateBefore != fsrs.Review {
			continue
		}
		s.Whole += c.Count
		if Passed(c.Rating) {
			s.Part += c.Count
		}
	}
	return s
}

// Due counts cards to study today by kind.
type Due struct {
	// Learning counts cards in learning or relearning.
	Learning int
	// Review counts cards in the Review state.
	Review int
	// New counts questions the learner has no card for yet.
	New int
}

// Total is the sum of the three counts.
func (d Due) Total() int { return d.Learning + d.Review + d.New }

// Add returns the counts of both together.
func (d Due) Add(e Due) Due {
	return Due{Learning: d.Learning + e.Learning, Review: d.Review + e.Review, New: d.New + e.New}
}

// Allowance is what the learner's daily limits leave of today: first
// reviews of new cards, and reviews of cards in review.
type Allowance struct {
	New, Review int
}

// AllowanceLeft is the allowance of a learner with limits of newPerDay
// and reviewsPerDay, who has done newToday and reviewsToday of them since
// the study day began (never below 0).
func AllowanceLeft(newPerDay, reviewsPerDay, newToday, reviewsToday int) Allowance {
	return Allowance{New: max(newPerDay-newToday, 0), Review: max(reviewsPerDay-reviewsToday, 0)}
}

// Limit returns the cards of d the learner can study today with
// allowance a, as Anki shows them: every learning card (no limit holds
// them back), review cards and new cards each up to what a leaves. Limit
// the sum of several decks, not each deck and then the sum: the allowance
// is shared.
func (d Due) Limit(a Allowance) Due {
	return Due{Learning: d.Learning, Review: min(d.Review, a.Review), New: min(d.New, a.New)}
}

// CountDue counts the cards due before end (the end of the study day for
// the cards due today), by kind; New is left 0, as questions without a
// card are not among cards. Overdue cards count.
func CountDue(cards []fsrs.Card, end time.Time) Due {
	var d Due
	for _, c := range cards {
		if !c.Due.Before(end) {
			continue
		}
		switch c.State {
		case fsrs.Learning, fsrs.Relearning:
			d.Learning++
		case fsrs.Review:
			d.Review++
		}
	}
	return d
}

// NextDue is the earliest due time after now of the reviewed cards; the
// zero time when none falls due after now.
func NextDue(cards []fsrs.Card, now time.Time) time.Time {
	var next time.Time
	for _, c := range cards {
		if c.State != fsrs.New && c.Due.After(now) && (next.IsZero() || c.Due.Before(next)) {
			next = c.Due
		}
	}
	return next
}

// Days returns the boundaries of n consecutive study days (quiz.StudyDay)
// in loc, the first of which is from days after the study day of now (a
// negative from: before it). There are n+1 of them: day i lasts from
// days[i] to days[i+1]. Days(now, loc, 0, 1) is today.
func Days(now time.Time, loc *time.Location, from, n int) []time.Time {
	start, _ := quiz.StudyDay(now, loc)
	out := make([]time.Time, n+1)
	for i := range out {
		out[i] = time.Date(start.Year(), start.Month(), start.Day()+from+i, quiz.DayStartHour, 0, 0, 0, loc)
	}
	return out
}

// Forecast counts, for each of the days whose boundaries days holds (as
// Days returns them), the cards that fall due on it: a card due before
// the first day (overdue) counts on the first, one due after the last on
// none, and cards never reviewed on none.
func Forecast(cards []fsrs.Card, days []time.Time) []int {
	if len(days) < 2 {
		return nil
	}
	out := make([]int, len(days)-1)
	for _, c := range cards {
		if c.State == fsrs.New || !c.Due.Before(days[len(days)-1]) {
			continue
		}
		// The first boundary after the due time ends its day.
		end := sort.Search(len(days), func(k int) bool { return c.Due.Before(days[k]) })
		out[max(end-1, 0)]++
	}
	return out
}

// Day is one study day of the calendar of reviews or of the forecast,
// with its count: of reviews done, or of cards falling due.
type Day struct {
	// Start is when the study day began (04:00 local): its date is the
	// day's.
	Start time.Time
	Count int
}

// Calendar pairs the study days whose boundaries days holds with their
// counts, one per day.
func Calendar(days []time.Time, counts []int) []Day {
	out := make([]Day, min(max(len(days)-1, 0), len(counts)))
	for i := range out {
		out[i] = Day{Start: days[i], Count: counts[i]}
	}
	return out
}

// Figures are the figures of one deck, or the sum of several decks'.
type Figures struct {
	Cards
	// Retention is the true retention (TrueRetention) of the last
	// RetentionDays study days.
	Retention Share
	// Due counts the cards due today (CountDue before the study day
	// ends) and the new cards left (Cards.Unseen), before the daily limits:
	// Due.Limit gives what the learner can study today.
	Due Due
}

// Add returns the figures of both together.
func (f Figures) Add(g Figures) Figures {
	return Figures{Cards: f.Cards.Add(g.Cards), Retention: f.Retention.Add(g.Retention), Due: f.Due.Add(g.Due)}
}

// Streak is the learner's run of days studied in a row.
type Streak struct {
	// Days counts the study days in a row, each with at least one review,
	// that end today when the learner has studied today, and yesterday
	// otherwise (a day not yet studied does not break the run until it
	// ends).
	Days int
	// StudiedToday tells whether today counts among them.
	StudiedToday bool
}

// CountStreak counts the streak of studied, which tells for consecutive
// study days whether the learner reviewed on each, the last being today.
// When the run reaches the first day it may go on before it: ask again
// with more days (Reaches).
func CountStreak(studied []bool) Streak {
	var s Streak
	i := len(studied) - 1
	if i >= 0 && studied[i] {
		s.StudiedToday = true
	}
	if !s.StudiedToday {
		i-- // today is not over: the run may end yesterday
	}
	for ; i >= 0 && studied[i]; i-- {
		s.Days++
	}
	return s
}

// Reaches reports whether the streak, counted over n days, runs back to
// the first of them, so that days before them may belong to it too.
func (s Streak) Reaches(n int) bool {
	if s.StudiedToday {
		return s.Days == n
	}
	return n > 1 && s.Days == n-1
}
