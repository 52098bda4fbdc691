package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/quiz"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// deckYAML builds a valid question file with n single-choice questions.
// edit, when given, may change question i's prompt.
func deckYAML(slug string, n int, edit func(i int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "deck:\n  slug: %s\n  title: %s\n  release: \"1.36\"\n  sig: SIG-Node\n  language: ja\nquestions:\n", slug, slug)
	for i := 0; i < n; i++ {
		prompt := fmt.Sprintf("Question %d about feature Gate%d?", i, i)
		if edit != nil {
			if p := edit(i); p != "" {
				prompt = p
			}
		}
		fmt.Fprintf(&b, "  - id: q-%05d\n    type: single_choice\n    prompt: %q\n    choices: [\"alpha\", \"beta\", \"GA\"]\n    answer: beta\n"+
			"    explanation: Gate%d moved to beta.\n    source: {release: \"1.36\", sig: SIG-Node, kind: feature, prs: [%d]}\n", i, prompt, i, 100000+i)
	}
	return b.String()
}

func decodeFile(t testing.TB, name, src string) bank.Decoded {
	t.Helper()
	f, err := bank.Decode(name, []byte(src))
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return bank.Decoded{SHA256: "sum-" + name, File: f}
}

func counts(r DeckResult) [4]int {
	p := r.Plan
	return [4]int{len(p.Added), len(p.Updated), len(p.Unchanged), len(p.Retired)}
}

func TestImportBank(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	file := decodeFile(t, "a.yaml", deckYAML("deck-a", 5, nil))

	// A dry run reports and writes nothing.
	before, err := db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.ImportBank(ctx, []bank.Decoded{file}, ImportOptions{Actor: "test", DryRun: true, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(res[0]), [4]int{5, 0, 0, 0}; got != want {
		t.Errorf("dry run counts = %v, want %v", got, want)
	}
	after, _ := db.TableChecksums(ctx)
	if !maps.Equal(before, after) {
		t.Fatalf("dry run changed the database")
	}

	res, err = db.ImportBank(ctx, []bank.Decoded{file}, ImportOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(res[0]), [4]int{5, 0, 0, 0}; got != want {
		t.Errorf("first import counts = %v, want %v", got, want)
	}
	qs, err := db.DeckQuestions(ctx, "deck-a", true)
	if err != nil || len(qs) != 5 {
		t.Fatalf("DeckQuestions = %d, %v; want 5", len(qs), err)
	}
	if qs[2].Question.ContentHash() != file.File.Questions[2].ContentHash() {
		t.Errorf("stored question does not round-trip: %+v", qs[2].Question)
	}

	// A learner has history on question 3.
	q3 := qs[3].ID
	userID := importTestUser(t, db, "alice")
	importTestExec(t, db, `INSERT INTO cards (user_id, question_id, state, due, stability, difficulty, elapsed_days, scheduled_days, learning_steps, reps, lapses, last_review)
		VALUES (?, ?, 2, 0, 3.2, 5.1, 0, 3, 0, 2, 0, 0)`, userID, q3)
	importTestExec(t, db, `INSERT INTO review_log (request_id, user_id, question_id, rating, reviewed_at, state_before, due_before, stability_before,
		difficulty_before, elapsed_days, retrievability, state_after, due_after, stability_after, difficulty_after, scheduled_days, correct)
		VALUES ('r1', ?, ?, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 3.2, 5.1, 3, 1)`, userID, q3)

	// Re-importing the same file changes nothing but the import record.
	before, _ = db.TableChecksums(ctx)
	res, err = db.ImportBank(ctx, []bank.Decoded{file}, ImportOptions{Actor: "test", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(res[0]), [4]int{0, 0, 5, 0}; got != want {
		t.Errorf("re-import counts = %v, want %v", got, want)
	}
	after, _ = db.TableChecksums(ctx)
	delete(before, "import_runs")
	delete(after, "import_runs")
	if !maps.Equal(before, after) {
		t.Errorf("re-importing an unchanged file changed tables: before %v after %v", before, after)
	}

	// Reword question 3: it is updated in place and keeps its history.
	edited := decodeFile(t, "a.yaml", deckYAML("deck-a", 5, func(i int) string {
		if i == 3 {
			return "Reworded: which stage did Gate3 reach?"
		}
		return ""
	}))
	res, err = db.ImportBank(ctx, []bank.Decoded{edited}, ImportOptions{Actor: "test", Now: t0.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(res[0]), [4]int{0, 1, 4, 0}; got != want {
		t.Errorf("edited import counts = %v, want %v", got, want)
	}
	if ch := res[0].Changes["q-00003"]; len(ch) != 1 || ch[0].Field != "prompt" {
		t.Errorf("changes of q-00003 = %+v, want one prompt change", ch)
	}
	sq, err := db.Question(ctx, q3)
	if err != nil {
		t.Fatal(err)
	}
	if sq.Question.Prompt != "Reworded: which stage did Gate3 reach?" || sq.Question.ExtID != "q-00003" {
		t.Errorf("question %d after edit = %q (%s)", q3, sq.Question.Prompt, sq.Question.ExtID)
	}
	var cards, reviews int
	db.read.QueryRowContext(ctx, `SELECT count(*) FROM cards WHERE question_id = ?`, q3).Scan(&cards)
	db.read.QueryRowContext(ctx, `SELECT count(*) FROM review_log WHERE question_id = ?`, q3).Scan(&reviews)
	if cards != 1 || reviews != 1 {
		t.Errorf("after the edit: %d cards and %d reviews on question %d, want 1 and 1", cards, reviews, q3)
	}

	// Dropping a question from the file retires it only with prune.
	short := decodeFile(t, "a.yaml", deckYAML("deck-a", 3, nil))
	res, err = db.ImportBank(ctx, []bank.Decoded{short}, ImportOptions{Actor: "test", Now: t0.Add(3 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(res[0]), [4]int{0, 0, 3, 0}; got != want {
		t.Errorf("import without prune counts = %v, want %v", got, want)
	}
	res, err = db.ImportBank(ctx, []bank.Decoded{short}, ImportOptions{Actor: "test", Prune: true, Now: t0.Add(4 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := counts(res[0]), [4]int{0, 0, 3, 2}; got != want {
		t.Errorf("import with prune counts = %v, want %v", got, want)
	}
	all, _ := db.DeckQuestions(ctx, "deck-a", false)
	published, _ := db.DeckQuestions(ctx, "deck-a", true)
	if len(all) != 5 || len(published) != 3 {
		t.Errorf("after prune: %d questions, %d published; want 5 kept, 3 published", len(all), len(published))
	}
	sq, _ = db.Question(ctx, q3)
	if sq.Status != quiz.Retired {
		t.Errorf("pruned question status = %s, want retired", sq.Status)
	}

	runs, err := db.ImportRuns(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5 || runs[0].Actor != "test" || runs[0].SHA256 != "sum-a.yaml" || runs[0].Retired != 2 {
		t.Errorf("import runs = %+v", runs)
	}
}

func TestImportAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	if _, err := db.ImportBank(ctx, []bank.Decoded{decodeFile(t, "a.yaml", deckYAML("deck-a", 3, nil))}, ImportOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	before, _ := db.TableChecksums(ctx)

	// The second file repeats the first's deck: the whole import is refused,
	// including the new deck of the file before it.
	files := []bank.Decoded{
		decodeFile(t, "b.yaml", deckYAML("deck-b", 2, nil)),
		decodeFile(t, "a.yaml", deckYAML("deck-a", 4, nil)),
		decodeFile(t, "a2.yaml", deckYAML("deck-a", 1, nil)),
	}
	_, err := db.ImportBank(ctx, files, ImportOptions{Actor: "test", Now: t0})
	if !errors.Is(err, quiz.ErrInvalid) || !strings.Contains(err.Error(), "a2.yaml") {
		t.Fatalf("import = %v, want an invalid-input error naming a2.yaml", err)
	}
	if after, _ := db.TableChecksums(ctx); !maps.Equal(before, after) {
		t.Errorf("a refused import changed the database")
	}
	// A failure inside the transaction, after other files were written, also
	// rolls everything back: a generated question already holds an id.
	importTestExec(t, db, `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation, origin, status, content_hash, created_at, updated_at)
		SELECT id, 'q-00003', 99, 'typed', 'p', '{}', 'e', 'generated', 'draft', 'h', 0, 0 FROM decks WHERE slug = 'deck-a'`)
	before, _ = db.TableChecksums(ctx)
	files = []bank.Decoded{
		decodeFile(t, "b.yaml", deckYAML("deck-b", 2, nil)),
		decodeFile(t, "a.yaml", deckYAML("deck-a", 4, nil)),
	}
	_, err = db.ImportBank(ctx, files, ImportOptions{Actor: "test", Now: t0})
	if !errors.Is(err, quiz.ErrConflict) {
		t.Fatalf("import over a generated id = %v, want a conflict", err)
	}
	after, _ := db.TableChecksums(ctx)
	if !maps.Equal(before, after) {
		t.Errorf("a failed import changed the database")
	}
}

// BenchmarkImport measures importing 10,000 new questions into a fresh
// database, and re-importing them unchanged.
func BenchmarkImport(b *testing.B) {
	ctx := context.Background()
	const perFile, nFiles = 1000, 10
	var files []bank.Decoded
	for i := 0; i < nFiles; i++ {
		files = append(files, decodeFile(b, fmt.Sprintf("f%d.yaml", i), deckYAML(fmt.Sprintf("deck-%d", i), perFile, nil)))
	}
	b.Run("new-10000", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := db.ImportBank(ctx, files, ImportOptions{Actor: "bench", Now: t0}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			db.Close()
			b.StartTimer()
		}
	})
	b.Run("unchanged-10000", func(b *testing.B) {
		db, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ImportBank(ctx, files, ImportOptions{Actor: "bench", Now: t0}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			res, err := db.ImportBank(ctx, files, ImportOptions{Actor: "bench", Now: t0})
			if err != nil {
				b.Fatal(err)
			}
			if len(res[0].Plan.Unchanged) != perFile {
				b.Fatalf("re-import changed questions: %v", counts(res[0]))
			}
		}
	})
}

func importTestUser(t *testing.T, db *DB, login string) int64 {
	t.Helper()
	var id int64
	err := db.write.QueryRow(`INSERT INTO users (login, password_hash, created_at, password_changed_at) VALUES (?, 'x', 0, 0) RETURNING id`, login).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func importTestExec(t *testing.T, db *DB, query string, args ...any) {
	t.Helper()
	if _, err := db.write.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestImportDryRunReadsOnly shows that a dry run neither waits for nor takes
// the write lock, and still reports an id that a generated question holds.
func TestImportDryRunReadsOnly(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	file := decodeFile(t, "a.yaml", deckYAML("deck-a", 3, nil))
	if _, err := db.ImportBank(ctx, []bank.Decoded{file}, ImportOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	importTestExec(t, db, `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation, origin, status, content_hash, created_at, updated_at)
		SELECT id, 'q-00003', 99, 'typed', 'p', '{}', 'e', 'generated', 'draft', 'h', 0, 0 FROM decks WHERE slug = 'deck-a'`)

	// Another writer holds the write lock for the whole dry run.
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	res, err := db.ImportBank(dctx, []bank.Decoded{decodeFile(t, "a.yaml", deckYAML("deck-a", 3, nil))}, ImportOptions{Actor: "test", DryRun: true, Now: t0})
	if err != nil {
		t.Fatalf("dry run while another transaction writes: %v", err)
	}
	if got, want := counts(res[0]), [4]int{0, 0, 3, 0}; got != want {
		t.Errorf("dry run counts = %v, want %v", got, want)
	}
	_, err = db.ImportBank(dctx, []bank.Decoded{decodeFile(t, "a.yaml", deckYAML("deck-a", 4, nil))}, ImportOptions{Actor: "test", DryRun: true, Now: t0})
	if !errors.Is(err, quiz.ErrConflict) {
		t.Errorf("dry run adding an id a generated question holds = %v, want a conflict", err)
	}
}
