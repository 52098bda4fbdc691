package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// undoFixture is alice and bob, both subscribed to deck d1: new questions
// n1, n2 and n3 (positions 10, 20, 30) and alice's cards in learning,
// relearning and review, all due; bob has a review card of his own. now
// is 21:00 in Tokyo, their zone.
type undoFixture struct {
	db         *DB
	alice, bob int64
	q          map[string]int64
	now        time.Time
	n          int // request ids used
}

func newUndoFixture(t *testing.T) *undoFixture {
	t.Helper()
	db := newTestDB(t)
	f := &undoFixture{db: db, q: map[string]int64{}, now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	f.alice = addStudyUser(t, db, "alice", studyUserOpts{})
	f.bob = addStudyUser(t, db, "bob", studyUserOpts{})
	d1 := addStudyDeck(t, db, "d1", "1.36")
	for i, ext := range []string{"n1", "n2", "n3", "learn", "relearn", "review", "bobs"} {
		f.q[ext] = addStudyQuestion(t, db, d1, 10*(i+1), quiz.Published, sampleQuestion(ext))
	}
	setCard(t, db, f.alice, f.q["learn"], fsrs.Card{State: fsrs.Learning, Due: f.now.Add(-5 * time.Minute),
		Stability: 2.3065, Difficulty: 2.11810397, LearningSteps: 1, Reps: 1, LastReview: f.now.Add(-15 * time.Minute)})
	setCard(t, db, f.alice, f.q["relearn"], fsrs.Card{State: fsrs.Relearning, Due: f.now.Add(-time.Minute),
		Stability: 1.2, Difficulty: 7.5, ElapsedDays: 9, ScheduledDays: 0, Reps: 6, Lapses: 2,
		LastReview: f.now.Add(-11 * time.Minute)})
	setCard(t, db, f.alice, f.q["review"], fsrs.Card{State: fsrs.Review, Due: f.now.Add(-3 * time.Hour),
		Stability: 12.5, Difficulty: 4.25, ElapsedDays: 6, ScheduledDays: 11, Reps: 5, Lapses: 1,
		LastReview: f.now.Add(-11*24*time.Hour - 3*time.Hour)})
	setCard(t, db, f.bob, f.q["bobs"], reviewCard(fsrs.Review, f.now.Add(-time.Hour)))
	subscribe(t, db, f.alice, "d1")
	subscribe(t, db, f.bob, "d1")
	return f
}

// grade records user's review of question ext at at.
func (f *undoFixture) grade(t *testing.T, user int64, ext string, rating fsrs.Rating, at time.Time) Recorded {
	t.Helper()
	f.n++
	out, err := f.db.RecordReview(context.Background(), Review{UserID: user, QuestionID: f.q[ext], RequestID: reqID(f.n),
		Rating: rating, Response: quiz.Response{Choice: 1}, At: at})
	if err != nil {
		t.Fatalf("grade %s: %v", ext, err)
	}
	return out
}

// next returns the ext id of the card the queue serves user at at.
func (f *undoFixture) next(t *testing.T, user int64, at time.Time) string {
	t.Helper()
	n, err := f.db.NextCard(context.Background(), learner(t, f.db, user), "", at)
	if err != nil || !n.Found {
		t.Fatalf("NextCard = found %v, %v", n.Found, err)
	}
	return n.Card.Question.Question.ExtID
}

// todayCounts returns user's new cards and reviews of the study day of at,
// as the queue counts them.
func todayCounts(t *testing.T, db *DB, user int64, at time.Time) [2]int {
	t.Helper()
	start, _ := studyDay(at, db.zones.location(learner(t, db, user).Timezone))
	var c [2]int
	if err := db.read.QueryRow(todayQuery, user, ms(start)).Scan(&c[0], &c[1]); err != nil {
		t.Fatal(err)
	}
	return c
}

// undoTables returns the checksums of the tables an undo puts back as they
// were, byte for byte.
func undoTables(t *testing.T, db *DB) map[string]string {
	t.Helper()
	sums, err := db.TableChecksums(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"cards": sums["cards"], "review_log": sums["review_log"], "users": sums["users"],
		"questions": sums["questions"]}
}

func TestUndoLastReview(t *testing.T) {
	tests := []struct {
		name    string
		ext     string
		rating  fsrs.Rating
		wasNew  bool
		counted [2]int // what the review added to the day's counts
	}{
		{"first review of a new card", "n1", fsrs.Good, true, [2]int{1, 0}},
		{"new card answered Easy", "n1", fsrs.Easy, true, [2]int{1, 0}},
		{"review card forgotten", "review", fsrs.Again, false, [2]int{0, 1}},
		{"review card recalled", "review", fsrs.Good, false, [2]int{0, 1}},
		{"learning card", "learn", fsrs.Good, false, [2]int{}},
		{"relearning card", "relearn", fsrs.Hard, false, [2]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			f := newUndoFixture(t)
			// Earlier reviews of the day that the undo leaves alone: one of
			// alice's, and bob's, later than hers.
			f.grade(t, f.alice, "n2", fsrs.Good, f.now.Add(-time.Hour))
			at := f.now.Add(time.Minute)
			first := f.next(t, f.alice, at)
			before := undoTables(t, f.db)
			cardBefore, _ := readCard(t, f.db, f.alice, f.q[tt.ext])
			counts := todayCounts(t, f.db, f.alice, at)

			rec := f.grade(t, f.alice, tt.ext, tt.rating, at)
			f.grade(t, f.bob, "bobs", fsrs.Good, at.Add(time.Minute))
			if got := todayCounts(t, f.db, f.alice, at); got != [2]int{counts[0] + tt.counted[0], counts[1] + tt.counted[1]} {
				t.Fatalf("counts after the review %v, before %v", got, counts)
			}
			bobBefore := undoTables(t, f.db)
			bobCard, _ := readCard(t, f.db, f.bob, f.q["bobs"])

			offered, ok, err := f.db.LastUndoable(ctx, f.alice, at.Add(time.Minute))
			if err != nil || !ok {
				t.Fatalf("LastUndoable = %v, %v", ok, err)
			}
			u, err := f.db.UndoLastReview(ctx, f.alice, at.Add(time.Minute))
			if err != nil {
				t.Fatalf("UndoLastReview: %v", err)
			}
			if u != offered {
				t.Errorf("undid %+v, LastUndoable offered %+v", u, offered)
			}
			if u.QuestionID != f.q[tt.ext] || u.DeckSlug != "d1" || u.Rating != tt.rating || u.WasNew != tt.wasNew ||
				!u.ReviewedAt.Equal(at) || u.RequestID != reqID(f.n-1) {
				t.Errorf("Undo = %+v", u)
			}
			if !u.After.Due.Equal(rec.Due) || u.After.State != rec.State {
				t.Errorf("Undo.After = %v %v, the review recorded %v %v", u.After.State, u.After.Due, rec.State, rec.Due)
			}
			if tt.wasNew {
				cardBefore = fsrs.NewCard(at)
			}
			if !cardsEqual(u.Before, cardBefore) {
				t.Errorf("Undo.Before = %+v, the card was %+v", u.Before, cardBefore)
			}

			// The card is as it was, byte for byte (a new card has no row
			// again), and so is review_log: only alice's last row is gone.
			after := undoTables(t, f.db)
			if after["cards"] == bobBefore["cards"] || after["review_log"] == bobBefore["review_log"] {
				t.Error("the undo changed neither cards nor review_log")
			}
			if c, _ := readCard(t, f.db, f.bob, f.q["bobs"]); !cardsEqual(c, bobCard) {
				t.Errorf("bob's card changed: %+v, was %+v", c, bobCard)
			}
			// Without bob's review, the tables are as before alice's.
			if _, err := f.db.write.Exec(`DELETE FROM review_log WHERE user_id = ?`, f.bob); err != nil {
				t.Fatal(err)
			}
			setCard(t, f.db, f.bob, f.q["bobs"], reviewCard(fsrs.Review, f.now.Add(-time.Hour)))
			for table, sum := range undoTables(t, f.db) {
				if sum != before[table] {
					t.Errorf("%s differs from before the review", table)
				}
			}
			if got := todayCounts(t, f.db, f.alice, at); got != counts {
				t.Errorf("day's counts %v after the undo, %v before the review", got, counts)
			}
			if got := f.next(t, f.alice, at); got != first {
				t.Errorf("after the undo the queue serves %s, want %s again", got, first)
			}
		})
	}
}

// cardsEqual compares two cards field by field, times as instants.
func cardsEqual(a, b fsrs.Card) bool {
	return a.Due.Equal(b.Due) && a.LastReview.Equal(b.LastReview) && a.State == b.State && a.Stability == b.Stability &&
		a.Difficulty == b.Difficulty && a.ElapsedDays == b.ElapsedDays && a.ScheduledDays == b.ScheduledDays &&
		a.LearningSteps == b.LearningSteps && a.Reps == b.Reps && a.Lapses == b.Lapses
}

// TestUndoNewCardCursor checks that an undone first review gives its deck
// back its place in the new cards, when the review had moved the new-card
// cursor past it and marked the deck studied through.
func TestUndoNewCardCursor(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "alice", studyUserOpts{})
	deck := addStudyDeck(t, db, "d1", "1.36")
	q1 := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q1"))
	q2 := addStudyQuestion(t, db, deck, 2, quiz.Published, sampleQuestion("q2"))
	subscribe(t, db, user, "d1")
	grade := func(q int64, i int) {
		t.Helper()
		if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: reqID(i), Rating: fsrs.Easy,
			Response: quiz.Response{Choice: 1}, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	state := func() (cursor, exhausted int) {
		t.Helper()
		if err := db.read.QueryRow(`SELECT (SELECT covered_through FROM new_card_cursors WHERE user_id = ?1),
			(SELECT exhausted FROM subscriptions WHERE user_id = ?1)`, user).Scan(&cursor, &exhausted); err != nil {
			t.Fatal(err)
		}
		return cursor, exhausted
	}
	grade(q1, 1)
	grade(q2, 2)
	if c, e := state(); c != 2 || e != 1 {
		t.Fatalf("after both: cursor %d, exhausted %d; want 2, 1", c, e)
	}
	steps := []struct {
		name          string
		wantCursor    int
		wantExhausted int
		wantNext      string
	}{
		{"q2 undone", 1, 0, "q2"},
		{"q1 undone", 0, 0, "q1"},
	}
	for _, s := range steps {
		if _, err := db.UndoLastReview(ctx, user, now); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if c, e := state(); c != s.wantCursor || e != s.wantExhausted {
			t.Errorf("%s: cursor %d, exhausted %d; want %d, %d", s.name, c, e, s.wantCursor, s.wantExhausted)
		}
		n, err := db.NextCard(ctx, learner(t, db, user), "", now)
		if err != nil || !n.Found || n.Card.Question.Question.ExtID != s.wantNext || !n.Card.IsNew {
			t.Errorf("%s: NextCard = %+v, %v; want %s, new", s.name, n.Card.Question.Question.ExtID, err, s.wantNext)
		}
	}
}

func TestUndoRefused(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name  string
		setup func(t *testing.T, f *undoFixture) time.Time // returns when the undo is asked
		want  error
	}{
		{"no review at all", func(t *testing.T, f *undoFixture) time.Time { return f.now }, ErrNothingToUndo},
		{"only another learner's review", func(t *testing.T, f *undoFixture) time.Time {
			f.grade(t, f.bob, "bobs", fsrs.Good, f.now)
			return f.now
		}, ErrNothingToUndo},
		{"reviewed at 03:59, undone at 04:00: another study day", func(t *testing.T, f *undoFixture) time.Time {
			f.grade(t, f.alice, "review", fsrs.Good, time.Date(2026, 5, 2, 3, 59, 0, 0, tokyo))
			return time.Date(2026, 5, 2, 4, 0, 0, 0, tokyo)
		}, ErrUndoOtherDay},
		{"reviewed yesterday evening", func(t *testing.T, f *undoFixture) time.Time {
			f.grade(t, f.alice, "review", fsrs.Good, f.now)
			return f.now.Add(24 * time.Hour)
		}, ErrUndoOtherDay},
		{"recorded before reviews kept the card", func(t *testing.T, f *undoFixture) time.Time {
			f.grade(t, f.alice, "review", fsrs.Good, f.now)
			if _, err := f.db.write.Exec(`UPDATE review_log SET elapsed_days_before = NULL, scheduled_days_before = NULL,
				learning_steps_before = NULL, reps_before = NULL, lapses_before = NULL, last_review_before = NULL`); err != nil {
				t.Fatal(err)
			}
			return f.now
		}, ErrUndoUnrecorded},
		{"card changed since", func(t *testing.T, f *undoFixture) time.Time {
			f.grade(t, f.alice, "review", fsrs.Good, f.now)
			if _, err := f.db.write.Exec(`UPDATE cards SET due = due + 1 WHERE user_id = ? AND question_id = ?`,
				f.alice, f.q["review"]); err != nil {
				t.Fatal(err)
			}
			return f.now
		}, ErrUndoCardChanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			f := newUndoFixture(t)
			at := tt.setup(t, f)
			before, err := f.db.TableChecksums(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, ok, err := f.db.LastUndoable(ctx, f.alice, at)
			if err != nil || ok != errors.Is(tt.want, ErrUndoCardChanged) {
				t.Errorf("LastUndoable = %v, %v", ok, err)
			}
			if _, err := f.db.UndoLastReview(ctx, f.alice, at); !errors.Is(err, tt.want) {
				t.Errorf("UndoLastReview = %v, want %v", err, tt.want)
			}
			after, _ := f.db.TableChecksums(ctx)
			for table, sum := range before {
				if after[table] != sum {
					t.Errorf("a refused undo changed %s", table)
				}
			}
		})
	}
}

// TestUndoRepeated undoes the day's reviews one by one, most recent first,
// and stops at the day's start.
func TestUndoRepeated(t *testing.T) {
	ctx := context.Background()
	f := newUndoFixture(t)
	yesterday := f.now.Add(-24 * time.Hour)
	f.grade(t, f.alice, "review", fsrs.Good, yesterday)
	start := undoTables(t, f.db)
	startCounts := todayCounts(t, f.db, f.alice, f.now)
	order := []string{"n1", "learn", "n2", "learn", "relearn"}
	for i, ext := range order {
		f.grade(t, f.alice, ext, fsrs.Good, f.now.Add(time.Duration(i)*time.Minute))
	}
	for i := len(order) - 1; i >= 0; i-- {
		u, err := f.db.UndoLastReview(ctx, f.alice, f.now.Add(time.Hour))
		if err != nil {
			t.Fatalf("undo %d: %v", i, err)
		}
		if u.QuestionID != f.q[order[i]] {
			t.Errorf("undo %d took back question %d, want %s's", i, u.QuestionID, order[i])
		}
	}
	for table, sum := range undoTables(t, f.db) {
		if sum != start[table] {
			t.Errorf("%s differs from the day's start", table)
		}
	}
	if got := todayCounts(t, f.db, f.alice, f.now); got != startCounts {
		t.Errorf("day's counts %v, %v at its start", got, startCounts)
	}
	if _, err := f.db.UndoLastReview(ctx, f.alice, f.now.Add(time.Hour)); !errors.Is(err, ErrUndoOtherDay) {
		t.Errorf("undo of yesterday's review = %v, want ErrUndoOtherDay", err)
	}
}

// TestUndoWhileGrading undoes reviews while others of the same learner are
// being recorded: whatever the order the writer and the undos take, every
// card is as its last remaining review left it, and the day's counts are
// those of the remaining reviews.
func TestUndoWhileGrading(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "alice", studyUserOpts{newPerDay: 1000})
	deck := addStudyDeck(t, db, "d1", "1.36")
	const cards = 40
	var qs []int64
	for i := range cards {
		qs = append(qs, addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i))))
	}
	subscribe(t, db, user, "d1")
	var wg sync.WaitGroup
	errs := make(chan error, 2*cards)
	for i, q := range qs {
		wg.Go(func() {
			// Two reviews of each card, the second after the first.
			for j := range 2 {
				at := now.Add(time.Duration(j) * time.Minute)
				if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: reqID(2*i + j),
					Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, At: at}); err != nil {
					errs <- err
				}
			}
		})
	}
	undone := 0
	for range cards / 2 {
		_, err := db.UndoLastReview(ctx, user, now.Add(time.Hour))
		switch {
		case err == nil:
			undone++
		case !errors.Is(err, ErrNothingToUndo):
			t.Errorf("UndoLastReview: %v", err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("RecordReview: %v", err)
	}
	if got := countRows(t, db, `SELECT count(*) FROM review_log`); got != 2*cards-undone {
		t.Errorf("%d reviews, want %d recorded less %d undone", got, 2*cards, undone)
	}
	// Each card is as its last review left it, or new without a review.
	if n := countRows(t, db, `SELECT count(*) FROM cards c WHERE NOT EXISTS (SELECT 1 FROM review_log r
		WHERE r.question_id = c.question_id AND r.reviewed_at = c.last_review AND r.due_after = c.due
		  AND r.state_after = c.state AND r.reps_before + 1 = c.reps
		  AND r.reviewed_at = (SELECT max(reviewed_at) FROM review_log WHERE question_id = c.question_id))`); n != 0 {
		t.Errorf("%d cards are not as their last review left them", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log r WHERE NOT EXISTS
		(SELECT 1 FROM cards c WHERE c.question_id = r.question_id)`); n != 0 {
		t.Errorf("%d reviews of cards that are new", n)
	}
	newCards := countRows(t, db, `SELECT count(*) FROM review_log WHERE state_before = 0`)
	if got := todayCounts(t, db, user, now); got[0] != newCards || newCards != countRows(t, db, `SELECT count(*) FROM cards`) {
		t.Errorf("day's new cards %d, first reviews %d", got[0], newCards)
	}
}
