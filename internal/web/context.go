package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
)

// userKey is where the session middleware puts the signed-in user.
const userKey = "kubequiz.user"

// currentUser returns the signed-in user, if any.
func currentUser(c echo.Context) (quiz.User, bool) {
	u, ok := c.Get(userKey).(quiz.User)
	return u, ok
}

// requireUser lets only signed-in users through. Others are sent to the
// sign-in page (htmx requests get a 401 and an HX-Redirect).
func (s *Server) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, ok := currentUser(c); ok {
			return next(c)
		}
		target := "/login?next=" + url.QueryEscape(returnPath(c.Request()))
		if c.Request().Header.Get("HX-Request") == "true" {
			c.Response().Header().Set("HX-Redirect", target)
			return echo.NewHTTPError(http.StatusUnauthorized)
		}
		if c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead {
			return echo.NewHTTPError(http.StatusUnauthorized)
		}
		return c.Redirect(http.StatusSeeOther, target)
	}
}

// returnPath is where signing in should lead back to: the page asked for,
// or, for a form sent while signed out (a session that expired on an open
// study page), the page it was sent from, which htmx names in
// HX-Current-URL and a browser in Referer. Only a page of this server is
// taken; otherwise home. The sign-in page checks the path again (safeNext).
func returnPath(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return r.URL.RequestURI()
	}
	for _, from := range []string{r.Header.Get("HX-Current-URL"), r.Referer()} {
		u, err := url.Parse(from)
		if err != nil || u.Host != r.Host || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		return u.RequestURI()
	}
	return "/"
}

// requireAdmin lets only admins through; it must run after requireUser.
func (s *Server) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, ok := currentUser(c)
		if !ok || !u.IsAdmin() {
			return echo.NewHTTPError(http.StatusForbidden)
		}
		return next(c)
	}
}
