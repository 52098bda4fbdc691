package web

import (
	"bytes"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// maxPooledBuffer bounds the buffers kept for reuse: a rare large page
// (an import preview) is left to the garbage collector.
const maxPooledBuffer = 64 << 10

// render writes a component with a status. It renders into a buffer first so
// that a render error cannot leave a half-written page, and so that the
// response says its length. Buffers are reused:
// growing a new one to a page's size is a tenth of a page's allocations.
func (s *Server) render(c echo.Context, status int, t templ.Component) error {
	buf, _ := s.buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			s.buffers.Put(buf)
		}
	}()
	if err := t.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	// With its length known, a page of more than net/http's 2 KiB buffer
	// goes out in one piece instead of chunked.
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	return c.HTMLBlob(status, buf.Bytes())
}
