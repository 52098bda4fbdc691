package web

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/bank"
	"kubequiz/internal/changelog"
)

// formMemory bounds how much of a multipart body is held in memory. It is
// above the body limits (bodyLimit, uploadBodyLimit), so uploads never
// spill into temporary files.
const formMemory = 8 << 20

// maxFormParts bounds the parts of a multipart body, as net/http's own
// parse does by default.
const maxFormParts = 1000

// fileLimit is, for the path of an admin upload route, the largest file
// it takes; 0 for any other path.
func fileLimit(path string) int64 {
	switch path {
	case "/admin/import":
		return bank.MaxFileSize
	case "/admin/ingest":
		return changelog.MaxDocumentSize
	}
	return 0
}

// formFilesKey is where parseBody keeps the files of an admin's upload,
// for uploadedFiles.
const formFilesKey = "kubequiz.files"

// formFile is one file of a multipart body.
type formFile struct {
	field string // the form field it was sent in
	name  string // as uploadName cleans it
	data  []byte
}

// fileTooLarge refuses an upload with a file over its route's limit,
// found while the file is read.
type fileTooLarge struct {
	name  string
	limit int64
}

func (e fileTooLarge) Error() string {
	return fmt.Sprintf("upload: %s is over the limit of %d bytes", e.name, e.limit)
}

// parseBody reads the form of every routed POST, PUT, PATCH and DELETE
// before anything looks at it, and refuses the request when the body is
// cut off:
//
//   - A body over the limit is a 413. BodyLimit answers 413 itself only
//     when Content-Length says so; a chunked body meets the limit while it
//     is read, and net/http's form parsing would swallow that error and
//     leave a truncated form for the handler to act on.
//   - A file of an admin's upload over its route's limit (fileLimit) is a
//     413 too, as soon as its limit is passed: the rest of it, and of the
//     body, is never read.
//   - Any other malformed body is a 400.
//
// Then the form holds the body's fields only: a token or field in the URL's
// query string never counts in a state-changing request (c.QueryParam
// still reads the query).
func (s *Server) parseBody(next echo.HandlerFunc) echo.HandlerFunc {
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
		if limit := fileLimit(c.Path()); limit > 0 && s.isUpload(c) {
			files, err := readUpload(req, limit)
			if err != nil {
				return err
			}
			c.Set(formFilesKey, files)
			return next(c)
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
		return bodyError(err)
	}
	// PostForm holds the urlencoded fields and, after ParseMultipartForm,
	// the multipart values too.
	req.Form = maps.Clone(req.PostForm)
	if req.Form == nil {
		req.Form = map[string][]string{}
	}
	return nil
}

// readUpload reads the multipart body of an admin's upload part by part,
// and stops at the first file over limit (fileTooLarge). The values go to
// req.Form, req.PostForm and req.MultipartForm, as readForm leaves them;
// the files are returned. A body that is not multipart is read as
// readForm does (it holds no file).
func readUpload(req *http.Request, limit int64) ([]formFile, error) {
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return nil, readForm(req)
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return nil, bodyError(err)
	}
	values := url.Values{}
	var files []formFile
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && n >= maxFormParts {
			err = errors.New("multipart: too many parts")
		}
		if err != nil {
			return nil, bodyError(err)
		}
		field := part.FormName()
		if part.FileName() == "" {
			b, err := io.ReadAll(part)
			if err != nil {
				return nil, bodyError(err)
			}
			if field != "" {
				values.Add(field, string(b))
			}
			continue
		}
		name := uploadName(part.FileName())
		b, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return nil, bodyError(err)
		}
		if int64(len(b)) > limit {
			return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(fileTooLarge{name: name, limit: limit})
		}
		files = append(files, formFile{field: field, name: name, data: b})
	}
	req.PostForm = values
	req.Form = maps.Clone(values)
	req.MultipartForm = &multipart.Form{Value: values, File: map[string][]*multipart.FileHeader{}}
	return files, nil
}

// bodyError is the answer to a body that could not be read: a 413 when it
// met the body limit, otherwise a 400.
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.Is(err, echo.ErrStatusRequestEntityTooLarge) || errors.As(err, &tooLarge) {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge).SetInternal(err)
	}
	return echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
}
