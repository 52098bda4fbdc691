package group

import (
	"time"

	"kubequiz/internal/fsrs"
)

// Meetup is when a group meets: a date, and a time when one is set, in the
// organizer's time zone.
type Meetup struct {
	// At is the meetup's date and time in the organizer's time zone (its
	// Location); 00:00 of the date when HasTime is false.
	At      time.Time
	HasTime bool
}

// Deadline is the time by which the meetup mode wants the group's cards
// remembered: the meetup's start, or, without a time, the end of its day.
func (m Meetup) Deadline() time.Time {
	if m.HasTime {
		return m.At
	}
	return time.Date(m.At.Year(), m.At.Month(), m.At.Day()+1, 0, 0, 0, 0, m.At.Location())
}

// Over reports whether the meetup is over at now (its deadline passed).
func (m Meetup) Over(now time.Time) bool { return !now.Before(m.Deadline()) }

// DateIn is the meetup's date in the time zone loc: where its start falls
// there, or, without a time, the date as set.
func (m Meetup) DateIn(loc *time.Location) time.Time {
	if m.HasTime {
		return civil(m.At.In(loc))
	}
	return civil(m.At)
}

// DaysLeft counts the days from now's date to the meetup's date, both in
// the member's time zone loc: 0 on the meetup's day, less after it.
func (m Meetup) DaysLeft(now time.Time, loc *time.Location) int {
	return int(m.DateIn(loc).Sub(civil(now.In(loc))) / (24 * time.Hour))
}

// civil is t's date as midnight UTC, where every day has 24 hours.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Nearest returns, of meetups, the one whose deadline comes first after
// now; ok is false when every one is over.
func Nearest(meetups []Meetup, now time.Time) (m Meetup, ok bool) {
	for _, c := range meetups {
		if c.Over(now) {
			continue
		}
		if !ok || c.Deadline().Before(m.Deadline()) {
			m, ok = c, true
		}
	}
	return m, ok
}

// NewCardsLeadDays is how many days before the meetup a member's plan
// has them see every card of the group's decks: the days after are for
// reviews (and, in meetup mode, ExtraReviewDays of extra reviews).
const NewCardsLeadDays = 3

// Plan is one member's way to the meetup.
type Plan struct {
	// DaysLeft counts the days to the meetup's day in the member's time
	// zone (Meetup.DaysLeft).
	DaysLeft int
	// Over tells that the meetup is over.
	Over bool
	// Unseen counts the cards of the group's decks the member has not
	// seen yet.
	Unseen int
	// StudyDays counts the days, today included, up to the day
	// NewCardsLeadDays before the meetup's: 0 from the day after it on.
	StudyDays int
	// NewPerDay is how many new cards a day see every unseen card within
	// StudyDays (all of them today when StudyDays is 0).
	NewPerDay int
	// LimitTooLow tells that the member's daily new-card limit is below
	// NewPerDay.
	LimitTooLow bool
}

// NewPlan is the plan at now of a member in the time zone loc, with unseen
// cards of the group's decks not seen yet and a daily limit of newLimit new
// cards, for the meetup m.
func NewPlan(m Meetup, now time.Time, loc *time.Location, unseen, newLimit int) Plan {
	p := Plan{DaysLeft: m.DaysLeft(now, loc), Over: m.Over(now), Unseen: max(unseen, 0)}
	if p.Over {
		return p
	}
	p.StudyDays = max(p.DaysLeft-NewCardsLeadDays+1, 0)
	switch {
	case p.Unseen == 0:
	case p.StudyDays == 0:
		p.NewPerDay = p.Unseen
	default:
		p.NewPerDay = (p.Unseen + p.StudyDays - 1) / p.StudyDays
	}
	p.LimitTooLow = newLimit < p.NewPerDay
	return p
}

// ExtraReviewDays is how many days before the meetup's day the meetup
// mode's extra reviews begin: from that date on until the meetup.
const ExtraReviewDays = 3

// ExtraReviewsOpen reports whether, at now, a member in the time zone loc
// gets extra reviews for meetup m: from ExtraReviewDays days before its
// date until its deadline. After the meetup the normal schedule resumes.
func (m Meetup) ExtraReviewsOpen(now time.Time, loc *time.Location) bool {
	return !m.Over(now) && m.DaysLeft(now, loc) <= ExtraReviewDays
}

// Memory is how a member's memory of a card is judged: by the FSRS
// scheduler of their parameters, at their desired retention.
type Memory struct {
	Scheduler        *fsrs.Scheduler
	DesiredRetention float64
}

// ExtraReview reports whether card c of a deck, whose nearest meetup with
// the meetup mode on is m, gets an extra review at now, the study day
// having begun at dayStart, for a member in the time zone loc. It does
// when the extra reviews are open (ExtraReviewsOpen), the card is in
// review and not due (a due card is the normal schedule's), it has not
// been reviewed since dayStart (one extra review a study day, so that a
// card is not put again and again the same day), and FSRS predicts its
// retrievability at the meetup's deadline below the desired retention.
func ExtraReview(c fsrs.Card, m Meetup, now, dayStart time.Time, loc *time.Location, mem Memory) bool {
	if c.State != fsrs.Review || !c.Due.After(now) || !c.LastReview.Before(dayStart) {
		return false
	}
	if !m.ExtraReviewsOpen(now, loc) {
		return false
	}
	return mem.Scheduler.Retrievability(c, m.Deadline()) < mem.DesiredRetention
}
