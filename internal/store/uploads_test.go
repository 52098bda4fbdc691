package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/quiz"
)

func TestImportUploadOnce(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	admin := newTestUser(t, db, "admin", quiz.RoleAdmin)
	other := newTestUser(t, db, "other", quiz.RoleAdmin)
	src := deckYAML("deck-a", 3, nil)
	id, err := db.SaveUpload(ctx, admin.ID, "yaml", []UploadedFile{{Name: "a.yaml", Data: []byte(src)}}, now)
	if err != nil {
		t.Fatal(err)
	}
	files := []bank.Decoded{decodeFile(t, "a.yaml", src)}
	opt := ImportOptions{Actor: "admin", Now: now}
	if _, err := db.ImportUpload(ctx, id, other.ID, files, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("another admin's upload = %v, want ErrNotFound", err)
	}
	res, err := db.ImportUpload(ctx, id, admin.ID, files, opt)
	if err != nil || len(res) != 1 || len(res[0].Plan.Added) != 3 {
		t.Fatalf("first apply = %+v, %v", res, err)
	}
	if _, err := db.ImportUpload(ctx, id, admin.ID, files, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("second apply = %v, want ErrNotFound", err)
	}
	if runs, err := db.ImportRuns(ctx, 10); err != nil || len(runs) != 1 {
		t.Errorf("import runs = %d, %v; want 1", len(runs), err)
	}
	if _, err := db.Upload(ctx, id, admin.ID, "yaml", now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("upload after apply = %v, want ErrNotFound", err)
	}
}

func TestIngestUploadOnce(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	admin := newTestUser(t, db, "admin", quiz.RoleAdmin)
	other := newTestUser(t, db, "other", quiz.RoleAdmin)
	id, err := db.SaveUpload(ctx, admin.ID, "changelog", []UploadedFile{{Name: "node.md", Data: []byte(nodeArticle)}}, now)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseArticle(t, nodeArticle)
	inputs := []ChangelogInput{input("node.md", doc, testGenerate(doc))}
	opt := IngestOptions{Actor: "admin", Now: now}
	if _, err := db.IngestUpload(ctx, id, other.ID, inputs, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("another admin's upload = %v, want ErrNotFound", err)
	}
	// Two submits at once: one ingests, the other finds the upload gone.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := db.IngestUpload(ctx, id, admin.ID, inputs, opt)
			errs <- err
		}()
	}
	var ok, gone int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, quiz.ErrNotFound):
			gone++
		default:
			t.Errorf("apply: %v", err)
		}
	}
	if ok != 1 || gone != 1 {
		t.Errorf("applies: %d stored, %d found the upload gone; want 1 and 1", ok, gone)
	}
	if runs, err := db.ImportRuns(ctx, 10); err != nil || len(runs) != 1 {
		t.Errorf("import runs = %d, %v; want 1", len(runs), err)
	}
	// The run remembers the upload it applied; no other upload has runs.
	if runs, err := db.UploadRuns(ctx, id, "changelog"); err != nil || len(runs) != 1 || runs[0].FileName != "node.md" || runs[0].Kind != "changelog" {
		t.Errorf("runs of the upload = %+v, %v; want the one of node.md", runs, err)
	}
	if runs, err := db.UploadRuns(ctx, id, "yaml"); err != nil || len(runs) != 0 {
		t.Errorf("runs of the upload as a question import = %+v, %v; want none", runs, err)
	}
	if runs, err := db.UploadRuns(ctx, "not-an-upload", "changelog"); err != nil || len(runs) != 0 {
		t.Errorf("runs of an unknown upload = %+v, %v; want none", runs, err)
	}
	if _, err := db.Upload(ctx, id, admin.ID, "changelog", now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("upload after apply = %v, want ErrNotFound", err)
	}
	// A yaml upload is not a changelog upload.
	yamlID, err := db.SaveUpload(ctx, admin.ID, "yaml", []UploadedFile{{Name: "a.yaml", Data: []byte("x")}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.IngestUpload(ctx, yamlID, admin.ID, inputs, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("a yaml upload applied as a changelog = %v, want ErrNotFound", err)
	}
}
