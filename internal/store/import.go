package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/quiz"
)

// errDryRun rolls back a dry-run import after it has computed everything.
var errDryRun = errors.New("dry run")

// ImportOptions says who imports and how.
type ImportOptions struct {
	Actor  string // a user's login, "cli" or "bundled"
	Prune  bool   // retire stored questions that the file no longer has
	DryRun bool   // compute the result, change nothing
	Now    time.Time
	// uploadID is the admin page's upload being applied (ImportUpload),
	// recorded with each file's run.
	uploadID string
}

// DeckResult is what an import did (or would do) to one deck.
type DeckResult struct {
	File string
	Plan bank.DeckPlan
	// Existing is true when the deck was stored before; DeckChanges then
	// lists the fields of the deck itself (its title, release, SIG,
	// language, description) that change.
	Existing    bool
	DeckChanges []bank.FieldChange
	// Changes lists, for each updated question id, the fields that change.
	Changes map[string][]bank.FieldChange
}

// ImportBank applies question files in one transaction: any error and
// nothing changes. Decks are matched by slug and questions by id, so a
// reworded question keeps its row and learners' history. A dry run computes
// the same result and rolls back.
func (db *DB) ImportBank(ctx context.Context, files []bank.Decoded, opt ImportOptions) ([]DeckResult, error) {
	if err := distinctDecks(files); err != nil {
		return nil, fmt.Errorf("store: import: %w", err)
	}
	if opt.DryRun {
		results, err := db.planFiles(ctx, files, opt.Prune)
		if err != nil {
			return nil, fmt.Errorf("store: import: %w", err)
		}
		return results, nil
	}
	var results []DeckResult
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		results, err = importFiles(ctx, tx, files, opt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: import: %w", err)
	}
	return results, nil
}

// planFiles computes a dry run on the read pool: it writes nothing and so
// never holds the write lock that learners' reviews need.
func (db *DB) planFiles(ctx context.Context, files []bank.Decoded, prune bool) ([]DeckResult, error) {
	results := make([]DeckResult, 0, len(files))
	for _, f := range files {
		deckID, prior, err := storedDeck(ctx, db.read, f.File.Deck.Slug)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File.Name, err)
		}
		r, err := planFile(ctx, db.read, deckID, prior, f, prune)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File.Name, err)
		}
		results = append(results, r)
	}
	return results, nil
}

// ImportUpload applies files, decoded from the upload id of userID, and
// drops the upload, in one transaction. The upload is dropped first: when it
// is already gone (applied or cancelled by a request that came first) the
// result is quiz.ErrNotFound and nothing is imported, so that a repeated
// submit imports once. opt.DryRun is ignored.
func (db *DB) ImportUpload(ctx context.Context, id string, userID int64, files []bank.Decoded, opt ImportOptions) ([]DeckResult, error) {
	if err := distinctDecks(files); err != nil {
		return nil, fmt.Errorf("store: import upload %s: %w", id, err)
	}
	var results []DeckResult
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := takeUpload(ctx, tx, id, userID, "yaml"); err != nil {
			return err
		}
		var err error
		opt.DryRun, opt.uploadID = false, id
		results, err = importFiles(ctx, tx, files, opt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: import upload %s: %w", id, err)
	}
	return results, nil
}

// storedDeck reads the deck slug: its id and fields, or 0 and nil when it
// is not stored.
func storedDeck(ctx context.Context, q querier, slug string) (int64, *quiz.Deck, error) {
	var (
		id int64
		d  = quiz.Deck{Slug: slug}
	)
	err := q.QueryRowContext(ctx, `SELECT id, title, release, sig, language, description FROM decks WHERE slug = ?`, slug).
		Scan(&id, &d.Title, &d.Release, &d.SIG, &d.Language, &d.Description)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("deck %s: %w", slug, err)
	}
	return id, &d, nil
}

// deckChanges lists the fields of a stored deck that an import changes.
func deckChanges(old, new quiz.Deck) []bank.FieldChange {
	var out []bank.FieldChange
	for _, f := range []struct{ name, old, new string }{
		{"title", old.Title, new.Title},
		{"release", old.Release, new.Release},
		{"sig", old.SIG, new.SIG},
		{"language", old.Language, new.Language},
		{"description", old.Description, new.Description},
	} {
		if f.old != f.new {
			out = append(out, bank.FieldChange{Field: f.name, Old: f.old, New: f.new})
		}
	}
	return out
}

// distinctDecks refuses two files of one deck.
func distinctDecks(files []bank.Decoded) error {
	seen := map[string]string{}
	for _, f := range files {
		if prev, dup := seen[f.File.Deck.Slug]; dup {
			return fmt.Errorf("deck %q is in both %s and %s: %w", f.File.Deck.Slug, prev, f.File.Name, quiz.ErrInvalid)
		}
		seen[f.File.Deck.Slug] = f.File.Name
	}
	return nil
}

// importFiles applies each file in tx.
func importFiles(ctx context.Context, tx *sql.Tx, files []bank.Decoded, opt ImportOptions) ([]DeckResult, error) {
	results := make([]DeckResult, 0, len(files))
	for _, f := range files {
		r, err := importFile(ctx, tx, f, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File.Name, err)
		}
		results = append(results, r)
	}
	return results, nil
}

func importFile(ctx context.Context, tx *sql.Tx, f bank.Decoded, opt ImportOptions) (DeckResult, error) {
	now := ms(opt.Now)
	d := f.File.Deck
	priorID, prior, err := storedDeck(ctx, tx, d.Slug)
	if err != nil {
		return DeckResult{}, err
	}
	var deckID int64
	err = tx.QueryRowContext(ctx, `
		INSERT INTO decks (slug, title, release, sig, language, description, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (slug) DO UPDATE SET
			title = excluded.title, release = excluded.release, sig = excluded.sig,
			language = excluded.language, description = excluded.description, updated_at = excluded.updated_at
		WHERE (title, release, sig, language, description) IS NOT
		      (excluded.title, excluded.release, excluded.sig, excluded.language, excluded.description)
		RETURNING id`, d.Slug, d.Title, d.Release, d.SIG, d.Language, d.Description, now, now).Scan(&deckID)
	if errors.Is(err, sql.ErrNoRows) && prior != nil { // the deck exists unchanged: nothing was returned
		deckID, err = priorID, nil
	}
	if err != nil {
		return DeckResult{}, fmt.Errorf("deck %s: %w", d.Slug, err)
	}

	res, err := planFile(ctx, tx, deckID, prior, f, opt.Prune)
	if err != nil {
		return res, err
	}
	plan := res.Plan

	added := set(plan.Added)
	updated := set(plan.Updated)
	insert, err := tx.PrepareContext(ctx, `
		INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation, release, sig, kind,
			pr_numbers, source_url, tags, origin, status, content_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'yaml', 'published', ?, ?, ?)`)
	if err != nil {
		return res, err
	}
	defer insert.Close()
	update, err := tx.PrepareContext(ctx, `
		UPDATE questions SET position = ?, type = ?, prompt = ?, payload = ?, explanation = ?, release = ?, sig = ?,
			kind = ?, pr_numbers = ?, source_url = ?, tags = ?, status = 'published', content_hash = ?, updated_at = ?
		WHERE deck_id = ? AND ext_id = ?`)
	if err != nil {
		return res, err
	}
	defer update.Close()
	move, err := tx.PrepareContext(ctx, `UPDATE questions SET position = ? WHERE deck_id = ? AND ext_id = ? AND position <> ?`)
	if err != nil {
		return res, err
	}
	defer move.Close()

	for i, q := range f.File.Questions {
		switch {
		case added[q.ExtID]:
			payload, prs, tags, err := encodeQuestion(q)
			if err != nil {
				return res, fmt.Errorf("question %s: %w", q.ExtID, err)
			}
			if _, err := insert.ExecContext(ctx, deckID, q.ExtID, i, q.Type, q.Prompt, payload, q.Explanation,
				q.Source.Release, q.Source.SIG, q.Source.Kind, prs, q.Source.URL, tags, q.ContentHash(), now, now); err != nil {
				return res, fmt.Errorf("add question %s: %w", q.ExtID, translate(err))
			}
		case updated[q.ExtID]:
			payload, prs, tags, err := encodeQuestion(q)
			if err != nil {
				return res, fmt.Errorf("question %s: %w", q.ExtID, err)
			}
			if _, err := update.ExecContext(ctx, i, q.Type, q.Prompt, payload, q.Explanation, q.Source.Release,
				q.Source.SIG, q.Source.Kind, prs, q.Source.URL, tags, q.ContentHash(), now, deckID, q.ExtID); err != nil {
				return res, fmt.Errorf("update question %s: %w", q.ExtID, err)
			}
		default:
			if _, err := move.ExecContext(ctx, i, deckID, q.ExtID, i); err != nil {
				return res, fmt.Errorf("reorder question %s: %w", q.ExtID, err)
			}
		}
	}
	for _, id := range plan.Retired {
		if _, err := tx.ExecContext(ctx, `UPDATE questions SET status = 'retired', updated_at = ? WHERE deck_id = ? AND ext_id = ?`,
			now, deckID, id); err != nil {
			return res, fmt.Errorf("retire question %s: %w", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO import_runs (actor, kind, file_name, sha256, added, updated, unchanged, retired, at, upload_id)
		VALUES (?, 'yaml', ?, ?, ?, ?, ?, ?, ?, ?)`, opt.Actor, f.File.Name, f.SHA256,
		len(plan.Added), len(plan.Updated), len(plan.Unchanged), len(plan.Retired), now, nullString(opt.uploadID)); err != nil {
		return res, fmt.Errorf("record import: %w", err)
	}
	return res, nil
}

// planFile computes what importing f does to the deck deckID (0 for a deck
// that does not exist yet), reading only: the plan, and the fields that
// change in the deck (prior is the deck as stored before the import, nil
// for a new one) and in each updated question. An id the file adds that a generated
// question of the deck already holds is a conflict.
func planFile(ctx context.Context, q querier, deckID int64, prior *quiz.Deck, f bank.Decoded, prune bool) (DeckResult, error) {
	res := DeckResult{File: f.File.Name, Changes: map[string][]bank.FieldChange{}, Existing: prior != nil}
	if prior != nil {
		res.DeckChanges = deckChanges(*prior, f.File.Deck)
	}
	var (
		stored []bank.Stored
		old    = map[string]quiz.Question{}
		taken  = map[string]bool{} // ext ids of questions that did not come from YAML
	)
	if deckID != 0 {
		rows, err := q.QueryContext(ctx, `SELECT `+questionColumns+`, q.content_hash
			FROM questions q JOIN decks d ON d.id = q.deck_id
			WHERE q.deck_id = ? ORDER BY q.position, q.id`, deckID)
		if err != nil {
			return res, fmt.Errorf("load stored questions: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var hash string
			sq, err := scanQuestion(scanWithExtra{rows, &hash})
			if err != nil {
				return res, fmt.Errorf("load stored questions: %w", err)
			}
			if sq.Origin != quiz.FromYAML {
				taken[sq.Question.ExtID] = true
				continue
			}
			stored = append(stored, bank.Stored{ExtID: sq.Question.ExtID, ContentHash: hash, Status: sq.Status})
			old[sq.Question.ExtID] = sq.Question
		}
		if err := rows.Err(); err != nil {
			return res, fmt.Errorf("load stored questions: %w", err)
		}
	}
	res.Plan = bank.Plan(stored, f.File, prune)
	for _, id := range res.Plan.Added {
		if taken[id] {
			return res, fmt.Errorf("add question %s: a generated question of deck %s has this id: %w", id, f.File.Deck.Slug, quiz.ErrConflict)
		}
	}
	updated := set(res.Plan.Updated)
	for _, nq := range f.File.Questions {
		if prev, ok := old[nq.ExtID]; ok && updated[nq.ExtID] {
			if ch := bank.Diff(prev, nq); len(ch) > 0 {
				res.Changes[nq.ExtID] = ch
			}
		}
	}
	return res, nil
}

// scanWithExtra scans questionColumns followed by more columns.
type scanWithExtra struct {
	row   scanner
	extra any
}

func (s scanWithExtra) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra)...) }

// ImportRun is one recorded import.
type ImportRun struct {
	Actor, Kind, FileName, SHA256      string
	Added, Updated, Unchanged, Retired int
	At                                 time.Time
}

// nullString is s, or NULL for "".
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// UploadRuns returns the runs, one per file, of the import ("yaml") or
// ingest ("changelog") that applied the admin page's upload id, in file
// order; none when it was never applied (cancelled, expired, unknown, or
// an upload of the other kind).
func (db *DB) UploadRuns(ctx context.Context, id, kind string) ([]ImportRun, error) {
	runs, err := db.importRuns(ctx, `WHERE upload_id = ? AND kind = ? ORDER BY id`, id, kind)
	if err != nil {
		return nil, fmt.Errorf("store: runs of upload %s: %w", id, err)
	}
	return runs, nil
}

// ImportRuns returns the most recent imports, newest first.
func (db *DB) ImportRuns(ctx context.Context, limit int) ([]ImportRun, error) {
	runs, err := db.importRuns(ctx, `ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: import runs: %w", err)
	}
	return runs, nil
}

// importRuns reads the runs that the clause (WHERE, ORDER BY, LIMIT, with
// its arguments) selects.
func (db *DB) importRuns(ctx context.Context, clause string, args ...any) ([]ImportRun, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT actor, kind, file_name, sha256, added, updated, unchanged, retired, at
		FROM import_runs `+clause, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ImportRun
	for rows.Next() {
		var r ImportRun
		var at int64
		if err := rows.Scan(&r.Actor, &r.Kind, &r.FileName, &r.SHA256, &r.Added, &r.Updated, &r.Unchanged, &r.Retired, &at); err != nil {
			return nil, err
		}
		r.At = fromMS(at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// IsEmpty reports whether the database holds no deck yet.
func (db *DB) IsEmpty(ctx context.Context) (bool, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM decks`).Scan(&n); err != nil {
		return false, fmt.Errorf("store: count decks: %w", err)
	}
	return n == 0, nil
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// translate turns SQLite constraint failures into domain errors; it is the
// one place that reads SQLite's error text.
func translate(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "UNIQUE constraint failed") {
		return fmt.Errorf("%w: %v", quiz.ErrConflict, err)
	}
	return err
}
