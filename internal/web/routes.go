package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kubequiz/static"
)

// routes lists every route kubequiz serves. Each feature registers its own
// routes in its file: accounts.go, study.go, admin_import.go, admin_ingest.go.
func (s *Server) routes() {
	e := s.echo
	e.Pre(s.pre()...)
	e.Use(s.middleware()...)

	getHead := []string{http.MethodGet, http.MethodHead}
	e.Match(getHead, "/", s.home)
	e.Match(getHead, "/healthz", s.healthz)
	e.Match(getHead, static.URLPrefix+"*", s.staticFile)

	s.accountRoutes(e)

	member := guarded{e: e, mw: []echo.MiddlewareFunc{s.requireUser}}
	s.studyRoutes(member)

	admin := guarded{e: e, prefix: "/admin", mw: []echo.MiddlewareFunc{s.requireUser, s.requireAdmin}}
	s.importRoutes(admin)
	s.ingestRoutes(admin)
}

// guarded registers routes behind middleware. Unlike echo's Group it adds no
// catch-all route, so unknown paths still get a plain 404.
type guarded struct {
	e      *echo.Echo
	prefix string
	mw     []echo.MiddlewareFunc
}

// GET registers a page for GET and HEAD.
func (g guarded) GET(path string, h echo.HandlerFunc) {
	g.e.Match([]string{http.MethodGet, http.MethodHead}, g.prefix+path, h, g.mw...)
}

// POST registers a form action.
func (g guarded) POST(path string, h echo.HandlerFunc) {
	g.e.POST(g.prefix+path, h, g.mw...)
}

// staticFile serves an embedded file. Its URL carries a content hash and
// never changes under it, so browsers may cache it for good.
func (s *Server) staticFile(c echo.Context) error {
	name := c.Param("*")
	if name == "" || s.assets.URL(name) == "" {
		return echo.ErrNotFound
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	http.StripPrefix(static.URLPrefix, http.FileServerFS(static.FS())).ServeHTTP(c.Response(), c.Request())
	return nil
}
