package web

import (
	"bytes"
	"context"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"kubequiz/internal/bank"
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
	if !strings.Contains(rec.Body.String(), `class="overflow-auto"`) {
		t.Error("the preview has no scrolling box to check")
	}
	checkScrollBoxes(t, preview, rec.Body.String())
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
	if _, err := ts.addUser(ctx, "root2", "", adminPassword, quiz.RoleAdmin); err != nil {
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
	if done := preview + "/done"; rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != done {
		t.Fatalf("apply = %d to %q, want a 303 to %s; body %.500s", rec.Code, rec.Header().Get("Location"), done, rec.Body.String())
	}
	// The page it leads to, reloaded as often as the admin likes, shows
	// what was imported and imports nothing more.
	for range 2 {
		page := admin.get(preview + "/done")
		if body := page.Body.String(); page.Code != http.StatusOK || !strings.Contains(body, "インポートしました") || !strings.Contains(body, "all-types.yaml") {
			t.Fatalf("done page = %d; body %.800s", page.Code, body)
		}
	}
	if runs, err := ts.db.ImportRuns(ctx, 10); err != nil || len(runs) != 1 {
		t.Errorf("import runs after the done page twice = %d, %v; want 1", len(runs), err)
	}
	if rec := admin.get("/admin/import/" + strings.Repeat("0", 32) + "/done"); rec.Code != http.StatusNotFound {
		t.Errorf("done page of an unknown upload = %d, want 404", rec.Code)
	}
	decks, err := ts.db.ListDecks(ctx)
	if err != nil || len(decks) != 1 || decks[0].Questions == 0 {
		t.Fatalf("after apply: decks %+v, %v", decks, err)
	}
	// The upload is gone once applied: Back to its preview leads to the
	// page of what it imported.
	if rec := admin.get(preview); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != preview+"/done" {
		t.Errorf("preview after apply = %d to %q, want a 303 to the done page", rec.Code, rec.Header().Get("Location"))
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
	for _, want := range []string{"bad.yaml:11:13", "questions[0].answer", "が選択肢にありません"} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q: %.800s", want, body)
		}
	}
	if strings.Contains(body, `id="import-apply"`) {
		t.Error("a preview with problems offers to apply")
	}
	// Too large a file is refused at upload (TestUploadFileOverLimit).
	rec = admin.postFiles("/admin/import", map[string][]byte{"huge.yaml": bytes.Repeat([]byte("#"), 300<<10)})
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "huge.yaml") {
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

// TestAdminImportAppliesWhatWasPreviewed: the apply does what the preview
// showed. The prune box is part of the apply's form, and an apply whose box
// differs from the preview's shows the preview for the new box instead of
// applying; the preview names the questions it retires and the changes to
// the deck's own fields.
func TestAdminImportAppliesWhatWasPreviewed(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.30")
	admin.mustLogin("root", adminPassword)
	good := readTestFile(t, "..", "bank", "testdata", "good", "all-types.yaml")
	upload := func(files map[string][]byte) string {
		t.Helper()
		rec := admin.postFiles("/admin/import", files)
		if rec.Code != http.StatusSeeOther || !previewPath.MatchString(rec.Header().Get("Location")) {
			t.Fatalf("upload = %d: %.300s", rec.Code, rec.Body.String())
		}
		return rec.Header().Get("Location")
	}
	if rec := admin.post(upload(map[string][]byte{"a.yaml": good})+"/apply", url.Values{"action": {"apply"}, "previewed_prune": {"0"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("first import = %d: %.300s", rec.Code, rec.Body.String())
	}
	status := func(ext string) quiz.Status {
		t.Helper()
		qs, err := ts.db.DeckQuestions(ctx, "v1-36-sig-node", false)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if q.Question.ExtID == ext {
				return q.Status
			}
		}
		t.Fatalf("no question %s", ext)
		return ""
	}

	// The file again without its last question, and with a new title.
	i := bytes.Index(good, []byte("  - id: memory-low-card"))
	edited := bytes.Replace(good[:i], []byte(`title: "v1.36 SIG-Node"`), []byte(`title: "v1.36 SIG-Node (renamed)"`), 1)
	preview := upload(map[string][]byte{"a.yaml": edited})
	body := admin.get(preview + "?prune=1").Body.String()
	for _, want := range []string{"デッキの変更", "<del>v1.36 SIG-Node</del>", "<ins>v1.36 SIG-Node (renamed)</ins>", "退役する問題 (1 問)", "<code>memory-low-card</code>",
		`name="previewed_prune" value="1"`, `name="prune" value="1" checked`} {
		if !strings.Contains(body, want) {
			t.Errorf("the pruning preview lacks %q: %.3000s", want, body)
		}
	}
	tests := []struct {
		name      string
		form      url.Values
		wantTo    string // the redirect
		wantState quiz.Status
	}{
		{"the box unticked after a pruning preview", url.Values{"action": {"apply"}, "previewed_prune": {"1"}}, preview + "?changed=1", quiz.Published},
		{"the box ticked after a plain preview", url.Values{"action": {"apply"}, "previewed_prune": {"0"}, "prune": {"1"}}, preview + "?prune=1&changed=1", quiz.Published},
		{"update the preview", url.Values{"action": {"preview"}, "previewed_prune": {"1"}}, preview, quiz.Published},
		{"apply as previewed", url.Values{"action": {"apply"}, "previewed_prune": {"1"}, "prune": {"1"}}, preview + "/done", quiz.Retired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := admin.post(preview+"/apply", tt.form)
			if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != tt.wantTo {
				t.Errorf("= %d to %q, want a 303 to %q", rec.Code, rec.Header().Get("Location"), tt.wantTo)
			}
			if got := status("memory-low-card"); got != tt.wantState {
				t.Errorf("memory-low-card is %s, want %s", got, tt.wantState)
			}
		})
	}
	if rec := admin.get(preview + "?changed=1"); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != preview+"/done" {
		t.Errorf("the applied upload's preview = %d to %q, want a 303 to its done page", rec.Code, rec.Header().Get("Location"))
	}
	if d, err := ts.db.ListDecks(ctx); err != nil || len(d) != 1 || d[0].Title != "v1.36 SIG-Node (renamed)" {
		t.Errorf("decks after apply: %+v, %v", d, err)
	}

	// Two files of one deck are a problem of the files, listed as such.
	rec := admin.get(upload(map[string][]byte{"a.yaml": good, "b.yaml": good}))
	body = rec.Body.String()
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, `<code>b.yaml</code> <strong>deck.slug</strong> デッキ &#34;v1-36-sig-node&#34; は一緒にアップロードした a.yaml にもあります`) ||
		!strings.Contains(body, "/cancel") {
		t.Errorf("two files of one deck = %d: %.2000s", rec.Code, body)
	}
}

// TestUploadName: an upload's name as the admin pages show it is valid
// UTF-8, holds no control or format characters (bidi controls among
// them), and is at most maxUploadName runes.
func TestUploadName(t *testing.T) {
	long := strings.Repeat("長", 150) + ".yaml"
	tests := []struct {
		name, raw, want string
	}{
		{"plain", "node.yaml", "node.yaml"},
		{"a path", `C:\Users\root\node.yaml`, "node.yaml"},
		{"a Unix path", "/tmp/x/node.yaml", "node.yaml"},
		{"right-to-left override", "evil\u202Elmay.exe", "evillmay.exe"},
		{"every bidi control", "a\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061Cb.yaml", "ab.yaml"},
		{"other format characters", "\ufeffa\u200b\u200d\u2060b.yaml", "ab.yaml"},
		{"controls", "a\x00b\x1b[31m\tc\r\nd\u0085.yaml", "ab[31mcd.yaml"},
		{"line and paragraph separators", "a\u2028b\u2029.yaml", "ab.yaml"},
		{"invalid UTF-8", "a\xff\xfeb.yaml", "a\ufffdb.yaml"},
		{"spaces around", "  node.yaml \u3000", "node.yaml"},
		{"too long", long, strings.Repeat("長", maxUploadName-1) + "…"},
		{"just long enough", strings.Repeat("x", maxUploadName), strings.Repeat("x", maxUploadName)},
		{"empty", "", "upload"},
		{"nothing left", "dir/\u202E\x00", "upload"},
	}
	for _, tt := range tests {
		if got := uploadName(tt.raw); got != tt.want {
			t.Errorf("%s: uploadName(%q) = %q, want %q", tt.name, tt.raw, got, tt.want)
		}
	}
}

// TestUploadNameShown uploads a question file under a name with bidi
// controls, invalid UTF-8 and far too many characters (a part's header
// holds no control byte: the multipart reader refuses it): the preview
// and the import history show it cleaned and cut.
func TestUploadNameShown(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	admin := newClient(t, ts, "192.0.2.12")
	admin.mustLogin("root", adminPassword)
	raw := "\u202Elmay.exe\u2066\u200f\u061c\ufeff[31m\xff" + strings.Repeat("長", 150) + ".yaml"
	rec := admin.postFiles("/admin/import", map[string][]byte{raw: readTestFile(t, "..", "bank", "testdata", "good", "all-types.yaml")})
	preview := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !previewPath.MatchString(preview) {
		t.Fatalf("upload = %d to %q: %.300s", rec.Code, preview, rec.Body.String())
	}
	shown := "lmay.exe[31m\ufffd" + strings.Repeat("長", maxUploadName-len([]rune("lmay.exe[31m\ufffd"))-1) + "…"
	pages := map[string]string{"preview": admin.get(preview).Body.String()}
	if rec := admin.post(preview+"/apply", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("apply = %d", rec.Code)
	}
	pages["history"] = admin.get("/admin/import").Body.String()
	for page, body := range pages {
		if !strings.Contains(body, shown) {
			t.Errorf("the %s does not show the name as %q", page, shown)
		}
		if !utf8.ValidString(body) || strings.ContainsAny(body, "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C\x1b") {
			t.Errorf("the %s shows invalid UTF-8, a bidi control or a control character", page)
		}
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestUploadFileOverLimit: a question file over its limit is refused with
// a 413 while it is read, a little after its limit, not once the whole
// body is in; the page names it, says the limit and leads back to the
// form, and nothing is kept. A file of exactly the limit is taken.
func TestUploadFileOverLimit(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.13")
	admin.mustLogin("root", adminPassword)
	upload := func(files ...[2]string) (*httptest.ResponseRecorder, int, int) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField(csrfFormField, admin.csrfToken())
		for _, f := range files {
			w, _ := mw.CreateFormFile("files", f[0])
			io.WriteString(w, f[1])
		}
		mw.Close()
		size := body.Len()
		in := &countingReader{r: &body}
		req := httptest.NewRequest(http.MethodPost, "/admin/import", in) // no Content-Length: read as it comes
		req.Header.Set("Content-Type", mw.FormDataContentType())
		return admin.send(req), in.n, size
	}
	before, _ := ts.db.TableChecksums(ctx)
	over := strings.Repeat("#", bank.MaxFileSize+1)
	rec, read, size := upload([2]string{"small.yaml", "# nothing\n"}, [2]string{"big.yaml", over + strings.Repeat("#", 2<<20)}, [2]string{"after.yaml", over})
	body := rec.Body.String()
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "big.yaml は大きすぎるため") || !strings.Contains(body, "1 ファイル 256 KiB まで") ||
		!strings.Contains(body, `<a href="/admin/import">アップロードの画面に戻る</a>`) {
		t.Errorf("upload of a file over the limit = %d: %.3000s", rec.Code, body)
	}
	if limit := bank.MaxFileSize + 64<<10; read > limit {
		t.Errorf("read %d bytes of a %d-byte body before refusing it, want at most %d", read, size, limit)
	}
	if after, _ := ts.db.TableChecksums(ctx); after["uploads"] != before["uploads"] || after["upload_files"] != before["upload_files"] {
		t.Error("the refused upload was kept")
	}
	at := strings.Repeat("#", bank.MaxFileSize-1) + "\n"
	if rec, _, _ := upload([2]string{"at-limit.yaml", at}); rec.Code != http.StatusSeeOther {
		t.Errorf("upload of a file of exactly the limit = %d, want 303: %.300s", rec.Code, rec.Body.String())
	}
}
