package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
)

// This file holds the review of generated questions: listing them with
// their provenance, publishing, retiring and rewording them. Storing them
// is ingest.go's.

// DraftQuestion is a generated question with where it comes from.
type DraftQuestion struct {
	StoredQuestion
	Provenance quizgen.Provenance
	// SourceDocument is the key of the document the question was generated
	// from, DocumentID its row (0 if the document is gone).
	SourceDocument string
	DocumentID     int64
	// Edited is set when an admin has reworded the question.
	Edited    bool
	UpdatedAt time.Time
}

// DraftFilter selects generated questions. Empty fields match everything;
// no Statuses means drafts only.
type DraftFilter struct {
	Document string // a document key, e.g. "1.36/node"
	Deck     string // a deck slug
	Statuses []quiz.Status
}

// draftSelect selects questionColumns and the columns scanDraft adds.
const draftSelect = `SELECT ` + questionColumns + `, q.provenance, q.content_hash, q.generated_hash,
		q.source_document, coalesce(c.id, 0), q.updated_at
	FROM questions q JOIN decks d ON d.id = q.deck_id
	LEFT JOIN changelog_documents c ON c.doc_key = q.source_document
	WHERE q.origin = 'generated' `

func scanDraft(row scanner) (DraftQuestion, error) {
	var (
		dq                 DraftQuestion
		prov, content, gen string
		updated            int64
	)
	sq, err := scanQuestion(scanExtras{row, []any{&prov, &content, &gen, &dq.SourceDocument, &dq.DocumentID, &updated}})
	if err != nil {
		return dq, err
	}
	if err := json.Unmarshal([]byte(prov), &dq.Provenance); err != nil {
		return dq, fmt.Errorf("question %d provenance: %w", sq.ID, err)
	}
	dq.StoredQuestion, dq.Edited, dq.UpdatedAt = sq, content != gen, fromMS(updated)
	return dq, nil
}

// ListDrafts returns generated questions in deck order, with their provenance.
func (db *DB) ListDrafts(ctx context.Context, f DraftFilter) ([]DraftQuestion, error) {
	want := map[quiz.Status]bool{}
	for _, s := range f.Statuses {
		want[s] = true
	}
	if len(want) == 0 {
		want[quiz.Draft] = true
	}
	rows, err := db.read.QueryContext(ctx, draftSelect+`AND (? = '' OR q.source_document = ?) AND (? = '' OR d.slug = ?)
		ORDER BY d.slug, q.position, q.id`, f.Document, f.Document, f.Deck, f.Deck)
	if err != nil {
		return nil, fmt.Errorf("store: list drafts: %w", err)
	}
	defer rows.Close()
	var out []DraftQuestion
	for rows.Next() {
		dq, err := scanDraft(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list drafts: %w", err)
		}
		if want[dq.Status] {
			out = append(out, dq)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list drafts: %w", err)
	}
	return out, nil
}

// GeneratedQuestion returns one generated question, whatever its status.
// A hand-written question is not found.
func (db *DB) GeneratedQuestion(ctx context.Context, id int64) (DraftQuestion, error) {
	dq, err := scanDraft(db.read.QueryRowContext(ctx, draftSelect+`AND q.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return dq, fmt.Errorf("store: generated question %d: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return dq, fmt.Errorf("store: generated question %d: %w", id, err)
	}
	return dq, nil
}

// PublishQuestions makes generated questions of a deck visible to learners.
// Every id must be a generated question of the deck, and each must still be
// valid; otherwise nothing changes. It returns how many changed status.
func (db *DB) PublishQuestions(ctx context.Context, deckSlug string, ids []int64, now time.Time) (int, error) {
	n, err := db.setGeneratedStatus(ctx, deckSlug, ids, quiz.Published, now)
	if err != nil {
		return 0, fmt.Errorf("store: publish questions: %w", err)
	}
	return n, nil
}

// RetireQuestions takes generated questions of a deck away from learners;
// they and their review history are kept. Every id must be a generated
// question of the deck, otherwise nothing changes.
func (db *DB) RetireQuestions(ctx context.Context, deckSlug string, ids []int64, now time.Time) (int, error) {
	n, err := db.setGeneratedStatus(ctx, deckSlug, ids, quiz.Retired, now)
	if err != nil {
		return 0, fmt.Errorf("store: retire questions: %w", err)
	}
	return n, nil
}

func (db *DB) setGeneratedStatus(ctx context.Context, deckSlug string, ids []int64, status quiz.Status, now time.Time) (int, error) {
	if len(ids) == 0 {
		return 0, fmt.Errorf("no question selected: %w", quiz.ErrInvalid)
	}
	changed := 0
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		changed, err = setStatusTx(ctx, tx, deckSlug, ids, status, now)
		return err
	})
	return changed, err
}

// setStatusTx gives generated questions ids of deck deckSlug status in
// tx, and returns how many changed.
func setStatusTx(ctx context.Context, tx *sql.Tx, deckSlug string, ids []int64, status quiz.Status, now time.Time) (int, error) {
	changed := 0
	for _, id := range ids {
		var origin string
		sq, err := scanQuestion(scanExtras{tx.QueryRowContext(ctx, `SELECT `+questionColumns+`, q.origin
			FROM questions q JOIN decks d ON d.id = q.deck_id WHERE q.id = ? AND d.slug = ?`, id, deckSlug), []any{&origin}})
		if errors.Is(err, sql.ErrNoRows) || err == nil && origin != string(quiz.FromGenerator) {
			return 0, fmt.Errorf("question %d of deck %s: %w", id, deckSlug, quiz.ErrNotFound)
		}
		if err != nil {
			return 0, fmt.Errorf("question %d: %w", id, err)
		}
		if sq.Status == status {
			continue
		}
		if status == quiz.Published {
			if err := sq.Question.Validate(); err != nil {
				return 0, fmt.Errorf("question %d: %w", id, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE questions SET status = ?, updated_at = ? WHERE id = ?`, status, ms(now), id); err != nil {
			return 0, fmt.Errorf("question %d: %w", id, err)
		}
		changed++
	}
	return changed, nil
}

// QuestionEdit is an admin's rewording of a generated question: the prompt,
// the explanation and the answer fields of its type (see quiz.Question).
// The answer fields replace the stored ones whole; the type, id and source
// stay.
type QuestionEdit struct {
	Prompt, Explanation string
	Choices             []string
	Answer              string
	Answers             []string
	Truth               *bool
	Accept              []string
	Items               []string
}

// UpdateQuestionWording rewords a generated question, whatever its status.
// The result must pass quiz.Question.Validate: otherwise the error wraps
// quiz.ErrInvalid (a *quiz.ValidationError lists the problems) and nothing
// is stored. A later ingest keeps the admin's wording (see IngestChangelogs).
func (db *DB) UpdateQuestionWording(ctx context.Context, id int64, e QuestionEdit, now time.Time) (StoredQuestion, error) {
	var sq StoredQuestion
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sq, err = scanQuestion(tx.QueryRowContext(ctx, `SELECT `+questionColumns+`
			FROM questions q JOIN decks d ON d.id = q.deck_id WHERE q.id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return quiz.ErrNotFound
		}
		if err != nil {
			return err
		}
		if sq.Origin != quiz.FromGenerator {
			return fmt.Errorf("a hand-written question is edited in its YAML file: %w", quiz.ErrInvalid)
		}
		q := &sq.Question
		q.Prompt, q.Explanation = e.Prompt, e.Explanation
		q.SetPayload(quiz.Payload{Choices: e.Choices, Answer: e.Answer, Answers: e.Answers, Truth: e.Truth, Accept: e.Accept, Items: e.Items})
		if err := q.Validate(); err != nil {
			return err
		}
		payload, _, _, err := encodeQuestion(*q)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE questions SET prompt = ?, payload = ?, explanation = ?, content_hash = ?, updated_at = ?
			WHERE id = ?`, q.Prompt, payload, q.Explanation, q.ContentHash(), ms(now), id)
		return err
	})
	if err != nil {
		return sq, fmt.Errorf("store: edit question %d: %w", id, err)
	}
	return sq, nil
}
