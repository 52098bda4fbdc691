package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kubequiz/static"
)

// routes lists every route kubequiz serves.
func (s *Server) routes() {
	e := s.echo
	e.Use(s.middleware()...)

	getHead := []string{http.MethodGet, http.MethodHead}
	e.Match(getHead, "/", s.home)
	e.Match(getHead, "/healthz", s.healthz)

	// Static files carry a content hash in their URL and never change under it.
	fileServer := http.StripPrefix(static.URLPrefix, http.FileServerFS(static.FS()))
	e.Match(getHead, static.URLPrefix+"*", func(c echo.Context) error {
		name := c.Param("*")
		if name == "" || name == "SHA256SUMS" || s.assets.URL(name) == "" {
			return echo.ErrNotFound
		}
		c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		fileServer.ServeHTTP(c.Response(), c.Request())
		return nil
	})
}
