package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
)

// This file holds the API exported for tests of other packages (and for
// store's own): the server never calls it. The tests use it to open the
// database file beside a DB, to check the schema version and to read back
// what an operation stored.

// DSN returns the modernc.org/sqlite data source name for path, with
// kubequiz's default settings. The driver applies them to every
// connection.
func DSN(path string) string { return dsn(path, SyncNormal) }

// LatestSchema is the schema version this build writes.
func LatestSchema() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

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

// BulkReviews adds n reviews of userID directly, in one transaction and
// one statement, for benchmarks and tests that read many reviews: review
// i is of questionIDs[i % len(questionIDs)] with answers[i %
// len(questionIDs)], at start + i*step, rated 1 to 4 in turn (correct
// unless rated 1), taking 4 to 13 seconds. The first review of each
// question is that of a new card; later ones are of a card in review,
// due a day before, each scheduling 3 days. No card is written.
func (db *DB) BulkReviews(ctx context.Context, userID int64, questionIDs []int64, answers []quiz.Response, n int, start time.Time, step time.Duration) error {
	if len(questionIDs) == 0 || len(answers) != len(questionIDs) {
		return fmt.Errorf("store: bulk reviews: %d questions, %d answers", len(questionIDs), len(answers))
	}
	ids, err := json.Marshal(questionIDs)
	if err != nil {
		return fmt.Errorf("store: bulk reviews: %w", err)
	}
	answerJSON, err := json.Marshal(answers)
	if err != nil {
		return fmt.Errorf("store: bulk reviews: %w", err)
	}
	err = db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?1),
			r(i, k, at) AS (SELECT i, i % ?2, ?3 + i * ?4 FROM seq)
			INSERT INTO review_log (request_id, user_id, question_id, rating, answer, correct, reviewed_at, duration_ms,
				state_before, due_before, stability_before, difficulty_before, elapsed_days, retrievability,
				state_after, due_after, stability_after, difficulty_after, scheduled_days)
			SELECT 'bulk-' || (SELECT coalesce(max(id), 0) FROM review_log) || '-' || i, ?5, json_extract(?6, '$[' || k || ']'), 1 + i % 4,
				json_extract(?7, '$[' || k || ']'), i % 4 > 0, at, 4000 + i % 9000,
				CASE WHEN i < ?2 THEN 0 ELSE 2 END, CASE WHEN i < ?2 THEN at ELSE at - 86400000 END, 3, 5, 3, 0.9,
				2, at + 3 * 86400000, 3.5, 5, 3
			FROM r`, n, len(questionIDs), ms(start), step.Milliseconds(), userID, string(ids), string(answerJSON))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: bulk reviews: %w", err)
	}
	return nil
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
