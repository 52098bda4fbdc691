package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// testServer is a Server on a fresh database, with its log captured.
type testServer struct {
	*Server
	db  *store.DB
	log *strings.Builder
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "kubequiz.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var logs strings.Builder
	s, err := New(Config{}, db, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, db: db, log: &logs}
}

// do sends a request through the whole echo router.
func (ts *testServer) do(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	ts.ServeHTTP(rec, req)
	return rec
}

func TestErrorPages(t *testing.T) {
	ts := newTestServer(t)
	// Routes that fail in known ways, to exercise the one error handler.
	ts.echo.GET("/test/boom", func(c echo.Context) error { return fmt.Errorf("wrapped: %w", errors.New("secret detail")) })
	ts.echo.GET("/test/panic", func(c echo.Context) error { panic("kaboom") })
	ts.echo.GET("/test/missing", func(c echo.Context) error { return fmt.Errorf("load: %w", quiz.ErrNotFound) })
	ts.echo.GET("/test/forbidden", func(c echo.Context) error { return quiz.ErrForbidden })
	ts.echo.GET("/test/unprocessable", func(c echo.Context) error { return echo.NewHTTPError(http.StatusUnprocessableEntity) })

	tests := []struct {
		name       string
		method     string
		path       string
		htmx       bool
		wantStatus int
		wantBody   string
		wantFull   bool // a whole page, not a fragment
		wantLogged bool // logged as an error
	}{
		{"unknown route", http.MethodGet, "/no/such/page", false, 404, "ページが見つかりません", true, false},
		{"unknown route htmx", http.MethodGet, "/no/such/page", true, 404, "ページが見つかりません", false, false},
		{"domain not found", http.MethodGet, "/test/missing", false, 404, "ページが見つかりません", true, false},
		{"forbidden", http.MethodGet, "/test/forbidden", false, 403, "許可されていません", true, false},
		{"internal error", http.MethodGet, "/test/boom", false, 500, "サーバー内部でエラー", true, true},
		{"internal error htmx", http.MethodGet, "/test/boom", true, 500, "サーバー内部でエラー", false, true},
		{"panic", http.MethodGet, "/test/panic", false, 500, "サーバー内部でエラー", true, true},
		{"wrong method", http.MethodDelete, "/healthz", false, 405, "このメソッドは使えません", true, false},
		{"unprocessable", http.MethodGet, "/test/unprocessable", false, 422, "送信された内容を受け付けられません", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts.log.Reset()
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.htmx {
				req.Header.Set("HX-Request", "true")
			}
			rec := ts.do(req)
			body := rec.Body.String()
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %.300s", rec.Code, tt.wantStatus, body)
			}
			if !strings.Contains(body, tt.wantBody) {
				t.Errorf("body lacks %q: %.300s", tt.wantBody, body)
			}
			if full := strings.Contains(body, "<!doctype html>"); full != tt.wantFull {
				t.Errorf("full page = %v, want %v", full, tt.wantFull)
			}
			// A whole page is titled and headed in the page's language.
			if title, _ := statusText(tt.wantStatus); tt.wantFull &&
				(!strings.Contains(body, "<title>"+title+" · kubequiz</title>") || !strings.Contains(body, "<h1>"+title+"</h1>")) {
				t.Errorf("page not titled and headed %q: %.400s", title, body)
			}
			if strings.Contains(body, "secret detail") || strings.Contains(body, "kaboom") {
				t.Errorf("internal error text leaked to the user: %.300s", body)
			}
			if got := rec.Header().Get("Content-Type"); !strings.HasPrefix(got, "text/html; charset=UTF-8") {
				t.Errorf("Content-Type = %q", got)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "X-Request-Id"} {
				if rec.Header().Get(h) == "" {
					t.Errorf("error response lacks %s", h)
				}
			}
			logged := strings.Contains(ts.log.String(), "level=ERROR")
			if logged != tt.wantLogged {
				t.Errorf("logged as error = %v, want %v; log:\n%s", logged, tt.wantLogged, ts.log.String())
			}
		})
	}
}

func TestHealthz(t *testing.T) {
	ts := newTestServer(t)
	rec := ts.do(httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("healthz = %d, want 200", rec.Code)
	}
	// With the database closed, the server must report itself unhealthy.
	ts.db.Close()
	rec = ts.do(httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("healthz with a closed database = %d, want 503", rec.Code)
	}
}

func TestStaticFiles(t *testing.T) {
	ts := newTestServer(t)
	home := ts.do(httptest.NewRequest(http.MethodGet, "/", nil)).Body.String()
	i := strings.Index(home, "/static/htmx-2.0.11.min.js?v=")
	if i < 0 {
		t.Fatalf("home page does not load htmx with a version: %.500s", home)
	}
	url := home[i : i+len("/static/htmx-2.0.11.min.js?v=")+12]
	rec := ts.do(httptest.NewRequest(http.MethodGet, url, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", url, rec.Code)
	}
	body, _ := io.ReadAll(rec.Body)
	if len(body) != 52182 {
		t.Errorf("htmx is %d bytes, want 52182", len(body))
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("Cache-Control = %q", cc)
	}
	// Served at another version, or none, it is not cached for good, but
	// asked for again with its entity tag it is not sent again.
	etag := rec.Header().Get("ETag")
	if want := `"` + url[strings.Index(url, "?v=")+3:] + `"`; etag != want {
		t.Errorf("ETag = %q, want the content hash %s", etag, want)
	}
	for _, other := range []string{"/static/htmx-2.0.11.min.js", "/static/htmx-2.0.11.min.js?v=000000000000", url + "&x=1"} {
		rec := ts.do(httptest.NewRequest(http.MethodGet, other, nil))
		if cc := rec.Header().Get("Cache-Control"); rec.Code != http.StatusOK || cc != "no-cache" {
			t.Errorf("GET %s = %d, Cache-Control %q, want 200 and no-cache", other, rec.Code, cc)
		}
		req := httptest.NewRequest(http.MethodGet, other, nil)
		req.Header.Set("If-None-Match", etag)
		if rec := ts.do(req); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag = %d (%d bytes), want 304 and no body", other, rec.Code, rec.Body.Len())
		}
	}
	for _, path := range []string{"/static/SHA256SUMS", "/static/", "/static/../go.mod", "/static/static.go"} {
		if rec := ts.do(httptest.NewRequest(http.MethodGet, path, nil)); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, rec.Code)
		}
	}
}
