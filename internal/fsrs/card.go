// Package fsrs implements the FSRS-6 spaced-repetition scheduler.
//
// The arithmetic follows the ts-fsrs 5.4.2 reference implementation closely
// enough to reproduce its outputs bit for bit: float64 throughout, rounding to
// eight decimals (half up) at the same points, intervals counted in UTC
// calendar days, and the same interval ordering and learning-step rules.
//
// The package is pure: it does no I/O and never reads the clock. Every
// operation takes the review time as an argument.
package fsrs

import (
	"fmt"
	"time"
)

// State is the scheduling state of a card.
type State int8

// Card states, numbered as in the reference implementation.
const (
	New        State = 0
	Learning   State = 1
	Review     State = 2
	Relearning State = 3
)

// Valid reports whether s is one of the four known states.
func (s State) Valid() bool { return s >= New && s <= Relearning }

func (s State) String() string {
	switch s {
	case New:
		return "New"
	case Learning:
		return "Learning"
	case Review:
		return "Review"
	case Relearning:
		return "Relearning"
	}
	return fmt.Sprintf("State(%d)", int8(s))
}

// Rating is the answer given to a card.
type Rating int8

// Ratings, numbered as in the reference implementation.
const (
	Again Rating = 1
	Hard  Rating = 2
	Good  Rating = 3
	Easy  Rating = 4
)

// Valid reports whether r is Again, Hard, Good or Easy.
func (r Rating) Valid() bool { return r >= Again && r <= Easy }

func (r Rating) String() string {
	switch r {
	case Again:
		return "Again"
	case Hard:
		return "Hard"
	case Good:
		return "Good"
	case Easy:
		return "Easy"
	}
	return fmt.Sprintf("Rating(%d)", int8(r))
}

// Card is the scheduling state of one card for one learner.
//
// The zero value is not a usable card: create cards with NewCard, which sets
// Due. All times produced by the scheduler are in UTC.
type Card struct {
	// Due is when the card should next be shown.
	Due time.Time
	// Stability is the memory stability in days (0 for a new card).
	Stability float64
	// Difficulty lies in [1, 10] once the card has been reviewed (0 before).
	Difficulty float64
	// ElapsedDays is the number of UTC calendar days between the last two
	// reviews, as used by the most recent review.
	ElapsedDays int
	// ScheduledDays is the interval chosen by the last review in whole days
	// (0 for a (re)learning step shorter than a day).
	ScheduledDays int
	// LearningSteps is the index of the current (re)learning step.
	LearningSteps int
	// Reps counts reviews.
	Reps int
	// Lapses counts Again answers given to a card in review.
	Lapses int
	// State is the scheduling state.
	State State
	// LastReview is the time of the last review; the zero time means never.
	LastReview time.Time
}

// NewCard returns a card that has never been reviewed, due at created.
func NewCard(created time.Time) Card {
	return Card{Due: created.UTC(), State: New}
}

// ReviewLog records one review: the answer and the card as it was just before.
type ReviewLog struct {
	Rating Rating
	// Review is the time of the review.
	Review time.Time
	// State, Due, Stability, Difficulty, ScheduledDays and LearningSteps
	// describe the card before the review.
	State         State
	Due           time.Time
	Stability     float64
	Difficulty    float64
	ScheduledDays int
	LearningSteps int
	// ElapsedDays is the UTC calendar-day distance from the previous review
	// (0 for a new card).
	ElapsedDays int
	// Retrievability is the recall probability the scheduler assumed at the
	// time of the review (0 for a card without a memory state yet).
	Retrievability float64
}

// Outcomes holds the card each rating would produce, indexed by rating-1.
type Outcomes [4]Card

// For returns the outcome of rating r. It panics if r is not valid.
func (o Outcomes) For(r Rating) Card {
	if !r.Valid() {
		panic(fmt.Sprintf("fsrs: Outcomes.For(%v): invalid rating", r))
	}
	return o[r-1]
}
