package web

import (
	"net/http"
	"net/url"

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

	formPages(e)
}

// formPages answers a GET of a form's action with the page that holds the
// form. After a refused form the address bar shows the action's URL; a
// learner who opens it again gets that page, not "method not allowed".
// Each page checks its own access.
func formPages(e *echo.Echo) {
	getHead := []string{http.MethodGet, http.MethodHead}
	to := func(page string) echo.HandlerFunc {
		return func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, page) }
	}
	for page, actions := range map[string][]string{
		"/":            {"/logout"},
		"/account":     {"/account/name", "/account/limits", "/account/timezone", "/account/password"},
		"/admin/users": {"/admin/users/registration", "/admin/users/invites", "/admin/users/invites/revoke", "/admin/users/:id/disable", "/admin/users/:id/enable", "/admin/users/:id/signout"},
		"/decks":       {"/decks/:slug/subscription"},
		"/study":       {"/study/grade"},
	} {
		for _, a := range actions {
			e.Match(getHead, a, to(page))
		}
	}
	// Actions on one upload or document lead to its page: a path of the
	// same id, which the page itself looks up. (A page of its own under
	// such a path, /admin/import/:id/done, is a static segment and wins.)
	for page, param := range map[string]string{"/admin/import/": "id", "/admin/ingest/": "id", "/admin/ingest/documents/": "doc"} {
		e.Match(getHead, page+":"+param+"/:action", func(c echo.Context) error {
			return c.Redirect(http.StatusSeeOther, page+url.PathEscape(c.Param(param)))
		})
	}
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

// staticFile serves an embedded file. At the URL pages give it, which
// carries its content hash and never changes under it, browsers may cache
// it for good; at any other (no hash, or another file's or version's) they
// ask again each time.
func (s *Server) staticFile(c echo.Context) error {
	name := c.Param("*")
	versioned := s.assets.URL(name)
	if name == "" || versioned == "" {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	if c.Request().URL.RequestURI() == versioned {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	// The content hash is the file's entity tag: a browser asking again
	// with it gets a 304 (http.ServeContent compares If-None-Match).
	h.Set("ETag", `"`+s.assets.Hash(name)+`"`)
	http.StripPrefix(static.URLPrefix, http.FileServerFS(static.FS())).ServeHTTP(c.Response(), c.Request())
	return nil
}
