// Command kqsoak is kubequiz's soak run: one real server, `kubequiz serve`
// from the binary given with -bin, run as a child process on loopback
// with a fresh temporary database and its metrics address, so that its
// memory and its log are its own; -learners simulated learners studying
// with -think-min to -think-max of thought per card (uniform, seeded),
// one admin importing question files and ingesting changelogs through
// the admin pages, and the CSV exports where the server has them; and,
// at -backup-after, `kubequiz backup` of the live database while the
// learners go on studying.
//
//	go run ./cmd/kqsoak -bin bin/kubequiz -learners 200 -duration 3m
//
// Before the soak, the accounts are created in the new database (as
// "kubequiz user add" does, with production password costs and
// unlimited daily limits), the server loads the bundled question bank,
// the admin imports -copies copies of it under other slugs, and every
// learner signs in through the form and subscribes to every deck.
//
// During the soak the admin, every -admin-every, imports a new generated
// deck (upload, preview, apply), imports the previous one again with one
// question changed, and ingests a generated upstream CHANGELOG section
// (upload, preview, save as drafts). Each learner answers and grades
// cards as htmx does, and after one card in -export-odds downloads
// /export/reviews.csv and /export/cards.csv, when the server answers the
// first with 200 (a 404 says this build has no export: skipped, and said).
//
// It reports the requests and their statuses, the latencies of each route
// measured by the clients (p50, p95, p99, max) beside the server's own
// histogram of the same requests, failed steps, SQLite busy errors in the
// server's log, the server's peak resident memory (VmHWM, sampled every
// second), and the backup: integrity_check of the copy, and the reviews
// acknowledged before it started, found in the copy or missing. The goals
// are printed as met or missed: no 5xx, no busy error, p99 under 100 ms
// on every route the learners use (the admin's are shown apart), peak
// RSS under 300 MB, a copy that passes its checks,
// no failed request. The exit status is 1 when a request failed (a 5xx
// among them), a busy error was logged, the backup's checks failed or the
// server did not stop cleanly; the latency and memory goals are reported
// only.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"kubequiz/internal/loadclient"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kqsoak:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	bin         string
	learners    int
	duration    time.Duration
	thinkMin    time.Duration
	thinkMax    time.Duration
	backupAfter time.Duration
	adminEvery  time.Duration
	exportOdds  int
	copies      int
	seed        uint64
	json        bool
	keep        bool
}

func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("kqsoak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.bin, "bin", "bin/kubequiz", "the kubequiz binary to serve and back up with (make build)")
	fs.IntVar(&c.learners, "learners", 200, "simulated learners, each with its own session")
	fs.DurationVar(&c.duration, "duration", 3*time.Minute, "time the learners and the admin work")
	fs.DurationVar(&c.thinkMin, "think-min", 2*time.Second, "least thought per card")
	fs.DurationVar(&c.thinkMax, "think-max", 8*time.Second, "most thought per card (uniform between the two)")
	fs.DurationVar(&c.backupAfter, "backup-after", 0, "when the backup is taken, from the start (0: halfway)")
	fs.DurationVar(&c.adminEvery, "admin-every", 15*time.Second, "pause between the admin's rounds of import, re-import and ingest")
	fs.IntVar(&c.exportOdds, "export-odds", 40, "a learner downloads the CSV exports after one card in this many")
	fs.IntVar(&c.copies, "copies", 1, "copies of the bundled decks the admin imports first, so that learners do not run out of new cards")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the learners' thought, answers and grades")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary folder (database, backup, server log) and print where it is")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.learners < 1 || c.learners > 2000:
		return c, fmt.Errorf("-learners %d: want 1 to 2000", c.learners)
	case c.duration < time.Second || c.duration > 24*time.Hour:
		return c, fmt.Errorf("-duration %s: want 1s to 24h", c.duration)
	case c.thinkMin < 0 || c.thinkMax < c.thinkMin || c.thinkMax > time.Minute:
		return c, fmt.Errorf("-think-min %s, -think-max %s: want 0 ≤ min ≤ max ≤ 1m", c.thinkMin, c.thinkMax)
	case c.backupAfter < 0 || c.backupAfter >= c.duration:
		return c, fmt.Errorf("-backup-after %s: want within -duration %s", c.backupAfter, c.duration)
	case c.adminEvery < 0:
		return c, fmt.Errorf("-admin-every %s: want 0 or more", c.adminEvery)
	case c.exportOdds < 1:
		return c, fmt.Errorf("-export-odds %d: want at least 1", c.exportOdds)
	case c.copies < 0 || c.copies > 4:
		return c, fmt.Errorf("-copies %d: want 0 to 4 (one upload of at most 20 files)", c.copies)
	}
	if c.backupAfter == 0 {
		c.backupAfter = c.duration / 2
	}
	return c, nil
}

// The soak's goals.
const (
	goalP99MS     = 100
	goalPeakRSSMB = 300
)

// machine describes where the soak ran.
type machine struct {
	CPUs      int    `json:"cpus"`
	Model     string `json:"model"`
	Go        string `json:"go"`
	LoadStart string `json:"load_average_start"`
	LoadEnd   string `json:"load_average_end"`
}

// report is the whole soak.
type report struct {
	Date         string        `json:"date"`
	Machine      machine       `json:"machine"`
	Learners     int           `json:"learners"`
	Seconds      float64       `json:"seconds"`
	Think        string        `json:"think_per_card"`
	AdminEvery   string        `json:"admin_every"`
	Decks        int           `json:"decks"`
	Exports      string        `json:"exports"`
	Server       string        `json:"server"`
	SetupSeconds float64       `json:"setup_seconds"`
	Requests     int           `json:"requests"`
	PerSec       float64       `json:"per_sec"`
	Statuses     map[int]int   `json:"statuses"` // 0: no answer (a transport error)
	Routes       []routeResult `json:"routes"`
	Failures     int           `json:"failures"`
	FailSample   []string      `json:"failure_sample,omitempty"`
	Reviews      int           `json:"reviews"`      // grades acknowledged as recorded
	NotRecorded  int           `json:"not_recorded"` // grades answered without recording (stale)
	EmptyQueue   int           `json:"empty_queue"`
	Downloads    int           `json:"export_downloads"`
	Admin        *admin        `json:"admin"`
	Client5xx    int           `json:"client_5xx"`
	Server5xx    int           `json:"server_5xx"` // from the server's metrics
	ServerCPU    float64       `json:"server_cpu_seconds"`
	Recorded     int           `json:"server_reviews_recorded"` // from the server's metrics
	Log          logScan       `json:"log"`
	PeakRSS      int64         `json:"peak_rss_bytes"`
	SetupRSS     int64         `json:"setup_peak_rss_bytes"` // the peak when the soak began
	EndRSS       int64         `json:"end_rss_bytes"`
	ServerStop   string        `json:"server_stop"` // "clean", or how it ended
	Backup       backupResult  `json:"backup"`
	Goals        []goal        `json:"goals"`
	Folder       string        `json:"folder,omitempty"` // with -keep
}

// goal is one goal, met or missed.
type goal struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Goal  string `json:"goal"`
	Met   bool   `json:"met"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	rep, err := soak(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep)
	}
	return rep.failure()
}

// failure is why the soak failed, or nil: a failed request (a 5xx among
// them), a busy error in the server's log, a backup whose copy does not
// pass its checks, or a server that did not stop cleanly.
func (r report) failure() error {
	var why []string
	if n := max(r.Client5xx, r.Server5xx); n > 0 {
		why = append(why, fmt.Sprintf("%d answers with a 5xx status", n))
	}
	if r.Log.Busy > 0 {
		why = append(why, fmt.Sprintf("%d busy errors in the server's log", r.Log.Busy))
	}
	if r.Failures > 0 {
		why = append(why, fmt.Sprintf("%d failed steps", r.Failures))
	}
	if !r.Backup.ok() {
		why = append(why, "the backup's copy did not pass its checks")
	}
	if r.ServerStop != "clean" {
		why = append(why, "the server did not stop cleanly: "+r.ServerStop)
	}
	if len(why) == 0 {
		return nil
	}
	return errors.New(strings.Join(why, "; "))
}

// Logins and passwords of the soak's accounts.
const adminLogin = "soak-admin"

func learnerLogin(i int) string    { return fmt.Sprintf("soak-%04d", i) }
func password(login string) string { return "soak run passphrase " + login }

// soak sets up the server and its users, runs the soak and checks the
// backup.
func soak(ctx context.Context, cfg config, stderr io.Writer) (report, error) {
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return report{}, err
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return report{}, fmt.Errorf("-bin %s: no kubequiz binary there (make build)", cfg.bin)
	}
	dir, err := os.MkdirTemp("", "kqsoak-")
	if err != nil {
		return report{}, err
	}
	if cfg.keep {
		fmt.Fprintf(stderr, "kqsoak: keeping %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	rep := report{
		Date: time.Now().Format(time.RFC3339), Learners: cfg.learners, Admin: &admin{},
		Think:      fmt.Sprintf("%s to %s", cfg.thinkMin, cfg.thinkMax),
		AdminEvery: cfg.adminEvery.String(),
		Machine:    machine{CPUs: runtime.NumCPU(), Model: cpuModel(), Go: runtime.Version(), LoadStart: loadAverage()},
	}
	if cfg.keep {
		rep.Folder = dir
	}
	setupStart := time.Now()
	db := filepath.Join(dir, "kubequiz.db")
	accounts := []newAccount{{adminLogin, password(adminLogin), quiz.RoleAdmin}}
	for i := range cfg.learners {
		accounts = append(accounts, newAccount{learnerLogin(i), password(learnerLogin(i)), quiz.RoleMember})
	}
	fmt.Fprintf(stderr, "kqsoak: creating %d accounts\n", len(accounts))
	if err := createAccounts(ctx, db, accounts); err != nil {
		return report{}, err
	}
	srv, err := startServer(ctx, bin, db, dir)
	if err != nil {
		return report{}, err
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.kill()
		}
	}()
	rep.Server = fmt.Sprintf("%s serve (pid %d) on %s, metrics on %s", cfg.bin, srv.pid(), srv.base, srv.metrics)
	fmt.Fprintf(stderr, "kqsoak: %s\n", rep.Server)
	memCtx, stopMem := context.WithCancel(ctx)
	defer stopMem()
	go srv.sampleMemory(memCtx, time.Second)

	transport := &http.Transport{
		MaxIdleConns:        2 * (cfg.learners + 1),
		MaxIdleConnsPerHost: cfg.learners + 1,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	defer transport.CloseIdleConnections()
	adm := rep.Admin
	adm.b = loadclient.New(srv.base, adminLogin, password(adminLogin), transport, cfg.seed^0xad)
	if err := adm.b.SignIn(ctx); err != nil {
		return report{}, err
	}
	if cfg.copies > 0 {
		files, err := bundledCopies(cfg.copies)
		if err != nil {
			return report{}, err
		}
		fmt.Fprintf(stderr, "kqsoak: the admin imports %d copies of the bundled decks\n", cfg.copies)
		if err := adm.importFiles(ctx, files); err != nil {
			return report{}, fmt.Errorf("import of the bundled decks' copies: %w", err)
		}
	}
	learners := make([]*learner, cfg.learners)
	browsers := make([]*loadclient.Browser, cfg.learners)
	for i := range learners {
		login := learnerLogin(i)
		browsers[i] = loadclient.New(srv.base, login, password(login), transport, cfg.seed+uint64(i))
		learners[i] = &learner{b: browsers[i], rec: newRouteRecorder()}
	}
	fmt.Fprintf(stderr, "kqsoak: %d learners sign in and subscribe\n", len(learners))
	// Sign-ins two at a time: the server hashes two passwords at once.
	if err := eachOf(browsers, 2, func(b *loadclient.Browser) error { return b.SignIn(ctx) }); err != nil {
		return report{}, err
	}
	decks := make([]int, len(browsers))
	if err := eachOf(browsers, 8, func(b *loadclient.Browser) error {
		n, err := b.SubscribeAll(ctx)
		if err == nil && n == 0 {
			err = fmt.Errorf("%s: no deck to subscribe to", b.Login)
		}
		decks[slices.Index(browsers, b)] = n
		return err
	}); err != nil {
		return report{}, err
	}
	rep.Decks = slices.Min(decks)
	exports, err := probeExports(ctx, browsers[0])
	if err != nil {
		return report{}, err
	}
	rep.Exports = "served: learners download them"
	if !exports {
		rep.Exports = "GET " + exportPaths[0] + " answers 404: this build has no CSV export; exports skipped"
	}
	fmt.Fprintf(stderr, "kqsoak: exports: %s\n", rep.Exports)
	rep.SetupSeconds = time.Since(setupStart).Seconds()

	scraper := &http.Client{Timeout: 10 * time.Second}
	before, err := srv.scrape(ctx, scraper)
	if err != nil {
		return report{}, err
	}
	srv.readMemory()
	rep.SetupRSS, _ = srv.memory()

	// The soak.
	stop := make(chan struct{})
	adm.rec = newRouteRecorder()
	adm.b.OnResponse = adm.rec.response
	for _, l := range learners {
		l.b.OnResponse = l.rec.response
		l.b.OnGraded = func(g loadclient.Grade) { l.grades = append(l.grades, g) }
		l.b.Think = cardThink(cfg.thinkMin, cfg.thinkMax)
		l.b.Stop = stop
	}
	fmt.Fprintf(stderr, "kqsoak: soak of %s: %d learners, %s of thought per card, the admin every %s, backup after %s\n",
		cfg.duration, cfg.learners, rep.Think, cfg.adminEvery, cfg.backupAfter)
	start := time.Now()
	done := make(chan struct{})
	var workers int
	for _, l := range learners {
		workers++
		go func() { defer func() { done <- struct{}{} }(); l.run(ctx, stop, exports, cfg.exportOdds) }()
	}
	workers++
	go func() { defer func() { done <- struct{}{} }(); adm.run(ctx, stop, cfg.adminEvery) }()
	copyPath := filepath.Join(dir, "backup.db")
	var backupStarted, backupEnded time.Time
	workers++
	go func() {
		defer func() { done <- struct{}{} }()
		if !sleep(ctx, stop, cfg.backupAfter) {
			return
		}
		fmt.Fprintf(stderr, "kqsoak: kubequiz backup while the learners study\n")
		backupStarted = time.Now()
		out, err := runBackup(ctx, bin, db, copyPath)
		backupEnded = time.Now()
		rep.Backup.Taken = true
		rep.Backup.AfterSeconds = backupStarted.Sub(start).Seconds()
		rep.Backup.TookMS = float64(backupEnded.Sub(backupStarted)) / float64(time.Millisecond)
		rep.Backup.Output = out
		if err != nil {
			rep.Backup.Error = err.Error()
		}
	}()
	timer := time.NewTimer(cfg.duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	close(stop)
	for range workers {
		<-done
	}
	elapsed := time.Since(start)
	rep.Seconds = elapsed.Seconds()
	if ctx.Err() != nil {
		return report{}, ctx.Err()
	}
	fmt.Fprintf(stderr, "kqsoak: soak over after %.1f s; stopping the server\n", rep.Seconds)

	after, err := srv.scrape(ctx, scraper)
	if err != nil {
		return report{}, err
	}
	srv.readMemory()
	stopMem()
	rep.PeakRSS, rep.EndRSS = srv.memory()
	rep.ServerStop = "clean"
	if err := srv.stop(); err != nil {
		rep.ServerStop = err.Error()
	}
	stopped = true
	if rep.Log, err = scanLogFile(srv.logPath); err != nil {
		return report{}, err
	}
	rep.Machine.LoadEnd = loadAverage()

	soakMetrics := after.since(before)
	rep.Server5xx = int(soakMetrics.sum("kubequiz_http_requests_total", func(l map[string]string) bool { return strings.HasPrefix(l["status"], "5") }))
	rep.ServerCPU = soakMetrics.sum("process_cpu_seconds_total", nil)
	rep.Recorded = int(soakMetrics.sum("kubequiz_reviews_recorded_total", nil))

	recs := []*routeRecorder{adm.rec}
	var acks []ack
	var fails failures
	for _, l := range learners {
		recs = append(recs, l.rec)
		fails.merge(l.failures)
		rep.EmptyQueue += l.empty
		rep.Downloads += l.exports
		for _, g := range l.grades {
			acks = append(acks, ack{login: l.b.Login, Grade: g})
			if g.Recorded {
				rep.Reviews++
			} else {
				rep.NotRecorded++
			}
		}
	}
	fails.merge(adm.failures)
	rep.Failures, rep.FailSample = fails.n, fails.sample
	rep.Routes = routeResults(recs, elapsed, soakMetrics.requestHistograms())
	rep.Statuses = map[int]int{}
	for _, r := range rep.Routes {
		rep.Requests += r.Count
		for code, n := range r.Statuses {
			rep.Statuses[code] += n
			if code >= 500 {
				rep.Client5xx += n
			}
		}
	}
	rep.PerSec = float64(rep.Requests) / elapsed.Seconds()

	if rep.Backup.Taken && rep.Backup.Error == "" {
		checkCopy(ctx, &rep.Backup, copyPath, acks, backupStarted, backupEnded)
	}
	rep.Goals = checkGoals(rep)
	return rep, nil
}

// checkCopy checks the backup's copy: integrity_check, then the reviews
// it holds against those acknowledged.
func checkCopy(ctx context.Context, b *backupResult, path string, acks []ack, started, ended time.Time) {
	schema, err := store.CheckBackup(ctx, path)
	if err != nil {
		b.Integrity = err.Error()
		return
	}
	b.Integrity, b.Schema = "ok", schema
	rows, err := store.ReviewLogOf(ctx, path)
	if err != nil {
		b.Error = err.Error()
		return
	}
	b.InCopy = len(rows)
	b.copyMatch = matchAcks(acks, rows, started, ended)
}

// checkGoals judges the soak's goals.
func checkGoals(r report) []goal {
	n5xx := max(r.Client5xx, r.Server5xx)
	worst, _ := r.worstP99()
	rssMB := float64(r.PeakRSS) / (1 << 20)
	b := r.Backup
	backup := "not taken"
	if b.Taken {
		backup = fmt.Sprintf("integrity_check %s, %d of %d acknowledged before it found, %d missing", b.Integrity, b.Found, b.AckedBefore, b.Missing)
		if b.Error != "" {
			backup = b.Error
		}
	}
	return []goal{
		{"no 5xx", fmt.Sprint(n5xx), "0", n5xx == 0},
		{"no busy error surfacing", fmt.Sprintf("%d in the server's log", r.Log.Busy), "0", r.Log.Busy == 0},
		{"p99 of the learners' routes", fmt.Sprintf("%.1f ms (%s)", worst.P99MS, worst.Op), fmt.Sprintf("< %d ms", goalP99MS), worst.P99MS < goalP99MS},
		{"peak RSS of the server", fmt.Sprintf("%.1f MB", rssMB), fmt.Sprintf("< %d MB", goalPeakRSSMB), r.PeakRSS > 0 && rssMB < goalPeakRSSMB},
		{"backup during the soak", backup, "ok, 0 missing", b.ok()},
		{"failed steps", fmt.Sprint(r.Failures), "0", r.Failures == 0},
	}
}

// worstP99 is the route of the learners (studying, exports) with the
// highest p99, and the admin's. The goal is the learners': an admin's
// save of a changelog parses, generates and stores it in one request, and
// a handful of them make a p99 that is their maximum.
func (r report) worstP99() (learner, admin routeResult) {
	for _, rt := range r.Routes {
		w := &learner
		if isAdminRoute(rt.Op) {
			w = &admin
		}
		if rt.P99MS > w.P99MS {
			*w = rt
		}
	}
	return learner, admin
}

// isAdminRoute tells the admin pages' routes ("POST /admin/...").
func isAdminRoute(route string) bool {
	_, path, _ := strings.Cut(route, " ")
	return strings.HasPrefix(path, "/admin/")
}

// printReport prints the report as text.
func printReport(w io.Writer, r report) {
	fmt.Fprintf(w, "kqsoak %s: %d learners for %.0f s, %s of thought per card, one admin every %s, %d decks each\n",
		r.Date, r.Learners, r.Seconds, r.Think, r.AdminEvery, r.Decks)
	fmt.Fprintf(w, "machine: %d CPUs (%s), %s; load average %s at start, %s at end; setup %.1f s\n",
		r.Machine.CPUs, r.Machine.Model, r.Machine.Go, r.Machine.LoadStart, r.Machine.LoadEnd, r.SetupSeconds)
	fmt.Fprintf(w, "server: %s\n", r.Server)
	fmt.Fprintf(w, "exports: %s\n\n", r.Exports)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tcount\tper s\tp50 ms\tp95 ms\tp99 ms\tmax ms\tserver count\tserver p99 ≤ ms\tserver ≤ 100 ms\tstatuses\t")
	for _, rt := range r.Routes {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%g\t%.2f%%\t%s\t\n", rt.Op, rt.Count, rt.PerSec,
			rt.P50MS, rt.P95MS, rt.P99MS, rt.MaxMS, rt.ServerCount, rt.ServerP99MS, 100*rt.ServerUnder100, statusText(rt.Statuses))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "requests %d (%.1f/s): %s\n", r.Requests, r.PerSec, statusText(r.Statuses))
	fmt.Fprintf(w, "reviews acknowledged %d (server's count %d); grades answered without recording %d; empty queues %d; export downloads %d\n",
		r.Reviews, r.Recorded, r.NotRecorded, r.EmptyQueue, r.Downloads)
	fmt.Fprintf(w, "admin: %d imports of a new deck, %d re-imports, %d changelog ingests\n", r.Admin.Imports, r.Admin.Reimports, r.Admin.Ingests)
	fmt.Fprintf(w, "failed steps %d\n", r.Failures)
	for _, s := range r.FailSample {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "server: 5xx %d (its metrics: %d); log %d lines, %d at level ERROR, %d busy; CPU %.1f s (%.0f %% of one core); stop: %s\n",
		r.Client5xx, r.Server5xx, r.Log.Lines, r.Log.Errors, r.Log.Busy, r.ServerCPU, 100*r.ServerCPU/max(r.Seconds, 1e-9), r.ServerStop)
	for _, s := range append(r.Log.BusySample, r.Log.ErrSample...) {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if _, a := r.worstP99(); a.Count > 0 {
		fmt.Fprintf(w, "admin pages (not in the p99 goal): highest p99 %.1f ms of %d requests (%s), the server's ≤ %g ms\n", a.P99MS, a.Count, a.Op, a.ServerP99MS)
	}
	fmt.Fprintf(w, "server memory: peak RSS (VmHWM) %.1f MB (%.1f MB when the soak began, after the sign-ins and imports), RSS at the end %.1f MB\n",
		float64(r.PeakRSS)/(1<<20), float64(r.SetupRSS)/(1<<20), float64(r.EndRSS)/(1<<20))
	b := r.Backup
	if !b.Taken {
		fmt.Fprintln(w, "backup: not taken")
	} else {
		fmt.Fprintf(w, "backup at %.1f s, %.0f ms: %s\n", b.AfterSeconds, b.TookMS, b.Output)
		if b.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", b.Error)
		}
		fmt.Fprintf(w, "  copy: integrity_check %s, schema %d, %d reviews\n", b.Integrity, b.Schema, b.InCopy)
		fmt.Fprintf(w, "  reviews acknowledged before the backup started %d, found in the copy %d, missing %d\n", b.AckedBefore, b.Found, b.Missing)
		for _, s := range b.MissingSample {
			fmt.Fprintf(w, "    missing: %s\n", s)
		}
		fmt.Fprintf(w, "  acknowledged while it ran %d (in the copy %d); sent after it ended %d (in the copy %d, must be 0)\n",
			b.AckedWhile, b.AckedWhileFound, b.SentAfter, b.SentAfterFound)
	}
	if r.Folder != "" {
		fmt.Fprintf(w, "kept: %s\n", r.Folder)
	}
	for _, g := range r.Goals {
		v := "met"
		if !g.Met {
			v = "MISSED"
		}
		fmt.Fprintf(w, "goal: %-28s %s (goal %s): %s\n", g.Name, g.Value, g.Goal, v)
	}
}

// statusText writes status counts in order: "200 1234, 303 56".
func statusText(m map[int]int) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		name := fmt.Sprint(c)
		if c == 0 {
			name = "no answer"
		}
		parts[i] = fmt.Sprintf("%s %d", name, m[c])
	}
	return strings.Join(parts, ", ")
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpuModel is the processor's name, where the system tells it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}
