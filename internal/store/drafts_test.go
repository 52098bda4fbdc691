package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kubequiz/internal/bank"
	"kubequiz/internal/quiz"
)

func TestGeneratedQuestionAdmin(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	if _, err := db.ImportBank(ctx, []bank.Decoded{decodeFile(t, "other.yaml", deckYAML("other-deck", 1, nil))}, ImportOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	yamlQ, _ := db.DeckQuestions(ctx, "other-deck", false)
	doc := parseArticle(t, nodeArticle)
	res := ingest(t, db, doc, IngestOptions{})
	var stageID, tfID int64
	for _, q := range res.Questions {
		switch {
		case strings.HasPrefix(q.ExtID, "stage-"):
			stageID = q.ID
		case tfID == 0:
			tfID = q.ID
		}
	}
	before := checksums(t, db)

	// Ids outside the deck, hand-written questions and empty selections
	// change nothing.
	for name, call := range map[string]func() error{
		"publish other deck": func() error { _, err := db.PublishQuestions(ctx, "other-deck", []int64{tfID}, t0); return err },
		"publish yaml":       func() error { _, err := db.PublishQuestions(ctx, "other-deck", []int64{yamlQ[0].ID}, t0); return err },
		"retire mixed": func() error {
			_, err := db.RetireQuestions(ctx, "v1-36-sig-node", []int64{tfID, yamlQ[0].ID}, t0)
			return err
		},
	} {
		if err := call(); !errors.Is(err, quiz.ErrNotFound) {
			t.Errorf("%s: err = %v, want not found", name, err)
		}
	}
	if _, err := db.PublishQuestions(ctx, "v1-36-sig-node", nil, t0); !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("publish nothing: err = %v, want invalid", err)
	}
	// A bad edit reports every problem and stores nothing.
	_, err := db.UpdateQuestionWording(ctx, stageID, QuestionEdit{Prompt: " ", Explanation: "x", Choices: []string{"alpha", "alpha"}, Answer: "omega"}, t0)
	var ve *quiz.ValidationError
	if !errors.Is(err, quiz.ErrInvalid) || !errors.As(err, &ve) || len(ve.Problems) != 3 {
		t.Errorf("bad edit: err = %v, want 3 problems (prompt, choices[1], answer)", err)
	}
	if _, err := db.UpdateQuestionWording(ctx, yamlQ[0].ID, QuestionEdit{Prompt: "p", Explanation: "e", Choices: []string{"a", "b"}, Answer: "a"}, t0); !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("editing a hand-written question: err = %v, want invalid", err)
	}
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Fatalf("refused operations changed %v", got)
	}

	if n, err := db.PublishQuestions(ctx, "v1-36-sig-node", []int64{tfID, stageID}, t0); n != 2 || err != nil {
		t.Fatalf("publish = %d, %v", n, err)
	}
	if n, err := db.PublishQuestions(ctx, "v1-36-sig-node", []int64{tfID}, t0); n != 0 || err != nil {
		t.Errorf("publishing again = %d, %v; want 0 changed", n, err)
	}
	if n, err := db.RetireQuestions(ctx, "v1-36-sig-node", []int64{tfID}, t0); n != 1 || err != nil {
		t.Fatalf("retire = %d, %v", n, err)
	}
	pub, _ := db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if len(pub) != 1 || pub[0].ID != stageID {
		t.Errorf("published = %v, want only the stage question", pub)
	}
	drafts, _ := db.ListDrafts(ctx, DraftFilter{Deck: "v1-36-sig-node"})
	all, _ := db.ListDrafts(ctx, DraftFilter{Document: doc.Key, Statuses: []quiz.Status{quiz.Draft, quiz.Published, quiz.Retired}})
	if len(drafts) != 2 || len(all) != 4 {
		t.Errorf("drafts = %d, all = %d; want 2 and 4", len(drafts), len(all))
	}
	docs, err := db.ChangelogDocuments(ctx)
	if err != nil || len(docs) != 1 {
		t.Fatalf("documents = %v, %v", docs, err)
	}
	d := docs[0]
	if d.Key != "1.36/node" || d.DeckSlug != "v1-36-sig-node" || d.Entries != 3 || d.StageChanges != 3 || d.Drafts != 2 || d.Published != 1 || d.Retired != 1 {
		t.Errorf("document summary = %+v", d)
	}
	if _, err := db.ChangelogDocumentByID(ctx, d.ID+100); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("missing document: err = %v, want not found", err)
	}
}
