package metrics

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestRequestLabels: a request's method and route become bounded labels:
// a method a client makes up is "other", a request no route matched is
// "unmatched".
func TestRequestLabels(t *testing.T) {
	tests := []struct {
		method, route         string
		wantMethod, wantRoute string
	}{
		{"GET", "/study/:slug", "GET", "/study/:slug"},
		{"HEAD", "/", "HEAD", "/"},
		{"POST", "/study/grade", "POST", "/study/grade"},
		{"BREW", "/", "other", "/"},
		{"DELETE", "/login", "other", "/login"},
		{"GET", "", "GET", Unmatched},
	}
	for _, tt := range tests {
		m := New()
		m.Request(tt.method, tt.route, http.StatusOK, time.Millisecond)
		if got := testutil.ToFloat64(m.requests.WithLabelValues(tt.wantMethod, tt.wantRoute, "200")); got != 1 {
			t.Errorf("Request(%q, %q): the series of %s %s counts %v, want 1", tt.method, tt.route, tt.wantMethod, tt.wantRoute, got)
		}
		if n := testutil.CollectAndCount(m.requests); n != 1 {
			t.Errorf("Request(%q, %q) made %d series, want 1", tt.method, tt.route, n)
		}
	}
}

// TestNilMetrics: a nil *Metrics records nothing, and does not panic.
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.Request("GET", "/", http.StatusOK, time.Millisecond)
	m.ReviewRecorded(3)
	m.ReviewBatch(1, time.Millisecond)
	m.Import(Applied)
	m.Ingest(Failed)
}

// TestSessionsCollector: the sessions gauge is counted at each scrape; a
// count that fails fails that series alone, and is logged.
func TestSessionsCollector(t *testing.T) {
	m := New()
	n, fail := 3, false
	err := m.WatchSessions(func(ctx context.Context) (int, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the count has no deadline")
		}
		if fail {
			return 0, errors.New("database is locked")
		}
		return n, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	h := m.Handler(slog.New(slog.NewTextHandler(&logs, nil)))
	scrape := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, Path, nil))
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	if code, body := scrape(); code != http.StatusOK || !strings.Contains(body, "\nkubequiz_sessions_active 3\n") {
		t.Errorf("scrape = %d: %s", code, body)
	}
	fail = true
	code, body := scrape()
	if code != http.StatusOK || strings.Contains(body, "kubequiz_sessions_active") || !strings.Contains(body, "kubequiz_reviews_recorded_total") {
		t.Errorf("scrape with the count failing = %d, want the other series only: %s", code, body)
	}
	if !strings.Contains(logs.String(), "database is locked") {
		t.Errorf("the failed count is not logged: %s", logs.String())
	}
	if err := m.WatchSessions(func(context.Context) (int, error) { return 0, nil }); err == nil {
		t.Error("a second sessions gauge was registered")
	}
}
