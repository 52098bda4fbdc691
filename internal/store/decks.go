package store

import (
	"context"
	"fmt"
	"slices"

	"kubequiz/internal/quiz"
)

// ListDecks returns every deck that has published questions, with their
// number, newest release first. Decks holding only drafts stay hidden.
func (db *DB) ListDecks(ctx context.Context) ([]quiz.DeckSummary, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT d.id, d.slug, d.title, d.release, d.sig, d.language, d.description,
		       (SELECT count(*) FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')
		FROM decks d
		WHERE EXISTS (SELECT 1 FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')
		ORDER BY d.slug`)
	if err != nil {
		return nil, fmt.Errorf("store: list decks: %w", err)
	}
	defer rows.Close()
	var out []quiz.DeckSummary
	for rows.Next() {
		var d quiz.DeckSummary
		if err := rows.Scan(&d.ID, &d.Slug, &d.Title, &d.Release, &d.SIG, &d.Language, &d.Description, &d.Questions); err != nil {
			return nil, fmt.Errorf("store: list decks: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list decks: %w", err)
	}
	slices.SortStableFunc(out, func(a, b quiz.DeckSummary) int { return -quiz.CompareReleases(a.Release, b.Release) })
	return out, nil
}
