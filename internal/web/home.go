package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kubequiz/views"
)

func (s *Server) home(c echo.Context) error {
	ctx := c.Request().Context()
	decks, err := s.db.ListDecks(ctx)
	if err != nil {
		return err
	}
	var duties []views.PresenterDuty
	if u, ok := currentUser(c); ok {
		now := s.now()
		list, err := s.db.PresenterDuties(ctx, u.ID, now)
		if err != nil {
			return err
		}
		duties = presenterDuties(list, u, now)
	}
	return s.render(c, http.StatusOK, views.Home(s.page(c, ""), decks, duties))
}

// healthz answers 200 only when the database answers.
func (s *Server) healthz(c echo.Context) error {
	if err := s.db.Ping(c.Request().Context()); err != nil {
		s.log.ErrorContext(c.Request().Context(), "health check failed", "err", err)
		return c.String(http.StatusServiceUnavailable, "database unavailable\n")
	}
	return c.String(http.StatusOK, "ok\n")
}
