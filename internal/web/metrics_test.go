package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"kubequiz/internal/metrics"
	"kubequiz/internal/store"
)

// TestMetrics drives a server that reports to metrics, as serve wires it
// (the store's review writer too): an admin imports a question file, a
// learner studies a card, and a few other requests come in; then it
// scrapes the metrics handler, on a listener of its own, and checks each
// series.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	m := metrics.New()
	db, err := store.OpenWith(ctx, filepath.Join(t.TempDir(), "kubequiz.db"), store.Options{OnBatch: m.ReviewBatch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(Config{Password: cheapPasswords(), Metrics: m}, db, log)
	if err != nil {
		t.Fatal(err)
	}
	ts := withAdmin(t, &testServer{Server: s, db: db, log: &strings.Builder{}})
	scrapes := httptest.NewServer(SecurityHeaders(m.Handler(log)))
	defer scrapes.Close()

	admin := newClient(t, ts, "192.0.2.60")
	admin.mustLogin("root", adminPassword)
	rec := admin.postFiles("/admin/import", map[string][]byte{"all-types.yaml": readTestFile(t, "..", "bank", "testdata", "good", "all-types.yaml")})
	preview := rec.Header().Get("Location")
	if rec := admin.post(preview+"/apply", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("apply = %d", rec.Code)
	}
	learner := newClient(t, ts, "192.0.2.61")
	if rec := learner.register("alice", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	fields := hiddenFields(learner.get("/study/v1-36-sig-node").Body.String())
	fields.Set("choice", "2")
	grade := hiddenFields(learner.get("/study/answer?" + fields.Encode()).Body.String())
	grade.Set("rating", "3")
	if rec := learner.post("/study/grade", grade); rec.Code != http.StatusSeeOther {
		t.Fatalf("grade = %d: %.300s", rec.Code, rec.Body.String())
	}
	learner.post("/study/grade", grade) // again: recorded once
	for _, path := range []string{"/healthz", "/healthz", "/no/such/page", "/metrics", "/admin/import/0123abcd"} {
		learner.get(path)
	}
	// The app's own address serves no metrics.
	if rec := learner.get(metrics.Path); rec.Code != http.StatusNotFound {
		t.Errorf("GET %s of the app = %d, want 404", metrics.Path, rec.Code)
	}

	resp, err := http.Get(scrapes.URL + metrics.Path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape = %d %s: %.500s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	checkSecurityHeaders(t, "GET "+metrics.Path+" of the metrics address", resp.Header)
	tests := []struct {
		series   string
		min, max float64
	}{
		{`kubequiz_http_requests_total{method="GET",route="/healthz",status="200"}`, 2, 2},
		{`kubequiz_http_requests_total{method="GET",route="unmatched",status="404"}`, 3, 3}, // two /metrics and a made-up path
		{`kubequiz_http_requests_total{method="GET",route="/admin/import/:id",status="403"}`, 1, 1},
		{`kubequiz_http_requests_total{method="POST",route="/study/grade",status="303"}`, 2, 2},
		{`kubequiz_http_requests_total{method="POST",route="/admin/import/:id/apply",status="303"}`, 1, 1},
		{`kubequiz_http_request_duration_seconds_count{method="POST",route="/study/grade"}`, 2, 2},
		{`kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="+Inf"}`, 2, 2},
		{`kubequiz_http_request_duration_seconds_sum{method="POST",route="/study/grade"}`, 1e-9, 10},
		{`kubequiz_reviews_recorded_total{rating="good"}`, 1, 1},
		{`kubequiz_reviews_recorded_total{rating="again"}`, 0, 0},
		{`kubequiz_review_batch_size_count`, 2, 2}, // the review, then its repeat
		{`kubequiz_review_batch_size_sum`, 2, 2},
		{`kubequiz_review_commit_seconds_count`, 2, 2},
		{`kubequiz_review_commit_seconds_sum`, 1e-9, 10},
		{`kubequiz_imports_total{outcome="applied"}`, 1, 1},
		{`kubequiz_imports_total{outcome="refused"}`, 0, 0},
		{`kubequiz_ingests_total{outcome="applied"}`, 0, 0},
		{`kubequiz_sessions_active`, 2, 2}, // the admin's and the learner's
		{`go_goroutines`, 1, 1e6},
		{`process_resident_memory_bytes`, 1 << 20, 1 << 40},
	}
	for _, tt := range tests {
		v, ok := sample(body, tt.series)
		if !ok || v < tt.min || v > tt.max {
			t.Errorf("%s = %v (found %v), want %v to %v", tt.series, v, ok, tt.min, tt.max)
		}
	}
	// Routes are patterns: no path of a request is a label.
	for _, path := range []string{"/no/such/page", "/admin/import/0123abcd", `route="/metrics"`} {
		if strings.Contains(body, path) {
			t.Errorf("the metrics name the path %s", path)
		}
	}

	// The metrics address serves nothing else.
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/healthz", http.StatusNotFound},
		{http.MethodGet, metrics.Path + "/x", http.StatusNotFound},
		{http.MethodPost, metrics.Path, http.StatusMethodNotAllowed},
	} {
		req, _ := http.NewRequest(tt.method, scrapes.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s of the metrics address = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
		checkSecurityHeaders(t, tt.method+" "+tt.path+" of the metrics address", resp.Header)
	}
}

// sample is the value of one series (its name and labels as the text
// format writes them) in a scrape.
func sample(body, series string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

// checkSecurityHeaders checks the headers every response of kubequiz
// carries.
func checkSecurityHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	for name, want := range map[string]string{
		"Content-Security-Policy": contentSecurityPolicy,
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "same-origin",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %s = %q, want %q", what, name, got, want)
		}
	}
}
