package web

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/ingest"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
	"kubequiz/views"
)

// ingestTestArticle is a short made-up SIG-Node article: two features, one
// with its stage history in a note, and a bug fix.
const ingestTestArticle = `Kubernetes 1.36: SIG-Node の変更内容

Feature

  • FooBarVolume を GA に昇格させた。 (#900001、@alice) [sig/node]
    • :pencil: 1.34 で alpha 導入、1.35 で beta になった機能です。
  • kubelet に bazQuota 設定を追加した。 (#900002、@bob) [sig/node]

Bug or Regression

  • kubelet の再起動時にまれに起こる panic を修正した。 (#900003、@carol) [sig/node]
`

// fakeGenerate stands in for quizgen.Generate while the generators are
// written: one flashcard per entry and a stage question per stage change
// stated in an entry's text.
func fakeGenerate(doc *changelog.Document, _ *changelog.Timeline, _ quizgen.Options) []quizgen.Generated {
	var out []quizgen.Generated
	for _, e := range doc.Entries {
		id := strings.NewReplacer("/", "-", ".", "-").Replace(e.Key)
		src := quiz.Source{Release: doc.Release, SIG: "SIG-Node", Kind: string(e.Kind), PRs: e.PRs}
		prov := quizgen.Provenance{Document: doc.Key, Entry: e.Key, PRs: e.PRs, SourceText: e.Text, Generator: quizgen.GenTrueFalse}
		out = append(out, quizgen.Generated{Question: quiz.Question{ExtID: "card-" + id, Type: quiz.Flashcard,
			Prompt: "この変更は? #" + fmt.Sprint(e.PRs), Answer: e.Text, Explanation: "出典の文: " + e.Text, Source: src}, Provenance: prov})
		for i, sc := range e.Stages {
			if sc.Source != "text" {
				continue
			}
			prov.Generator = quizgen.GenStageInRelease
			out = append(out, quizgen.Generated{Question: quiz.Question{ExtID: fmt.Sprintf("stage-%s-%d", id, i), Type: quiz.SingleChoice,
				Prompt:  "v" + doc.Release + " で " + sc.Feature + " はどの段階になった?",
				Choices: []string{"alpha", "beta", "ga"}, Answer: string(sc.Stage), Explanation: sc.Evidence, Source: src}, Provenance: prov})
		}
	}
	return out
}

// withGenerator makes the ingest pages use gen in place of
// quizgen.GenerateContext.
func withGenerator(ts *testServer, gen func(*changelog.Document, *changelog.Timeline, quizgen.Options) []quizgen.Generated) *testServer {
	ts.ingest.generate = ingest.Plain(gen)
	return ts
}

var ingestPreviewPath = regexp.MustCompile(`^/admin/ingest/[0-9a-f]{32}\?`)

// waitPreview follows the progress page until the preview is ready.
func waitPreview(t *testing.T, cl *client, path string) *httptest.ResponseRecorder {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec := cl.get(path)
		if !strings.Contains(rec.Body.String(), `id="ingest-progress"`) {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("preview not ready after 10s: %.300s", rec.Body.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ingestCheckLabels fails when a visible control has no label or a form
// lacks the CSRF field.
func ingestCheckLabels(t *testing.T, path, body string) {
	t.Helper()
	idRe := regexp.MustCompile(`<(?:input|select|textarea)[^>]*\bid="([^"]+)"`)
	ctlRe := regexp.MustCompile(`<(?:input|select|textarea)\b[^>]*>`)
	for _, ctl := range ctlRe.FindAllString(body, -1) {
		if strings.Contains(ctl, `type="hidden"`) {
			continue
		}
		m := idRe.FindStringSubmatch(ctl)
		if m == nil || !strings.Contains(body, `for="`+m[1]+`"`) {
			t.Errorf("%s: control without a label: %s", path, ctl)
		}
	}
	// A form that posts carries the token; a GET form (a filter) changes
	// nothing and carries none.
	if forms := len(regexp.MustCompile(`<form[^>]*\bmethod="post"`).FindAllString(body, -1)); forms != strings.Count(body, `name="_csrf"`) {
		t.Errorf("%s: %d forms that post, %d CSRF fields", path, forms, strings.Count(body, `name="_csrf"`))
	}
	checkScrollBoxes(t, path, body)
}

// checkScrollBoxes fails when a box that scrolls a wide table cannot take
// the keyboard's focus or has no name to be announced by.
func checkScrollBoxes(t *testing.T, path, body string) {
	t.Helper()
	for _, box := range regexp.MustCompile(`<div class="overflow-auto"[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(box, `tabindex="0"`) || !strings.Contains(box, `role="region"`) || !regexp.MustCompile(`aria-label="[^"]+"`).MatchString(box) {
			t.Errorf("%s: a scrolling box the keyboard cannot reach or that has no name: %s", path, box)
		}
	}
}

func TestAdminIngestFlow(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.30")
	admin.mustLogin("root", adminPassword)
	ingestCheckLabels(t, "/admin/ingest", admin.get("/admin/ingest").Body.String())

	// Upload: a 303 to the page that shows the progress, then the preview.
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"node-1.36.txt": []byte(ingestTestArticle)})
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q; body %.300s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	preview := rec.Header().Get("Location")
	rec = waitPreview(t, admin, preview)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, `id="ingest-apply"`) {
		t.Fatalf("preview = %d; body %.500s", rec.Code, body)
	}
	for _, want := range []string{
		"エントリ (3 件)", "機能", "バグ・リグレッション", // entries per kind
		"検出した段階の変化 (3 件)", "FooBarVolume", "1.34", // stage changes
		"リリースでの段階", "v1.36 で FooBarVolume はどの段階になった?", // questions by generator
		"kubelet に bazQuota 設定を追加した。", // source text beside the question
		"v1-36-sig-node",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q", want)
		}
	}
	ingestCheckLabels(t, "preview", body)
	if docs, _ := ts.db.ChangelogDocuments(ctx); len(docs) != 0 {
		t.Fatal("the preview stored documents")
	}
	u, _ := url.Parse(preview)
	apply := u.Path + "/apply"

	// A member may not, and without the CSRF token nothing happens.
	member := newClient(t, ts, "192.0.2.31")
	if rec := member.register("mallory", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	for _, p := range []string{"/admin/ingest", preview} {
		if rec := member.get(p); rec.Code != http.StatusForbidden {
			t.Errorf("member GET %s = %d, want 403", p, rec.Code)
		}
	}
	if rec := member.post(apply, u.Query()); rec.Code != http.StatusForbidden {
		t.Errorf("member apply = %d, want 403", rec.Code)
	}
	if rec := admin.postRaw(apply, u.Query()); rec.Code != http.StatusForbidden {
		t.Errorf("apply without CSRF = %d, want 403", rec.Code)
	}
	if docs, _ := ts.db.ChangelogDocuments(ctx); len(docs) != 0 {
		t.Fatal("a refused apply stored documents")
	}

	// Save as drafts: a 303 to the document's page; nothing is published.
	rec = admin.post(apply, u.Query())
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/admin/ingest/documents/") {
		t.Fatalf("apply = %d to %q; body %.300s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	docPage, _, _ := strings.Cut(rec.Header().Get("Location"), "?")
	// The apply used the upload up: a second submit (a reload, a double
	// click) stores nothing and leads to the documents.
	if rec := admin.post(apply, u.Query()); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/ingest" {
		t.Errorf("second apply = %d to %q, want a 303 to /admin/ingest", rec.Code, rec.Header().Get("Location"))
	}
	// And Back to the preview too.
	if rec := admin.get(preview); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/ingest" {
		t.Errorf("preview after apply = %d to %q, want a 303 to /admin/ingest", rec.Code, rec.Header().Get("Location"))
	}
	// The question import's pages do not take it for one of theirs.
	for _, p := range []string{"/admin/import/" + path.Base(u.Path), "/admin/import/" + path.Base(u.Path) + "/done"} {
		if rec := admin.get(p); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s of an applied ingest = %d, want 404", p, rec.Code)
		}
	}
	if runs, err := ts.db.ImportRuns(ctx, 10); err != nil || len(runs) != 1 {
		t.Errorf("import runs after two applies = %d, %v; want 1", len(runs), err)
	}
	if pub, _ := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true); len(pub) != 0 {
		t.Fatalf("%d questions published by saving", len(pub))
	}
	drafts, err := ts.db.ListDrafts(ctx, store.DraftFilter{Document: "1.36/node"})
	if err != nil || len(drafts) != 4 {
		t.Fatalf("drafts = %d, %v; want 4", len(drafts), err)
	}
	rec = admin.get(docPage)
	body = rec.Body.String()
	if rec.Code != http.StatusOK || strings.Count(body, `name="ids" value=`) < 4 || !strings.Contains(body, "下書き 4 問") {
		t.Fatalf("document page = %d: %.800s", rec.Code, body)
	}
	ingestCheckLabels(t, docPage, body)
	if rec := admin.get("/admin/ingest"); !strings.Contains(rec.Body.String(), docPage) {
		t.Errorf("the ingest page does not link the document")
	}

	// Publish two of them: those reach learners, the other drafts do not.
	chosen := []int64{drafts[0].ID, drafts[2].ID}
	form := url.Values{"ids": {fmt.Sprint(chosen[0]), fmt.Sprint(chosen[1])}}
	if rec := member.post(docPage+"/publish", form); rec.Code != http.StatusForbidden {
		t.Errorf("member publish = %d, want 403", rec.Code)
	}
	if rec := admin.postRaw(docPage+"/publish", form); rec.Code != http.StatusForbidden {
		t.Errorf("publish without CSRF = %d, want 403", rec.Code)
	}
	rec = admin.post(docPage+"/publish", form)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("publish = %d: %.300s", rec.Code, rec.Body.String())
	}
	if body := admin.get(rec.Header().Get("Location")).Body.String(); !strings.Contains(body, "2 問を公開しました") {
		t.Errorf("no notice after publishing")
	}
	pub, _ := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true)
	got := map[int64]bool{}
	for _, q := range pub {
		got[q.ID] = true
	}
	if len(pub) != 2 || !got[chosen[0]] || !got[chosen[1]] {
		t.Errorf("published = %v, want exactly %v", got, chosen)
	}
	// An id of another deck is refused and changes nothing.
	if rec := admin.post(docPage+"/publish", url.Values{"ids": {fmt.Sprint(drafts[1].ID), "999999"}}); rec.Code != http.StatusNotFound {
		t.Errorf("publishing an unknown id = %d, want 404", rec.Code)
	}
	if pub, _ := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true); len(pub) != 2 {
		t.Errorf("a refused publish changed the published set: %d", len(pub))
	}

	// Nothing chosen: the document again, saying why, and nothing changed.
	body = admin.get(docPage).Body.String()
	for _, want := range []string{`id="review-publish-all"`, `id="review-retire-all"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the document page lacks %q", want)
		}
	}
	allDrafts := url.Values{}
	for _, q := range drafts {
		allDrafts.Add("ids", fmt.Sprint(q.ID))
	}
	refusals := []struct {
		name, path string
		form       url.Values
		wantTo     string
		wantText   string
	}{
		{"publish nothing", docPage + "/publish", url.Values{}, docPage + "?none=1", "問題が選ばれていません"},
		{"retire nothing", docPage + "/retire", url.Values{}, docPage + "?none=1", "問題が選ばれていません"},
	}
	for _, tt := range refusals {
		rec := admin.post(tt.path, tt.form)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != tt.wantTo {
			t.Errorf("%s = %d to %q, want a 303 to %s", tt.name, rec.Code, rec.Header().Get("Location"), tt.wantTo)
			continue
		}
		if page := admin.get(tt.wantTo); page.Code != http.StatusOK || !strings.Contains(page.Body.String(), tt.wantText) {
			t.Errorf("%s: the page says nothing of %q (%d)", tt.name, tt.wantText, page.Code)
		}
	}
	if pub, _ := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true); len(pub) != 2 {
		t.Errorf("refused requests changed the published set: %d", len(pub))
	}

	// Retire one of the published ones.
	if rec := admin.post(docPage+"/retire", url.Values{"ids": {fmt.Sprint(chosen[0])}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("retire = %d", rec.Code)
	}
	if pub, _ := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true); len(pub) != 1 || pub[0].ID != chosen[1] {
		t.Errorf("after retiring: published %v", pub)
	}

	// Edit: the form, an invalid wording (422, nothing stored), a valid one.
	stage := drafts[1]
	if stage.Question.Type != quiz.SingleChoice {
		t.Fatalf("want the stage question second, got %s", stage.Question.Type)
	}
	editPath := fmt.Sprintf("/admin/ingest/questions/%d", stage.ID)
	rec = admin.get(editPath)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "FooBarVolume を GA に昇格させた。") {
		t.Fatalf("edit form = %d: %.500s", rec.Code, rec.Body.String())
	}
	ingestCheckLabels(t, editPath, rec.Body.String())
	before, _ := ts.db.TableChecksums(ctx)
	bad := url.Values{"prompt": {"  "}, "explanation": {"説明"}, "choices": {"alpha\nbeta\nalpha"}, "answer": {"omega"}}
	rec = admin.post(editPath, bad)
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("invalid edit = %d, want 422", rec.Code)
	}
	// Each problem names the form's label and links its input; the first
	// of them has focus, and each is marked invalid.
	for _, want := range []string{`<a href="#edit-prompt"><strong>問題文</strong></a>`, `<a href="#edit-choices"><strong>選択肢 (3 つ目)</strong></a>`,
		`<a href="#edit-answer"><strong>答え</strong></a>`, "omega",
		`id="edit-prompt" name="prompt" rows="3" required aria-describedby="edit-problems" aria-invalid="true" autofocus`,
		`id="edit-choices" name="choices" rows="5" aria-describedby="edit-problems" aria-invalid="true">`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("invalid edit page lacks %q", want)
		}
	}
	if n := strings.Count(rec.Body.String(), "autofocus"); n != 1 {
		t.Errorf("invalid edit page has %d autofocus attributes, want 1", n)
	}
	if strings.Contains(rec.Body.String(), `id="edit-explanation" name="explanation" rows="4" required aria`) {
		t.Error("the valid explanation is marked invalid")
	}
	after, _ := ts.db.TableChecksums(ctx)
	delete(before, "sessions")
	delete(after, "sessions")
	if !maps.Equal(before, after) {
		t.Errorf("an invalid edit changed the database")
	}
	if rec := admin.postRaw(editPath, url.Values{"prompt": {"x"}}); rec.Code != http.StatusForbidden {
		t.Errorf("edit without CSRF = %d, want 403", rec.Code)
	}
	good := url.Values{"prompt": {"FooBarVolume は v1.36 でどうなった?"}, "explanation": {"GA に昇格した。"},
		"choices": {"alpha\r\nbeta\r\nga\r\n"}, "answer": {"ga"}}
	rec = admin.post(editPath, good)
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), docPage+"?edited=1") {
		t.Fatalf("edit = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	q, _ := ts.db.GeneratedQuestion(ctx, stage.ID)
	if q.Question.Prompt != good.Get("prompt") || !q.Edited || len(q.Question.Choices) != 3 {
		t.Errorf("after the edit: %+v edited=%v", q.Question, q.Edited)
	}
	if rec := admin.get(fmt.Sprintf("/admin/ingest/questions/%d", 999999)); rec.Code != http.StatusNotFound {
		t.Errorf("edit form of a missing question = %d, want 404", rec.Code)
	}

	// The same file again: the document is unchanged and the edit stays.
	rec = admin.postFiles("/admin/ingest", map[string][]byte{"node-1.36.txt": []byte(ingestTestArticle)})
	rec = waitPreview(t, admin, rec.Header().Get("Location"))
	if !strings.Contains(rec.Body.String(), "文書: 変更なし") {
		t.Errorf("re-upload preview does not say unchanged")
	}

	// Every question chosen at once; then every published one.
	if rec := admin.post(docPage+"/publish", allDrafts); rec.Code != http.StatusSeeOther {
		t.Fatalf("publish all = %d", rec.Code)
	}
	pub, _ = ts.db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if len(pub) != len(drafts) {
		t.Errorf("after publishing all: %d published, want %d", len(pub), len(drafts))
	}
	allPublished := url.Values{}
	for _, q := range pub {
		allPublished.Add("ids", fmt.Sprint(q.ID))
	}
	if rec := admin.post(docPage+"/retire", allPublished); rec.Code != http.StatusSeeOther {
		t.Fatalf("retire all = %d", rec.Code)
	}
	if pub, _ := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true); len(pub) != 0 {
		t.Errorf("after retiring all: %d published, want 0", len(pub))
	}
}

func TestAdminIngestProblems(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.40")
	admin.mustLogin("root", adminPassword)
	before, _ := ts.db.TableChecksums(ctx)

	rec := admin.postFiles("/admin/ingest", map[string][]byte{
		"binary.md": []byte("# v1.36.0\x00\x01"), "empty.md": {}, "prose.txt": []byte("nothing to see here\n"), "ok.txt": []byte(ingestTestArticle),
	})
	rec = waitPreview(t, admin, rec.Header().Get("Location"))
	body := rec.Body.String()
	if rec.Code != http.StatusUnprocessableEntity || strings.Contains(body, `id="ingest-apply"`) {
		t.Fatalf("preview of bad files = %d; body %.500s", rec.Code, body)
	}
	for _, want := range []string{"binary.md", "バイナリ", "empty.md", "空です", "prose.txt", "形式を判別できません"} {
		if !strings.Contains(body, want) {
			t.Errorf("problems lack %q", want)
		}
	}
	// A file over the size limit is refused at upload, bad options too.
	rec = admin.postFiles("/admin/ingest", map[string][]byte{"huge.md": []byte(strings.Repeat("x", changelog.MaxDocumentSize+1))})
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "huge.md") {
		t.Errorf("oversize upload = %d", rec.Code)
	}
	rec = admin.postFiles("/admin/ingest?", map[string][]byte{"ok.txt": []byte(ingestTestArticle)})
	if rec.Code != http.StatusSeeOther {
		t.Errorf("plain upload = %d", rec.Code)
	}
	if rec := admin.get(rec.Header().Get("Location") + "&format=pdf"); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("preview with a bad format = %d, want 422", rec.Code)
	}
	after, _ := ts.db.TableChecksums(ctx)
	for _, tbl := range []string{"uploads", "upload_files", "sessions"} {
		delete(before, tbl)
		delete(after, tbl)
	}
	if !maps.Equal(before, after) {
		t.Errorf("refused ingests changed the database")
	}
}

// TestAdminIngestProgress holds the generator until the test lets it go:
// the page shows the polling fragment and a reload link, the status poll
// answers with the fragment, then with HX-Redirect to the preview.
func TestAdminIngestProgress(t *testing.T) {
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	slow := func(doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		<-release
		return fakeGenerate(doc, tl, opt)
	}
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), slow)
	admin := newClient(t, ts, "192.0.2.50")
	admin.mustLogin("root", adminPassword)
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"node.txt": []byte(ingestTestArticle)})
	page := rec.Header().Get("Location")
	u, _ := url.Parse(page)
	status := u.Path + "/status?" + u.RawQuery

	rec = admin.get(page)
	body := rec.Body.String()
	for _, want := range []string{`hx-get="` + strings.ReplaceAll(status, "&", "&amp;") + `"`, `hx-trigger="every 500ms"`, `再読み込み</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("progress page lacks %s: %.600s", want, body)
		}
	}
	if strings.Contains(body, `http-equiv="refresh"`) {
		t.Error("progress page uses a meta refresh")
	}
	hx := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, status, nil)
		req.Header.Set("HX-Request", "true")
		return admin.send(req)
	}
	if rec := hx(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `id="ingest-progress"`) || rec.Header().Get("HX-Redirect") != "" {
		t.Errorf("poll while running = %d, HX-Redirect %q: %.300s", rec.Code, rec.Header().Get("HX-Redirect"), rec.Body.String())
	}
	// The job is not tied to the request that started it: it is still
	// there, running, for the next request.
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec := hx()
		if loc := rec.Header().Get("HX-Redirect"); loc != "" {
			if loc != page {
				t.Errorf("HX-Redirect = %q, want %q", loc, page)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never finished")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rec := admin.get(status); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != page {
		t.Errorf("plain GET of the status = %d to %q, want 303 to the page", rec.Code, rec.Header().Get("Location"))
	}
	// A preview made again in place of a save keeps saying so after its
	// progress page.
	if rec := admin.get(status + "&again=1"); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != page+"&again=1" {
		t.Errorf("status of a preview made again = %d to %q, want 303 to the page, still saying so", rec.Code, rec.Header().Get("Location"))
	}
}

// TestAdminIngestUpstreamForOneSIG: previewed for one SIG, an upstream
// CHANGELOG leaves out the entries of other SIGs only and keeps those
// without a label, and the page says how many of each.
func TestAdminIngestUpstreamForOneSIG(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	admin := newClient(t, ts, "192.0.2.31")
	admin.mustLogin("root", adminPassword)
	up := "## Changelog since v1.35.0\n\n## Changes by Kind\n\n### Feature\n\n" +
		"- Added widget routing to kube-proxy. ([#910001](https://github.com/kubernetes/kubernetes/pull/910001), [@dev](https://github.com/dev)) [SIG Network]\n" +
		"- The kubelet caches widgets. ([#910002](https://github.com/kubernetes/kubernetes/pull/910002), [@dev](https://github.com/dev)) [SIG Node]\n" +
		"- Widgets are faster. ([#910003](https://github.com/kubernetes/kubernetes/pull/910003), [@dev](https://github.com/dev))\n"
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"CHANGELOG-1.36.md": []byte(up)})
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	body := waitPreview(t, admin, rec.Header().Get("Location")+"&sig=network").Body.String()
	for _, want := range []string{"エントリ (2 件)", "他の SIG のラベルだけが付いたエントリ 1 件は含めていません", "SIG のラベルがないエントリ 1 件は、SIG Network のものかもしれないので含めています", "v1-36-sig-network"} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q: %.3000s", want, body)
		}
	}
	if strings.Contains(body, "kubelet caches widgets") {
		t.Error("the preview holds an entry of SIG Node")
	}
	// Without a SIG, every entry is there and nothing is said left out.
	body = waitPreview(t, admin, rec.Header().Get("Location")).Body.String()
	if !strings.Contains(body, "エントリ (3 件)") || strings.Contains(body, "含めていません") {
		t.Errorf("preview without a SIG: %.3000s", body)
	}
}

// TestAdminIngestFormatConflict: an upstream CHANGELOG read for a SIG whose
// release is stored from an article is refused on the preview, which says
// so in the admin's words and what to do instead.
func TestAdminIngestFormatConflict(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	doc, err := changelog.Parse([]byte(ingestTestArticle), changelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.db.IngestChangelogs(context.Background(), []store.ChangelogInput{{File: "node.txt", Document: doc, Deck: quizgen.Deck(doc, "ja")}},
		store.IngestOptions{Actor: "test", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	admin := newClient(t, ts, "192.0.2.32")
	admin.mustLogin("root", adminPassword)
	up := "## Changelog since v1.35.0\n\n## Changes by Kind\n\n### Feature\n\n" +
		"- The kubelet caches widgets. ([#910002](https://github.com/kubernetes/kubernetes/pull/910002), [@dev](https://github.com/dev)) [SIG Node]\n"
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"CHANGELOG-1.36.md": []byte(up)})
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	body := waitPreview(t, admin, rec.Header().Get("Location")+"&sig=node").Body.String()
	for _, want := range []string{"このリリースと SIG は別の種類の文書から保存されています",
		"1.36/node は node.txt (記事 (変更内容)) から保存済みです。upstream CHANGELOG で取り込むとそれを置き換え",
		"リリース全体として (SIG を指定せずに) 取り込めます"} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q: %.3000s", want, body)
		}
	}
	if strings.Contains(body, "would replace") || strings.Contains(body, "下書きとして保存") {
		t.Errorf("preview shows the store's English or a save button: %.3000s", body)
	}

	// The other way round, an article where an upstream CHANGELOG of the
	// same release and SIG is stored: refused too, with no advice about
	// upstream CHANGELOGs.
	ts = withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	upDoc, err := changelog.Parse([]byte(up), changelog.Options{SIG: "Node"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.db.IngestChangelogs(context.Background(), []store.ChangelogInput{{File: "CHANGELOG-1.36.md", Document: upDoc, Deck: quizgen.Deck(upDoc, "ja")}},
		store.IngestOptions{Actor: "test", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	admin = newClient(t, ts, "192.0.2.32")
	admin.mustLogin("root", adminPassword)
	rec = admin.postFiles("/admin/ingest", map[string][]byte{"node-1.36.txt": []byte(ingestTestArticle)})
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	body = waitPreview(t, admin, rec.Header().Get("Location")).Body.String()
	if want := "1.36/node は CHANGELOG-1.36.md (upstream CHANGELOG) から保存済みです。記事 (変更内容) で取り込むとそれを置き換え"; !strings.Contains(body, want) {
		t.Errorf("preview of the article lacks %q: %.3000s", want, body)
	}
	if strings.Contains(body, "リリース全体として") {
		t.Error("the article's refusal advises reading an upstream CHANGELOG for the whole release, which would not let the article in")
	}
}

// TestAdminIngestSaveSeveral: saving an upload of several documents leads
// to the documents' list, which says how many were saved.
func TestAdminIngestSaveSeveral(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	admin := newClient(t, ts, "192.0.2.33")
	admin.mustLogin("root", adminPassword)
	up := "## Changelog since v1.34.0\n\n## Changes by Kind\n\n### Feature\n\n" +
		"- The kubelet caches widgets. ([#910002](https://github.com/kubernetes/kubernetes/pull/910002), [@dev](https://github.com/dev)) [SIG Node]\n"
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"node-1.36.txt": []byte(ingestTestArticle), "CHANGELOG-1.35.md": []byte(up)})
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	preview := rec.Header().Get("Location")
	if body := waitPreview(t, admin, preview).Body.String(); !strings.Contains(body, `id="ingest-apply"`) {
		t.Fatalf("preview: %.2000s", body)
	}
	u, _ := url.Parse(preview)
	rec = admin.post(u.Path+"/apply", u.Query())
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/ingest?saved=2" {
		t.Fatalf("apply = %d to %q, want a 303 to /admin/ingest?saved=2", rec.Code, rec.Header().Get("Location"))
	}
	if body := admin.get(rec.Header().Get("Location")).Body.String(); !strings.Contains(body, "2 件の文書を下書きとして保存しました。") {
		t.Errorf("the documents' list does not say what was saved: %.2000s", body)
	}
	if body := admin.get("/admin/ingest").Body.String(); strings.Contains(body, "保存しました") {
		t.Error("the list says something was saved when reached without saving")
	}
}

// TestAdminIngestSavesWhatWasPreviewed: a save with options no preview was
// made for (a hand-made form, or a preview lost to time or a restart)
// stores nothing and shows the preview of those options first, saying so.
func TestAdminIngestSavesWhatWasPreviewed(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.32")
	admin.mustLogin("root", adminPassword)
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"node-1.36.txt": []byte(ingestTestArticle)})
	preview := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(preview) {
		t.Fatalf("upload = %d to %q", rec.Code, preview)
	}
	waitPreview(t, admin, preview)
	u, _ := url.Parse(preview)
	apply := u.Path + "/apply"

	other := url.Values{"release": {"1.99"}, "lang": {"ja"}}
	rec = admin.post(apply, other)
	again := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(again, u.Path+"?") || !strings.Contains(again, "release=1.99") || !strings.HasSuffix(again, "&again=1") {
		t.Fatalf("apply with options not previewed = %d to %q, want a 303 to their preview", rec.Code, again)
	}
	if docs, _ := ts.db.ChangelogDocuments(ctx); len(docs) != 0 {
		t.Fatal("a save of what was not previewed stored documents")
	}
	if body := waitPreview(t, admin, again).Body.String(); !strings.Contains(body, "まだ何も保存されていません") || !strings.Contains(body, "v1-99-sig-node") {
		t.Errorf("the preview made in its place: %.2000s", body)
	}
	// Once previewed, those options are saved.
	if rec := admin.post(apply, other); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/admin/ingest/documents/") {
		t.Fatalf("apply after its preview = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	docs, err := ts.db.ChangelogDocuments(ctx)
	if err != nil || len(docs) != 1 || docs[0].Release != "1.99" {
		t.Errorf("stored %+v (%v), want the 1.99 document", docs, err)
	}
}

// TestAdminIngestSaveAfterTheTimelineMoved: a save whose questions differ
// from its preview's, because another ingest changed the stored timeline
// in between, stores nothing and shows the new preview first.
func TestAdminIngestSaveAfterTheTimelineMoved(t *testing.T) {
	// Questions that tell how many releases the timeline knows FooBarVolume in.
	gen := func(doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		out := fakeGenerate(doc, tl, opt)
		for i := range out {
			out[i].Question.Explanation += fmt.Sprintf(" (%d events)", len(tl.History("FooBarVolume")))
		}
		return out
	}
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), gen)
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.33")
	admin.mustLogin("root", adminPassword)
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"node-1.36.txt": []byte(ingestTestArticle)})
	preview := rec.Header().Get("Location")
	waitPreview(t, admin, preview)
	u, _ := url.Parse(preview)

	// Meanwhile a 1.35 article with FooBarVolume's beta is stored.
	older := strings.NewReplacer("1.36", "1.35", "FooBarVolume を GA に昇格させた。", "FooBarVolume を beta に昇格させた。").Replace(ingestTestArticle)
	doc, err := changelog.Parse([]byte(older), changelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.db.IngestChangelogs(ctx, []store.ChangelogInput{{File: "node-1.35.txt", Document: doc, Deck: quizgen.Deck(doc, ""), Generated: fakeGenerate(doc, nil, quizgen.Options{})}},
		store.IngestOptions{Actor: "test", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}

	rec = admin.post(u.Path+"/apply", u.Query())
	if again := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || !strings.HasSuffix(again, "&again=1") {
		t.Fatalf("save after the timeline moved = %d to %q, want a 303 to the preview made again", rec.Code, again)
	}
	if docs, _ := ts.db.ChangelogDocuments(ctx); len(docs) != 1 {
		t.Fatalf("%d documents stored, want only the 1.35 one", len(docs))
	}
	if body := waitPreview(t, admin, rec.Header().Get("Location")).Body.String(); !strings.Contains(body, "その後に内容が変わった") {
		t.Errorf("the preview made again does not say why: %.2000s", body)
	}
	if rec := admin.post(u.Path+"/apply", u.Query()); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/admin/ingest/documents/") {
		t.Fatalf("save of the new preview = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
}

// TestPreviewPage: a preview shows one window of each document's stages
// and questions, the questions counted across their generators, with as
// many pages as the longest list needs.
func TestPreviewPage(t *testing.T) {
	questions := func(prefix string, n int) []views.IngestQuestion {
		out := make([]views.IngestQuestion, n)
		for i := range out {
			out[i].ExtID = fmt.Sprintf("%s-%d", prefix, i)
		}
		return out
	}
	group := func(name string, n int) views.IngestGroup {
		return views.IngestGroup{Name: name, Questions: questions(name, n), Total: n}
	}
	pv := views.IngestPreview{Docs: []views.IngestPreviewDoc{
		{Key: "a", Stages: make([]views.IngestStage, 250), StagesTotal: 250, Groups: []views.IngestGroup{group("a1", 30), group("a2", 40)}},
		{Key: "b", Groups: []views.IngestGroup{group("b1", 10)}},
	}}
	const url = "/admin/ingest/x?lang=ja"
	tests := []struct {
		page, wantPage     int
		stages             int
		a1, a2, b1         []string // first and last ext id shown, or none
		wantPrev, wantNext string
	}{
		{0, 1, 200, []string{"a1-0", "a1-29"}, []string{"a2-0", "a2-19"}, []string{"b1-0", "b1-9"}, "", url + "&page=2"},
		{1, 1, 200, []string{"a1-0", "a1-29"}, []string{"a2-0", "a2-19"}, []string{"b1-0", "b1-9"}, "", url + "&page=2"},
		{2, 2, 50, nil, []string{"a2-20", "a2-39"}, nil, url + "&page=1", ""},
		{9, 2, 50, nil, []string{"a2-20", "a2-39"}, nil, url + "&page=1", ""},
	}
	ends := func(qs []views.IngestQuestion) []string {
		if len(qs) == 0 {
			return nil
		}
		return []string{qs[0].ExtID, qs[len(qs)-1].ExtID}
	}
	for _, tt := range tests {
		got := previewPage(pv, tt.page, url)
		a, b := got.Docs[0], got.Docs[1]
		if got.Pager.Page != tt.wantPage || got.Pager.Pages != 2 || got.Pager.PrevURL != tt.wantPrev || got.Pager.NextURL != tt.wantNext {
			t.Errorf("page %d: pager %+v", tt.page, got.Pager)
		}
		if len(a.Stages) != tt.stages || a.StagesTotal != 250 {
			t.Errorf("page %d: %d of %d stages, want %d of 250", tt.page, len(a.Stages), a.StagesTotal, tt.stages)
		}
		for _, c := range []struct {
			g    views.IngestGroup
			want []string
		}{{a.Groups[0], tt.a1}, {a.Groups[1], tt.a2}, {b.Groups[0], tt.b1}} {
			if got := ends(c.g.Questions); !slices.Equal(got, c.want) {
				t.Errorf("page %d: group %s shows %v, want %v", tt.page, c.g.Name, got, c.want)
			}
		}
	}
	// The preview kept by the job is not changed.
	if len(pv.Docs[0].Stages) != 250 || len(pv.Docs[0].Groups[1].Questions) != 40 {
		t.Error("paging changed the job's preview")
	}
}

// TestAdminIngestPreviewPages: the preview of a long document comes in
// pages, linked by the pager, that show every question once between them.
func TestAdminIngestPreviewPages(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	admin := newClient(t, ts, "192.0.2.34")
	admin.mustLogin("root", adminPassword)
	doc := testshared.SyntheticChangelog(9 << 10)
	want := 2 * strings.Count(string(doc), "\n- Graduated") // a flashcard and a stage question each
	rec := admin.postFiles("/admin/ingest", map[string][]byte{"CHANGELOG-1.99.md": doc})
	if rec.Code != http.StatusSeeOther || !ingestPreviewPath.MatchString(rec.Header().Get("Location")) {
		t.Fatalf("upload = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
	page, pages, shown := rec.Header().Get("Location"), 0, map[string]int{}
	waitPreview(t, admin, page)
	for page != "" {
		pages++
		body := admin.get(page).Body.String()
		ids := regexp.MustCompile(`<article class="ingest-question" id="question-([^"]+)"`).FindAllStringSubmatch(body, -1)
		if len(ids) > previewQuestionsPerPage || !strings.Contains(body, `id="ingest-apply"`) {
			t.Fatalf("page %d: %d questions, apply form %v", pages, len(ids), strings.Contains(body, `id="ingest-apply"`))
		}
		for _, m := range ids {
			shown[m[1]]++
		}
		page = ""
		if m := next.FindStringSubmatch(body); m != nil {
			page = html.UnescapeString(m[1])
		}
	}
	if pages < 2 || len(shown) != want {
		t.Errorf("%d pages showed %d questions, want %d over several pages", pages, len(shown), want)
	}
	for id, n := range shown {
		if n != 1 {
			t.Errorf("question %s shown on %d pages", id, n)
		}
	}
}
