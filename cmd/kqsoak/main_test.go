package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/loadclient"
	"kubequiz/internal/store"
	"kubequiz/questions"
)

// TestSoakShort runs a short soak against a kubequiz binary built from
// this tree: 20 learners for 12 s with a tenth of the thought, the admin
// every second, and the backup halfway. No request fails, none answers
// 5xx, the server logs no busy error and stops cleanly, and the backup's
// copy passes integrity_check and holds every review acknowledged before
// it started. The clients' counts of each route match the server's.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubequiz and runs it for 12 s with 20 learners")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubequiz")
	// go test puts the go command that runs it first on the PATH.
	build := exec.Command("go", "build", "-o", bin, "kubequiz/cmd/kubequiz")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"-bin", bin, "-learners", "20", "-duration", "12s", "-think-min", "200ms", "-think-max", "800ms",
		"-admin-every", "1s", "-copies", "1", "-json"}, &out, &errOut)
	var rep report
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil {
		t.Fatalf("run: %v; report: %v\nstderr:\n%s\nstdout:\n%s", err, jerr, errOut.String(), out.String())
	}
	if err != nil {
		t.Errorf("run: %v\nstderr:\n%s", err, errOut.String())
	}
	if rep.Failures != 0 || rep.Client5xx != 0 || rep.Server5xx != 0 || rep.Log.Busy != 0 || rep.Log.Errors != 0 || rep.ServerStop != "clean" {
		t.Errorf("failures %d %q, 5xx %d (server %d), busy %d, errors logged %d %q, stop %q; want none and a clean stop",
			rep.Failures, rep.FailSample, rep.Client5xx, rep.Server5xx, rep.Log.Busy, rep.Log.Errors, rep.Log.ErrSample, rep.ServerStop)
	}
	b := rep.Backup
	if !b.Taken || b.Error != "" || b.Integrity != "ok" || b.AckedBefore == 0 || b.Found != b.AckedBefore || b.Missing != 0 || b.SentAfterFound != 0 {
		t.Errorf("backup %+v; want a copy that passes integrity_check with every review acknowledged before it", b)
	}
	if b.InCopy < b.AckedBefore || b.SentAfter == 0 {
		t.Errorf("copy of %d reviews, %d acknowledged before it, %d sent after it; want the backup in the middle of the study", b.InCopy, b.AckedBefore, b.SentAfter)
	}
	if rep.Reviews == 0 || rep.Reviews != rep.Recorded || rep.NotRecorded != 0 {
		t.Errorf("reviews acknowledged %d, recorded by the server %d, not recorded %d; want the same, above 0", rep.Reviews, rep.Recorded, rep.NotRecorded)
	}
	if bundled := bundledDecks(t); rep.Admin.Imports == 0 || rep.Admin.Reimports == 0 || rep.Admin.Ingests == 0 || rep.Decks != 2*bundled {
		t.Errorf("admin %+v, %d decks; want imports, re-imports and ingests, %d decks (the bundled ones and a copy of each)", rep.Admin, rep.Decks, 2*bundled)
	}
	if rep.PeakRSS <= 0 {
		t.Errorf("peak RSS %d; want the server's", rep.PeakRSS)
	}
	routes := map[string]bool{}
	for _, r := range rep.Routes {
		routes[r.Op] = true
		if r.Count != r.ServerCount || r.P50MS <= 0 || r.P99MS < r.P50MS {
			t.Errorf("%s: %d requests, the server counted %d; p50 %.2f ms, p99 %.2f ms", r.Op, r.Count, r.ServerCount, r.P50MS, r.P99MS)
		}
	}
	for _, want := range []string{"POST /study/answer", "POST /study/grade", "POST /admin/import/:id/apply", "POST /admin/ingest/:id/apply"} {
		if !routes[want] {
			t.Errorf("no request to %s in %v", want, routes)
		}
	}
	if len(rep.Goals) != 6 {
		t.Errorf("goals %+v; want 6", rep.Goals)
	}
	t.Logf("%d requests, %d reviews; backup: %d acknowledged before, %d found; learners' p99 %s; peak RSS %.1f MB",
		rep.Requests, rep.Reviews, b.AckedBefore, b.Found, rep.Goals[2].Value, float64(rep.PeakRSS)/(1<<20))
}

// bundledDecks is the number of bundled question files.
func bundledDecks(t *testing.T) int {
	t.Helper()
	names, err := fs.Glob(questions.FS(), "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("bundled question files: %v, %v", names, err)
	}
	return len(names)
}

func TestRouteOf(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/study", "/study"},
		{"/study/answer", "/study/answer"},
		{"/study/grade", "/study/grade"},
		{"/study/v1-36-sig-node", "/study/:slug"},
		{"/decks/v1-36-sig-node/subscription", "/decks/:slug/subscription"},
		{"/admin/import", "/admin/import"},
		{"/admin/import/3f2a", "/admin/import/:id"},
		{"/admin/import/3f2a/apply", "/admin/import/:id/apply"},
		{"/admin/import/3f2a/done", "/admin/import/:id/done"},
		{"/admin/ingest/3f2a", "/admin/ingest/:id"},
		{"/admin/ingest/3f2a/status", "/admin/ingest/:id/status"},
		{"/admin/ingest/3f2a/apply", "/admin/ingest/:id/apply"},
		{"/admin/ingest/documents/12", "/admin/ingest/documents/:doc"},
		{"/admin/ingest/documents/12/publish", "/admin/ingest/documents/:doc/publish"},
		{"/admin/ingest/questions/7", "/admin/ingest/questions/:q"},
		{"/export/reviews.csv", "/export/reviews.csv"},
	}
	for _, tt := range tests {
		if got := routeOf(tt.path); got != tt.want {
			t.Errorf("routeOf(%q) = %q; want %q", tt.path, got, tt.want)
		}
	}
}

const metricsBefore = `# HELP kubequiz_http_request_duration_seconds Time to answer an HTTP request, by method and route.
# TYPE kubequiz_http_request_duration_seconds histogram
kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="0.01"} 10
kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="0.1"} 10
kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="+Inf"} 10
kubequiz_http_request_duration_seconds_count{method="POST",route="/study/grade"} 10
kubequiz_http_requests_total{method="POST",route="/study/grade",status="200"} 10
process_cpu_seconds_total 1.5
`

const metricsAfter = `kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="0.01"} 98
kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="0.1"} 109
kubequiz_http_request_duration_seconds_bucket{method="POST",route="/study/grade",le="+Inf"} 110
kubequiz_http_request_duration_seconds_count{method="POST",route="/study/grade"} 110
kubequiz_http_request_duration_seconds_bucket{method="GET",route="/study",le="0.01"} 5
kubequiz_http_request_duration_seconds_bucket{method="GET",route="/study",le="0.1"} 5
kubequiz_http_request_duration_seconds_bucket{method="GET",route="/study",le="+Inf"} 5
kubequiz_http_request_duration_seconds_count{method="GET",route="/study"} 5
kubequiz_http_requests_total{method="POST",route="/study/grade",status="200"} 108
kubequiz_http_requests_total{method="POST",route="/study/grade",status="500"} 2
kubequiz_http_requests_total{method="GET",route="/a \"quoted\\\" route",status="200"} 1
process_cpu_seconds_total 4 1700000000000
`

// TestMetrics reads two scrapes and takes the soak's part of them: counts,
// a 5xx, and the histogram's 99th percentile bucket and share within 100 ms.
func TestMetrics(t *testing.T) {
	before, err := parseMetrics(strings.NewReader(metricsBefore))
	if err != nil {
		t.Fatal(err)
	}
	after, err := parseMetrics(strings.NewReader(metricsAfter))
	if err != nil {
		t.Fatal(err)
	}
	d := after.since(before)
	if got := d.sum("kubequiz_http_requests_total", func(l map[string]string) bool { return strings.HasPrefix(l["status"], "5") }); got != 2 {
		t.Errorf("5xx = %v; want 2", got)
	}
	if got := d.sum("process_cpu_seconds_total", nil); got != 2.5 {
		t.Errorf("CPU = %v; want 2.5", got)
	}
	if got := after.sum("kubequiz_http_requests_total", func(l map[string]string) bool { return l["route"] == `/a "quoted\" route` }); got != 1 {
		t.Errorf("escaped label: %v; want 1", got)
	}
	hs := d.requestHistograms()
	g, ok := hs["POST /study/grade"]
	if !ok || g.count != 100 {
		t.Fatalf("grade histogram %+v; want 100 requests in the soak", g)
	}
	if b := g.quantileBound(0.99); b != 0.1 {
		t.Errorf("p99 bound %v; want 0.1 (99 of 100 within it)", b)
	}
	if b := g.quantileBound(0.5); b != 0.01 {
		t.Errorf("p50 bound %v; want 0.01", b)
	}
	if s := g.shareWithin(0.1); s != 0.99 {
		t.Errorf("share within 100 ms %v; want 0.99", s)
	}
	if p := hs["GET /study"]; p.count != 5 || p.quantileBound(0.99) != 0.01 {
		t.Errorf("page histogram %+v; want 5 within 10 ms", p)
	}
	if _, err := parseMetrics(strings.NewReader("not a metric line at all\n")); err == nil {
		t.Error("parseMetrics read a line that is no sample")
	}
}

// TestMatchAcks checks how acknowledged grades are found in a copy's
// review log: by learner, question, rating and a time between the
// request's sending and its answer, each row once, in the period of the
// backup they fall in.
func TestMatchAcks(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	started, ended := t0.Add(10*time.Second), t0.Add(11*time.Second)
	grade := func(login, q, rating string, sent, acked time.Duration) ack {
		return ack{login: login, Grade: loadclient.Grade{Question: q, Rating: rating, Sent: t0.Add(sent), Acked: t0.Add(acked), Recorded: true}}
	}
	row := func(login string, q int64, rating fsrs.Rating, at time.Duration) store.LoggedReview {
		return store.LoggedReview{Login: login, QuestionID: q, Rating: rating, At: t0.Add(at)}
	}
	tests := []struct {
		name string
		acks []ack
		rows []store.LoggedReview
		want copyMatch
	}{
		{"found", []ack{grade("ann", "7", "3", time.Second, 1100*time.Millisecond)},
			[]store.LoggedReview{row("ann", 7, fsrs.Good, 1050*time.Millisecond)}, copyMatch{AckedBefore: 1, Found: 1}},
		{"same millisecond as the send", []ack{grade("ann", "7", "3", time.Second+300*time.Microsecond, 2*time.Second)},
			[]store.LoggedReview{row("ann", 7, fsrs.Good, time.Second)}, copyMatch{AckedBefore: 1, Found: 1}},
		{"missing", []ack{grade("ann", "7", "3", time.Second, 2*time.Second)}, nil, copyMatch{AckedBefore: 1, Missing: 1}},
		{"another learner's", []ack{grade("ann", "7", "3", time.Second, 2*time.Second)},
			[]store.LoggedReview{row("bob", 7, fsrs.Good, 1500*time.Millisecond)}, copyMatch{AckedBefore: 1, Missing: 1}},
		{"another rating", []ack{grade("ann", "7", "3", time.Second, 2*time.Second)},
			[]store.LoggedReview{row("ann", 7, fsrs.Again, 1500*time.Millisecond)}, copyMatch{AckedBefore: 1, Missing: 1}},
		{"another question", []ack{grade("ann", "7", "3", time.Second, 2*time.Second)},
			[]store.LoggedReview{row("ann", 8, fsrs.Good, 1500*time.Millisecond)}, copyMatch{AckedBefore: 1, Missing: 1}},
		{"recorded before the request", []ack{grade("ann", "7", "3", time.Second, 2*time.Second)},
			[]store.LoggedReview{row("ann", 7, fsrs.Good, 500*time.Millisecond)}, copyMatch{AckedBefore: 1, Missing: 1}},
		{"one row for two grades", []ack{grade("ann", "7", "3", time.Second, 2*time.Second), grade("ann", "7", "3", time.Second, 2*time.Second)},
			[]store.LoggedReview{row("ann", 7, fsrs.Good, 1500*time.Millisecond)}, copyMatch{AckedBefore: 2, Found: 1, Missing: 1}},
		{"acknowledged while it ran", []ack{grade("ann", "7", "3", 9900*time.Millisecond, 10100*time.Millisecond), grade("bob", "7", "1", 10200*time.Millisecond, 10300*time.Millisecond)},
			[]store.LoggedReview{row("ann", 7, fsrs.Good, 9950*time.Millisecond)}, copyMatch{AckedWhile: 2, AckedWhileFound: 1}},
		{"sent after it ended", []ack{grade("ann", "7", "3", 12*time.Second, 13*time.Second), grade("bob", "7", "3", 12*time.Second, 13*time.Second)},
			[]store.LoggedReview{row("ann", 7, fsrs.Good, 12500*time.Millisecond)}, copyMatch{SentAfter: 2, SentAfterFound: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := matchAcks(tt.acks, tt.rows, started, ended)
			if len(got.MissingSample) != got.Missing {
				t.Errorf("%d missing, %d in the sample", got.Missing, len(got.MissingSample))
			}
			got.MissingSample = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("matchAcks = %+v; want %+v", got, tt.want)
			}
		})
	}
	notRecorded := grade("ann", "7", "3", time.Second, 2*time.Second)
	notRecorded.Recorded = false
	if got := matchAcks([]ack{notRecorded}, nil, started, ended); !reflect.DeepEqual(got, copyMatch{}) {
		t.Errorf("a grade answered without recording: %+v; want it left out", got)
	}
}

func TestScanLog(t *testing.T) {
	log := strings.Join([]string{
		`time=2026-12-03T10:00:00Z level=INFO msg=request method=POST path=/study/grade status=200`,
		`time=2026-12-03T10:00:00Z level=INFO msg=serving busy_timeout=5000`,
		`time=2026-12-03T10:00:01Z level=ERROR msg=request status=500 err="record review: database is locked (5) (SQLITE_BUSY)"`,
		`{"time":"2026-12-03T10:00:02Z","level":"ERROR","msg":"panic"}`,
		`time=2026-12-03T10:00:03Z level=WARN msg="the writer was busy"`,
	}, "\n")
	s, err := scanLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 5 || s.Errors != 2 || s.Busy != 2 || len(s.BusySample) != 2 || len(s.ErrSample) != 2 {
		t.Errorf("scanLog = %+v; want 5 lines, 2 errors, 2 busy", s)
	}
}

func TestProcMemory(t *testing.T) {
	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	if err := os.WriteFile(status, []byte("Name:\tkubequiz\nVmPeak:\t 1300000 kB\nVmHWM:\t   81234 kB\nVmRSS:\t   70000 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hwm, rss, err := procMemory(status)
	if err != nil || hwm != 81234<<10 || rss != 70000<<10 {
		t.Errorf("procMemory = %d, %d, %v; want 81234 kB, 70000 kB", hwm, rss, err)
	}
	if err := os.WriteFile(status, []byte("Name:\tkubequiz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := procMemory(status); err == nil {
		t.Error("procMemory of a status without VmHWM succeeded")
	}
}

// TestCardThink checks the pauses of a card: 2 to 8 s in all, three
// quarters before the answer; the first page after up to 8 s, later ones
// at once.
func TestCardThink(t *testing.T) {
	think := cardThink(2*time.Second, 8*time.Second)
	rng := rand.New(rand.NewPCG(1, 2))
	if first := think(rng, loadclient.OpPage); first < 0 || first > 8*time.Second {
		t.Errorf("first page after %s; want 0 to 8s", first)
	}
	if again := think(rng, loadclient.OpPage); again != 0 {
		t.Errorf("a later page after %s; want 0", again)
	}
	var lo, hi time.Duration = time.Hour, 0
	for range 1000 {
		a := think(rng, loadclient.OpAnswer)
		g := think(rng, loadclient.OpGrade)
		total := a + g
		if total < 2*time.Second || total > 8*time.Second || g != total/4 {
			t.Fatalf("card of %s (answer after %s, grade after %s); want 2 to 8s, a quarter before the grade", total, a, g)
		}
		lo, hi = min(lo, total), max(hi, total)
	}
	if lo > 2100*time.Millisecond || hi < 7900*time.Millisecond {
		t.Errorf("cards from %s to %s; want the whole range", lo, hi)
	}
}

func TestBundledCopies(t *testing.T) {
	files, err := bundledCopies(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * bundledDecks(t); len(files) != want {
		t.Fatalf("%d files; want 2 copies of each bundled one, %d", len(files), want)
	}
	slug := regexp.MustCompile(`(?m)^  slug: (\S+)$`)
	seen := map[string]bool{}
	for _, f := range files {
		s := string(f.Data)
		m := slug.FindAllStringSubmatch(s, -1)
		if len(m) != 1 || !regexp.MustCompile(`-copy-[12]$`).MatchString(m[0][1]) || seen[m[0][1]] {
			t.Errorf("%s: slugs %v; want one, a copy's, not seen before", f.Name, m)
			continue
		}
		seen[m[0][1]] = true
		if !regexp.MustCompile(`(?m)^  title: ".* \(copy [12]\)"$`).MatchString(s) || !strings.Contains(s, "\n  - id: ") {
			t.Errorf("%s: no copy's title, or no questions:\n%.300s", f.Name, s)
		}
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"defaults", nil, ""},
		{"think reversed", []string{"-think-min", "3s", "-think-max", "1s"}, "min ≤ max"},
		{"backup after the end", []string{"-duration", "10s", "-backup-after", "10s"}, "within -duration"},
		{"no learners", []string{"-learners", "0"}, "want 1 to 2000"},
		{"too many copies", []string{"-copies", "5"}, "want 0 to 4"},
		{"argument", []string{"now"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, &bytes.Buffer{})
			if tt.wantErr == "" {
				if err != nil || c.learners != 200 || c.duration != 3*time.Minute || c.backupAfter != 90*time.Second ||
					c.thinkMin != 2*time.Second || c.thinkMax != 8*time.Second {
					t.Errorf("parseConfig = %+v, %v; want 200 learners, 3m, backup at 90s, 2s to 8s", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseConfig = %v; want an error with %q", err, tt.wantErr)
			}
		})
	}
}

// TestReportFailure checks what fails a soak: a 5xx, a busy error, a
// failed step, a backup that does not pass, an unclean stop; and that a
// slow p99 or a large RSS does not.
func TestReportFailure(t *testing.T) {
	good := report{ServerStop: "clean", PeakRSS: 400 << 20, Routes: []routeResult{{OpStats: loadclient.OpStats{Op: "POST /study/grade", P99MS: 250}}},
		Backup: backupResult{Taken: true, Integrity: "ok", copyMatch: copyMatch{AckedBefore: 5, Found: 5}}}
	tests := []struct {
		name   string
		change func(*report)
		want   string
	}{
		{"slow and large, but whole", func(*report) {}, ""},
		{"a 5xx seen by a client", func(r *report) { r.Client5xx = 1 }, "5xx"},
		{"a 5xx in the server's metrics", func(r *report) { r.Server5xx = 2 }, "5xx"},
		{"busy", func(r *report) { r.Log.Busy = 1 }, "busy"},
		{"a failed step", func(r *report) { r.Failures = 1 }, "failed steps"},
		{"a review missing", func(r *report) { r.Backup.Missing, r.Backup.Found = 1, 4 }, "backup"},
		{"integrity", func(r *report) { r.Backup.Integrity = "integrity_check failed" }, "backup"},
		{"no backup", func(r *report) { r.Backup = backupResult{} }, "backup"},
		{"killed", func(r *report) { r.ServerStop = "killed" }, "did not stop cleanly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			tt.change(&r)
			err := r.failure()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("failure() = %v; want %q", err, tt.want)
			}
		})
	}
	goals := checkGoals(good)
	if goals[2].Met || goals[3].Met || !goals[4].Met {
		t.Errorf("goals %+v; want p99 and RSS missed, the backup met", goals)
	}
	// The p99 goal is the learners': a slow admin page is shown apart.
	fast := good
	fast.Routes = []routeResult{
		{OpStats: loadclient.OpStats{Op: "POST /study/grade", P99MS: 40, Count: 900}},
		{OpStats: loadclient.OpStats{Op: "GET /study", P99MS: 60, Count: 10}},
		{OpStats: loadclient.OpStats{Op: "POST /admin/ingest/:id/apply", P99MS: 600, Count: 12}},
	}
	if g := checkGoals(fast)[2]; !g.Met || !strings.Contains(g.Value, "60.0 ms (GET /study)") {
		t.Errorf("p99 goal %+v; want met on GET /study's 60 ms", g)
	}
	if _, a := fast.worstP99(); a.Op != "POST /admin/ingest/:id/apply" {
		t.Errorf("the admin's worst route %q; want the ingest's save", a.Op)
	}
}

// TestStartServer runs stand-ins of kubequiz serve: one that says where
// it listens and stops on SIGTERM, one that fails at once, whose log the
// error shows.
func TestStartServer(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o700); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ctx := context.Background()
	// The log line comes before the addresses: once they are read, the
	// test stops the server, whose trap would cut a later line short.
	good := script("good", `trap 'echo stopping >&2; exit 0' TERM
echo "level=INFO msg=serving args=\"$*\" env=${KUBEQUIZ_DB:-none}" >&2
echo "kubequiz is listening on http://127.0.0.1:4321/"
echo "metrics are served on http://127.0.0.1:4322/metrics"
while :; do sleep 0.05; done
`)
	t.Setenv("KUBEQUIZ_DB", "elsewhere.db")
	s, err := startServer(ctx, good, "x.db", dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.base != "http://127.0.0.1:4321" || s.metrics != "http://127.0.0.1:4322/metrics" {
		t.Errorf("base %q, metrics %q", s.base, s.metrics)
	}
	if err := s.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	log, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := `args="serve -db x.db -addr 127.0.0.1:0 -metrics-addr 127.0.0.1:0" env=none`; !strings.Contains(string(log), want) || !strings.Contains(string(log), "stopping") {
		t.Errorf("log %q; want the flags, no KUBEQUIZ_ variable, and the stop", log)
	}

	bad := script("bad", "echo 'cannot open the database' >&2\nexit 3\n")
	if _, err := startServer(ctx, bad, "x.db", dir); err == nil || !strings.Contains(err.Error(), "cannot open the database") {
		t.Errorf("startServer of a failing server = %v; want its log in the error", err)
	}
}
