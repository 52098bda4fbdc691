package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// This file holds the API exported for tests of other packages (and for
// store's own): the server never calls it. The tests use it to open the
// database file beside a DB, to read back what an operation stored, to
// ingest one document at a time, to count or clear sign-in failures
// directly and to give a learner a card as it is.

// DSN returns the modernc.org/sqlite data source name for path, with
// kubequiz's default settings. The driver applies them to every
// connection.
func DSN(path string) string { return dsn(path, SyncNormal) }

// Path is the database file's path.
func (db *DB) Path() string { return db.path }

// Question returns one question by row id, whatever its status.
func (db *DB) Question(ctx context.Context, id int64) (StoredQuestion, error) {
	row := db.read.QueryRowContext(ctx, `SELECT `+questionColumns+`
		FROM questions q JOIN decks d ON d.id = q.deck_id WHERE q.id = ?`, id)
	sq, err := scanQuestion(row)
	if errors.Is(err, sql.ErrNoRows) {
		return sq, fmt.Errorf("store: question %d: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return sq, fmt.Errorf("store: question %d: %w", id, err)
	}
	return sq, nil
}

// DeckQuestions returns the questions of a deck in deck order; with
// published set, only published ones.
func (db *DB) DeckQuestions(ctx context.Context, slug string, published bool) ([]StoredQuestion, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+questionColumns+`
		FROM questions q JOIN decks d ON d.id = q.deck_id
		WHERE d.slug = ? AND (? = 0 OR q.status = 'published')
		ORDER BY q.position, q.id`, slug, published)
	if err != nil {
		return nil, fmt.Errorf("store: questions of deck %s: %w", slug, err)
	}
	defer rows.Close()
	var out []StoredQuestion
	for rows.Next() {
		sq, err := scanQuestion(rows)
		if err != nil {
			return nil, fmt.Errorf("store: questions of deck %s: %w", slug, err)
		}
		out = append(out, sq)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: questions of deck %s: %w", slug, err)
	}
	return out, nil
}

// TableChecksums returns a SHA-256 of every table's full content, keyed by
// table name. Two databases (or one, before and after an operation) with the
// same checksums hold the same data. It is meant for tests and checks of
// all-or-nothing operations; it reads every row.
func (db *DB) TableChecksums(ctx context.Context) (map[string]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: list tables: %w", err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	sums := make(map[string]string, len(tables))
	for _, t := range tables {
		sum, err := db.tableChecksum(ctx, t)
		if err != nil {
			return nil, err
		}
		sums[t] = sum
	}
	return sums, nil
}

// tableChecksum hashes one table. The name comes from sqlite_schema, never
// from input, and is quoted as an identifier.
func (db *DB) tableChecksum(ctx context.Context, table string) (string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT * FROM "`+table+`" ORDER BY 1, 2`)
	if err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	h := sha256.New()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", fmt.Errorf("store: checksum %s: %w", table, err)
		}
		for _, v := range vals {
			fmt.Fprintf(h, "%T:%v\x1f", v, v)
		}
		h.Write([]byte{'\n'})
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PutCard writes userID's card for questionID as c, in place of any: a
// learner's memory of a question as a test needs it, without the reviews
// that would lead to it.
func (db *DB) PutCard(ctx context.Context, userID, questionID int64, c fsrs.Card) error {
	var last any
	if !c.LastReview.IsZero() {
		last = ms(c.LastReview)
	}
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, saveCardQuery, userID, questionID, int(c.State), ms(c.Due), c.Stability, c.Difficulty,
			c.ElapsedDays, c.ScheduledDays, c.LearningSteps, c.Reps, c.Lapses, last)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put card %d of user %d: %w", questionID, userID, err)
	}
	return nil
}

// IngestChangelog stores one document and the questions generated from it;
// see IngestChangelogs.
func (db *DB) IngestChangelog(ctx context.Context, in ChangelogInput, opt IngestOptions) (IngestResult, error) {
	rs, err := db.IngestChangelogs(ctx, []ChangelogInput{in}, opt)
	if err != nil {
		return IngestResult{}, err
	}
	return rs[0], nil
}

// ClearLoginFailures forgets the failures of login from ip after a right
// password. Failures from other addresses, and of ip for other logins, stay.
func (db *DB) ClearLoginFailures(ctx context.Context, login, ip string) error {
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM login_failures WHERE login = ? AND ip = ?`, strings.ToLower(login), RateKey(ip))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: clear sign-in failures: %w", err)
	}
	return nil
}

// LoginFailures counts the failures recorded since a time.
func (db *DB) LoginFailures(ctx context.Context, login, ip string, since time.Time) (LoginFailureCounts, error) {
	c, err := countFailures(ctx, db.read, strings.ToLower(login), RateKey(ip), ms(since))
	if err != nil {
		return c, fmt.Errorf("store: count sign-in failures: %w", err)
	}
	return c, nil
}
