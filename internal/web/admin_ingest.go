package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// maxIngestFiles is how many changelog files one upload may hold; the
// upload body limit (middleware.go) bounds their total size.
const maxIngestFiles = 10

// ingestLimits are the ingest form's limits: its files may add up to more
// than the body limit.
var ingestLimits = views.UploadLimits{Files: maxIngestFiles, FileSize: sizeText(changelog.MaxDocumentSize), Total: uploadBodyText}

// generateFunc builds questions from a document; quizgen.Generate in
// production, a stand-in in tests.
type generateFunc func(*changelog.Document, *changelog.Timeline, quizgen.Options) []quizgen.Generated

// ingester serves the changelog ingest pages: upload, watch the parse,
// preview, save as drafts, then publish, edit or retire questions.
type ingester struct {
	s        *Server
	generate generateFunc
	jobs     *ingestJobs
}

// newIngester serves the ingest pages, with gen making the questions.
func newIngester(s *Server, gen generateFunc) *ingester {
	return &ingester{s: s, generate: gen, jobs: newIngestJobs(s.bg, &s.bgWG, s.log)}
}

// ingestOptions are an upload's choices. They travel in the preview's URL
// and the apply form, not in the database.
type ingestOptions struct{ Release, SIG, Format, Lang string }

// inputError is a mistake in what an admin sent, with a message for them;
// it is a quiz.ErrInvalid (422).
type inputError struct{ msg string }

func (e inputError) Error() string        { return e.msg }
func (e inputError) Is(target error) bool { return target == quiz.ErrInvalid }

// ingestOptionsFrom reads and checks the options.
func ingestOptionsFrom(get func(string) string) (ingestOptions, error) {
	o := ingestOptions{
		Release: strings.TrimSpace(get("release")), SIG: strings.TrimSpace(get("sig")),
		Format: get("format"), Lang: get("lang"),
	}
	if o.Lang == "" {
		o.Lang = quizgen.LangJapanese
	}
	switch {
	case o.Format != "" && !changelog.Format(o.Format).Valid():
		return o, inputError{fmt.Sprintf("形式 %q は使えません", o.Format)}
	case o.Lang != quizgen.LangJapanese && o.Lang != quizgen.LangEnglish:
		return o, inputError{"問題の言語は ja か en です"}
	case o.Release != "":
		if _, err := changelog.NormalizeRelease(o.Release); err != nil {
			return o, inputError{fmt.Sprintf("リリース %q を読めません (例: 1.36)", o.Release)}
		}
	}
	if o.SIG != "" && changelog.NormalizeSIG(o.SIG) == "" {
		return o, inputError{fmt.Sprintf("SIG %q を読めません (例: Node)", o.SIG)}
	}
	return o, nil
}

func (o ingestOptions) query() string {
	q := url.Values{}
	for k, v := range map[string]string{"release": o.Release, "sig": o.SIG, "format": o.Format, "lang": o.Lang} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q.Encode()
}

func (o ingestOptions) view() views.IngestOptions {
	return views.IngestOptions{Release: o.Release, SIG: o.SIG, Format: o.Format, Lang: o.Lang}
}

func ingestURL(id string, o ingestOptions) string { return "/admin/ingest/" + id + "?" + o.query() }

func (h *ingester) index(c echo.Context) error {
	return h.renderIndex(c, http.StatusOK, ingestOptions{}, "")
}

func (h *ingester) renderIndex(c echo.Context, status int, o ingestOptions, errMsg string) error {
	ctx := c.Request().Context()
	docs, err := h.s.db.ChangelogDocuments(ctx)
	if err != nil {
		return err
	}
	runs, err := h.s.db.ImportRuns(ctx, 100)
	if err != nil {
		return err
	}
	vd := make([]views.IngestDocument, len(docs))
	for i, d := range docs {
		vd[i] = documentView(d)
	}
	var vr []views.ImportRun
	for _, r := range runs {
		if r.Kind == "changelog" && len(vr) < 20 {
			vr = append(vr, views.ImportRun{At: r.At.Format("2006-01-02 15:04"), Actor: r.Actor, Kind: r.Kind, File: r.FileName,
				SHA256: r.SHA256, Added: r.Added, Updated: r.Updated, Unchanged: r.Unchanged, Retired: r.Retired})
		}
	}
	noStore(c)
	notice := ""
	if n, err := strconv.Atoi(c.QueryParam("saved")); err == nil && n > 0 && errMsg == "" {
		notice = fmt.Sprintf("%d 件の文書を下書きとして保存しました。文書を開いて、公開する問題を選んでください。", n)
	}
	return h.s.render(c, status, views.AdminIngest(h.s.page(c, "変更履歴の取り込み"), ingestLimits, o.view(), vd, vr, notice, errMsg))
}

// upload keeps the files, starts parsing them and sends the browser to the
// page that shows the progress, then the preview.
func (h *ingester) upload(c echo.Context) error {
	u, _ := currentUser(c)
	o, err := ingestOptionsFrom(c.FormValue)
	if err != nil {
		return h.renderIndex(c, http.StatusUnprocessableEntity, o, err.Error())
	}
	files, err := uploadedFiles(c, "files", maxIngestFiles, changelog.MaxDocumentSize)
	if err != nil {
		return h.renderIndex(c, http.StatusUnprocessableEntity, o, err.Error())
	}
	id, err := h.s.db.SaveUpload(c.Request().Context(), u.ID, "changelog", files, time.Now())
	if err != nil {
		return err
	}
	h.startJob(u.ID, id, o, files)
	return c.Redirect(http.StatusSeeOther, ingestURL(id, o))
}

// startJob parses, generates and computes the preview in the background. It
// runs apart from the request, which returns at once; see ingestJobs.
func (h *ingester) startJob(userID int64, id string, o ingestOptions, files []store.UploadedFile) {
	now := time.Now()
	h.jobs.start(jobKey(id, o), userID, func(ctx context.Context, progress func(string, int, int)) (views.IngestPreview, error) {
		pv := views.IngestPreview{ApplyURL: "/admin/ingest/" + id + "/apply", CancelURL: "/admin/ingest/" + id + "/cancel", Opts: o.view()}
		inputs, problems, err := h.prepare(ctx, files, o, progress)
		if err != nil || len(problems) > 0 {
			pv.Problems = problems
			return pv, err
		}
		progress("プレビューを計算しています", 2*len(files), 2*len(files)+1)
		results, err := h.s.db.IngestChangelogs(ctx, inputs, store.IngestOptions{Actor: "preview", Language: o.Lang, DryRun: true, Now: now})
		if err != nil {
			if errors.Is(err, quiz.ErrConflict) || errors.Is(err, quiz.ErrInvalid) {
				pv.Problems = []views.IngestProblem{saveProblem(err)}
				return pv, nil
			}
			return pv, err
		}
		pv.Docs = previewDocs(inputs, results)
		pv.Digest, err = inputsDigest(inputs)
		return pv, err
	})
}

// saveProblem says why an upload cannot be stored: in the admin's words
// for a document that would replace one of the other kind, else the
// store's own message.
func saveProblem(err error) views.IngestProblem {
	var fc *store.FormatConflictError
	if errors.As(err, &fc) {
		detail := fmt.Sprintf("%s は %s (%s) から保存済みです。%s で取り込むとそれを置き換え、その問題を退役させるため、何も保存していません。",
			fc.Key, fc.StoredFile, views.FormatLabel(string(fc.StoredFormat)), views.FormatLabel(string(fc.Format)))
		if fc.Format != changelog.FormatArticle {
			// An upstream CHANGELOG read for the whole release has a key
			// of its own; an article has no other way in.
			detail += "upstream の CHANGELOG はリリース全体として (SIG を指定せずに) 取り込めます。"
		}
		return views.IngestProblem{File: fc.Key, Msg: "このリリースと SIG は別の種類の文書から保存されています", Detail: detail}
	}
	return views.IngestProblem{File: "保存", Msg: "この内容は保存できません", Detail: err.Error()}
}

// inputsDigest sums up what an ingest would store: each document as
// parsed and each generated question with its provenance. A save compares
// it with its preview's.
func inputsDigest(inputs []store.ChangelogInput) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, in := range inputs {
		if err := enc.Encode(struct {
			File      string
			Document  *changelog.Document
			Generated []quizgen.Generated
		}{in.File, in.Document, in.Generated}); err != nil {
			return "", fmt.Errorf("digest of %s: %w", in.File, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func jobKey(id string, o ingestOptions) string { return id + "?" + o.query() }

// prepare parses every file, builds the timeline with the stored documents
// and generates the questions. Files that cannot be ingested are problems,
// not errors; all of them are reported.
func (h *ingester) prepare(ctx context.Context, files []store.UploadedFile, o ingestOptions, progress func(string, int, int)) ([]store.ChangelogInput, []views.IngestProblem, error) {
	total := 2*len(files) + 1
	opts := changelog.Options{Format: changelog.Format(o.Format), Release: o.Release, SIG: o.SIG}
	var (
		docs     []*changelog.Document
		problems []views.IngestProblem
	)
	for i, f := range files {
		progress(fmt.Sprintf("解析しています (%d/%d): %s", i+1, len(files), f.Name), i, total)
		doc, err := changelog.Parse(f.Data, opts)
		if err == nil && doc.Release == "" {
			err = changelog.ErrNoRelease
		}
		if err != nil {
			problems = append(problems, parseProblem(f.Name, err))
			continue
		}
		docs = append(docs, doc)
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}
	tl, err := h.s.db.Timeline(ctx, docs...)
	if err != nil {
		return nil, nil, err
	}
	inputs := make([]store.ChangelogInput, len(docs))
	for i, doc := range docs {
		progress(fmt.Sprintf("問題を生成しています (%d/%d): %s", i+1, len(docs), files[i].Name), len(files)+i, total)
		inputs[i] = store.ChangelogInput{File: files[i].Name, Document: doc, Generated: h.generate(doc, tl, quizgen.Options{Language: o.Lang})}
	}
	return inputs, nil, nil
}

// parseProblem says in Japanese why a file was refused.
func parseProblem(file string, err error) views.IngestProblem {
	msg := "解析できません"
	switch {
	case errors.Is(err, changelog.ErrEmpty):
		msg = "ファイルが空です"
	case errors.Is(err, changelog.ErrBinary):
		msg = "バイナリファイルです (NUL バイトを含みます)"
	case errors.Is(err, changelog.ErrNotUTF8):
		msg = "UTF-8 のテキストではありません"
	case errors.Is(err, changelog.ErrTooLarge):
		msg = fmt.Sprintf("大きすぎます (上限 %d バイト)", changelog.MaxDocumentSize)
	case errors.Is(err, changelog.ErrUnknownFormat):
		msg = "形式を判別できません。形式を指定してください"
	case errors.Is(err, changelog.ErrNoEntries):
		msg = "変更のエントリが見つかりません"
	case errors.Is(err, changelog.ErrNoRelease):
		msg = "リリースを判別できません。リリースを指定してください"
	case errors.Is(err, changelog.ErrInvalidOption):
		msg = "指定したオプションが使えません"
	}
	return views.IngestProblem{File: file, Msg: msg, Detail: err.Error()}
}

// preview shows the parse's progress, then its preview. After a restart the
// job is gone: it starts again from the stored upload.
func (h *ingester) preview(c echo.Context) error {
	u, _ := currentUser(c)
	o, err := ingestOptionsFrom(c.QueryParam)
	if err != nil {
		return err
	}
	id := c.Param("id")
	job, ok := h.jobs.get(jobKey(id, o), u.ID)
	if !ok {
		files, err := h.s.db.Upload(c.Request().Context(), id, u.ID, "changelog", time.Now())
		if errors.Is(err, quiz.ErrNotFound) {
			return h.s.uploadGone(c, id, "changelog", "/admin/ingest", err) // Back, after the apply
		}
		if err != nil {
			return err
		}
		h.startJob(u.ID, id, o, files)
		if job, ok = h.jobs.get(jobKey(id, o), u.ID); !ok {
			return fmt.Errorf("ingest job %s vanished", id)
		}
	}
	noStore(c)
	job.preview.Again = c.QueryParam("again") == "1"
	switch {
	case job.running:
		return h.s.render(c, http.StatusOK, views.AdminIngestProgress(h.s.page(c, "解析中"), h.progressView(id, o, job, job.preview.Again)))
	case job.err != nil:
		h.jobs.drop(jobKey(id, o)) // the next request tries again
		return job.err
	case len(job.preview.Problems) > 0:
		return h.s.render(c, http.StatusUnprocessableEntity, views.AdminIngestPreview(h.s.page(c, "取り込みのプレビュー"), job.preview))
	}
	return h.s.render(c, http.StatusOK, views.AdminIngestPreview(h.s.page(c, "取り込みのプレビュー"), job.preview))
}

// status answers the progress poll: the fragment while the job runs, then a
// redirect to the preview (HX-Redirect for htmx, 303 otherwise).
func (h *ingester) status(c echo.Context) error {
	u, _ := currentUser(c)
	o, err := ingestOptionsFrom(c.QueryParam)
	if err != nil {
		return err
	}
	id := c.Param("id")
	job, ok := h.jobs.get(jobKey(id, o), u.ID)
	again := c.QueryParam("again") == "1"
	noStore(c)
	if ok && job.running && c.Request().Header.Get("HX-Request") == "true" {
		return h.s.render(c, http.StatusOK, views.IngestProgressFragment(h.progressView(id, o, job, again)))
	}
	page := ingestPreviewURL(id, o, again)
	if c.Request().Header.Get("HX-Request") == "true" {
		c.Response().Header().Set("HX-Redirect", page)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, page)
}

// progressView is a running job's progress; again carries a save's
// "previewed again" notice (see apply) on to the preview.
func (h *ingester) progressView(id string, o ingestOptions, j ingestJobState, again bool) views.IngestProgress {
	return views.IngestProgress{StatusURL: "/admin/ingest/" + id + "/status?" + o.query() + againParam(again),
		PageURL: ingestPreviewURL(id, o, again), Step: j.step, Done: j.done, Total: j.total}
}

// ingestPreviewURL is ingestURL, saying when again that a save found no preview
// of what it would store and this one was made in its place.
func ingestPreviewURL(id string, o ingestOptions, again bool) string {
	return ingestURL(id, o) + againParam(again)
}

func againParam(again bool) string {
	if again {
		return "&again=1"
	}
	return ""
}

// apply parses and generates again, so that the timeline is the stored one
// of this moment, and stores the documents and drafts in one transaction
// that also drops the upload: a second submit of the same upload is a 404.
// It saves only an upload previewed with the same options, without
// problems: otherwise (the preview expired, the server restarted, or the
// form was not the preview's) it shows the preview of these options first.
func (h *ingester) apply(c echo.Context) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	o, err := ingestOptionsFrom(c.FormValue)
	if err != nil {
		return err
	}
	id := c.Param("id")
	files, err := h.s.db.Upload(ctx, id, u.ID, "changelog", time.Now())
	if errors.Is(err, quiz.ErrNotFound) {
		return h.s.uploadGone(c, id, "changelog", "/admin/ingest", err)
	}
	if err != nil {
		return err
	}
	job, ok := h.jobs.get(jobKey(id, o), u.ID)
	if !ok || job.running || job.err != nil || len(job.preview.Problems) > 0 {
		return c.Redirect(http.StatusSeeOther, ingestPreviewURL(id, o, true))
	}
	inputs, problems, err := h.prepare(ctx, files, o, func(string, int, int) {})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		pv := views.IngestPreview{CancelURL: "/admin/ingest/" + id + "/cancel", Opts: o.view(), Problems: problems}
		return h.s.render(c, http.StatusUnprocessableEntity, views.AdminIngestPreview(h.s.page(c, "取り込みのプレビュー"), pv))
	}
	// The stored timeline may have moved since the preview (another
	// ingest): what would be stored is then not what was shown.
	digest, err := inputsDigest(inputs)
	if err != nil {
		return err
	}
	if digest != job.preview.Digest {
		h.jobs.drop(jobKey(id, o))
		return c.Redirect(http.StatusSeeOther, ingestPreviewURL(id, o, true))
	}
	results, err := h.s.db.IngestUpload(ctx, id, u.ID, inputs, store.IngestOptions{Actor: u.Login, Language: o.Lang, Now: time.Now()})
	if errors.Is(err, quiz.ErrNotFound) {
		return h.s.uploadGone(c, id, "changelog", "/admin/ingest", err) // a submit racing this one applied it
	}
	if err != nil {
		return err
	}
	h.jobs.drop(id + "?")
	questions := 0
	for _, in := range inputs {
		questions += len(in.Generated)
	}
	h.s.log.InfoContext(ctx, "changelog ingested", "actor", u.Login, "documents", len(results), "questions", questions)
	if len(results) == 1 {
		return c.Redirect(http.StatusSeeOther, documentURL(results[0].DocumentID)+"?saved=1")
	}
	return c.Redirect(http.StatusSeeOther, "/admin/ingest?saved="+strconv.Itoa(len(results)))
}

func (h *ingester) cancel(c echo.Context) error {
	u, _ := currentUser(c)
	id := c.Param("id")
	if err := h.s.db.DeleteUpload(c.Request().Context(), id, u.ID); err != nil {
		return err
	}
	h.jobs.drop(id + "?")
	return c.Redirect(http.StatusSeeOther, "/admin/ingest")
}

func documentURL(id int64) string { return "/admin/ingest/documents/" + strconv.FormatInt(id, 10) }

func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// document lists a document's generated questions by status.
func (h *ingester) document(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	doc, err := h.s.db.ChangelogDocumentByID(ctx, id)
	if err != nil {
		return err
	}
	qs, err := h.s.db.ListDrafts(ctx, store.DraftFilter{Document: doc.Key, Statuses: []quiz.Status{quiz.Draft, quiz.Published, quiz.Retired}})
	if err != nil {
		return err
	}
	page := views.IngestDocumentPage{Doc: documentView(doc), PublishURL: documentURL(id) + "/publish", RetireURL: documentURL(id) + "/retire"}
	for _, dq := range qs {
		v := draftView(dq)
		switch dq.Status {
		case quiz.Draft:
			page.Drafts = append(page.Drafts, v)
		case quiz.Published:
			page.Published = append(page.Published, v)
		default:
			page.Retired = append(page.Retired, v)
		}
	}
	n, _ := strconv.Atoi(c.QueryParam("n"))
	switch {
	case c.QueryParam("saved") == "1":
		page.Notice = "下書きとして保存しました。公開する問題を選んでください。"
	case c.QueryParam("published") == "1":
		page.Notice = fmt.Sprintf("%d 問を公開しました。", n)
	case c.QueryParam("retired") == "1":
		page.Notice = fmt.Sprintf("%d 問を退役させました。", n)
	case c.QueryParam("edited") == "1":
		page.Notice = "問題の文面を保存しました。"
	case c.QueryParam("none") == "1":
		page.Problem = "問題が選ばれていません。公開または退役させる問題にチェックを入れてから押してください。"
	case c.QueryParam("confirm") == "1":
		page.Problem = "すべてを公開または退役させるには、ボタンの上の確認にチェックを入れてください。何も変えていません。"
	}
	noStore(c)
	return h.s.render(c, http.StatusOK, views.AdminIngestDocument(h.s.page(c, docTitle(doc)), page))
}

func (h *ingester) publish(c echo.Context) error { return h.setStatus(c, quiz.Published) }
func (h *ingester) retire(c echo.Context) error  { return h.setStatus(c, quiz.Retired) }

// setStatus publishes or retires the selected questions of a document.
func (h *ingester) setStatus(c echo.Context, status quiz.Status) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return fmt.Errorf("%w: %v", quiz.ErrInvalid, err)
	}
	var ids []int64
	for _, v := range form["ids"] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return inputError{fmt.Sprintf("問題の番号 %q を読めません", v)}
		}
		ids = append(ids, n)
	}
	// Nothing chosen, or "all" not confirmed: the page again, saying so.
	switch {
	case len(ids) == 0:
		return c.Redirect(http.StatusSeeOther, documentURL(id)+"?none=1")
	case form.Get("all") == "1" && form.Get("confirm") != "1":
		return c.Redirect(http.StatusSeeOther, documentURL(id)+"?confirm=1")
	}
	doc, err := h.s.db.ChangelogDocumentByID(ctx, id)
	if err != nil {
		return err
	}
	set, what := h.s.db.PublishQuestions, "published"
	if status == quiz.Retired {
		set, what = h.s.db.RetireQuestions, "retired"
	}
	n, err := set(ctx, doc.DeckSlug, ids, time.Now())
	if err != nil {
		return err
	}
	u, _ := currentUser(c)
	h.s.log.InfoContext(ctx, "generated questions "+what, "actor", u.Login, "document", doc.Key, "questions", n)
	return c.Redirect(http.StatusSeeOther, documentURL(id)+"?"+what+"=1&n="+strconv.Itoa(n))
}

func (h *ingester) editForm(c echo.Context) error {
	id, err := pathID(c, "q")
	if err != nil {
		return err
	}
	dq, err := h.s.db.GeneratedQuestion(c.Request().Context(), id)
	if err != nil {
		return err
	}
	noStore(c)
	return h.s.render(c, http.StatusOK, views.AdminIngestEdit(h.s.page(c, "問題の編集"), editView(dq, nil)))
}

// edit saves an admin's wording. A wording that fails validation is shown
// again with its problems, with status 422, and nothing is stored.
func (h *ingester) edit(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "q")
	if err != nil {
		return err
	}
	dq, err := h.s.db.GeneratedQuestion(ctx, id)
	if err != nil {
		return err
	}
	e := store.QuestionEdit{
		Prompt: c.FormValue("prompt"), Explanation: c.FormValue("explanation"), Answer: strings.TrimSpace(c.FormValue("answer")),
		Choices: formLines(c.FormValue("choices")), Answers: formLines(c.FormValue("answers")),
		Accept: formLines(c.FormValue("accept")), Items: formLines(c.FormValue("items")),
	}
	switch c.FormValue("truth") {
	case "true":
		e.Truth = new(true)
	case "false":
		e.Truth = new(false)
	}
	_, err = h.s.db.UpdateQuestionWording(ctx, id, e, time.Now())
	var ve *quiz.ValidationError
	if errors.As(err, &ve) {
		q := &dq.Question
		q.Prompt, q.Explanation = e.Prompt, e.Explanation
		q.SetPayload(quiz.Payload{Choices: e.Choices, Answer: e.Answer, Answers: e.Answers, Truth: e.Truth, Accept: e.Accept, Items: e.Items})
		return h.s.render(c, http.StatusUnprocessableEntity, views.AdminIngestEdit(h.s.page(c, "問題の編集"), editView(dq, ve.Problems)))
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, documentURL(dq.DocumentID)+"?edited=1#question-"+url.PathEscape(dq.Question.ExtID))
}

// formLines splits a textarea into its non-blank lines.
func formLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func docTitle(d store.ChangelogDocument) string {
	if d.Title != "" {
		return d.Title
	}
	return d.Key
}

func documentView(d store.ChangelogDocument) views.IngestDocument {
	return views.IngestDocument{URL: documentURL(d.ID), Key: d.Key, Title: d.Title, Release: d.Release, SIG: d.SIG,
		Format: string(d.Format), File: d.FileName, DeckSlug: d.DeckSlug, DeckTitle: d.DeckTitle,
		UpdatedAt: d.UpdatedAt.Format("2006-01-02 15:04"), Entries: d.Entries, Stages: d.StageChanges,
		Drafts: d.Drafts, Published: d.Published, Retired: d.Retired}
}

func questionView(q quiz.Question, prov quizgen.Provenance) views.IngestQuestion {
	return views.IngestQuestion{ExtID: q.ExtID, Type: string(q.Type), Prompt: q.Prompt, Answer: q.ExpectedAnswer(),
		Explanation: q.Explanation, SourceText: prov.SourceText, Generator: prov.Generator, Choices: q.Choices, PRs: prov.PRs}
}

func draftView(dq store.DraftQuestion) views.IngestQuestion {
	v := questionView(dq.Question, dq.Provenance)
	v.ID, v.Status, v.Edited = dq.ID, string(dq.Status), dq.Edited
	v.EditURL = "/admin/ingest/questions/" + strconv.FormatInt(dq.ID, 10)
	return v
}

func editView(dq store.DraftQuestion, problems []quiz.FieldError) views.IngestEdit {
	q := dq.Question
	e := views.IngestEdit{
		Action: "/admin/ingest/questions/" + strconv.FormatInt(dq.ID, 10), BackURL: documentURL(dq.DocumentID),
		ExtID: q.ExtID, Type: string(q.Type), Status: string(dq.Status), SourceText: dq.Provenance.SourceText,
		Prompt: q.Prompt, Explanation: q.Explanation, Answer: q.Answer,
		Choices: strings.Join(q.Choices, "\n"), Answers: strings.Join(q.Answers, "\n"),
		Accept: strings.Join(q.Accept, "\n"), Items: strings.Join(q.Items, "\n"), Problems: problems,
	}
	if q.Truth != nil {
		e.Truth = strconv.FormatBool(*q.Truth)
	}
	return e
}

// previewDocs turns dry-run results into the preview's values.
func previewDocs(inputs []store.ChangelogInput, results []store.IngestResult) []views.IngestPreviewDoc {
	out := make([]views.IngestPreviewDoc, len(results))
	for i, r := range results {
		in := inputs[i]
		d := views.IngestPreviewDoc{File: r.File, Key: r.DocumentKey, Title: in.Document.Title, Format: string(in.Document.Format),
			Outcome: string(r.Document), DeckSlug: r.Deck.Slug, DeckTitle: r.Deck.Title, DeckNew: r.DeckCreated, Entries: r.Entries,
			SIG: in.Document.SIG, OtherSIGs: in.Document.OtherSIGs, Unlabelled: in.Document.Unlabelled}
		for k, n := range r.EntriesByKind {
			d.Kinds = append(d.Kinds, views.IngestCount{Name: string(k), N: n})
		}
		sort.Slice(d.Kinds, func(a, b int) bool {
			if d.Kinds[a].N != d.Kinds[b].N {
				return d.Kinds[a].N > d.Kinds[b].N
			}
			return d.Kinds[a].Name < d.Kinds[b].Name
		})
		for _, e := range in.Document.Entries {
			for _, sc := range e.Stages {
				d.Stages = append(d.Stages, views.IngestStage{Feature: sc.Feature, Stage: string(sc.Stage), Release: sc.Release,
					Entry: e.Key, Evidence: sc.Evidence, PR: sc.PR})
			}
		}
		outcome := map[string]store.QuestionOutcome{}
		for _, q := range r.Questions {
			outcome[q.ExtID] = q
		}
		groups := map[string]int{}
		for _, name := range generatorOrder(r.Generators) {
			c := r.Generators[name]
			d.Generators = append(d.Generators, views.IngestGenerator{Name: name, Added: c.Added, Updated: c.Updated,
				Unchanged: c.Unchanged, KeptEdits: c.KeptEdits, Retired: c.Retired})
			groups[name] = len(d.Groups)
			d.Groups = append(d.Groups, views.IngestGroup{Name: name})
		}
		for _, g := range in.Generated {
			v := questionView(g.Question, g.Provenance)
			o := outcome[g.Question.ExtID]
			v.Outcome, v.Status = string(o.Outcome), string(o.Status)
			gi := groups[g.Provenance.Generator]
			d.Groups[gi].Questions = append(d.Groups[gi].Questions, v)
		}
		out[i] = d
	}
	return out
}

// generatorOrder lists generator names in quizgen's order, unknown ones last.
func generatorOrder(counts map[string]store.GeneratorCounts) []string {
	var out []string
	known := map[string]bool{}
	for _, g := range []string{quizgen.GenStageInRelease, quizgen.GenReleaseOfStage, quizgen.GenTimelineOrder,
		quizgen.GenFeatureFromDescription, quizgen.GenCloze, quizgen.GenTrueFalse} {
		known[g] = true
		if _, ok := counts[g]; ok {
			out = append(out, g)
		}
	}
	var rest []string
	for g := range counts {
		if !known[g] {
			rest = append(rest, g)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// Limits of the background parse jobs.
const (
	ingestJobTimeout = 2 * time.Minute  // a job that takes longer is stopped
	ingestJobsKept   = 8                // finished jobs kept for their previews
	ingestJobsActive = 2                // jobs parsing at once; more wait
	ingestJobMaxAge  = 30 * time.Minute // finished jobs older than this are dropped
)

// ingestJobs holds the parse jobs of one Server, in memory and behind a
// mutex. Each job runs in its own goroutine, apart from the request that
// started it, and ends when its work returns or ingestJobTimeout passes; it
// recovers from a panic in the generators so that the server stays up.
// A job lost to a restart is started again from its stored upload.
type ingestJobs struct {
	log    *slog.Logger
	active chan struct{}
	parent context.Context // cancelled when the server closes
	wg     *sync.WaitGroup // the server's background work

	mu   sync.Mutex
	jobs map[string]*ingestJobState
}

// ingestJobState is one job's state; get returns copies of it.
type ingestJobState struct {
	userID      int64
	running     bool
	step        string
	done, total int
	preview     views.IngestPreview
	err         error
	finished    time.Time
}

type ingestWork func(ctx context.Context, progress func(step string, done, total int)) (views.IngestPreview, error)

func newIngestJobs(parent context.Context, wg *sync.WaitGroup, log *slog.Logger) *ingestJobs {
	return &ingestJobs{log: log, parent: parent, wg: wg, active: make(chan struct{}, ingestJobsActive), jobs: map[string]*ingestJobState{}}
}

// start runs work in the background under key, unless a job with that key
// is already running or done.
func (j *ingestJobs) start(key string, userID int64, work ingestWork) {
	j.mu.Lock()
	j.evictLocked(time.Now()) // first: an expired job of this key is started afresh
	if _, ok := j.jobs[key]; ok {
		j.mu.Unlock()
		return
	}
	job := &ingestJobState{userID: userID, running: true, step: "順番を待っています", total: 1}
	j.jobs[key] = job
	j.mu.Unlock()

	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		var (
			pv  views.IngestPreview
			err error
		)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("ingest job panicked: %v", r)
			}
			if err != nil {
				j.log.Error("ingest job failed", "err", err)
			}
			j.mu.Lock()
			job.running, job.preview, job.err, job.finished = false, pv, err, time.Now()
			j.mu.Unlock()
		}()
		select {
		case j.active <- struct{}{}:
		case <-j.parent.Done():
			err = fmt.Errorf("ingest job: %w", j.parent.Err())
			return
		}
		defer func() { <-j.active }()
		ctx, cancel := context.WithTimeout(j.parent, ingestJobTimeout)
		defer cancel()
		pv, err = work(ctx, func(step string, done, total int) {
			j.mu.Lock()
			job.step, job.done, job.total = step, done, total
			j.mu.Unlock()
		})
	}()
}

// get returns a copy of the job's state; another user's job is not found.
func (j *ingestJobs) get(key string, userID int64) (ingestJobState, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	job, ok := j.jobs[key]
	if !ok || job.userID != userID || expired(job, time.Now()) {
		return ingestJobState{}, false
	}
	return *job, true
}

// drop forgets the jobs whose keys start with prefix.
func (j *ingestJobs) drop(prefix string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k := range j.jobs {
		if strings.HasPrefix(k, prefix) {
			delete(j.jobs, k)
		}
	}
}

// expired reports whether a job finished longer than ingestJobMaxAge ago.
func expired(job *ingestJobState, now time.Time) bool {
	return !job.running && now.Sub(job.finished) > ingestJobMaxAge
}

// evictLocked drops old finished jobs, and the oldest finished ones while
// more than ingestJobsKept remain.
func (j *ingestJobs) evictLocked(now time.Time) {
	var finished []string
	for k, job := range j.jobs {
		switch {
		case job.running:
		case expired(job, now):
			delete(j.jobs, k)
		default:
			finished = append(finished, k)
		}
	}
	sort.Slice(finished, func(a, b int) bool { return j.jobs[finished[a]].finished.Before(j.jobs[finished[b]].finished) })
	for len(finished) > 0 && len(j.jobs) >= ingestJobsKept {
		delete(j.jobs, finished[0])
		finished = finished[1:]
	}
}
