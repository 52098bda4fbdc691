package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/changelog"
	"kubequiz/internal/ingest"
	"kubequiz/internal/metrics"
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

// generateFunc builds questions from a document; quizgen.GenerateContext
// in production, a stand-in in tests.
type generateFunc = ingest.Generator

// ingester serves the changelog ingest pages: upload, watch the parse,
// preview, save as drafts, then publish, edit or retire questions.
type ingester struct {
	s        *Server
	generate generateFunc
	jobs     *ingestJobs
}

// newIngester serves the ingest pages, with gen making the questions.
func newIngester(s *Server, gen generateFunc) *ingester {
	return &ingester{s: s, generate: gen, jobs: newIngestJobs(s.bg, &s.bgWG, s.log, s.now)}
}

// pipeline is the content pipeline with this ingester's generator.
func (h *ingester) pipeline() *ingest.Pipeline { return ingest.New(h.s.db, h.generate) }

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

// options are the choices for the content pipeline.
func (o ingestOptions) options() ingest.Options {
	return ingest.Options{Release: o.Release, SIG: o.SIG, Format: changelog.Format(o.Format), Lang: o.Lang}
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
	files, err := uploadedFiles(c, "files", maxIngestFiles)
	if err != nil {
		return h.renderIndex(c, http.StatusUnprocessableEntity, o, err.Error())
	}
	id, err := h.s.db.SaveUpload(c.Request().Context(), u.ID, "changelog", files, h.s.now())
	if err != nil {
		return err
	}
	h.startJob(u.ID, id, o, files)
	return c.Redirect(http.StatusSeeOther, ingestURL(id, o))
}

// startJob parses, generates and computes the preview in the background. It
// runs apart from the request, which returns at once; see ingestJobs.
func (h *ingester) startJob(userID int64, id string, o ingestOptions, files []store.UploadedFile) {
	now := h.s.now()
	h.jobs.start(jobKey(id, o), userID, func(ctx context.Context, progress func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		return h.previewUpload(ctx, id, o, files, now, progress)
	})
}

// previewUpload runs the content pipeline over an upload's files and saves
// the result as a dry run: the preview shows what a save would store, and
// the batch is what apply saves. A batch with problems is not returned.
func (h *ingester) previewUpload(ctx context.Context, id string, o ingestOptions, files []store.UploadedFile, now time.Time, progress func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
	pv := views.IngestPreview{ApplyURL: "/admin/ingest/" + id + "/apply", CancelURL: "/admin/ingest/" + id + "/cancel", Opts: o.view()}
	p := h.pipeline()
	batch, problems, err := p.Prepare(ctx, ingestSources(files), o.options(), jobProgress(progress))
	if err != nil || len(problems) > 0 {
		pv.Problems = parseProblems(problems)
		return pv, ingest.Batch{}, err
	}
	progress("プレビューを計算しています", 2*len(files), 2*len(files)+1)
	results, err := p.Save(ctx, batch, ingest.SaveOptions{Actor: "preview", DryRun: true, Now: now})
	if err != nil {
		if errors.Is(err, quiz.ErrConflict) || errors.Is(err, quiz.ErrInvalid) {
			pv.Problems = []views.IngestProblem{saveProblem(err)}
			return pv, ingest.Batch{}, nil
		}
		return pv, ingest.Batch{}, err
	}
	pv.Docs = previewDocs(batch.Inputs, results)
	return pv, batch, nil
}

func jobKey(id string, o ingestOptions) string { return id + "?" + o.query() }

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
		files, err := h.s.db.Upload(c.Request().Context(), id, u.ID, "changelog", h.s.now())
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
	n, _ := strconv.Atoi(c.QueryParam("page")) // not a number: the first page
	pv := previewPage(job.preview, n, ingestPreviewURL(id, o, job.preview.Again))
	return h.s.render(c, http.StatusOK, views.AdminIngestPreview(h.s.page(c, "取り込みのプレビュー"), pv))
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

// apply stores the documents and drafts of the preview's job in one
// transaction that also drops the upload: a second submit of the same
// upload is a 404. It saves only an upload previewed with the same
// options, without problems, while the stored documents are still those
// the preview's timeline was built from: otherwise (the preview expired,
// the server restarted, the form was not the preview's, or another ingest
// came in between) it shows the preview of these options first. It does
// not parse or generate: that is the job's work, bounded by its timeout.
func (h *ingester) apply(c echo.Context) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	o, err := ingestOptionsFrom(c.FormValue)
	if err != nil {
		return err
	}
	id := c.Param("id")
	// A second submit finds the upload gone (the save drops it).
	_, err = h.s.db.Upload(ctx, id, u.ID, "changelog", h.s.now())
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
	// The stored timeline may have moved since the preview (another
	// ingest): what would be stored is then not what was shown.
	p, batch := h.pipeline(), job.batch
	current, err := p.Current(ctx, batch)
	if err != nil {
		return err
	}
	if !current {
		h.jobs.drop(jobKey(id, o))
		return c.Redirect(http.StatusSeeOther, ingestPreviewURL(id, o, true))
	}
	results, err := p.Save(ctx, batch, ingest.SaveOptions{Actor: u.Login, Now: h.s.now(), UploadID: id, UserID: u.ID})
	if errors.Is(err, quiz.ErrNotFound) {
		return h.s.uploadGone(c, id, "changelog", "/admin/ingest", err) // a submit racing this one applied it
	}
	if errors.Is(err, quiz.ErrInvalid) || errors.Is(err, quiz.ErrConflict) {
		h.s.cfg.Metrics.Ingest(metrics.Refused)
		return err
	}
	if err != nil {
		h.s.cfg.Metrics.Ingest(metrics.Failed)
		return err
	}
	h.s.cfg.Metrics.Ingest(metrics.Applied)
	h.jobs.drop(id + "?")
	h.s.log.InfoContext(ctx, "changelog ingested", "actor", u.Login, "documents", len(results), "questions", batch.Questions())
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
	_, err = h.s.db.UpdateQuestionWording(ctx, id, e, h.s.now())
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
