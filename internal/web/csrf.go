package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// CSRF cookie names; see sessionCookie for the __Host- prefix.
const (
	csrfCookie       = "kq_csrf"
	csrfCookieSecure = "__Host-kq_csrf"
)

// csrfFormField is the hidden form field that carries the token
// (views.CSRFField); htmx sends the X-CSRF-Token header instead.
const csrfFormField = "_csrf"

// csrf returns echo's double-submit CSRF middleware, configured so that every
// state-changing request needs the token from the cookie back in the
// X-CSRF-Token header or the _csrf form field.
//
// echo also lets a state-changing request through without a token when the
// browser says Sec-Fetch-Site: same-origin (or none, for a typed URL): only a
// browser sets that header, it cannot be set by page script, and a
// cross-site or same-site request says otherwise. That is kept. Requests
// without the header, as from older browsers and from scripts, need the token.
//
// Every failure is a 403 (echo answers a missing token with 400). The cookie
// is HttpOnly, SameSite=Lax and Path=/; it is Secure, with the __Host- prefix,
// under the same rule as the session cookie.
func (s *Server) csrf() echo.MiddlewareFunc {
	build := func(secure bool) echo.MiddlewareFunc {
		name := csrfCookie
		if secure {
			name = csrfCookieSecure
		}
		return middleware.CSRFWithConfig(middleware.CSRFConfig{
			Skipper:        func(c echo.Context) bool { return unrouted(c) || skipSession(c) && isSafeMethod(c.Request().Method) },
			TokenLookup:    "header:" + echo.HeaderXCSRFToken + ",form:" + csrfFormField,
			ContextKey:     csrfContextKey,
			CookieName:     name,
			CookiePath:     "/",
			CookieMaxAge:   int(idleTimeout / time.Second),
			CookieSecure:   secure,
			CookieHTTPOnly: true,
			CookieSameSite: http.SameSiteLaxMode,
			ErrorHandler: func(err error, c echo.Context) error {
				s.log.WarnContext(c.Request().Context(), "csrf check failed",
					"method", c.Request().Method, "path", c.Request().URL.Path, "ip", c.RealIP())
				return echo.NewHTTPError(http.StatusForbidden, "invalid csrf token").SetInternal(err)
			},
		})
	}
	plain, secure := build(false), build(true)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		plainNext, secureNext := plain(next), secure(next)
		return func(c echo.Context) error {
			if s.secureCookies(c) {
				return secureNext(c)
			}
			return plainNext(c)
		}
	}
}

// unrouted reports whether the router found no handler for the request:
// it will get a 404 or 405, which changes nothing, so that answer is not
// replaced by a CSRF 403.
func unrouted(c echo.Context) bool {
	return c.Path() == "" || c.Get(echo.ContextKeyHeaderAllow) != nil
}

func isSafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions || m == http.MethodTrace
}

// rotateCSRF drops the CSRF cookie, so that the next page gets a new token.
// Signing in and out call it: a token planted before sign-in does not
// outlive it. It is for responses that redirect, since the page of this
// response still carries the old token.
func (s *Server) rotateCSRF(c echo.Context) {
	name := csrfCookie
	if s.secureCookies(c) {
		name = csrfCookieSecure
	}
	s.dropCookie(c, name)
}
