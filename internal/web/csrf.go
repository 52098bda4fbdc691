package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
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
			ErrorHandler:   s.csrfRefused,
			// A state-changing request that the browser says is
			// cross-site is refused here, as echo would, but by
			// csrfRefused; a same-site one needs the token.
			AllowSecFetchSiteFunc: func(c echo.Context) (bool, error) {
				if c.Request().Header.Get(echo.HeaderSecFetchSite) == "same-site" {
					return false, nil
				}
				return false, s.csrfRefused(errCrossSite, c)
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

// errStalePage marks a request refused by a CSRF check. For a browser
// that is not forging anything, the page it sent the form from is stale:
// its token is of an earlier session, or its cookie has expired.
var errStalePage = errors.New("csrf check failed")

// errCrossSite is why a request that the browser says is cross-site is
// refused.
var errCrossSite = errors.New("cross-site request")

// csrfRefused is the answer to a request that fails a CSRF check: a 403,
// logged, whose page (handleError) says the form's page was stale and
// offers to load it again. The check runs before the session is loaded:
// the user of a live session is looked up here, so that the page's
// header shows them signed in, and the browser is handed its session's
// token (as bindCSRF does), so that the page's forms work.
func (s *Server) csrfRefused(err error, c echo.Context) error {
	ctx := c.Request().Context()
	s.log.WarnContext(ctx, "csrf check failed",
		"method", c.Request().Method, "path", c.Request().URL.Path, "ip", c.RealIP())
	if _, ok := currentUser(c); !ok {
		u, tok, found, lerr := s.sessionOf(c)
		switch {
		case lerr != nil:
			// The refusal stands; its page shows the header signed out.
			s.log.WarnContext(ctx, "csrf refusal: session lookup", "err", lerr)
		case found:
			c.Set(userKey, u)
			c.Set(csrfContextKey, sessionCSRF(tok))
			s.setCSRFCookie(c, sessionCSRF(tok))
		}
	}
	return echo.NewHTTPError(http.StatusForbidden).SetInternal(fmt.Errorf("%w: %w", errStalePage, err))
}

// sessionCSRFKey is where loadSession keeps the CSRF token of the request's
// session.
const sessionCSRFKey = "kubequiz.session.csrf"

// sessionCSRF is the CSRF token of a signed-in browser: the SHA-256 of a
// fixed label and its session token. Only that browser holds the session
// token (256 random bits, in an HttpOnly cookie), and the CSRF token, which
// pages show, gives nothing of it away. (A hash of the secret is enough:
// nobody without it can make the token, and an HMAC cost twice as much on
// every request.)
func sessionCSRF(sessionToken string) string {
	var buf [64]byte
	b := append(append(buf[:0], "kubequiz csrf v1\x00"...), sessionToken...)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// bindCSRF holds a signed-in browser to its session's CSRF token. echo's
// double-submit check (csrf) only compares the token sent with the CSRF
// cookie, and takes any cookie: one planted by a sibling subdomain or over
// plain HTTP, with a token of the attacker's choosing, would pass. This
// check, after the session is loaded, refuses a state-changing request
// whose CSRF cookie is not its session's token. A request echo let through
// on Sec-Fetch-Site (same-origin or none) carried no token to check, and
// is not refused here either.
//
// Any other request of a signed-in browser whose cookie is not its
// session's (one signed in before this check existed, or one with a
// planted cookie) gets the session's token, in its cookie and its page.
func (s *Server) bindCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		tok, ok := c.Get(sessionCSRFKey).(string)
		if !ok || unrouted(c) {
			return next(c)
		}
		// echo's check put the cookie's token in the context when it
		// compared it (else a new one, or a mark that Sec-Fetch-Site let
		// the request through): the same token is the session's cookie,
		// without reading the cookies again.
		if seen, _ := c.Get(csrfContextKey).(string); subtle.ConstantTimeCompare([]byte(seen), []byte(tok)) == 1 {
			return next(c)
		}
		c.Set(csrfContextKey, tok)
		if ck, err := c.Cookie(s.cookieName(c, csrfCookie, csrfCookieSecure)); err == nil && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(tok)) == 1 {
			return next(c)
		}
		// The browser gets its session's token either way, so that the
		// forms of the page it is shown (a refusal's too) work.
		s.setCSRFCookie(c, tok)
		if !isSafeMethod(c.Request().Method) && !secFetchSameOrigin(c) {
			return s.csrfRefused(middleware.ErrCSRFInvalid, c)
		}
		return next(c)
	}
}

// secFetchSameOrigin reports whether the browser says the request comes
// from the app's own pages or from a typed URL, which echo's CSRF check
// lets through without a token.
func secFetchSameOrigin(c echo.Context) bool {
	v := c.Request().Header.Get(echo.HeaderSecFetchSite)
	return v == "same-origin" || v == "none"
}

// setCSRFCookie gives the browser the CSRF token tok, with the attributes
// echo's middleware gives its own, in place of any CSRF cookie this
// response set before.
func (s *Server) setCSRFCookie(c echo.Context, tok string) {
	name := s.cookieName(c, csrfCookie, csrfCookieSecure)
	h := c.Response().Header()
	set := h.Values(echo.HeaderSetCookie)
	h.Del(echo.HeaderSetCookie)
	for _, v := range set {
		if !strings.HasPrefix(v, name+"=") {
			h.Add(echo.HeaderSetCookie, v)
		}
	}
	s.setCookie(c, name, tok, idleTimeout)
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
// Signing out calls it: the session's token ends with the session. It is
// for responses that redirect, since the page of this response still
// carries the old token.
func (s *Server) rotateCSRF(c echo.Context) {
	s.setCookie(c, s.cookieName(c, csrfCookie, csrfCookieSecure), "", 0)
}
