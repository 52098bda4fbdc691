package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

const csrfContextKey = "csrf"

// Request body limits: small for forms, larger for the admin upload routes.
const (
	bodyLimit       = "1M"
	uploadBodyLimit = "6M"
)

// isUpload reports whether a request posts files to an admin upload route.
func isUpload(c echo.Context) bool {
	if c.Request().Method != http.MethodPost {
		return false
	}
	switch c.Request().URL.Path {
	case "/admin/import", "/admin/ingest":
		return true
	}
	return false
}

// contentSecurityPolicy allows no inline script or style and nothing from
// another origin.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// middleware returns the chain every request passes, in order: request id
// and logging first so that every response is logged; then security headers,
// so that errors carry them too; then the body limit, before CSRF because
// CSRF reads the form; then CSRF, so that a refused request has touched
// nothing; then the session, which puts the signed-in user in the context.
func (s *Server) middleware() []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{
		middleware.RequestID(),
		s.requestLogger(),
		securityHeaders,
		middleware.RecoverWithConfig(middleware.RecoverConfig{
			LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
				s.log.ErrorContext(c.Request().Context(), "panic", "err", err, "stack", string(stack))
				return err
			},
		}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: bodyLimit, Skipper: isUpload}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: uploadBodyLimit, Skipper: func(c echo.Context) bool { return !isUpload(c) }}),
		s.csrf(),
		s.loadSession,
	}
}

// securityHeaders sets the headers every response carries, errors included.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		if c.IsTLS() {
			h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		return next(c)
	}
}

// requestLogger writes one line per request with method, path, status,
// duration and the request id.
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
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			s.log.LogAttrs(context.Background(), level, "request",
				slog.String("method", v.Method),
				slog.String("path", v.URIPath),
				slog.Int("status", v.Status),
				slog.Duration("duration", v.Latency.Round(time.Microsecond)),
				slog.String("request_id", v.RequestID),
				slog.String("ip", v.RemoteIP),
			)
			return nil
		},
	})
}
