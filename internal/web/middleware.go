package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

const csrfContextKey = "csrf"

// Request body limits: small for forms, larger for the admin upload routes.
// In echo's notation "M" is a million bytes (MB), not MiB.
const (
	bodyLimit       = "1M"
	uploadBodyLimit = "6M"
)

// uploadBodyText is uploadBodyLimit as pages state it, with the unit's
// space: "6 MB", beside per-file sizes in MiB.
var uploadBodyText = strings.TrimSuffix(uploadBodyLimit, "M") + " MB"

// uploadKey is where markUpload keeps, for isUpload, whether the request
// is an admin's upload.
const uploadKey = "kubequiz.upload"

// isUpload reports whether a request posts files to an admin upload route
// from a signed-in admin (markUpload): only then does it get the larger
// body limit.
func (s *Server) isUpload(c echo.Context) bool {
	v, _ := c.Get(uploadKey).(bool)
	return v
}

// markUpload tells, before the body limits, whether the request is an
// upload of a signed-in admin. The body limits run before the session is
// loaded, so this looks the session up itself (a cached lookup, as
// loadSession's); a forged or stale session cookie, or a learner's, gets
// the small limit and is refused later by requireAdmin. A lookup that
// fails is the request's error: not a 413 for an admin's upload.
func (s *Server) markUpload(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		v, err := s.adminUpload(c)
		if err != nil {
			return err
		}
		if v {
			c.Set(uploadKey, true)
		}
		return next(c)
	}
}

func (s *Server) adminUpload(c echo.Context) (bool, error) {
	if c.Request().Method != http.MethodPost {
		return false, nil
	}
	if fileLimit(c.Request().URL.Path) == 0 {
		return false, nil
	}
	u, _, ok, err := s.sessionOf(c)
	if err != nil {
		return false, fmt.Errorf("upload limit: %w", err)
	}
	return ok && u.IsAdmin(), nil
}

// contentSecurityPolicy allows no inline script or style and nothing from
// another origin.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// pre returns the chain every request passes before routing, in order: the
// client's X-Request-Id is dropped and a fresh id made; logging, so that
// every response is logged; security headers, so that errors carry them
// too; panic recovery; then methods other than GET, HEAD and POST are
// refused on every path (methods.go).
func (s *Server) pre() []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{
		dropRequestID,
		middleware.RequestID(),
		s.requestLogger(),
		s.securityHeaders,
		middleware.RecoverWithConfig(middleware.RecoverConfig{
			LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
				s.log.ErrorContext(c.Request().Context(), "panic", "err", err, "stack", string(stack))
				return err
			},
		}),
		allowedMethods,
	}
}

// middleware returns the chain routed requests pass after pre, in order:
// whether the request is an admin's upload (markUpload), then the body
// limit; the body parse (bodyparse.go), so that a body over the
// limit, or a file of an admin's upload over its own, is a 413 and forms
// hold only the body's fields; then CSRF, which
// reads the form, so that a refused request has touched nothing; then the
// session, which puts the signed-in user in the context; then the check
// that a signed-in browser's CSRF cookie is its session's (bindCSRF).
func (s *Server) middleware() []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{
		s.markUpload,
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: bodyLimit, Skipper: s.isUpload}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: uploadBodyLimit, Skipper: func(c echo.Context) bool { return !s.isUpload(c) }}),
		s.parseBody,
		s.csrf(),
		s.loadSession,
		s.bindCSRF,
	}
}

// securityHeaders sets the headers every response carries, errors included.
// HSTS goes out over TLS and whenever cookies are marked Secure, which is
// set when a TLS-terminating proxy sits in front.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		setSecurityHeaders(h)
		if s.secureCookies(c) {
			h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		if !skipSession(c) {
			// Pages and every answer of the app, a refusal by the CSRF
			// check before the session is read included, are never
			// cached; static files set their own.
			h.Set("Cache-Control", "no-store")
		}
		return next(c)
	}
}

// setSecurityHeaders sets the headers that every response of kubequiz, on
// any of its addresses, carries.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}

// SecurityHeaders gives every response of next, a handler of another
// address than the app's (the metrics'), the headers of the app's
// responses, and keeps it out of caches.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// requestLogger writes one line per request with method, path, status,
// duration and the request id, and counts the request in the metrics.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod:    true,
		LogURIPath:   true,
		LogStatus:    true,
		LogLatency:   true,
		LogRequestID: true,
		LogRemoteIP:  true,
		LogError:     true,
		HandleError:  true, // let the error handler set the status before logging
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			// The route's pattern, never the path: a path a client makes
			// up is no new series.
			s.cfg.Metrics.Request(v.Method, c.Path(), v.Status, v.Latency)
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			s.log.LogAttrs(context.Background(), level, "request",
				slog.String("method", v.Method),
				slog.String("path", logPath(v.URIPath)),
				slog.Int("status", v.Status),
				slog.Duration("duration", v.Latency.Round(time.Microsecond)),
				slog.String("request_id", v.RequestID),
				slog.String("ip", v.RemoteIP),
			)
			return nil
		},
	})
}
