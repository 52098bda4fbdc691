package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	_ "time/tzdata" // time zones in tests do not depend on the machine

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// Fixtures for the study tests. They write rows directly: users until the
// accounts code offers a constructor, questions without an import run.

type studyUserOpts struct {
	tz            string
	newPerDay     int
	reviewsPerDay int
}

// addStudyUser inserts a user and returns its id.
func addStudyUser(tb testing.TB, db *DB, login string, o studyUserOpts) int64 {
	tb.Helper()
	if o.tz == "" {
		o.tz = "Asia/Tokyo"
	}
	if o.newPerDay == 0 {
		o.newPerDay = 20
	}
	if o.reviewsPerDay == 0 {
		o.reviewsPerDay = 200
	}
	res, err := db.write.Exec(`INSERT INTO users (login, password_hash, timezone, new_per_day, reviews_per_day,
		created_at, password_changed_at) VALUES (?, 'x', ?, ?, ?, 0, 0)`, login, o.tz, o.newPerDay, o.reviewsPerDay)
	if err != nil {
		tb.Fatalf("add user %s: %v", login, err)
	}
	id, _ := res.LastInsertId()
	return id
}

// learner reads a user back, settings included, as the session lookup
// hands it to the study queue.
func learner(tb testing.TB, db *DB, id int64) quiz.User {
	tb.Helper()
	u, err := db.UserByID(context.Background(), id)
	if err != nil {
		tb.Fatalf("user %d: %v", id, err)
	}
	return u
}

// addStudyDeck inserts a deck and returns its id.
func addStudyDeck(tb testing.TB, db *DB, slug, release string) int64 {
	tb.Helper()
	res, err := db.write.Exec(`INSERT INTO decks (slug, title, release, sig, created_at, updated_at)
		VALUES (?, ?, ?, 'node', 0, 0)`, slug, "Deck "+slug, release)
	if err != nil {
		tb.Fatalf("add deck %s: %v", slug, err)
	}
	id, _ := res.LastInsertId()
	return id
}

// sampleQuestion is a valid single-choice question whose answer is "b"
// (choice index 1).
func sampleQuestion(extID string) quiz.Question {
	return quiz.Question{
		ExtID: extID, Type: quiz.SingleChoice, Prompt: "prompt " + extID,
		Choices: []string{"a", "b", "c"}, Answer: "b", Explanation: "because",
		Source: quiz.Source{Release: "1.36", SIG: "node", PRs: []int{136711}},
	}
}

// addStudyQuestion inserts q into a deck at a position with a status and
// returns its row id.
func addStudyQuestion(tb testing.TB, db *DB, deckID int64, pos int, status quiz.Status, q quiz.Question) int64 {
	tb.Helper()
	payload, prs, tags, err := encodeQuestion(q)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := db.write.Exec(`INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation,
		release, sig, kind, pr_numbers, tags, origin, status, content_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'yaml', ?, ?, 0, 0)`,
		deckID, q.ExtID, pos, string(q.Type), q.Prompt, payload, q.Explanation,
		q.Source.Release, q.Source.SIG, q.Source.Kind, prs, tags, string(status), q.ContentHash())
	if err != nil {
		tb.Fatalf("add question %s: %v", q.ExtID, err)
	}
	id, _ := res.LastInsertId()
	return id
}

// setCard writes a card row directly.
func setCard(tb testing.TB, db *DB, userID, questionID int64, c fsrs.Card) {
	tb.Helper()
	var last any
	if !c.LastReview.IsZero() {
		last = ms(c.LastReview)
	}
	_, err := db.write.Exec(`INSERT OR REPLACE INTO cards (user_id, question_id, state, due, stability, difficulty,
		elapsed_days, scheduled_days, learning_steps, reps, lapses, last_review)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		userID, questionID, int(c.State), ms(c.Due), c.Stability, c.Difficulty, c.ElapsedDays, c.ScheduledDays,
		c.LearningSteps, c.Reps, c.Lapses, last)
	if err != nil {
		tb.Fatalf("set card %d/%d: %v", userID, questionID, err)
	}
}

// reviewCard is a card in the given state due at due, last reviewed a
// little before.
func reviewCard(state fsrs.State, due time.Time) fsrs.Card {
	return fsrs.Card{State: state, Due: due, Stability: 3, Difficulty: 5, ScheduledDays: 3, Reps: 2,
		LastReview: due.Add(-72 * time.Hour)}
}

func subscribe(tb testing.TB, db *DB, userID int64, slug string) {
	tb.Helper()
	if _, err := db.SetSubscription(context.Background(), userID, slug, true, time.Unix(0, 0)); err != nil {
		tb.Fatalf("subscribe %d to %s: %v", userID, slug, err)
	}
}

// readCard reads a stored card back; ok is false when there is none.
func readCard(tb testing.TB, db *DB, userID, questionID int64) (c fsrs.Card, ok bool) {
	tb.Helper()
	var cr cardRow
	err := db.read.QueryRow(`SELECT `+cardColumns+` FROM cards c WHERE user_id = ? AND question_id = ?`,
		userID, questionID).Scan(cr.dests()...)
	if err == sql.ErrNoRows {
		return c, false
	}
	if err != nil {
		tb.Fatal(err)
	}
	c, _ = cr.card(time.Time{})
	return c, true
}

func countRows(tb testing.TB, db *DB, query string, args ...any) int {
	tb.Helper()
	var n int
	if err := db.read.QueryRow(query, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}

func reqID(i int) string { return fmt.Sprintf("%032x", i) }
