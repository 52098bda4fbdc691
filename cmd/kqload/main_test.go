package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/loadclient"
	"kubequiz/internal/store"
)

// TestRun runs every phase briefly against an in-process server: learners
// sign in, subscribe and study without a failed request, and the report
// has figures for each phase.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("signs in with production password costs and runs every phase")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"-users", "3", "-duration", "400ms", "-rounds", "2", "-warmup", "100ms", "-copies", "1", "-json", "-runs", "1",
		"-sync", "full", "-phases", strings.Join(knownPhases, ",")}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s\nstdout:\n%s", err, errOut.String(), out.String())
	}
	var sum summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || len(sum.Runs) != 1 {
		t.Fatalf("report: %v, %d runs; want one\n%s", err, len(sum.Runs), out.String())
	}
	rep := sum.Runs[0]
	if sum.Median != rep.Ratios || sum.Errors != 0 || len(sum.Goals) != 4 {
		t.Errorf("summary of one run: median %+v, errors %d, %d goals; want the run's ratios, 0, 4", sum.Median, sum.Errors, len(sum.Goals))
	}
	if rep.Users != 3 || rep.Decks != 8 || rep.Errors != 0 || rep.Rounds != 2 || rep.Sync != "FULL" {
		t.Errorf("users %d, decks %d, errors %d, rounds %d; want 3, 8, 0, 2", rep.Users, rep.Decks, rep.Errors, rep.Rounds)
	}
	// Both turns of each phase count: about 400ms measured in all.
	for _, p := range rep.Phases {
		if p.Seconds < 0.35 {
			t.Errorf("phase %s measured %.2fs; want both turns of 200ms", p.Name, p.Seconds)
		}
	}
	for _, c := range []struct{ phase, op string }{
		{"study", loadclient.OpAnswer}, {"study", loadclient.OpGrade},
		{"page", loadclient.OpPage}, {"echo", opHello}, {"echo-study", loadclient.OpAnswer}, {"echo-study", loadclient.OpGrade},
		{"sqlite", opInsert}, {"sqlite-normal", opInsert},
	} {
		o := rep.phase(c.phase).op(c.op)
		if o.Count == 0 || o.PerSec <= 0 || o.P50MS <= 0 || o.P99MS < o.P50MS {
			t.Errorf("%s %s: %+v; want requests with latencies", c.phase, c.op, o)
		}
	}
	if rep.Ratios.GradeToSQLite <= 0 || rep.Ratios.GradeToSQLiteNormal <= 0 || rep.Ratios.PageToEcho <= 0 || rep.Ratios.FloorToSQLite <= 0 || rep.Ratios.GradeToFloor <= 0 {
		t.Errorf("ratios %+v; want all five above 0", rep.Ratios)
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"defaults", nil, ""},
		{"loopback target", []string{"-url", "http://127.0.0.1:8080/", "-db", "x.db"}, ""},
		{"other host", []string{"-url", "http://192.0.2.1:8080", "-db", "x.db"}, "only a loopback address"},
		{"host name", []string{"-url", "http://example.com:8080", "-db", "x.db"}, "only a loopback address"},
		{"no port", []string{"-url", "http://127.0.0.1", "-db", "x.db"}, "want http://127.0.0.1:PORT"},
		{"db without url", []string{"-db", "x.db"}, "go together"},
		{"url without db", []string{"-url", "http://127.0.0.1:8080"}, "go together"},
		{"unknown phase", []string{"-phases", "study,nap"}, "unknown phase"},
		{"unknown sync", []string{"-sync", "off"}, "want normal or full"},
		{"phase twice", []string{"-phases", "echo,echo"}, "twice"},
		{"no users", []string{"-users", "0"}, "want 1 to 1000"},
		{"no rounds", []string{"-rounds", "0"}, "want 1 to 100"},
		{"turns too short", []string{"-duration", "1s", "-rounds", "20"}, "at least 100ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, &bytes.Buffer{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parseConfig: %v", err)
				}
				if c.users != 64 || c.duration != 20*time.Second || !slices.Equal(c.phases, defaultPhases) || c.sync != store.SyncNormal {
					t.Errorf("config %+v; want 64 users, 20s, every phase", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseConfig = %v; want an error with %q", err, tt.wantErr)
			}
		})
	}
}

// TestReplayEcho checks that the floor's server answers each study route
// with the reply it was given: the body, the captured headers but Date and
// a stale Content-Length, and a length of its own.
func TestReplayEcho(t *testing.T) {
	answered := loadclient.Reply{
		Header: http.Header{"Content-Type": {"text/html; charset=UTF-8"}, "X-Kept": {"answer"},
			"Date": {"Mon, 02 Jan 2006 15:04:05 GMT"}, "Content-Length": {"999"}},
		Body: []byte(`<form hx-post="/study/grade">answered</form>`),
	}
	graded := loadclient.Reply{
		Header: http.Header{"Content-Type": {"text/html; charset=UTF-8"}, "X-Kept": {"grade"}},
		Body:   []byte(`<section id="study">graded</section>`),
	}
	srv := httptest.NewServer(replayEcho(answered, graded))
	defer srv.Close()
	form := url.Values{"q": {"7"}, "choice": {"2"}}.Encode()
	tests := []struct {
		method, path string
		want         loadclient.Reply
	}{
		{http.MethodGet, "/study", graded},
		{http.MethodPost, "/study/answer", answered},
		{http.MethodPost, "/study/grade", graded},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			var body io.Reader
			if tc.method == http.MethodPost {
				body = strings.NewReader(form)
			}
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, tc.want.Body) {
				t.Errorf("status %d, body %q; want 200, %q", resp.StatusCode, got, tc.want.Body)
			}
			if resp.ContentLength != int64(len(tc.want.Body)) || resp.Header.Get("X-Kept") != tc.want.Header.Get("X-Kept") {
				t.Errorf("length %d, X-Kept %q; want %d, %q", resp.ContentLength, resp.Header.Get("X-Kept"), len(tc.want.Body), tc.want.Header.Get("X-Kept"))
			}
			if d := resp.Header.Get("Date"); d == "" || d == "Mon, 02 Jan 2006 15:04:05 GMT" {
				t.Errorf("Date %q; want the server's own", d)
			}
		})
	}
}

// TestMedianAndGoals checks that the goals are judged on each ratio's
// median over the runs, not on one run.
func TestMedianAndGoals(t *testing.T) {
	phases := []phaseResult{{Name: "study"}, {Name: "page"}, {Name: "echo"}, {Name: "echo-study"}}
	run := func(floor, page, p99 float64) report {
		return report{Users: 64, Phases: phases, Ratios: ratios{GradeToFloor: floor, PageToEcho: page, GradeP99MS: p99}}
	}
	tests := []struct {
		name   string
		runs   []report
		errs   int
		median ratios
		met    []bool // floor, page, p99, errors
	}{
		{"one run", []report{run(0.3, 0.25, 40)}, 0, ratios{GradeToFloor: 0.3, PageToEcho: 0.25, GradeP99MS: 40}, []bool{true, false, true, true}},
		{"an outlier does not decide", []report{run(0.1, 0.3, 60), run(0.28, 0.31, 30), run(0.29, 0.2, 45)}, 0,
			ratios{GradeToFloor: 0.28, PageToEcho: 0.3, GradeP99MS: 45}, []bool{true, true, true, true}},
		{"even count: mean of the middle two", []report{run(0.2, 0.2, 10), run(0.3, 0.3, 20), run(0.4, 0.4, 30), run(0.5, 0.5, 40)}, 2,
			ratios{GradeToFloor: 0.35, PageToEcho: 0.35, GradeP99MS: 25}, []bool{true, true, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := medianRatios(tt.runs)
			const eps = 1e-9
			if d := m.GradeToFloor - tt.median.GradeToFloor; d > eps || d < -eps {
				t.Errorf("median floor ratio %v; want %v", m.GradeToFloor, tt.median.GradeToFloor)
			}
			if d := m.PageToEcho - tt.median.PageToEcho; d > eps || d < -eps {
				t.Errorf("median page ratio %v; want %v", m.PageToEcho, tt.median.PageToEcho)
			}
			if m.GradeP99MS != tt.median.GradeP99MS {
				t.Errorf("median p99 %v; want %v", m.GradeP99MS, tt.median.GradeP99MS)
			}
			gs := checkGoals(tt.runs[0], m, tt.errs)
			var met []bool
			for _, g := range gs {
				met = append(met, g.Met)
			}
			if !slices.Equal(met, tt.met) {
				t.Errorf("goals met %v; want %v (%+v)", met, tt.met, gs)
			}
		})
	}
}
