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

// This file holds the wording an ingest proposes for published questions:
// when generation changes a published question (its document was edited,
// or a later document added to its feature's history), learners keep the
// wording they study and the new one waits here for an admin.

// propose stores g as the proposal for published question id. It returns
// Proposed for a new or changed proposal and Unchanged when the same one
// already waits.
func propose(ctx context.Context, tx *sql.Tx, id int64, g quizgen.Generated, hash string, now int64) (Outcome, error) {
	data, err := json.Marshal(g)
	if err != nil {
		return "", fmt.Errorf("encode proposal: %w", err)
	}
	var old string
	err = tx.QueryRowContext(ctx, `SELECT generated FROM question_proposals WHERE question_id = ?`, id).Scan(&old)
	switch {
	case err == nil && old == string(data):
		return Unchanged, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("proposal: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO question_proposals (question_id, generated, generated_hash, proposed_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (question_id) DO UPDATE SET generated = excluded.generated,
		generated_hash = excluded.generated_hash, proposed_at = excluded.proposed_at`, id, string(data), hash, now); err != nil {
		return "", fmt.Errorf("store proposal: %w", err)
	}
	return Proposed, nil
}

// dropProposal removes question id's proposal, if any.
func dropProposal(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM question_proposals WHERE question_id = ?`, id); err != nil {
		return fmt.Errorf("drop proposal: %w", err)
	}
	return nil
}

// Proposal is the wording an ingest generated for a published question,
// beside the wording learners see.
type Proposal struct {
	// Current is the question as it is stored and learners see it.
	Current DraftQuestion
	// Proposed is the question as generation now writes it, and
	// Provenance what it now rests on.
	Proposed   quiz.Question
	Provenance quizgen.Provenance
	ProposedAt time.Time
}

// Proposals returns the waiting proposals of one document's questions (a
// document key), or of every document for "", in deck order.
func (db *DB) Proposals(ctx context.Context, document string) ([]Proposal, error) {
	rows, err := db.read.QueryContext(ctx, draftSelect+`AND (? = '' OR q.source_document = ?)
		AND q.id IN (SELECT question_id FROM question_proposals)
		ORDER BY d.slug, q.position, q.id`, document, document)
	if err != nil {
		return nil, fmt.Errorf("store: proposals: %w", err)
	}
	var current []DraftQuestion
	for rows.Next() {
		dq, err := scanDraft(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: proposals: %w", err)
		}
		current = append(current, dq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: proposals: %w", err)
	}
	out := make([]Proposal, 0, len(current))
	for _, dq := range current {
		g, at, err := db.proposal(ctx, db.read, dq.ID)
		if err != nil {
			return nil, fmt.Errorf("store: proposals: %w", err)
		}
		out = append(out, Proposal{Current: dq, Proposed: g.Question, Provenance: g.Provenance, ProposedAt: at})
	}
	return out, nil
}

// queryer is what reading a proposal needs: the read pool or a
// transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (db *DB) proposal(ctx context.Context, q queryer, id int64) (quizgen.Generated, time.Time, error) {
	var (
		g    quizgen.Generated
		data string
		at   int64
	)
	err := q.QueryRowContext(ctx, `SELECT generated, proposed_at FROM question_proposals WHERE question_id = ?`, id).Scan(&data, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return g, time.Time{}, fmt.Errorf("question %d has no proposal: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return g, time.Time{}, fmt.Errorf("question %d proposal: %w", id, err)
	}
	if err := json.Unmarshal([]byte(data), &g); err != nil {
		return g, time.Time{}, fmt.Errorf("question %d proposal: %w", id, err)
	}
	return g, fromMS(at), nil
}

// AcceptProposal gives a question the wording proposed for it, as an
// admin's choice: learners see it from then on, their cards and review
// history stay. A question without a proposal is quiz.ErrNotFound; a
// proposal that no longer validates is quiz.ErrInvalid, and nothing
// changes.
func (db *DB) AcceptProposal(ctx context.Context, questionID int64, now time.Time) (StoredQuestion, error) {
	var sq StoredQuestion
	err := db.tx(ctx, func(tx *sql.Tx) error {
		g, _, err := db.proposal(ctx, tx, questionID)
		if err != nil {
			return err
		}
		var (
			position int
			extID    string
		)
		if err := tx.QueryRowContext(ctx, `SELECT position, ext_id FROM questions WHERE id = ? AND origin = 'generated'`, questionID).
			Scan(&position, &extID); err != nil {
			return fmt.Errorf("question %d: %w", questionID, err)
		}
		if g.Question.ExtID != extID {
			return fmt.Errorf("question %d: proposal for %s: %w", questionID, g.Question.ExtID, quiz.ErrConflict)
		}
		if err := g.Question.Validate(); err != nil {
			return err
		}
		prov, err := json.Marshal(g.Provenance)
		if err != nil {
			return fmt.Errorf("question %d provenance: %w", questionID, err)
		}
		if err := updateGenerated(ctx, tx, questionID, position, g, string(prov), g.Question.ContentHash(), ms(now)); err != nil {
			return err
		}
		if err := dropProposal(ctx, tx, questionID); err != nil {
			return err
		}
		sq, err = scanQuestion(tx.QueryRowContext(ctx, `SELECT `+questionColumns+`
			FROM questions q JOIN decks d ON d.id = q.deck_id WHERE q.id = ?`, questionID))
		return err
	})
	if err != nil {
		return sq, fmt.Errorf("store: accept proposal for question %d: %w", questionID, err)
	}
	return sq, nil
}

// DismissProposal keeps a question's wording over the one proposed for it,
// as an admin's choice: the question then counts as reworded by the admin,
// and later ingests keep its wording (kept_edits) rather than propose the
// same again. A question without a proposal is quiz.ErrNotFound.
func (db *DB) DismissProposal(ctx context.Context, questionID int64, now time.Time) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var hash string
		err := tx.QueryRowContext(ctx, `SELECT generated_hash FROM question_proposals WHERE question_id = ?`, questionID).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("question %d has no proposal: %w", questionID, quiz.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE questions SET generated_hash = ?, updated_at = ? WHERE id = ?`, hash, ms(now), questionID); err != nil {
			return err
		}
		return dropProposal(ctx, tx, questionID)
	})
	if err != nil {
		return fmt.Errorf("store: dismiss proposal for question %d: %w", questionID, err)
	}
	return nil
}
