package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/bank"
	"kubequiz/internal/metrics"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// Upload limits for question files.
const (
	maxImportFiles = 20
	importBodySize = maxImportFiles*bank.MaxFileSize + 64<<10
)

// importLimits are the import form's limits; its largest upload stays
// under the body limit.
var importLimits = views.UploadLimits{Files: maxImportFiles, FileSize: sizeText(bank.MaxFileSize)}

// sizeText writes a size in KiB or MiB: "256 KiB", "2 MiB".
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n>>10, 10) + " KiB"
}

func (s *Server) importForm(c echo.Context) error {
	return s.renderImportForm(c, http.StatusOK, "")
}

func (s *Server) renderImportForm(c echo.Context, status int, errMsg string) error {
	runs, err := s.db.ImportRuns(c.Request().Context(), 100)
	if err != nil {
		return err
	}
	// The question files' imports; changelog ingests are listed on their page.
	var yaml []store.ImportRun
	for _, r := range runs {
		if r.Kind == "yaml" && len(yaml) < 50 {
			yaml = append(yaml, r)
		}
	}
	vr := importRunViews(yaml)
	noStore(c)
	return s.render(c, status, views.AdminImport(s.page(c, "インポート"), importLimits, vr, errMsg))
}

// importUpload keeps the uploaded files and shows their preview.
func (s *Server) importUpload(c echo.Context) error {
	u, _ := currentUser(c)
	files, err := uploadedFiles(c, "files", maxImportFiles)
	if err != nil {
		return s.renderImportForm(c, http.StatusUnprocessableEntity, err.Error())
	}
	id, err := s.db.SaveUpload(c.Request().Context(), u.ID, "yaml", files, s.now())
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/import/"+id)
}

// importPreview decodes the upload and shows what applying it would do.
func (s *Server) importPreview(c echo.Context) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	prune := c.QueryParam("prune") == "1"
	files, err := s.db.Upload(ctx, c.Param("id"), u.ID, "yaml", s.now())
	if errors.Is(err, quiz.ErrNotFound) {
		return s.uploadGone(c, c.Param("id"), "yaml", "/admin/import/"+c.Param("id")+"/done", err) // Back, after the apply
	}
	if err != nil {
		return err
	}
	noStore(c)
	decoded, err := bank.DecodeAll(bankInputs(files))
	if err != nil {
		var be *bank.Error
		if !errors.As(err, &be) {
			return err
		}
		return s.render(c, http.StatusUnprocessableEntity, views.AdminImportPreview(s.page(c, "プレビュー"), c.Param("id"), prune, "", importProblems(be), nil))
	}
	results, err := s.db.ImportBank(ctx, decoded, store.ImportOptions{Actor: u.Login, Prune: prune, DryRun: true, Now: s.now()})
	if err != nil {
		return err
	}
	notice := ""
	if c.QueryParam("changed") == "1" {
		notice = msgPruneChanged
	}
	return s.render(c, http.StatusOK, views.AdminImportPreview(s.page(c, "プレビュー"), c.Param("id"), prune, notice, nil, importDecks(results)))
}

// msgPruneChanged says why an apply showed the preview again.
const msgPruneChanged = "「ファイルにない問題を退役させる」の設定がプレビューと違ったため、反映せずにプレビューを更新しました。内容を確かめてから、もう一度「反映する」を押してください。"

// previewURL is the preview of upload id, with prune as asked.
func previewURL(id string, prune bool) string {
	if prune {
		return "/admin/import/" + id + "?prune=1"
	}
	return "/admin/import/" + id
}

// importApply imports the upload and forgets it, in one transaction, then
// redirects to the page of what it imported, which a reload does not post
// again. A second submit of the same upload, even one racing the first,
// finds it gone, imports nothing and is sent to that page. The preview's form posts here too: its
// "update the preview" button, and an apply whose prune box is not the one
// previewed, lead to the preview with that box instead, so that nothing is
// applied that the admin has not seen.
func (s *Server) importApply(c echo.Context) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	id := c.Param("id")
	prune := c.FormValue("prune") == "1"
	switch {
	case c.FormValue("action") == "preview":
		return c.Redirect(http.StatusSeeOther, previewURL(id, prune))
	case prune != (c.FormValue("previewed_prune") == "1"):
		url := previewURL(id, prune)
		if prune {
			url += "&changed=1"
		} else {
			url += "?changed=1"
		}
		return c.Redirect(http.StatusSeeOther, url)
	}
	done := "/admin/import/" + id + "/done"
	files, err := s.db.Upload(ctx, id, u.ID, "yaml", s.now())
	if errors.Is(err, quiz.ErrNotFound) {
		return s.uploadGone(c, id, "yaml", done, err)
	}
	if err != nil {
		return err
	}
	decoded, err := bank.DecodeAll(bankInputs(files))
	if err != nil {
		s.cfg.Metrics.Import(metrics.Refused)
		return fmt.Errorf("import %s: %w", id, err) // a *bank.Error, which is a quiz.ErrInvalid
	}
	_, err = s.db.ImportUpload(ctx, id, u.ID, decoded, store.ImportOptions{Actor: u.Login, Prune: prune, Now: s.now()})
	if errors.Is(err, quiz.ErrNotFound) {
		return s.uploadGone(c, id, "yaml", done, err) // a submit racing this one applied it
	}
	if errors.Is(err, quiz.ErrInvalid) || errors.Is(err, quiz.ErrConflict) {
		s.cfg.Metrics.Import(metrics.Refused)
		return err
	}
	if err != nil {
		s.cfg.Metrics.Import(metrics.Failed)
		return err
	}
	s.cfg.Metrics.Import(metrics.Applied)
	s.log.InfoContext(ctx, "questions imported", "actor", u.Login, "files", len(files))
	return c.Redirect(http.StatusSeeOther, done)
}

// uploadGone answers a request for an upload of kind that is gone: a redirect to
// done when it was applied (a double click or a reload of the apply, Back
// to its preview), otherwise err, a 404.
func (s *Server) uploadGone(c echo.Context, id, kind, done string, err error) error {
	runs, rerr := s.db.UploadRuns(c.Request().Context(), id, kind)
	if rerr != nil {
		return rerr
	}
	if len(runs) == 0 {
		return err
	}
	return c.Redirect(http.StatusSeeOther, done)
}

// importDone shows what the apply of upload id imported.
func (s *Server) importDone(c echo.Context) error {
	runs, err := s.db.UploadRuns(c.Request().Context(), c.Param("id"), "yaml")
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return echo.ErrNotFound
	}
	return s.render(c, http.StatusOK, views.AdminImportDone(s.page(c, "インポート完了"), importRunViews(runs)))
}

// importRunViews are the rows of an import history.
func importRunViews(runs []store.ImportRun) []views.ImportRun {
	out := make([]views.ImportRun, 0, len(runs))
	for _, r := range runs {
		out = append(out, views.ImportRun{At: r.At.Format("2006-01-02 15:04"), Actor: r.Actor, Kind: r.Kind, File: r.FileName,
			SHA256: r.SHA256, Added: r.Added, Updated: r.Updated, Unchanged: r.Unchanged, Retired: r.Retired})
	}
	return out
}

func (s *Server) importCancel(c echo.Context) error {
	u, _ := currentUser(c)
	if err := s.db.DeleteUpload(c.Request().Context(), c.Param("id"), u.ID); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/import")
}

// uploadedFiles returns the files of a multipart field of an admin's
// upload, as parseBody read them (each within its route's limit), and
// refuses none or too many.
func uploadedFiles(c echo.Context, field string, maxFiles int) ([]store.UploadedFile, error) {
	all, ok := c.Get(formFilesKey).([]formFile)
	if !ok {
		// The body was not read as an admin's upload: the session
		// changed between the upload check and the admin check.
		return nil, errors.New("アップロードを読み込めませんでした。もう一度アップロードしてください。")
	}
	var files []store.UploadedFile
	for _, f := range all {
		if f.field == field {
			files = append(files, store.UploadedFile{Name: f.name, Data: f.data})
		}
	}
	if len(files) == 0 {
		return nil, errors.New("ファイルが選ばれていません")
	}
	if len(files) > maxFiles {
		return nil, fmt.Errorf("ファイルは一度に %d 個までです (%d 個)", maxFiles, len(files))
	}
	return files, nil
}

// maxUploadName is the most runes of an upload's name that pages show.
const maxUploadName = 100

// uploadName is the name an uploaded file is known by on the admin pages:
// the base name the browser sent, as valid UTF-8 (a run of bytes that is
// not becomes U+FFFD), without control or format characters (the bidi
// controls among them, which can make a name read as another, such as
// "evil\u202Elmay.exe" as "evilexe.yaml") or line and paragraph
// separators, spaces trimmed, and at most maxUploadName runes, the last
// an ellipsis when cut. A name left empty is "upload".
func uploadName(raw string) string {
	name := strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(baseName(raw), "\uFFFD"))
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxUploadName {
		name = string([]rune(name)[:maxUploadName-1]) + "…"
	}
	if name == "" {
		return "upload"
	}
	return name
}

// baseName is name after its last slash or backslash.
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		return name[i+1:]
	}
	return name
}

func bankInputs(files []store.UploadedFile) []bank.Input {
	in := make([]bank.Input, len(files))
	for i, f := range files {
		in[i] = bank.Input{Name: f.Name, Data: f.Data}
	}
	return in
}

// importProblems are a question file's problems as the preview lists
// them: file, line and field, and the message in Japanese.
func importProblems(be *bank.Error) []views.ImportProblem {
	out := make([]views.ImportProblem, len(be.Problems))
	for i, p := range be.Problems {
		out[i] = views.ImportProblem{Where: problemWhere(p), Field: p.Field, Msg: questionProblem(p.Msg)}
	}
	return out
}

func importDecks(results []store.DeckResult) []views.ImportDeck {
	out := make([]views.ImportDeck, len(results))
	for i, r := range results {
		p := r.Plan
		d := views.ImportDeck{File: r.File, Slug: p.Deck.Slug, Title: p.Deck.Title,
			Added: len(p.Added), Updated: len(p.Updated), Unchanged: len(p.Unchanged), Retired: len(p.Retired),
			Existing: r.Existing, RetiredIDs: p.Retired}
		for _, ch := range r.DeckChanges {
			d.DeckChanges = append(d.DeckChanges, views.ImportChange{ID: p.Deck.Slug, Field: ch.Field, Old: ch.Old, New: ch.New})
		}
		for _, id := range p.Updated {
			for _, ch := range r.Changes[id] {
				d.Changes = append(d.Changes, views.ImportChange{ID: id, Field: ch.Field, Old: ch.Old, New: ch.New})
			}
		}
		out[i] = d
	}
	return out
}

// noStore keeps a response out of every cache.
func noStore(c echo.Context) {
	c.Response().Header().Set("Cache-Control", "no-store")
}
