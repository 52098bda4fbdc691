package store

import (
	"context"
	"testing"

	"kubequiz/internal/bank"
)

func TestListDecksHidesDraftOnlyDecks(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	files := []bank.Decoded{
		decodeFile(t, "old.yaml", deckYAML("v1-9", 2, nil)),
		decodeFile(t, "new.yaml", deckYAML("v1-10", 3, nil)),
	}
	files[0].File.Deck.Release = "1.9"
	files[1].File.Deck.Release = "1.10"
	if _, err := db.ImportBank(ctx, files, ImportOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	// A deck with drafts only, as changelog ingestion creates them.
	importTestExec(t, db, `INSERT INTO decks (slug, title, release, created_at, updated_at) VALUES ('drafts', 'Drafts', '1.36', 0, 0)`)
	importTestExec(t, db, `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation, origin, status, content_hash, created_at, updated_at)
		SELECT id, 'g1', 0, 'typed', 'p', '{"answer":"a"}', 'e', 'generated', 'draft', 'h', 0, 0 FROM decks WHERE slug = 'drafts'`)

	decks, err := db.ListDecks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range decks {
		got = append(got, d.Slug)
	}
	if len(got) != 2 || got[0] != "v1-10" || got[1] != "v1-9" {
		t.Fatalf("ListDecks = %v, want [v1-10 v1-9] (numeric release order, no draft-only deck)", got)
	}
	if decks[0].Questions != 3 {
		t.Errorf("v1-10 has %d questions, want 3", decks[0].Questions)
	}
}
