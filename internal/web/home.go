package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kubequiz/views"
)

func (s *Server) home(c echo.Context) error {
	decks, err := s.db.ListDecks(c.Request().Context())
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.Home(s.page(c, ""), decks))
}

// healthz answers 200 only when the database answers.
func (s *Server) healthz(c echo.Context) error {
	if err := s.db.Ping(c.Request().Context()); err != nil {
		s.log.ErrorContext(c.Request().Context(), "health check failed", "err", err)
		return c.String(http.StatusServiceUnavailable, "database unavailable\n")
	}
	return c.String(http.StatusOK, "ok\n")
}
