package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// naiveNewCard is the first new card without the new-card cursor: the
// first published question, in deck and position order, of deckID (or of
// every subscribed deck when 0) that userID has no card for.
func naiveNewCard(tb testing.TB, db *DB, userID, deckID int64) int64 {
	tb.Helper()
	var id int64
	err := db.read.QueryRow(`SELECT q.id FROM questions q
		WHERE q.status = 'published'
		  AND CASE WHEN ?2 = 0
		      THEN q.deck_id IN (SELECT deck_id FROM subscriptions WHERE user_id = ?1)
		      ELSE q.deck_id = ?2 END
		  AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = ?1 AND c.question_id = q.id)
		ORDER BY q.deck_id, q.position, q.id LIMIT 1`, userID, deckID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0
	}
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// TestNewCardCursor runs random sequences of first reviews and question
// changes (new questions anywhere, drafts published, questions retired,
// restored and moved, within their deck or to another) and checks after
// every step that the queue serves the same new card as a search from each
// deck's first question. It covers the cursors (migration 0008) and the
// exhausted subscriptions (migration 0013).
func TestNewCardCursor(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			runCursorSequence(t, seed)
		})
	}
}

func runCursorSequence(t *testing.T, seed uint64) {
	ctx := context.Background()
	db := newTestDB(t)
	rng := rand.New(rand.NewPCG(seed, 42))
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "alice", studyUserOpts{newPerDay: 100000})
	other := addStudyUser(t, db, "bob", studyUserOpts{newPerDay: 100000})
	decks := map[int64]string{}
	var questions []int64
	n := 0
	addQuestion := func(deck int64, pos int, status quiz.Status) int64 {
		n++
		id := addStudyQuestion(t, db, deck, pos, status, sampleQuestion(fmt.Sprintf("q%d", n)))
		questions = append(questions, id)
		return id
	}
	for i, slug := range []string{"d1", "d2", "d3"} {
		id := addStudyDeck(t, db, slug, "1.36")
		decks[id] = slug
		for p := range 8 {
			addQuestion(id, p*2, quiz.Published) // gaps between positions
		}
		if i < 2 {
			subscribe(t, db, user, slug)
		}
		subscribe(t, db, other, slug)
	}
	deckIDs := []int64{1, 2, 3}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.write.Exec(query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	reviews := 0
	grade := func(who int64, deck string) {
		t.Helper()
		next, err := db.NextCard(ctx, learner(t, db, who), deck, now)
		if err != nil {
			t.Fatal(err)
		}
		if !next.Found {
			return
		}
		reviews++
		_, err = db.RecordReview(ctx, Review{UserID: who, QuestionID: next.Card.Question.ID, RequestID: reqID(reviews),
			Rating: fsrs.Rating(1 + rng.IntN(4)), Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: deck}, At: now})
		if err != nil {
			t.Fatal(err)
		}
	}

	for step := range 200 {
		var what string
		switch op := rng.IntN(10); {
		case op < 5:
			what = "grade, every deck"
			grade(user, "")
		case op == 5:
			d := deckIDs[rng.IntN(3)]
			what = "grade, deck " + decks[d]
			grade(user, decks[d])
			grade(other, "")
		case op == 6:
			d, pos := deckIDs[rng.IntN(3)], rng.IntN(20)
			what = fmt.Sprintf("new question at %d in %s", pos, decks[d])
			addQuestion(d, pos, quiz.Published)
		case op == 7:
			d, pos := deckIDs[rng.IntN(3)], rng.IntN(20)
			id := addQuestion(d, pos, quiz.Draft)
			what = fmt.Sprintf("draft %d at %d published", id, pos)
			exec(`UPDATE questions SET status = 'published' WHERE id = ?`, id)
		case op == 8:
			id := questions[rng.IntN(len(questions))]
			status := []string{"retired", "published"}[rng.IntN(2)]
			what = fmt.Sprintf("question %d %s", id, status)
			exec(`UPDATE questions SET status = ? WHERE id = ?`, status, id)
		case op == 9 && rng.IntN(2) == 0:
			id, d, pos := questions[rng.IntN(len(questions))], deckIDs[rng.IntN(3)], rng.IntN(20)
			what = fmt.Sprintf("question %d moved to %d in %s", id, pos, decks[d])
			exec(`UPDATE questions SET deck_id = ?, position = ? WHERE id = ?`, d, pos, id)
		default:
			id, pos := questions[rng.IntN(len(questions))], rng.IntN(20)
			what = fmt.Sprintf("question %d moved to %d", id, pos)
			exec(`UPDATE questions SET position = ? WHERE id = ?`, pos, id)
		}
		u := learner(t, db, user)
		for _, d := range append([]int64{0}, deckIDs...) {
			slug := decks[d]
			next, err := db.NextCard(ctx, u, slug, now)
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			if next.Found {
				if !next.Card.IsNew {
					t.Fatalf("step %d (%s): deck %q served a card that is not new", step, what, slug)
				}
				got = next.Card.Question.ID
			}
			if want := naiveNewCard(t, db, user, d); got != want {
				t.Fatalf("step %d (%s): deck %q serves new question %d, want %d", step, what, slug, got, want)
			}
		}
	}
	if reviews < 50 {
		t.Fatalf("only %d reviews: the sequence tests too little", reviews)
	}
}

// TestNewCardCursorMoves checks that studying a deck in order moves its
// cursor to the last question graded, so the search skips studied cards,
// and that a question added before it moves the cursor back.
func TestNewCardCursorMoves(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "alice", studyUserOpts{newPerDay: 1000})
	deck := addStudyDeck(t, db, "d1", "1.36")
	for p := range 5 {
		addStudyQuestion(t, db, deck, 10*(p+1), quiz.Published, sampleQuestion(fmt.Sprintf("q%d", p)))
	}
	subscribe(t, db, user, "d1")
	cursor := func() int64 {
		var c int64
		err := db.read.QueryRow(`SELECT covered_through FROM new_card_cursors WHERE user_id = ? AND deck_id = ?`,
			user, deck).Scan(&c)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for i := range 3 {
		next, err := db.NextCard(ctx, learner(t, db, user), "", now)
		if err != nil || !next.Found {
			t.Fatalf("NextCard = %+v, %v", next.Found, err)
		}
		if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: next.Card.Question.ID, RequestID: reqID(i),
			Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		change string
		want   int64
	}{
		{"after three cards in order", "", 30},
		{"a question added after the cursor", `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload,
			explanation, origin, status, content_hash, created_at, updated_at)
			SELECT deck_id, 'late', 35, type, prompt, payload, explanation, origin, 'published', content_hash, 0, 0
			FROM questions WHERE ext_id = 'q0'`, 30},
		{"a question added before it", `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload,
			explanation, origin, status, content_hash, created_at, updated_at)
			SELECT deck_id, 'early', 15, type, prompt, payload, explanation, origin, 'published', content_hash, 0, 0
			FROM questions WHERE ext_id = 'q0'`, 14},
		{"a studied question moved back", `UPDATE questions SET position = 1 WHERE ext_id = 'q1'`, 14},
		{"a new question moved back", `UPDATE questions SET position = 2 WHERE ext_id = 'q4'`, 1},
	}
	for _, tt := range tests {
		if tt.change != "" {
			if _, err := db.write.Exec(tt.change); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		if got := cursor(); got != tt.want {
			t.Errorf("%s: cursor at %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestExhaustedSubscription checks that studying every question of a
// subscribed deck marks the subscription exhausted, so that the search of
// every deck skips it, and that a question published in the deck, or moved
// into it, opens it again.
func TestExhaustedSubscription(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	user := addStudyUser(t, db, "alice", studyUserOpts{newPerDay: 1000})
	d1, d2 := addStudyDeck(t, db, "d1", "1.36"), addStudyDeck(t, db, "d2", "1.36")
	for p := range 3 {
		addStudyQuestion(t, db, d1, p+1, quiz.Published, sampleQuestion(fmt.Sprintf("a%d", p)))
	}
	other := addStudyQuestion(t, db, d2, 1, quiz.Published, sampleQuestion("b0"))
	draft := addStudyQuestion(t, db, d1, 9, quiz.Draft, sampleQuestion("a9"))
	subscribe(t, db, user, "d1")
	subscribe(t, db, user, "d2")
	exhausted := func(deck int64) bool {
		return countRows(t, db, `SELECT exhausted FROM subscriptions WHERE user_id = ? AND deck_id = ?`, user, deck) == 1
	}
	for i := range 3 {
		if exhausted(d1) {
			t.Fatalf("d1 exhausted after %d of its 3 questions", i)
		}
		next, err := db.NextCard(ctx, learner(t, db, user), "", now)
		if err != nil || !next.Found || next.Card.Question.DeckID != d1 {
			t.Fatalf("NextCard = %+v, %v; want a card of d1", next.Card.Question, err)
		}
		if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: next.Card.Question.ID, RequestID: reqID(i),
			Rating: fsrs.Easy, Response: quiz.Response{Choice: 1}, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	if !exhausted(d1) || exhausted(d2) {
		t.Fatalf("after studying all of d1: d1 exhausted %v, d2 exhausted %v; want true, false", exhausted(d1), exhausted(d2))
	}
	tests := []struct {
		name, change string
		arg          int64
	}{
		{"a draft published", `UPDATE questions SET status = 'published' WHERE id = ?`, draft},
		{"a question moved in from another deck", `UPDATE questions SET deck_id = 1, position = 0 WHERE id = ?`, other},
	}
	for _, tt := range tests {
		if _, err := db.write.Exec(`UPDATE subscriptions SET exhausted = 1 WHERE user_id = ? AND deck_id = ?`, user, d1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.Exec(tt.change, tt.arg); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if exhausted(d1) {
			t.Errorf("%s: d1 still exhausted", tt.name)
		}
		next, err := db.NextCard(ctx, learner(t, db, user), "", now)
		if err != nil || !next.Found || next.Card.Question.ID != tt.arg {
			t.Errorf("%s: NextCard serves %+v, %v; want question %d", tt.name, next.Card.Question.ID, err, tt.arg)
		}
	}
}
