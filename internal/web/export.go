package web

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/export"
)

// exportReviews sends the signed-in learner's reviews as CSV
// (export.WriteReviews), ?bom=1 with a byte order mark for Excel.
func (s *Server) exportReviews(c echo.Context) error {
	u, _ := currentUser(c)
	return s.sendExport(c, "reviews", func(opt export.Options) (int, error) {
		return export.WriteReviews(c.Response(), s.db.ExportReviews(c.Request().Context(), u.ID), opt)
	})
}

// exportCards sends the signed-in learner's cards as CSV
// (export.WriteCards), their retrievability at the time of the request.
func (s *Server) exportCards(c echo.Context) error {
	u, _ := currentUser(c)
	now := s.now()
	return s.sendExport(c, "cards", func(opt export.Options) (int, error) {
		return export.WriteCards(c.Response(), s.db.ExportCards(c.Request().Context(), u.ID, now), opt)
	})
}

// sendExport streams one of the learner's tables, named table, as a CSV
// attachment whose name carries the learner's date. Rows go out as the
// store reads them, so the server's write timeout, set for pages, is
// lifted for this response: a large export on a slow line is not cut off.
// An error before the first byte is the error handler's page; after it,
// the response can only end short, and the error is logged.
func (s *Server) sendExport(c echo.Context, table string, write func(export.Options) (int, error)) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	rc := http.NewResponseController(c.Response().Writer)
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("export %s: lift the write deadline: %w", table, err)
	}
	day := s.now().In(userLocation(u)).Format("2006-01-02")
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="kubequiz-%s-%s.csv"`, table, day))
	noStore(c)
	n, err := write(export.Options{BOM: c.QueryParam("bom") == "1"})
	if err != nil {
		if !c.Response().Committed {
			return err
		}
		s.log.ErrorContext(ctx, "export cut short", "table", table, "user_id", u.ID, "rows", n, "err", err)
	}
	return nil
}
