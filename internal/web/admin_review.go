package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file serves the review of a document's generated questions: a
// page of them at a time, filtered and searched; publishing or retiring
// the chosen ones, or every one a filter selects once the admin has
// confirmed how many; and the wording an ingest proposes for published
// questions, to accept or dismiss.

// reviewPageSize is how many questions a page of the document shows.
const reviewPageSize = 50

// maxFilterText bounds a filter's values (runes): a select's value or the
// search text.
const maxFilterText = 200

// reviewQuery is a document page's filter and page number, as its query
// and its forms carry them.
type reviewQuery struct {
	f    store.ReviewFilter
	page int
}

// reviewQueryFrom reads the filter and the page. Values no form of the
// page sends are refused: an unknown status or type, text that is too
// long, a page that is no number.
func reviewQueryFrom(get func(string) string) (reviewQuery, error) {
	q := reviewQuery{page: 1, f: store.ReviewFilter{
		Generator: strings.TrimSpace(get("generator")), Type: quiz.Type(get("type")), Kind: strings.TrimSpace(get("kind")),
		SIG: strings.TrimSpace(get("sig")), Status: quiz.Status(get("status")), Text: strings.TrimSpace(get("q")),
	}}
	for _, v := range []string{q.f.Generator, q.f.Kind, q.f.SIG, q.f.Text} {
		if utf8.RuneCountInString(v) > maxFilterText || !utf8.ValidString(v) {
			return q, inputError{fmt.Sprintf("絞り込みの条件は %d 文字までです", maxFilterText)}
		}
	}
	switch q.f.Status {
	case "", quiz.Draft, quiz.Published, quiz.Retired:
	default:
		return q, inputError{fmt.Sprintf("状態 %q で絞り込むことはできません", q.f.Status)}
	}
	if q.f.Type != "" && !q.f.Type.Valid() {
		return q, inputError{fmt.Sprintf("問題の種類 %q はありません", q.f.Type)}
	}
	if p := get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return q, inputError{fmt.Sprintf("ページ %q を読めません", p)}
		}
		q.page = n
	}
	return q, nil
}

// values are the query's parameters; the page only when it is past the first.
func (q reviewQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"generator": q.f.Generator, "type": string(q.f.Type), "kind": q.f.Kind,
		"sig": q.f.SIG, "status": string(q.f.Status), "q": q.f.Text} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.page > 1 {
		v.Set("page", strconv.Itoa(q.page))
	}
	return v
}

// url is path with the query and then extra parameters ("published=1").
func (q reviewQuery) url(path string, extra ...string) string {
	s := q.values().Encode()
	for _, e := range extra {
		if s != "" {
			s += "&"
		}
		s += e
	}
	if s == "" {
		return path
	}
	return path + "?" + s
}

// withPage is q on page n.
func (q reviewQuery) withPage(n int) reviewQuery {
	q.page = n
	return q
}

func (q reviewQuery) view() views.ReviewFilter {
	return views.ReviewFilter{Generator: q.f.Generator, Type: string(q.f.Type), Kind: q.f.Kind, SIG: q.f.SIG,
		Status: string(q.f.Status), Text: q.f.Text, Page: q.page}
}

// document shows a page of a document's generated questions, filtered as
// its query says, with the wording proposed for its published questions.
func (h *ingester) document(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	q, err := reviewQueryFrom(c.QueryParam)
	if err != nil {
		return err
	}
	doc, err := h.s.db.ChangelogDocumentByID(ctx, id)
	if err != nil {
		return err
	}
	q.f.Document = doc.Key
	rp, err := h.s.db.ReviewQuestions(ctx, q.f, (q.page-1)*reviewPageSize, reviewPageSize)
	if err != nil {
		return err
	}
	// A page past the last (after the questions of the filter were
	// published, say) shows the last.
	pages := max(1, (rp.Total+reviewPageSize-1)/reviewPageSize)
	if q.page > pages {
		q.page = pages
		if rp, err = h.s.db.ReviewQuestions(ctx, q.f, (q.page-1)*reviewPageSize, reviewPageSize); err != nil {
			return err
		}
	}
	facets, err := h.s.db.ReviewFacets(ctx, doc.Key)
	if err != nil {
		return err
	}
	proposals, err := h.s.db.Proposals(ctx, doc.Key)
	if err != nil {
		return err
	}
	page := documentPage(doc, q, rp, facets, proposals)
	page.Notice, page.Problem = documentNotice(c.QueryParam)
	noStore(c)
	return h.s.render(c, http.StatusOK, views.AdminIngestDocument(h.s.page(c, docTitle(doc)), page))
}

// documentNotice says what the action that led to the page did, or why
// it did nothing.
func documentNotice(get func(string) string) (notice, problem string) {
	n, _ := strconv.Atoi(get("n"))
	switch {
	case get("saved") == "1":
		notice = "下書きとして保存しました。公開する問題を選んでください。"
	case get("published") == "1":
		notice = fmt.Sprintf("%d 問を公開しました。", n)
	case get("retired") == "1":
		notice = fmt.Sprintf("%d 問を取り下げました (退役)。学習者の記録は残ります。", n)
	case get("edited") == "1":
		notice = "問題の文面を保存しました。"
	case get("proposal") == "accepted":
		notice = "更新案の文面にしました。学習者にはこの文面で出題されます。"
	case get("proposal") == "dismissed":
		notice = "今の文面のままにしました。同じ更新案は今後提案されません。"
	case get("proposal") == "gone":
		problem = "この更新案はもうありません (すでに反映されたか、見送られています)。何も変えていません。"
	case get("none") == "1":
		problem = "問題が選ばれていません。公開または取り下げる問題にチェックを入れてから押してください。"
	}
	return notice, problem
}

func (h *ingester) publish(c echo.Context) error { return h.setStatus(c, quiz.Published) }
func (h *ingester) retire(c echo.Context) error  { return h.setStatus(c, quiz.Retired) }

// setStatus publishes or retires the chosen questions of a document, and
// leads back to the page of the filter they were chosen on.
func (h *ingester) setStatus(c echo.Context, status quiz.Status) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	q, err := reviewQueryFrom(c.FormValue)
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
	if len(ids) == 0 {
		return c.Redirect(http.StatusSeeOther, q.url(documentURL(id), "none=1"))
	}
	doc, err := h.s.db.ChangelogDocumentByID(ctx, id)
	if err != nil {
		return err
	}
	set, what := h.s.db.PublishQuestions, "published"
	if status == quiz.Retired {
		set, what = h.s.db.RetireQuestions, "retired"
	}
	n, err := set(ctx, doc.DeckSlug, ids, h.s.now())
	if err != nil {
		return err
	}
	u, _ := currentUser(c)
	h.s.log.InfoContext(ctx, "generated questions "+what, "actor", u.Login, "document", doc.Key, "questions", n)
	return c.Redirect(http.StatusSeeOther, q.url(documentURL(id), what+"=1", "n="+strconv.Itoa(n)))
}

// bulkAction is publishing or retiring every question of a filter.
type bulkAction struct {
	status quiz.Status
	path   string // the last segment of its page's and action's path
}

var (
	publishAll = bulkAction{quiz.Published, "publish-all"}
	retireAll  = bulkAction{quiz.Retired, "retire-all"}
)

func (h *ingester) publishAllPage(c echo.Context) error { return h.confirmAll(c, publishAll) }
func (h *ingester) retireAllPage(c echo.Context) error  { return h.confirmAll(c, retireAll) }
func (h *ingester) publishAll(c echo.Context) error     { return h.setAll(c, publishAll) }
func (h *ingester) retireAll(c echo.Context) error      { return h.setAll(c, retireAll) }

// toChange counts the questions of a filter that an action would change:
// those not in its status yet.
func toChange(rp store.ReviewPage, f store.ReviewFilter, status quiz.Status) int {
	switch f.Status {
	case status:
		return 0
	case "":
		n := 0
		for s, c := range rp.ByStatus {
			if s != status {
				n += c
			}
		}
		return n
	}
	return rp.ByStatus[f.Status]
}

// confirmAll asks to confirm publishing or retiring every question of the
// filter, saying how many; it changes nothing.
func (h *ingester) confirmAll(c echo.Context, a bulkAction) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	q, err := reviewQueryFrom(c.QueryParam)
	if err != nil {
		return err
	}
	doc, err := h.s.db.ChangelogDocumentByID(ctx, id)
	if err != nil {
		return err
	}
	q.f.Document = doc.Key
	rp, err := h.s.db.ReviewQuestions(ctx, q.f, 0, 0)
	if err != nil {
		return err
	}
	noStore(c)
	v := views.ReviewConfirm{
		Doc: documentView(doc), Publish: a.status == quiz.Published, Filter: q.view(), N: toChange(rp, q.f, a.status),
		Action: documentURL(id) + "/" + a.path, BackURL: q.url(documentURL(id)), Changed: c.QueryParam("changed") == "1",
	}
	title := "絞り込んだ問題の公開"
	if !v.Publish {
		title = "絞り込んだ問題の取り下げ"
	}
	return h.s.render(c, http.StatusOK, views.AdminReviewConfirm(h.s.page(c, title), v))
}

// setAll publishes or retires every question of the filter, when they are
// as many as the confirmation page said; otherwise it shows that page
// again with the new count, having changed nothing.
func (h *ingester) setAll(c echo.Context, a bulkAction) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	q, err := reviewQueryFrom(c.FormValue)
	if err != nil {
		return err
	}
	want, err := strconv.Atoi(c.FormValue("n"))
	if err != nil || want < 0 {
		return inputError{"確認した件数を読めません。確認の画面からやり直してください。"}
	}
	doc, err := h.s.db.ChangelogDocumentByID(ctx, id)
	if err != nil {
		return err
	}
	q.f.Document = doc.Key
	n, err := h.s.db.SetFilteredStatus(ctx, doc.DeckSlug, q.f, a.status, want, h.s.now())
	var cc *store.CountChangedError
	if errors.As(err, &cc) {
		return c.Redirect(http.StatusSeeOther, q.withPage(1).url(documentURL(id)+"/"+a.path, "changed=1"))
	}
	if err != nil {
		return err
	}
	what := "published"
	if a.status == quiz.Retired {
		what = "retired"
	}
	u, _ := currentUser(c)
	h.s.log.InfoContext(ctx, "generated questions "+what+" by filter", "actor", u.Login, "document", doc.Key, "questions", n)
	return c.Redirect(http.StatusSeeOther, q.withPage(1).url(documentURL(id), what+"=1", "n="+strconv.Itoa(n)))
}

func (h *ingester) acceptProposal(c echo.Context) error  { return h.decideProposal(c, true) }
func (h *ingester) dismissProposal(c echo.Context) error { return h.decideProposal(c, false) }

// decideProposal gives a published question of the document the wording
// proposed for it, or keeps its wording. A proposal already decided (a
// second submit) leads back to the page, saying so.
func (h *ingester) decideProposal(c echo.Context, accept bool) error {
	ctx := c.Request().Context()
	id, err := pathID(c, "doc")
	if err != nil {
		return err
	}
	qid, err := pathID(c, "q")
	if err != nil {
		return err
	}
	dq, err := h.s.db.GeneratedQuestion(ctx, qid)
	if err != nil {
		return err
	}
	if dq.DocumentID != id {
		return fmt.Errorf("question %d is not of document %d: %w", qid, id, quiz.ErrNotFound)
	}
	outcome := "accepted"
	if accept {
		_, err = h.s.db.AcceptProposal(ctx, qid, h.s.now())
	} else {
		outcome = "dismissed"
		err = h.s.db.DismissProposal(ctx, qid, h.s.now())
	}
	if errors.Is(err, quiz.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, documentURL(id)+"?proposal=gone#ingest-proposals")
	}
	if err != nil {
		return err
	}
	u, _ := currentUser(c)
	h.s.log.InfoContext(ctx, "proposal "+outcome, "actor", u.Login, "question", dq.Question.ExtID, "document", dq.SourceDocument)
	return c.Redirect(http.StatusSeeOther, documentURL(id)+"?proposal="+outcome+"#ingest-proposals")
}
