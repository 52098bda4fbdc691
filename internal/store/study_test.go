package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestStudyDay(t *testing.T) {
	tokyo := mustZone(t, "Asia/Tokyo")
	ny := mustZone(t, "America/New_York")
	tests := []struct {
		name                string
		now                 time.Time
		loc                 *time.Location
		wantStart, wantNext time.Time
	}{
		{"before 04:00 belongs to the day before", time.Date(2026, 3, 10, 3, 59, 59, 0, tokyo), tokyo,
			time.Date(2026, 3, 9, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo)},
		{"04:00 starts a day", time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo), tokyo,
			time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 11, 4, 0, 0, 0, tokyo)},
		{"late evening", time.Date(2026, 3, 10, 23, 30, 0, 0, tokyo), tokyo,
			time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 11, 4, 0, 0, 0, tokyo)},
		{"UTC instant read in Tokyo", time.Date(2026, 3, 9, 18, 30, 0, 0, time.UTC), tokyo, // 03:30 JST on the 10th
			time.Date(2026, 3, 9, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo)},
		{"month boundary", time.Date(2026, 4, 1, 2, 0, 0, 0, tokyo), tokyo,
			time.Date(2026, 3, 31, 4, 0, 0, 0, tokyo), time.Date(2026, 4, 1, 4, 0, 0, 0, tokyo)},
		{"DST spring forward: a 23-hour day", time.Date(2026, 3, 8, 12, 0, 0, 0, ny), ny,
			time.Date(2026, 3, 8, 4, 0, 0, 0, ny), time.Date(2026, 3, 9, 4, 0, 0, 0, ny)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, next := studyDay(tt.now, tt.loc)
			if !start.Equal(tt.wantStart) || !next.Equal(tt.wantNext) {
				t.Errorf("studyDay(%v) = %v, %v; want %v, %v", tt.now, start, next, tt.wantStart, tt.wantNext)
			}
		})
	}
}

// queueFixture is one user subscribed to deck "d1" (questions n1..n4 new in
// position order, plus cards in every state) and deck "d2" not subscribed.
type queueFixture struct {
	db   *DB
	user int64
	q    map[string]int64 // ext id -> question id
	now  time.Time
}

func newQueueFixture(t *testing.T, newPerDay int) queueFixture {
	t.Helper()
	db := newTestDB(t)
	f := queueFixture{db: db, q: map[string]int64{}, now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	f.user = addStudyUser(t, db, "alice", studyUserOpts{newPerDay: newPerDay})
	other := addStudyUser(t, db, "bob", studyUserOpts{})
	d1 := addStudyDeck(t, db, "d1", "1.36")
	d2 := addStudyDeck(t, db, "d2", "1.35")
	add := func(deck int64, pos int, st quiz.Status, ext string) int64 {
		id := addStudyQuestion(t, db, deck, pos, st, sampleQuestion(ext))
		f.q[ext] = id
		return id
	}
	// New questions, inserted out of position order.
	add(d1, 30, quiz.Published, "n3")
	add(d1, 10, quiz.Published, "n1")
	add(d1, 20, quiz.Published, "n2")
	add(d1, 40, quiz.Published, "n4")
	add(d1, 5, quiz.Draft, "draft")
	add(d1, 6, quiz.Retired, "retired")
	// Cards: learning and relearning due, reviews overdue by different amounts, a future review.
	setCard(t, db, f.user, add(d1, 50, quiz.Published, "learn"), reviewCard(fsrs.Learning, f.now.Add(-5*time.Minute)))
	setCard(t, db, f.user, add(d1, 51, quiz.Published, "relearn"), reviewCard(fsrs.Relearning, f.now.Add(-1*time.Minute)))
	setCard(t, db, f.user, add(d1, 52, quiz.Published, "rev-1h"), reviewCard(fsrs.Review, f.now.Add(-time.Hour)))
	setCard(t, db, f.user, add(d1, 53, quiz.Published, "rev-3d"), reviewCard(fsrs.Review, f.now.Add(-72*time.Hour)))
	setCard(t, db, f.user, add(d1, 54, quiz.Published, "rev-1d"), reviewCard(fsrs.Review, f.now.Add(-24*time.Hour)))
	setCard(t, db, f.user, add(d1, 55, quiz.Published, "future"), reviewCard(fsrs.Review, f.now.Add(6*time.Hour)))
	setCard(t, db, f.user, add(d1, 56, quiz.Published, "learn-later"), reviewCard(fsrs.Learning, f.now.Add(time.Minute)))
	// Cards on questions no longer served, and on a deck not subscribed to.
	setCard(t, db, f.user, f.q["retired"], reviewCard(fsrs.Review, f.now.Add(-100*time.Hour)))
	setCard(t, db, f.user, f.q["draft"], reviewCard(fsrs.Learning, f.now.Add(-100*time.Hour)))
	setCard(t, db, f.user, add(d2, 1, quiz.Published, "other-deck"), reviewCard(fsrs.Review, f.now.Add(-200*time.Hour)))
	add(d2, 2, quiz.Published, "other-new")
	// Another user's due card on a question alice has not seen.
	setCard(t, db, other, f.q["n1"], reviewCard(fsrs.Review, f.now.Add(-300*time.Hour)))
	subscribe(t, db, f.user, "d1")
	subscribe(t, db, other, "d1")
	return f
}

// drain serves and grades (Easy, so that nothing comes back today) cards
// until the queue is empty, returning what was served in order.
func (f queueFixture) drain(t *testing.T, deck string, now time.Time) ([]string, StudyNext) {
	t.Helper()
	ctx := context.Background()
	var served []string
	for i := 0; i < 50; i++ {
		n, err := f.db.NextCard(ctx, learner(t, f.db, f.user), deck, now)
		if err != nil {
			t.Fatalf("NextCard: %v", err)
		}
		if !n.Found {
			return served, n
		}
		served = append(served, n.Card.Question.Question.ExtID)
		_, err = f.db.RecordReview(ctx, Review{UserID: f.user, QuestionID: n.Card.Question.ID,
			RequestID: fmt.Sprintf("%s-%s-%d", deck, now.Format(time.RFC3339), i), Rating: fsrs.Easy,
			Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: deck}, At: now})
		if err != nil {
			t.Fatalf("RecordReview: %v", err)
		}
	}
	t.Fatal("queue never emptied")
	return nil, StudyNext{}
}

func TestNextCardOrder(t *testing.T) {
	tests := []struct {
		name      string
		newPerDay int
		deck      string
		want      []string
		wantLimit bool
	}{
		{"learning, then most overdue reviews, then new in position order", 20, "",
			[]string{"learn", "relearn", "rev-3d", "rev-1d", "rev-1h", "n1", "n2", "n3", "n4"}, false},
		{"new cards stop at the daily limit", 2, "",
			[]string{"learn", "relearn", "rev-3d", "rev-1d", "rev-1h", "n1", "n2"}, true},
		{"one deck, subscribed or not", 20, "d2", []string{"other-deck", "other-new"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newQueueFixture(t, tt.newPerDay)
			got, last := f.drain(t, tt.deck, f.now)
			if !slices.Equal(got, tt.want) {
				t.Errorf("served %v, want %v", got, tt.want)
			}
			if last.NewLimitReached != tt.wantLimit {
				t.Errorf("NewLimitReached = %v, want %v", last.NewLimitReached, tt.wantLimit)
			}
		})
	}
}

func TestNextCardEmptyQueue(t *testing.T) {
	f := newQueueFixture(t, 20)
	ctx := context.Background()
	_, last := f.drain(t, "", f.now)
	tokyo := mustZone(t, "Asia/Tokyo")
	// Left after draining: learn-later (+1m) and future (+6h) before the next
	// 04:00 JST (2026-03-11 04:00 JST = 03-10 19:00 UTC); the Easy answers
	// are days away.
	if want := f.now.Add(time.Minute); !last.NextDue.Equal(want) || last.NextDue.Location().String() != "Asia/Tokyo" {
		t.Errorf("NextDue = %v, want %v in Asia/Tokyo", last.NextDue, want)
	}
	if want := time.Date(2026, 3, 11, 4, 0, 0, 0, tokyo); !last.DayEnds.Equal(want) {
		t.Errorf("DayEnds = %v, want %v", last.DayEnds, want)
	}
	if last.DueToday != 2 {
		t.Errorf("DueToday = %d, want 2", last.DueToday)
	}
	if last.Subscriptions != 1 || last.NewToday != 4 || last.ReviewsToday != 3 {
		t.Errorf("Subscriptions, NewToday, ReviewsToday = %d, %d, %d; want 1, 4, 3",
			last.Subscriptions, last.NewToday, last.ReviewsToday)
	}
	// A user with no subscription has nothing to study.
	lone := addStudyUser(t, f.db, "carol", studyUserOpts{})
	n, err := f.db.NextCard(ctx, learner(t, f.db, lone), "", f.now)
	if err != nil || n.Found || n.Subscriptions != 0 || !n.NextDue.IsZero() {
		t.Errorf("NextCard(no subscriptions) = %+v, %v; want nothing", n, err)
	}
	for _, slug := range []string{"nope", ""} {
		if slug == "" {
			draftOnly := addStudyDeck(t, f.db, "drafts", "1.30")
			addStudyQuestion(t, f.db, draftOnly, 1, quiz.Draft, sampleQuestion("dq"))
			slug = "drafts"
		}
		if _, err := f.db.NextCard(ctx, learner(t, f.db, f.user), slug, f.now); !errors.Is(err, quiz.ErrNotFound) {
			t.Errorf("NextCard(deck %q) = %v, want ErrNotFound", slug, err)
		}
	}
}

func TestNewLimitRollsOverAt4InUserZone(t *testing.T) {
	tests := []struct {
		tz string
	}{{"Asia/Tokyo"}, {"America/Los_Angeles"}, {"Europe/Berlin"}}
	for _, tt := range tests {
		t.Run(tt.tz, func(t *testing.T) {
			db := newTestDB(t)
			ctx := context.Background()
			loc := mustZone(t, tt.tz)
			user := addStudyUser(t, db, "u", studyUserOpts{tz: tt.tz, newPerDay: 2})
			deck := addStudyDeck(t, db, "d", "1.36")
			for i := range 6 {
				addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i)))
			}
			subscribe(t, db, user, "d")
			learn := func(at time.Time, req string) {
				t.Helper()
				n, err := db.NextCard(ctx, learner(t, db, user), "", at)
				if err != nil || !n.Found || !n.Card.IsNew {
					t.Fatalf("NextCard at %v = %+v, %v; want a new card", at, n, err)
				}
				if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: n.Card.Question.ID, RequestID: req,
					Rating: fsrs.Easy, Response: quiz.Response{Choice: 1}, At: at}); err != nil {
					t.Fatal(err)
				}
			}
			// Two new cards late in the evening of the 9th, local time.
			evening := time.Date(2026, 3, 9, 22, 0, 0, 0, loc)
			learn(evening, "a")
			learn(evening.Add(time.Minute), "b")
			steps := []struct {
				at      time.Time
				wantNew bool
			}{
				{time.Date(2026, 3, 9, 23, 59, 0, 0, loc), false},
				{time.Date(2026, 3, 10, 0, 30, 0, 0, loc), false}, // past midnight, same study day
				{time.Date(2026, 3, 10, 3, 59, 59, 0, loc), false},
				{time.Date(2026, 3, 10, 4, 0, 0, 0, loc), true},
			}
			for _, s := range steps {
				n, err := db.NextCard(ctx, learner(t, db, user), "", s.at)
				if err != nil {
					t.Fatal(err)
				}
				if n.Found != s.wantNew || n.NewLimitReached == s.wantNew {
					t.Errorf("at %v local: Found = %v, NewLimitReached = %v; want Found = %v",
						s.at, n.Found, n.NewLimitReached, s.wantNew)
				}
			}
		})
	}
}

func TestReviewLimit(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "u", studyUserOpts{reviewsPerDay: 1})
	deck := addStudyDeck(t, db, "d", "1.36")
	for i := range 2 {
		q := addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("r%d", i)))
		setCard(t, db, user, q, reviewCard(fsrs.Review, now.Add(-time.Duration(i+1)*time.Hour)))
	}
	subscribe(t, db, user, "d")
	n, err := db.NextCard(ctx, learner(t, db, user), "", now)
	if err != nil || !n.Found || n.Card.IsNew {
		t.Fatalf("first NextCard = %+v, %v", n, err)
	}
	if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: n.Card.Question.ID, RequestID: "x",
		Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, At: now}); err != nil {
		t.Fatal(err)
	}
	// The review held back does not come today, and is not counted as
	// coming.
	n, err = db.NextCard(ctx, learner(t, db, user), "", now)
	if err != nil || n.Found || !n.ReviewLimitReached || n.DueToday != 0 {
		t.Errorf("after the limit: Found %v, ReviewLimitReached %v, DueToday %d, err %v; want false, true, 0",
			n.Found, n.ReviewLimitReached, n.DueToday, err)
	}
}

func TestRecordReview(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	alice := addStudyUser(t, db, "alice", studyUserOpts{})
	bob := addStudyUser(t, db, "bob", studyUserOpts{})
	deck := addStudyDeck(t, db, "d", "1.36")
	q := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q"))
	draft := addStudyQuestion(t, db, deck, 2, quiz.Draft, sampleQuestion("draft"))
	retired := addStudyQuestion(t, db, deck, 3, quiz.Retired, sampleQuestion("retired"))
	flash := addStudyQuestion(t, db, deck, 4, quiz.Published, quiz.Question{ExtID: "f", Type: quiz.Flashcard,
		Prompt: "memory.low?", Answer: "protection", Explanation: "e"})
	subscribe(t, db, alice, "d")
	subscribe(t, db, bob, "d")

	first, err := db.RecordReview(ctx, Review{UserID: alice, QuestionID: q, RequestID: reqID(1), Rating: fsrs.Good,
		Response: quiz.Response{Choice: 1}, Duration: 4200 * time.Millisecond, At: now})
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate || !first.Correct || first.State != fsrs.Learning || !first.Due.Equal(now.Add(10*time.Minute)) {
		t.Errorf("first = %+v; want correct, Learning, due in 10m", first)
	}
	card, ok := readCard(t, db, alice, q)
	if !ok || card.State != fsrs.Learning || card.Reps != 1 || !card.LastReview.Equal(now) {
		t.Fatalf("card after first review = %+v, %v", card, ok)
	}
	var (
		answer                  string
		stateBefore, stateAfter int
		correct, durationMS     int
		dueBefore, dueAfter     int64
	)
	if err := db.read.QueryRow(`SELECT answer, state_before, state_after, correct, duration_ms, due_before, due_after
		FROM review_log WHERE request_id = ?`, reqID(1)).Scan(&answer, &stateBefore, &stateAfter, &correct,
		&durationMS, &dueBefore, &dueAfter); err != nil {
		t.Fatal(err)
	}
	if stateBefore != 0 || stateAfter != 1 || correct != 1 || durationMS != 4200 || dueBefore != ms(now) ||
		dueAfter != ms(now.Add(10*time.Minute)) || !strings.Contains(answer, `"choice":1`) {
		t.Errorf("review_log row: answer %s, state %d->%d, correct %d, duration %d, due %d->%d",
			answer, stateBefore, stateAfter, correct, durationMS, dueBefore, dueAfter)
	}

	// A retry of the same presentation, even with another rating, records nothing.
	again, err := db.RecordReview(ctx, Review{UserID: alice, QuestionID: q, RequestID: reqID(1), Rating: fsrs.Again,
		Response: quiz.Response{Choice: 0}, At: now.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Rating != fsrs.Good || !again.Correct || !again.Due.Equal(first.Due) {
		t.Errorf("retry = %+v; want the first review (Good, correct) marked duplicate", again)
	}
	if after, _ := readCard(t, db, alice, q); after != card {
		t.Errorf("card changed by a retry: %+v, was %+v", after, card)
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != 1 {
		t.Errorf("review_log rows = %d, want 1", n)
	}

	// The server grades; a wrong answer is stored as wrong whatever the rating.
	wrong, err := db.RecordReview(ctx, Review{UserID: alice, QuestionID: q, RequestID: reqID(2), Rating: fsrs.Good,
		Response: quiz.Response{Choice: 2}, At: now.Add(11 * time.Minute)})
	if err != nil || wrong.Correct || wrong.Duplicate {
		t.Errorf("wrong answer = %+v, %v; want recorded as not correct", wrong, err)
	}
	selfGraded, err := db.RecordReview(ctx, Review{UserID: alice, QuestionID: flash, RequestID: reqID(3),
		Rating: fsrs.Hard, Response: quiz.Response{Choice: -1, Revealed: true}, At: now})
	if err != nil || !selfGraded.Correct {
		t.Errorf("flashcard rated Hard = %+v, %v; want correct", selfGraded, err)
	}

	errCases := []struct {
		name string
		r    Review
		want error
	}{
		{"draft question", Review{UserID: alice, QuestionID: draft, RequestID: reqID(10), Rating: fsrs.Good}, quiz.ErrNotFound},
		{"retired question", Review{UserID: alice, QuestionID: retired, RequestID: reqID(11), Rating: fsrs.Good}, quiz.ErrNotFound},
		{"no such question", Review{UserID: alice, QuestionID: 9999, RequestID: reqID(12), Rating: fsrs.Good}, quiz.ErrNotFound},
		{"no such user", Review{UserID: 9999, QuestionID: q, RequestID: reqID(13), Rating: fsrs.Good}, quiz.ErrNotFound},
		{"bad rating", Review{UserID: alice, QuestionID: q, RequestID: reqID(14), Rating: 5}, quiz.ErrInvalid},
		{"empty request id", Review{UserID: alice, QuestionID: q, Rating: fsrs.Good}, quiz.ErrInvalid},
		{"request id of another user", Review{UserID: bob, QuestionID: q, RequestID: reqID(1), Rating: fsrs.Good}, quiz.ErrConflict},
	}
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.At = now
			if _, err := db.RecordReview(ctx, tt.r); !errors.Is(err, tt.want) {
				t.Errorf("RecordReview = %v, want %v", err, tt.want)
			}
		})
	}
	if _, ok := readCard(t, db, bob, q); ok {
		t.Error("bob got a card from a rejected review")
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != 3 {
		t.Errorf("review_log rows = %d, want 3", n)
	}
}

func TestRecordReviewConcurrentDoubleSubmit(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "u", studyUserOpts{})
	q := addStudyQuestion(t, db, addStudyDeck(t, db, "d", "1.36"), 1, quiz.Published, sampleQuestion("q"))
	const n = 4
	errs := make(chan error, n)
	dups := make(chan bool, n)
	for range n {
		go func() {
			rec, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: "same", Rating: fsrs.Good,
				Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: "d"}, At: now})
			errs <- err
			dups <- rec.Duplicate
		}()
	}
	fresh := 0
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if !<-dups {
			fresh++
		}
	}
	if fresh != 1 {
		t.Errorf("%d submits recorded as new, want 1", fresh)
	}
	if c, _ := readCard(t, db, user, q); c.Reps != 1 {
		t.Errorf("card reps = %d, want 1", c.Reps)
	}
}

func TestPreviewCard(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "u", studyUserOpts{})
	deck := addStudyDeck(t, db, "d", "1.36")
	q := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q"))
	draft := addStudyQuestion(t, db, deck, 2, quiz.Draft, sampleQuestion("draft"))
	p, err := db.PreviewCard(ctx, user, q, now)
	if err != nil {
		t.Fatal(err)
	}
	if !p.IsNew || p.Question.Question.Answer != "b" || p.DeckTitle != "Deck d" {
		t.Errorf("preview = %+v; want a new card of q", p.StudyCard)
	}
	if again, good := p.Outcomes.For(fsrs.Again).Due.Sub(now), p.Outcomes.For(fsrs.Good).Due.Sub(now); again != time.Minute || good != 10*time.Minute {
		t.Errorf("Again in %v, Good in %v; want 1m and 10m", again, good)
	}
	setCard(t, db, user, q, reviewCard(fsrs.Review, now))
	if p, err = db.PreviewCard(ctx, user, q, now); err != nil || p.IsNew || p.Card.State != fsrs.Review {
		t.Errorf("preview of a stored card = %+v, %v", p.StudyCard, err)
	}
	if _, err := db.PreviewCard(ctx, user, draft, now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("PreviewCard(draft) = %v, want ErrNotFound", err)
	}
}

func TestStudyDecksAndSubscriptions(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	alice := addStudyUser(t, db, "alice", studyUserOpts{})
	bob := addStudyUser(t, db, "bob", studyUserOpts{})
	d1 := addStudyDeck(t, db, "v1-35-node", "1.35")
	d2 := addStudyDeck(t, db, "v1-36-node", "1.36")
	d3 := addStudyDeck(t, db, "v1-37-drafts", "1.37")
	var qs []int64
	for i := range 5 {
		qs = append(qs, addStudyQuestion(t, db, d1, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i))))
	}
	retired := addStudyQuestion(t, db, d1, 9, quiz.Retired, sampleQuestion("retired"))
	addStudyQuestion(t, db, d2, 1, quiz.Published, sampleQuestion("x"))
	addStudyQuestion(t, db, d3, 1, quiz.Draft, sampleQuestion("y"))
	setCard(t, db, alice, qs[0], reviewCard(fsrs.Learning, now.Add(-time.Minute)))  // learning, due
	setCard(t, db, alice, qs[1], reviewCard(fsrs.Relearning, now.Add(time.Minute))) // learning, not due
	setCard(t, db, alice, qs[2], reviewCard(fsrs.Review, now.Add(-time.Hour)))      // due
	setCard(t, db, alice, retired, reviewCard(fsrs.Review, now.Add(-time.Hour)))    // not counted
	setCard(t, db, bob, qs[3], reviewCard(fsrs.Review, now.Add(-time.Hour)))        // bob's

	if _, err := db.SetSubscription(ctx, alice, "v1-35-node", true, now); err != nil {
		t.Fatal(err)
	}
	got, err := db.StudyDecks(ctx, alice, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []DeckProgress{
		{DeckSummary: quiz.DeckSummary{ID: d2, Questions: 1}, New: 1},
		{DeckSummary: quiz.DeckSummary{ID: d1, Questions: 5}, Subscribed: true, New: 2, Learning: 2, Due: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("StudyDecks = %+v, want %d decks (drafts-only deck hidden)", got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Questions != w.Questions || g.Subscribed != w.Subscribed || g.New != w.New ||
			g.Learning != w.Learning || g.Due != w.Due {
			t.Errorf("deck %d = id %d total %d sub %v new %d learning %d due %d; want id %d total %d sub %v new %d learning %d due %d",
				i, g.ID, g.Questions, g.Subscribed, g.New, g.Learning, g.Due, w.ID, w.Questions, w.Subscribed, w.New, w.Learning, w.Due)
		}
	}

	steps := []struct {
		name    string
		slug    string
		on      bool
		wantSub bool
		wantErr error
	}{
		{"subscribe twice", "v1-35-node", true, true, nil},
		{"unsubscribe", "v1-35-node", false, false, nil},
		{"unsubscribe again", "v1-35-node", false, false, nil},
		{"unknown deck", "nope", true, false, quiz.ErrNotFound},
		{"deck of drafts", "v1-37-drafts", true, false, quiz.ErrNotFound},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			p, err := db.SetSubscription(ctx, alice, s.slug, s.on, now)
			if !errors.Is(err, s.wantErr) {
				t.Fatalf("SetSubscription = %v, want %v", err, s.wantErr)
			}
			if err == nil && (p.Subscribed != s.wantSub || p.Slug != s.slug) {
				t.Errorf("SetSubscription = %+v, want subscribed %v", p, s.wantSub)
			}
		})
	}
	if n := countRows(t, db, `SELECT count(*) FROM cards WHERE user_id = ?`, alice); n != 4 {
		t.Errorf("alice has %d cards after unsubscribing, want 4 (kept)", n)
	}
}

// TestStudyQueryPlans checks that each queue step is one indexed lookup
// without a sort.
func TestStudyQueryPlans(t *testing.T) {
	db := newTestDB(t)
	tests := []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"due learning", dueLearningQuery, []any{1, 0, 0}, []string{"cards_user_learning_due (user_id=? AND due<?)"}},
		{"due review", dueReviewQuery, []any{1, 0, 7}, []string{"cards_user_review_due (user_id=? AND due<?)"}},
		{"new, all decks", newCardAllQuery, []any{1, 0, 0, 0, noCursor}, []string{"subscriptions_open (user_id=?)", "questions_deck_status (deck_id=? AND status=? AND position>?)", "USING PRIMARY KEY"}},
		{"mark exhausted", markExhaustedQuery, []any{1, 7, noCursor}, []string{"questions_deck_status (deck_id=? AND status=? AND position>?)"}},
		{"new, one deck", newCardDeckQuery, []any{1, 0, 7, 0, noCursor}, []string{"questions_deck_status (deck_id=? AND status=? AND position>?)", "USING PRIMARY KEY"}},
		{"advance cursor", advanceCursorQuery, []any{1, 7, 12}, []string{"questions_deck_status (deck_id=? AND status=? AND position>? AND position<?)"}},
		{"today", todayQuery, []any{1, 0}, []string{"daily_reviews USING PRIMARY KEY", "COVERING INDEX review_log_user_day"}},
		{"queue, all decks", queueAllQuery, []any{1, 0, 0, 0, noCursor}, []string{"cards_user_learning_due (user_id=? AND due<?)", "cards_user_review_due (user_id=? AND due<?)",
			"questions_deck_status (deck_id=? AND status=? AND position>?)", "daily_reviews USING PRIMARY KEY"}},
		{"queue, one deck", queueDeckQuery, []any{1, 0, 7, 0, noCursor}, []string{"cards_user_learning_due (user_id=? AND due<?)", "cards_user_review_due (user_id=? AND due<?)",
			"questions_deck_status (deck_id=? AND status=? AND position>?)", "daily_reviews USING PRIMARY KEY"}},
		{"start the day's count", startDayQuery, []any{1, 0}, []string{"INDEX review_log_user_day (user_id=? AND reviewed_at>?)"}},
		{"next due", nextDueQuery, []any{1, 0, 0}, []string{"cards_user_learning_due (user_id=? AND due>?)", "cards_user_review_due (user_id=? AND due>?)"}},
		{"due before", dueBeforeQuery, []any{1, 0, 0}, []string{"cards_user_learning_due (user_id=? AND due<?)", "cards_user_review_due (user_id=? AND due<?)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := queryPlan(t, db, tt.query, tt.args...)
			t.Logf("plan:\n%s", text)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("plan lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", text)
			}
		})
	}
}

// onScreenYAML is a deck of one single-choice question whose right answer,
// "beta", is choice 1 of its first version.
const onScreenYAML = `deck:
  slug: deck-a
  title: deck-a
  release: "1.36"
  sig: SIG-Node
  language: ja
questions:
  - id: q-1
    type: single_choice
    prompt: "Which stage did Gate1 reach?"
    choices: ["alpha", "beta", "GA"]
    answer: beta
    explanation: Gate1 moved to beta.
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [100001]}
`

// TestRecordReviewQuestionChanged: a review of a question edited after it
// was shown (its answer key has changed) records nothing, whatever the
// edit did to the answer's meaning; one of an edit that changes no answer
// is recorded; and the retry of a review recorded before the question was
// edited or retired gets that review back instead of a refusal.
func TestRecordReviewQuestionChanged(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		edited  string // the deck's file after the question was shown
		choice  int    // the learner's answer, to the version shown
		wantErr error  // nil: recorded, correct
	}{
		{"choices reordered", strings.Replace(onScreenYAML, `["alpha", "beta", "GA"]`, `["beta", "alpha", "GA"]`, 1), 1, ErrQuestionChanged},
		{"a choice dropped", strings.Replace(onScreenYAML, `["alpha", "beta", "GA"]`, `["alpha", "beta"]`, 1), 2, ErrQuestionChanged},
		{"prompt reworded", strings.Replace(onScreenYAML, "Which stage", "What stage", 1), 1, ErrQuestionChanged},
		{"explanation reworded", strings.Replace(onScreenYAML, "moved to beta.", "became beta.", 1), 1, nil},
		{"retired", strings.Replace(onScreenYAML, "id: q-1", "id: q-2", 1), 1, quiz.ErrNotFound},
	}
	ctx := context.Background()
	// shown imports the deck and returns a database, its learner and the
	// review of the card the queue put to them.
	shown := func(t *testing.T, choice int) (*DB, Review) {
		t.Helper()
		db := newTestDB(t)
		importDeck(t, db, onScreenYAML, now)
		user := addStudyUser(t, db, "alice", studyUserOpts{})
		subscribe(t, db, user, "deck-a")
		n, err := db.NextCard(ctx, learner(t, db, user), "", now)
		if err != nil || !n.Found || n.Card.AnswerKey != n.Card.Question.Question.AnswerKey() {
			t.Fatalf("NextCard = %+v, %v", n, err)
		}
		return db, Review{UserID: user, QuestionID: n.Card.Question.ID, RequestID: reqID(1), Rating: fsrs.Good,
			Response: quiz.Response{Choice: choice}, AnswerKey: n.Card.AnswerKey, At: now.Add(10 * time.Second)}
	}
	for _, tt := range tests {
		t.Run(tt.name+", before the grade", func(t *testing.T) {
			db, r := shown(t, tt.choice)
			importDeck(t, db, tt.edited, now)
			rec, err := db.RecordReview(ctx, r)
			if !errors.Is(err, tt.wantErr) || (err == nil && !rec.Correct) {
				t.Fatalf("RecordReview = %+v, %v; want error %v", rec, err, tt.wantErr)
			}
			want := 0
			if tt.wantErr == nil {
				want = 1
			}
			if countRows(t, db, `SELECT count(*) FROM review_log`) != want || countRows(t, db, `SELECT count(*) FROM cards`) != want {
				t.Errorf("reviews and cards stored: want %d of each", want)
			}
		})
		t.Run(tt.name+", between the grade and its retry", func(t *testing.T) {
			db, r := shown(t, 1)
			first, err := db.RecordReview(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			importDeck(t, db, tt.edited, now)
			again, err := db.RecordReview(ctx, r)
			if err != nil || !again.Duplicate || !again.Due.Equal(first.Due) || again.Rating != first.Rating {
				t.Errorf("retry = %+v, %v; want the first review (%+v) as a duplicate", again, err, first)
			}
			if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != 1 {
				t.Errorf("review_log rows = %d, want 1", n)
			}
		})
	}
}

// importDeck imports one deck file, retiring what it no longer holds.
func importDeck(t *testing.T, db *DB, src string, now time.Time) {
	t.Helper()
	if _, err := db.ImportBank(context.Background(), []bank.Decoded{decodeFile(t, "a.yaml", src)}, ImportOptions{Actor: "cli", Prune: true, Now: now}); err != nil {
		t.Fatal(err)
	}
}

// TestDueTodayLeavesOutHeldBackReviews: the empty queue's count of cards
// coming today holds every learning card due before the day ends, and the
// review cards due by then only up to what is left of the daily limit.
func TestDueTodayLeavesOutHeldBackReviews(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC) // the study day (UTC) ends at 04:00 tomorrow
	tests := []struct {
		reviewsPerDay, reviewedToday, want int
	}{
		{reviewsPerDay: 0, want: 1},
		{reviewsPerDay: 2, want: 3},
		{reviewsPerDay: 3, reviewedToday: 2, want: 2},
		{reviewsPerDay: 3, reviewedToday: 3, want: 1},
		{reviewsPerDay: 100, want: 4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("limit %d, %d reviewed", tt.reviewsPerDay, tt.reviewedToday), func(t *testing.T) {
			ctx := context.Background()
			db := newTestDB(t)
			user := addStudyUser(t, db, "u", studyUserOpts{tz: "UTC"})
			if _, err := db.write.Exec(`UPDATE users SET reviews_per_day = ? WHERE id = ?`, tt.reviewsPerDay, user); err != nil {
				t.Fatal(err)
			}
			deck := addStudyDeck(t, db, "d", "1.36")
			q := func(i int) int64 {
				return addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i)))
			}
			// Later today: one learning card and three reviews; tomorrow, one more review.
			setCard(t, db, user, q(0), reviewCard(fsrs.Learning, now.Add(30*time.Minute)))
			for i := 1; i <= 3; i++ {
				setCard(t, db, user, q(i), reviewCard(fsrs.Review, now.Add(time.Duration(i)*time.Hour)))
			}
			setCard(t, db, user, q(4), reviewCard(fsrs.Review, now.Add(20*time.Hour)))
			subscribe(t, db, user, "d")
			if _, err := db.write.Exec(`INSERT INTO daily_reviews (user_id, day_start, new_count, review_count) VALUES (?, ?, 0, ?)`,
				user, ms(time.Date(2026, 3, 10, 4, 0, 0, 0, time.UTC)), tt.reviewedToday); err != nil {
				t.Fatal(err)
			}
			n, err := db.NextCard(ctx, learner(t, db, user), "", now)
			if err != nil || n.Found {
				t.Fatalf("NextCard = %+v, %v; want an empty queue", n, err)
			}
			if n.ReviewsToday != tt.reviewedToday || n.DueToday != tt.want {
				t.Errorf("ReviewsToday %d, DueToday %d; want %d, %d", n.ReviewsToday, n.DueToday, tt.reviewedToday, tt.want)
			}
		})
	}
}

// TestRecordReviewGradedSinceShown: a card put to the learner on two pages
// (two tabs, or a page reached again with the Back button) is graded once:
// the grade from the page shown before the card's last review records
// nothing, and the retry of the grade that was recorded is still that
// review.
func TestRecordReviewGradedSinceShown(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "alice", studyUserOpts{})
	deck := addStudyDeck(t, db, "d", "1.36")
	q := addStudyQuestion(t, db, deck, 0, quiz.Published, sampleQuestion("q0"))
	review := func(id int, shown, at time.Time) Review {
		return Review{UserID: user, QuestionID: q, RequestID: reqID(id), Rating: fsrs.Good,
			Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: "d"}, ShownAt: shown, At: at}
	}
	tab1 := review(1, now, now.Add(time.Minute))                        // shown first, graded last
	tab2 := review(2, now.Add(10*time.Second), now.Add(20*time.Second)) // shown later, graded first
	first, err := db.RecordReview(ctx, tab2)
	if err != nil || first.Duplicate {
		t.Fatalf("tab 2 = %+v, %v", first, err)
	}
	tests := []struct {
		name    string
		r       Review
		wantErr error
		dup     bool
	}{
		{"the older page", tab1, ErrCardReviewed, false},
		{"the older page, no time given", review(3, time.Time{}, now.Add(time.Minute)), nil, false},
		{"the recorded grade again", tab2, nil, true},
		{"a page shown after the last review", review(4, now.Add(2*time.Minute), now.Add(3*time.Minute)), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := countRows(t, db, `SELECT count(*) FROM review_log`)
			rec, err := db.RecordReview(ctx, tt.r)
			if !errors.Is(err, tt.wantErr) || rec.Duplicate != tt.dup {
				t.Fatalf("RecordReview = %+v, %v; want error %v, duplicate %v", rec, err, tt.wantErr, tt.dup)
			}
			want := before
			if err == nil && !tt.dup {
				want++
			}
			if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != want {
				t.Errorf("review_log rows = %d, want %d", n, want)
			}
		})
	}
}

// TestRecordReviewFromSubscribedDecks: a review asking for a subscribed
// deck (the page of every subscribed deck) of a card of another deck is
// ErrNotSubscribed and records nothing; once subscribed, it is recorded.
// A review naming the card's deck needs no subscription.
func TestRecordReviewFromSubscribedDecks(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	alice := addStudyUser(t, db, "alice", studyUserOpts{})
	deck := addStudyDeck(t, db, "d", "1.36")
	q1 := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q1"))
	q2 := addStudyQuestion(t, db, deck, 2, quiz.Published, sampleQuestion("q2"))
	review := func(q int64, id int, r Review) (Recorded, error) {
		r.UserID, r.QuestionID, r.RequestID, r.Rating, r.Response, r.At = alice, q, reqID(id), fsrs.Good, quiz.Response{Choice: 1}, now
		return db.RecordReview(ctx, r)
	}
	if _, err := review(q1, 1, Review{}); !errors.Is(err, ErrNotSubscribed) || !errors.Is(err, quiz.ErrNotFound) {
		t.Fatalf("not subscribed: %v, want ErrNotSubscribed", err)
	}
	if _, ok := readCard(t, db, alice, q1); ok {
		t.Fatal("a refused review made a card")
	}
	if _, err := review(q2, 2, Review{Scope: Scope{Deck: "d"}}); err != nil {
		t.Errorf("on the deck's own page, not subscribed: %v", err)
	}
	if _, err := db.SetSubscription(ctx, alice, "d", true, now); err != nil {
		t.Fatal(err)
	}
	if _, err := review(q1, 3, Review{}); err != nil {
		t.Errorf("subscribed: %v", err)
	}
}
