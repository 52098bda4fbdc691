package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kubequiz/internal/quiz"
)

// TestQuestionCacheFreshness changes a question that the study requests have
// already served, in every way a row can change, from this process and from
// another one on the same file, and checks that the next request serves the
// change.
func TestQuestionCacheFreshness(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		update string
		// served reports whether sq shows the update.
		served func(sq StoredQuestion) bool
	}{
		{"prompt", `UPDATE questions SET prompt = 'reworded' WHERE id = ?`,
			func(sq StoredQuestion) bool { return sq.Question.Prompt == "reworded" }},
		{"answer in the payload", `UPDATE questions SET payload = json_set(payload, '$.answer', 'c') WHERE id = ?`,
			func(sq StoredQuestion) bool { return sq.Question.Answer == "c" }},
		{"explanation and source", `UPDATE questions SET explanation = 'new reason', pr_numbers = '[1, 2]' WHERE id = ?`,
			func(sq StoredQuestion) bool {
				return sq.Question.Explanation == "new reason" && len(sq.Question.Source.PRs) == 2
			}},
		{"generator", `UPDATE questions SET generator = 'cloze' WHERE id = ?`,
			func(sq StoredQuestion) bool { return sq.Generator == "cloze" }},
		{"external id", `UPDATE questions SET ext_id = 'renamed' WHERE id = ?`,
			func(sq StoredQuestion) bool { return sq.Question.ExtID == "renamed" }},
	}
	for _, tt := range tests {
		for _, where := range []string{"same process", "other process"} {
			t.Run(tt.name+"/"+where, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "kubequiz.db")
				db := openAt(t, path)
				user := addStudyUser(t, db, "u", studyUserOpts{})
				deck := addStudyDeck(t, db, "d", "1.36")
				q := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q"))
				subscribe(t, db, user, "d")
				u := learner(t, db, user)
				serve := func() (queue, preview StoredQuestion) {
					t.Helper()
					n, err := db.NextCard(ctx, u, "", now)
					if err != nil || !n.Found {
						t.Fatalf("NextCard = %+v, %v", n.Found, err)
					}
					p, err := db.PreviewCard(ctx, user, q, now)
					if err != nil {
						t.Fatal(err)
					}
					return n.Card.Question, p.Question
				}
				if a, b := serve(); tt.served(a) || tt.served(b) {
					t.Fatal("the question shows the update before it is made")
				}
				writer := db
				if where == "other process" {
					writer = openAt(t, path)
				}
				if _, err := writer.write.Exec(tt.update, q); err != nil {
					t.Fatal(err)
				}
				queue, preview := serve()
				if !tt.served(queue) {
					t.Errorf("the queue serves %+v after the update", queue)
				}
				if !tt.served(preview) {
					t.Errorf("the answer page shows %+v after the update", preview)
				}
			})
		}
	}
}

// TestQuestionRevision checks that every update of a question row moves its
// revision on, once.
func TestQuestionRevision(t *testing.T) {
	db := newTestDB(t)
	deck := addStudyDeck(t, db, "d", "1.36")
	q := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q"))
	for i, update := range []string{
		`UPDATE questions SET prompt = 'p2' WHERE id = ?`,
		`UPDATE questions SET status = 'retired' WHERE id = ?`,
		`UPDATE questions SET status = 'published', position = 3 WHERE id = ?`,
		`UPDATE questions SET prompt = prompt WHERE id = ?`, // the same value is a change too
	} {
		if _, err := db.write.Exec(update, q); err != nil {
			t.Fatal(err)
		}
		if got := countRows(t, db, `SELECT revision FROM questions WHERE id = ?`, q); got != i+1 {
			t.Fatalf("after %q the revision is %d, want %d", update, got, i+1)
		}
	}
}
