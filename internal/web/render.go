package web

import (
	"bytes"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a component with a status. It renders into a buffer first so
// that a render error cannot leave a half-written page.
func render(c echo.Context, status int, t templ.Component) error {
	var buf bytes.Buffer
	if err := t.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}
