package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/store"
)

// BenchmarkGroupDashboard measures GET /groups/{id}/progress through the
// whole server, as the group's organizer, for a group of 200 members and
// 8 decks with 100,000 reviews (store.SeedGroupBench,
// store.GroupDashboardBench); p50-ms is the median request, page-KiB the
// page's size.
func BenchmarkGroupDashboard(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "groups.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	size := store.GroupDashboardBench()
	gb, err := db.SeedGroupBench(ctx, size, now)
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
	if err := db.CreateSession(ctx, gb.Members[0], store.NewSession{TokenHash: hash, ExpiresAt: now.Add(time.Hour)}, now, idleTimeout); err != nil {
		b.Fatal(err)
	}
	path := "/groups/" + strconv.FormatInt(gb.Group, 10) + "/progress"
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	first := get()
	body := first.Body.String()
	// Every member's row, a cell per deck, and the averages.
	if first.Code != http.StatusOK || strings.Count(body, `<th scope="row">`) != size.Members+1 ||
		strings.Count(body, "<td>") != (size.Members+1)*size.Decks {
		b.Fatalf("GET %s = %d, %d rows, %d cells: %.500s", path, first.Code, strings.Count(body, `<th scope="row">`),
			strings.Count(body, "<td>"), body)
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if rec := get(); rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", path, rec.Code)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(first.Body.Len())/1024, "page-KiB")
}
