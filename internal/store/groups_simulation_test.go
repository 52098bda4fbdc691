package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
	"kubequiz/internal/quiz"
)

// The meetup mode on simulated histories. Learners of one group study its
// decks on its study page through the real queue and review writer for
// three weeks before the meetup: on about three evenings in five (busy
// people), at a time between 20:00 and 23:00, as long as the queue serves
// cards. The learner
// is FSRS's own forgetting curve: a card is recalled (Good) with
// probability its retrievability at that moment, else forgotten (Again); a
// new card, never seen, is forgotten. At the meetup (19:00, three weeks
// after the first day) the share of the group's seen cards whose
// retrievability is at or above the desired retention is measured, with
// the meetup mode on and with it off, from the same random seeds.

const (
	simLearners     = 3
	simDecks        = 3
	simCardsPerDeck = 40
	simDays         = 21
	simStudyOdds    = 0.6
)

// simResult is what one simulated group did.
type simResult struct {
	seen, atTarget, extra, reviews int
}

func (r simResult) share() float64 { return float64(r.atTarget) / float64(r.seen) }

func TestMeetupModeSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates three weeks of study")
	}
	on := simulateMeetup(t, true)
	off := simulateMeetup(t, false)
	t.Logf("meetup mode on:  %d of %d seen cards (%.1f %%) at or above the desired retention at the meetup; %d reviews, %d of them extra",
		on.atTarget, on.seen, 100*on.share(), on.reviews, on.extra)
	t.Logf("meetup mode off: %d of %d seen cards (%.1f %%) at or above the desired retention at the meetup; %d reviews",
		off.atTarget, off.seen, 100*off.share(), off.reviews)
	if on.share() < 0.9 {
		t.Errorf("with the meetup mode on, %.1f %% of the seen cards are at the desired retention at the meetup, want at least 90 %%", 100*on.share())
	}
	if on.extra == 0 || off.extra != 0 {
		t.Errorf("extra reviews: %d with the mode on, %d with it off", on.extra, off.extra)
	}
	if on.seen != simLearners*simDecks*simCardsPerDeck || off.seen != on.seen {
		t.Errorf("seen cards: %d on, %d off; want every card of every learner (%d)", on.seen, off.seen, simLearners*simDecks*simCardsPerDeck)
	}
}

func simulateMeetup(t *testing.T, mode bool) simResult {
	t.Helper()
	ctx := context.Background()
	db := newTestDB(t)
	tokyo := mustZone(t, "Asia/Tokyo")
	first := time.Date(2026, 3, 2, 0, 0, 0, 0, tokyo)
	m := group.Meetup{At: time.Date(2026, 3, 2+simDays, 19, 0, 0, 0, tokyo), HasTime: true}
	var slugs []string
	for d := range simDecks {
		slug := fmt.Sprintf("sim-%d", d)
		deck := addStudyDeck(t, db, slug, "1.36")
		for i := range simCardsPerDeck {
			addStudyQuestion(t, db, deck, i+1, quiz.Published, sampleQuestion(fmt.Sprintf("%s-%d", slug, i)))
		}
		slugs = append(slugs, slug)
	}
	users := make([]int64, simLearners)
	for i := range users {
		users[i] = addStudyUser(t, db, fmt.Sprintf("learner%d", i), studyUserOpts{})
	}
	id, err := db.CreateGroup(ctx, users[0], NewGroup{Group: group.Group{Name: "sim", Meetup: m, Decks: slugs},
		Invite: GroupInvite{Hash: hashCode("sim")}}, first)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u != users[0] {
			if _, err := db.JoinGroup(ctx, hashCode("sim"), u, first); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.SetMeetupMode(ctx, id, u, mode); err != nil {
			t.Fatal(err)
		}
	}
	sched, err := fsrs.NewScheduler(fsrs.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var res simResult
	for i, uid := range users {
		u := learner(t, db, uid)
		rng := rand.New(rand.NewPCG(uint64(i+1), 2026))
		for day := range simDays + 1 {
			if rng.Float64() >= simStudyOdds {
				continue
			}
			at := time.Date(2026, 3, 2+day, 20, 0, 0, 0, tokyo).Add(time.Duration(rng.IntN(180)) * time.Minute)
			if !at.Before(m.Deadline()) {
				continue
			}
			simSession(t, db, u, id, at, sched, rng, &res)
		}
	}
	deadline := m.Deadline()
	rows, err := db.read.Query(`SELECT ` + cardColumns + ` FROM cards c`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var cr cardRow
		if err := rows.Scan(cr.dests()...); err != nil {
			t.Fatal(err)
		}
		c, _ := cr.card(deadline)
		res.seen++
		if sched.Retrievability(c, deadline) >= fsrs.DefaultParams().DesiredRetention {
			res.atTarget++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return res
}

// simSession is one evening of study of u on the group's page from at: it
// returns when the session ends.
func simSession(t *testing.T, db *DB, u quiz.User, groupID int64, at time.Time, sched *fsrs.Scheduler, rng *rand.Rand, res *simResult) time.Time {
	t.Helper()
	ctx := context.Background()
	for range 500 {
		n, err := db.NextCardIn(ctx, u, Scope{Group: groupID}, at)
		if err != nil {
			t.Fatal(err)
		}
		if !n.Found {
			// Learning steps due within the half hour are waited for.
			if n.NextDue.IsZero() || n.NextDue.Sub(at) > 30*time.Minute {
				return at
			}
			at = n.NextDue.Add(time.Second)
			continue
		}
		rating := fsrs.Again
		if rng.Float64() < sched.Retrievability(n.Card.Card, at) {
			rating = fsrs.Good
		}
		res.reviews++
		if n.Extra {
			res.extra++
		}
		_, err = db.RecordReview(ctx, Review{UserID: u.ID, QuestionID: n.Card.Question.ID, RequestID: reqID(res.reviews),
			Rating: rating, Response: quiz.Response{Choice: 1}, Scope: Scope{Group: groupID}, At: at})
		if err != nil {
			t.Fatal(err)
		}
		at = at.Add(20 * time.Second)
	}
	return at
}
