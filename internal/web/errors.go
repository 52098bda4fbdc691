package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/views"
)

// handleError is the one place errors become responses. Domain errors map to
// their statuses; anything else is a 500, logged with the request id, and the
// user sees only a generic message. htmx requests get a fragment.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, detail := http.StatusInternalServerError, ""
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status = he.Code
	case errors.Is(err, quiz.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, quiz.ErrForbidden):
		status = http.StatusForbidden
	case errors.Is(err, quiz.ErrConflict):
		status = http.StatusConflict
	case errors.Is(err, quiz.ErrInvalid):
		status, detail = http.StatusUnprocessableEntity, invalidText(err)
	}
	if status == http.StatusMethodNotAllowed {
		allowOnlyServed(c.Response().Header())
	}
	title, msg := statusText(status)
	if detail != "" {
		msg = detail
	}
	if status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "request failed",
			"method", c.Request().Method, "path", c.Request().URL.Path,
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID), "err", err)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	next := views.HomeLink
	var big fileTooLarge
	switch {
	case errors.Is(err, errStalePage):
		title, msg = "ページの有効期限切れ", msgStalePage
		next = views.Link{Href: templ.SafeURL(s.reloadPath(c)), Text: "ページを読み込み直す"}
	case errors.As(err, &big):
		// One file over its limit, met while it was read.
		msg = big.name + " は大きすぎるため、アップロードしませんでした (1 ファイル " + sizeText(big.limit) + " まで)。"
		next = views.Link{Href: templ.SafeURL(c.Request().URL.Path), Text: "アップロードの画面に戻る"}
	case status == http.StatusRequestEntityTooLarge && s.isUpload(c):
		// Refused before the session is read: say what the limit is, and
		// lead back to the form (the path of the upload is its page).
		msg = "アップロードが大きすぎます (合計 " + ingestLimits.Total + " まで)。ファイルを減らして、何回かに分けてアップロードしてください。"
		next = views.Link{Href: templ.SafeURL(c.Request().URL.Path), Text: "アップロードの画面に戻る"}
	case status == http.StatusUnauthorized:
		// A form sent after the session ended: sign in, then back to
		// the page it came from.
		next = views.Link{Href: templ.SafeURL("/login?next=" + url.QueryEscape(returnPath(c.Request()))), Text: "ログインする"}
	}
	var component = views.ErrorFragment(status, msg, next)
	switch {
	case c.Request().Header.Get("HX-Request") != "true":
		component = views.ErrorPage(s.page(c, title), title, status, msg, next)
	case c.Request().Header.Get("HX-Target") == "study":
		// The fragment's alert is read out as it comes in (role=alert is,
		// unlike an inserted status); the study page's live region is
		// emptied, so that it no longer holds the last verdict.
		component = views.StudyFragment(component, "", nil)
	}
	if rerr := s.render(c, status, component); rerr != nil {
		s.log.ErrorContext(c.Request().Context(), "render error page", "err", rerr)
	}
}

// invalidText says why what was sent is refused: in Japanese for the
// errors problems_ja.go words and for messages written for the pages;
// another's English follows a Japanese lead.
func invalidText(err error) string {
	if text, ok := errorText(err); ok {
		return text
	}
	if msg := err.Error(); hasJapanese(msg) {
		return msg
	}
	_, lead := statusText(http.StatusUnprocessableEntity)
	return lead + " (詳細: " + err.Error() + ")"
}

// msgStalePage is what a form refused by a CSRF check is answered.
const msgStalePage = "このページは古くなっていたため、送った内容は受け付けませんでした (何も変更していません)。ページを読み込み直してから、もう一度操作してください。"

// reloadPath is the page to load again after a form was refused as sent
// from a stale page: the page it was sent from, when htmx (HX-Current-URL)
// or the browser (Referer) names one of this server's; otherwise the page
// that holds the form, from the route table.
func (s *Server) reloadPath(c echo.Context) string {
	r := c.Request()
	for _, from := range []string{r.Header.Get("HX-Current-URL"), r.Referer()} {
		u, err := url.Parse(from)
		if err != nil || u.Host != r.Host || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		if p := u.RequestURI(); localPath(p) {
			return p
		}
	}
	return s.formPageOf(c)
}

// statusText is what users are told for a status: the title and heading
// of its page, and the message under them.
func statusText(status int) (title, message string) {
	switch status {
	case http.StatusBadRequest:
		return "正しくないリクエスト", "リクエストが正しくありません。"
	case http.StatusUnauthorized:
		return "ログインが必要です", "ログインが必要です。送った内容は保存されていません。ログインしてから、もう一度操作してください。"
	case http.StatusForbidden:
		return "許可されていません", "この操作は許可されていません。"
	case http.StatusNotFound:
		return "ページが見つかりません", "ページが見つかりません。URL を確かめるか、トップから探してください。"
	case http.StatusMethodNotAllowed:
		return "使えないメソッド", "このメソッドは使えません。"
	case http.StatusConflict:
		return "操作の競合", "操作が競合しました。ページを読み込み直してください。"
	case http.StatusRequestEntityTooLarge:
		return "大きすぎるリクエスト", "リクエストが大きすぎます。"
	case http.StatusUnprocessableEntity:
		return "受け付けられない内容", "送信された内容を受け付けられません。ページを読み込み直してください。"
	case http.StatusTooManyRequests:
		return "試行回数の超過", "試行回数が多すぎます。しばらく待ってから再度お試しください。"
	}
	if status >= 500 {
		return "サーバーエラー", "サーバー内部でエラーが発生しました。"
	}
	return "エラー", http.StatusText(status)
}

// allowOnlyServed takes OPTIONS out of the Allow header of a 405: echo's
// router names it for every path, but kubequiz answers OPTIONS with a 405
// too (allowedMethods).
func allowOnlyServed(h http.Header) {
	allow := h.Get(echo.HeaderAllow)
	if allow == "" {
		return
	}
	var kept []string
	for _, m := range strings.Split(allow, ",") {
		if m = strings.TrimSpace(m); m != "" && m != http.MethodOptions {
			kept = append(kept, m)
		}
	}
	h.Set(echo.HeaderAllow, strings.Join(kept, ", "))
}
