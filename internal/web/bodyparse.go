package web

import (
	"errors"
	"maps"
	"net/http"

	"github.com/labstack/echo/v4"
)

// formMemory bounds how much of a multipart body is held in memory. It is
// above the body limits (bodyLimit, uploadBodyLimit), so uploads never
// spill into temporary files.
const formMemory = 8 << 20

// parseBody reads the form of every routed POST, PUT, PATCH and DELETE
// before anything looks at it, and refuses the request when the body is
// cut off:
//
//   - A body over the limit is a 413. BodyLimit answers 413 itself only
//     when Content-Length says so; a chunked body meets the limit while it
//     is read, and net/http's form parsing would swallow that error and
//     leave a truncated form for the handler to act on.
//   - Any other malformed body is a 400.
//
// Then the form holds the body's fields only: a token or field in the URL's
// query string never counts in a state-changing request (c.QueryParam
// still reads the query).
func parseBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		switch req.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			return next(c)
		}
		if unrouted(c) {
			return next(c) // a 404 or 405, which reads nothing
		}
		if err := readForm(req); err != nil {
			return err
		}
		return next(c)
	}
}

// readForm parses req's urlencoded or multipart body and leaves in req.Form
// only what the body held. It returns a 413 or 400 HTTP error.
func readForm(req *http.Request) error {
	err := req.ParseForm()
	if err == nil {
		err = req.ParseMultipartForm(formMemory)
		if errors.Is(err, http.ErrNotMultipart) {
			err = nil
		}
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.Is(err, echo.ErrStatusRequestEntityTooLarge) || errors.As(err, &tooLarge) {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(err)
		}
		return echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
	}
	// PostForm holds the urlencoded fields and, after ParseMultipartForm,
	// the multipart values too.
	req.Form = maps.Clone(req.PostForm)
	if req.Form == nil {
		req.Form = map[string][]string{}
	}
	return nil
}
