package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubequiz/internal/store"
)

// BenchmarkGroupDashboard measures GET /groups/{id}/progress (page) and
// GET /groups/{id}/progress.csv (csv) through the whole server, as the
// group's organizer, for a group of 200 members and 8 decks with 100,000
// reviews (store.SeedGroupBench, store.GroupDashboardBench); p50-ms is
// the median request, CPU-ms/op the process's CPU time (every thread's,
// user and system) per request, KiB the answer's size.
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
	get := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	page := "/groups/" + strconv.FormatInt(gb.Group, 10) + "/progress"
	cases := []struct {
		name, path string
		// check tells what is wrong with the first answer's body, or "".
		check func(body string) string
	}{
		{"page", page, func(body string) string {
			// Every member's row, a cell per deck, and the averages.
			rows, cells := strings.Count(body, `<th scope="row">`), strings.Count(body, "<td>")
			if rows != size.Members+1 || cells != (size.Members+1)*size.Decks {
				return fmt.Sprintf("%d rows, %d cells", rows, cells)
			}
			return ""
		}},
		{"csv", page + ".csv", func(body string) string {
			if n := strings.Count(body, "\r\n"); n != 1+size.Members*size.Decks {
				return fmt.Sprintf("%d lines", n)
			}
			return ""
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			first := get(c.path)
			body := first.Body.String()
			if bad := c.check(body); first.Code != http.StatusOK || bad != "" {
				b.Fatalf("GET %s = %d, %s: %.500s", c.path, first.Code, bad, body)
			}
			var took []time.Duration
			cpu := processCPU(b)
			for b.Loop() {
				start := time.Now()
				if rec := get(c.path); rec.Code != http.StatusOK {
					b.Fatalf("GET %s = %d", c.path, rec.Code)
				}
				took = append(took, time.Since(start))
			}
			cpu = processCPU(b) - cpu
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "CPU-ms/op")
			b.ReportMetric(float64(len(body))/1024, "KiB")
		})
	}
}

// processCPU is the CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatalf("CPU time: %v", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
