// Package web is the only package that knows echo: routes, handlers,
// middleware and the one HTTP error handler. Handlers are thin: they bind and
// check input, make one call to the store, and render a views component.
package web

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/metrics"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/static"
	"kubequiz/views"
)

// Config holds the settings the web layer needs.
type Config struct {
	// SecureCookies marks cookies Secure even when requests arrive over
	// plain HTTP (set it when a TLS-terminating proxy sits in front).
	SecureCookies bool
	// Password sets the argon2id costs of new password hashes and how many
	// run at once; zero values mean the defaults. Tests use cheap ones.
	Password PasswordParams
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-For is believed. Empty: the client address is the TCP
	// peer and forwarding headers are ignored.
	TrustedProxies []*net.IPNet
	// Now is the server's clock, which every handler, middleware and
	// background job of the web layer reads; nil means time.Now. Tests
	// set it to study at a chosen time of day.
	Now func() time.Time
	// Metrics, when set, hears of every request, review, import and
	// ingest, and counts this server's live sessions when scraped. It is
	// served on an address of its own, never by this server.
	Metrics *metrics.Metrics
}

// Server is kubequiz's HTTP handler.
type Server struct {
	cfg    Config
	db     *store.DB
	log    *slog.Logger
	assets *static.Assets
	echo   *echo.Echo
	// passwords hashes and checks every password of the web pages.
	passwords *hasher
	// ingest serves the changelog ingest pages (admin_ingest.go).
	ingest *ingester
	// formLeadsTo is, for the path of each form action of the route
	// table, the page a GET of it leads to (route.getLeadsTo). routes
	// fills it; it never changes after.
	formLeadsTo map[string]string
	// buffers are the render buffers kept for reuse (render.go).
	buffers sync.Pool

	// Background work (changelog parse jobs, the session purge) runs under
	// bg and is waited for by Close.
	bg     context.Context
	stopBG context.CancelFunc
	bgWG   sync.WaitGroup
}

// HTTPServer is the http.Server that kubequiz serves h with: timeouts that
// bound slow clients, net/http's own errors logged as warnings, and
// "OPTIONS *" handed to h like any request (net/http would answer it
// itself, without kubequiz's headers). net/http still answers by itself a
// request it cannot read (400, 431, 501, 505) or with an Expect it does
// not know (417).
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:                      h,
		DisableGeneralOptionsHandler: true,
		ReadHeaderTimeout:            10 * time.Second,
		ReadTimeout:                  60 * time.Second,
		WriteTimeout:                 60 * time.Second,
		IdleTimeout:                  120 * time.Second,
		ErrorLog:                     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// New builds the server and registers every route.
func New(cfg Config, db *store.DB, log *slog.Logger) (*Server, error) {
	assets, err := static.New()
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.IPExtractor = ipExtractor(cfg.TrustedProxies)
	s := &Server{cfg: cfg, db: db, log: log, assets: assets, echo: e}
	s.bg, s.stopBG = context.WithCancel(context.Background())
	s.passwords = newHasher(cfg.Password)
	s.ingest = newIngester(s, quizgen.GenerateContext)
	if cfg.Metrics != nil {
		if err := cfg.Metrics.WatchSessions(s.liveSessions); err != nil {
			return nil, fmt.Errorf("web: metrics: %w", err)
		}
	}
	e.HTTPErrorHandler = s.handleError
	s.routes()
	return s, nil
}

// ipExtractor returns how the client address is found. Rate limits and logs
// use it, so clients must not be able to choose it: without trusted proxies
// it is the TCP peer; with them, the nearest X-Forwarded-For address that is
// not one of those proxies, and only when the peer is one of them. echo's
// default trust of loopback, link-local and private peers is turned off.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// now reads the server's clock.
func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// liveSessions counts the sessions in use now, for the metrics.
func (s *Server) liveSessions(ctx context.Context) (int, error) {
	return s.db.LiveSessions(ctx, s.now(), idleTimeout)
}

// Close cancels background jobs and waits for them to end. Call it after the
// HTTP server has shut down and before the database is closed.
func (s *Server) Close() {
	s.stopBG()
	s.bgWG.Wait()
}

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// page returns the layout values every page needs.
func (s *Server) page(c echo.Context, title string) views.Page {
	p := views.Page{
		Title:   title,
		CSS:     []string{s.assets.URL(static.Pico), s.assets.URL(static.AppCSS)},
		Scripts: []string{s.assets.URL(static.HTMX), s.assets.URL(static.AppJS)},
		Icon:    s.assets.URL(static.Favicon),
	}
	p.CSRFToken = csrfToken(c)
	if u, ok := currentUser(c); ok {
		p.User, p.IsAdmin = u.Name(), u.IsAdmin()
	}
	return p
}

// csrfToken is the CSRF token of the request's pages, which its forms
// carry ("" where the middleware was skipped).
func csrfToken(c echo.Context) string {
	tok, _ := c.Get(csrfContextKey).(string)
	return tok
}
