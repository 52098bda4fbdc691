package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/store"
)

// BenchmarkStatsPage measures GET /stats through the whole server for the
// store's statistics benchmark learner (store.SeedStatsBench: a year of
// study, 100,000 reviews of 4,000 cards in 20 decks over 4 releases and 5
// SIGs, among 10 other learners with 10,000 reviews each); p50-ms is the
// median request, page-KiB the page's size.
func BenchmarkStatsPage(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "stats.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	user, err := db.SeedStatsBench(ctx, now)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Now: func() time.Time { return now }}, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	tok, hash, err := newToken()
	if err != nil {
		b.Fatal(err)
	}
	if err := db.CreateSession(ctx, user, store.NewSession{TokenHash: hash, ExpiresAt: now.Add(time.Hour)}, now, idleTimeout); err != nil {
		b.Fatal(err)
	}
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/stats", nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	first := get()
	if first.Code != http.StatusOK || !strings.Contains(first.Body.String(), `id="mastery-map"`) {
		b.Fatalf("GET /stats = %d: %.500s", first.Code, first.Body.String())
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if rec := get(); rec.Code != http.StatusOK {
			b.Fatalf("GET /stats = %d", rec.Code)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(first.Body.Len())/1024, "page-KiB")
}
