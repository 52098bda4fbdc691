package web

import (
	"bytes"
	"context"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
)

// postFiles uploads files as multipart form data, with the CSRF field.
func (cl *client) postFiles(path string, files map[string][]byte) *httptest.ResponseRecorder {
	cl.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField(csrfFormField, cl.csrfToken()); err != nil {
		cl.t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := mw.CreateFormFile("files", name)
		if err != nil {
			cl.t.Fatal(err)
		}
		w.Write(files[name])
	}
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return cl.send(req)
}

func readTestFile(t *testing.T, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(elem...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var previewPath = regexp.MustCompile(`^/admin/import/[0-9a-f]{32}$`)

func TestAdminImportFlow(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.10")
	admin.mustLogin("root", adminPassword)
	good := readTestFile(t, "..", "bank", "testdata", "good", "all-types.yaml")

	// Upload: a 303 to the preview, which shows the counts and writes nothing.
	rec := admin.postFiles("/admin/import", map[string][]byte{"all-types.yaml": good})
	if rec.Code != http.StatusSeeOther || !previewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q, want 303 to a preview; body %.300s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	preview := rec.Header().Get("Location")
	rec = admin.get(preview)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `id="import-apply"`) {
		t.Fatalf("preview = %d; body %.500s", rec.Code, rec.Body.String())
	}
	if empty, _ := ts.db.IsEmpty(ctx); !empty {
		t.Fatal("the preview wrote decks")
	}

	// Another admin's browser, or a member, cannot see or apply the upload.
	member := newClient(t, ts, "192.0.2.11")
	if rec := member.register("mallory", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	if rec := member.post(preview+"/apply", nil); rec.Code != http.StatusForbidden {
		t.Errorf("member applying an upload = %d, want 403", rec.Code)
	}
	if _, err := ts.CreateUser(ctx, "root2", "", adminPassword, quiz.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	other := newClient(t, ts, "192.0.2.12")
	other.mustLogin("root2", adminPassword)
	if rec := other.get(preview); rec.Code != http.StatusNotFound {
		t.Errorf("another admin reading the upload = %d, want 404", rec.Code)
	}

	// Without the CSRF token nothing is applied.
	if rec := admin.postRaw(preview+"/apply", nil); rec.Code != http.StatusForbidden {
		t.Errorf("apply without CSRF = %d, want 403", rec.Code)
	}
	if empty, _ := ts.db.IsEmpty(ctx); !empty {
		t.Fatal("apply without CSRF wrote decks")
	}

	rec = admin.post(preview+"/apply", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "インポートしました") {
		t.Fatalf("apply = %d; body %.500s", rec.Code, rec.Body.String())
	}
	decks, err := ts.db.ListDecks(ctx)
	if err != nil || len(decks) != 1 || decks[0].Questions == 0 {
		t.Fatalf("after apply: decks %+v, %v", decks, err)
	}
	// The upload is gone once applied.
	if rec := admin.get(preview); rec.Code != http.StatusNotFound {
		t.Errorf("preview after apply = %d, want 404", rec.Code)
	}

	// A reworded question shows up as one update with its diff.
	edited := bytes.Replace(good, []byte("prompt: "), []byte("prompt: (edited) "), 1)
	rec = admin.postFiles("/admin/import", map[string][]byte{"all-types.yaml": edited})
	rec = admin.get(rec.Header().Get("Location"))
	if !strings.Contains(rec.Body.String(), "(edited)") || !strings.Contains(rec.Body.String(), "<del>") {
		t.Errorf("preview of an edit lacks the diff: %.800s", rec.Body.String())
	}

	// History lists the applied import.
	rec = admin.get("/admin/import")
	if !strings.Contains(rec.Body.String(), "all-types.yaml") || !strings.Contains(rec.Body.String(), "root") {
		t.Errorf("import history lacks the run: %.500s", rec.Body.String())
	}
}

func TestAdminImportErrors(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.20")
	admin.mustLogin("root", adminPassword)
	before, err := ts.db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad := readTestFile(t, "..", "bank", "testdata", "bad", "answer-not-in-choices.yaml")
	good := readTestFile(t, "..", "bank", "testdata", "good", "all-types.yaml")

	rec := admin.postFiles("/admin/import", map[string][]byte{"bad.yaml": bad, "good.yaml": good})
	rec = admin.get(rec.Header().Get("Location"))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("preview of a bad file = %d, want 422", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{"bad.yaml:11:13", "questions[0].answer", "is not among the choices"} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q: %.800s", want, body)
		}
	}
	if strings.Contains(body, `id="import-apply"`) {
		t.Error("a preview with problems offers to apply")
	}
	// Too large a file is refused at upload.
	rec = admin.postFiles("/admin/import", map[string][]byte{"huge.yaml": bytes.Repeat([]byte("#"), 300<<10)})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "huge.yaml") {
		t.Errorf("oversize upload = %d; body %.300s", rec.Code, rec.Body.String())
	}
	after, err := ts.db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	delete(before, "uploads")
	delete(after, "uploads")
	delete(before, "upload_files")
	delete(after, "upload_files")
	delete(before, "sessions")
	delete(after, "sessions")
	if !maps.Equal(before, after) {
		t.Errorf("failed imports changed the database")
	}
}
