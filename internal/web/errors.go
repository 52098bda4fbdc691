package web

import (
	"errors"
	"net/http"

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
	status, msg := http.StatusInternalServerError, "サーバー内部でエラーが発生しました。"
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status = he.Code
		msg = publicMessage(status)
	case errors.Is(err, quiz.ErrNotFound):
		status, msg = http.StatusNotFound, publicMessage(http.StatusNotFound)
	case errors.Is(err, quiz.ErrForbidden):
		status, msg = http.StatusForbidden, publicMessage(http.StatusForbidden)
	case errors.Is(err, quiz.ErrConflict):
		status, msg = http.StatusConflict, publicMessage(http.StatusConflict)
	case errors.Is(err, quiz.ErrInvalid):
		status, msg = http.StatusUnprocessableEntity, err.Error()
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
	var component = views.ErrorFragment(status, msg)
	if c.Request().Header.Get("HX-Request") != "true" {
		title := errorTitle(status)
		component = views.ErrorPage(s.page(c, title), title, status, msg)
	}
	if rerr := s.render(c, status, component); rerr != nil {
		s.log.ErrorContext(c.Request().Context(), "render error page", "err", rerr)
	}
}

// publicMessage is what users are told for a status.
func publicMessage(status int) string {
	switch status {
	case http.StatusNotFound:
		return "ページが見つかりません。URL を確かめるか、トップから探してください。"
	case http.StatusForbidden:
		return "この操作は許可されていません。"
	case http.StatusUnauthorized:
		return "ログインが必要です。"
	case http.StatusMethodNotAllowed:
		return "このメソッドは使えません。"
	case http.StatusRequestEntityTooLarge:
		return "リクエストが大きすぎます。"
	case http.StatusTooManyRequests:
		return "試行回数が多すぎます。しばらく待ってから再度お試しください。"
	case http.StatusConflict:
		return "操作が競合しました。ページを読み込み直してください。"
	case http.StatusBadRequest:
		return "リクエストが正しくありません。"
	case http.StatusUnprocessableEntity:
		return "送信された内容を受け付けられません。ページを読み込み直してください。"
	}
	if status >= 500 {
		return "サーバー内部でエラーが発生しました。"
	}
	return http.StatusText(status)
}

// errorTitle names an error page, in the page's title and heading.
func errorTitle(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "正しくないリクエスト"
	case http.StatusUnauthorized:
		return "ログインが必要です"
	case http.StatusForbidden:
		return "許可されていません"
	case http.StatusNotFound:
		return "ページが見つかりません"
	case http.StatusMethodNotAllowed:
		return "使えないメソッド"
	case http.StatusConflict:
		return "操作の競合"
	case http.StatusRequestEntityTooLarge:
		return "大きすぎるリクエスト"
	case http.StatusUnprocessableEntity:
		return "受け付けられない内容"
	case http.StatusTooManyRequests:
		return "試行回数の超過"
	}
	if status >= 500 {
		return "サーバーエラー"
	}
	return "エラー"
}
