// Command kqload is kubequiz's study load benchmark. It serves kubequiz on
// loopback from a fresh temporary database with the bundled question bank
// (or targets a server already running on this machine, -url with its
// database file -db, where the learners' accounts are created), signs in
// -users simulated learners and has them study for -duration, then
// measures, in the same run, two ceilings of this machine: a bare echo
// handler and single-row SQLite write transactions with the server's
// settings (-sync, normal by default, as kubequiz serve).
//
//	go run ./cmd/kqload -users 64 -duration 20s
//
// Phases, which take turns -rounds times, each turn duration/rounds long and
// the first of each phase after -warmup unrecorded:
//
//	study          every learner loops: GET /study, POST /study/answer, POST /study/grade
//	page           every learner only loads the next-card page, GET /study
//	echo           the same client pool on a bare echo handler, GET /hello
//	echo-study     the study phase's requests, from stand-ins with the
//	               learners' cookies, on a bare echo handler that replays
//	               kubequiz's answers to one review: the floor HTTP alone
//	               puts under a review
//	sqlite         one writer: BEGIN IMMEDIATE; INSERT one row; COMMIT
//	sqlite-normal  (only when asked for) the same with synchronous=NORMAL,
//	               a CPU-bound reference beside a server run with -sync full
//
// Learners send each request as soon as the last answer arrives, so the
// server is saturated; -think adds a pause before each study request. The
// bundled decks are imported -copies more times under other slugs and the
// learners' daily limits are raised, so that the queue does not run dry.
//
// The whole run is repeated -runs times (3 by default), each on a fresh
// server and database, and the goals are checked on the median of each
// ratio: reviews/s at least 0.27 of the echo-study floor's, next-card
// pages/s at least 0.27 of bare echo's, grade p99 under 50 ms at 64
// learners, no failed request. Each is printed as met or missed. The
// ratio to the SQLite write ceiling is printed as information.
//
// The load generator runs in the same process and on the same cores as the
// server. The exit status is 1 when any request failed, whatever the goals.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"kubequiz/internal/loadclient"
	"kubequiz/internal/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kqload:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	users       int
	duration    time.Duration
	warmup      time.Duration
	url         string
	dbPath      string
	seed        uint64
	copies      int
	phases      []string
	json        bool
	cpuProfile  string
	memProfile  string
	profiled    string
	maxRequests int64
	think       time.Duration
	rounds      int
	runs        int
	sync        store.Sync
}

// rewarm is the warm-up before each turn of a phase but its first.
const rewarm = time.Second

// knownPhases can be asked for with -phases; defaultPhases run without it.
// sqlite-normal is a reference for a server run with -sync full.
var (
	knownPhases   = []string{"study", "page", "echo", "echo-study", "sqlite", "sqlite-normal"}
	defaultPhases = knownPhases[:5]
)

// Daily limits given to the learners: high enough never to hold back a run.
const (
	loadNewPerDay     = 1_000_000
	loadReviewsPerDay = 1_000_000
)

func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	var phases string
	fs := flag.NewFlagSet("kqload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.users, "users", 64, "simulated learners, each with its own session and connection")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "measured time of each phase, over all its turns")
	fs.DurationVar(&c.warmup, "warmup", 3*time.Second, "unrecorded time before each phase's first turn (later turns: at most 1s)")
	fs.IntVar(&c.runs, "runs", 3, "whole runs, each on a fresh server and database; the goals are checked on the median of their ratios")
	fs.IntVar(&c.rounds, "rounds", 4, "turns of the phases: each runs this many times, for duration/rounds, in turn with the others")
	fs.StringVar(&c.url, "url", "", "a kubequiz server already running on this machine (http://127.0.0.1:PORT), with -db")
	fs.StringVar(&c.dbPath, "db", "", "with -url: that server's database file, where the learners' accounts are created (the write ceilings run on files beside it)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the learners' answers and grades")
	fs.IntVar(&c.copies, "copies", 7, "extra copies of the bundled decks, so that learners do not run out of new cards")
	fs.StringVar(&phases, "phases", strings.Join(defaultPhases, ","), "phases to run, in this order (known: "+strings.Join(knownPhases, ",")+")")
	var sync string
	fs.StringVar(&sync, "sync", "normal", "the in-process server's synchronous setting, which the sqlite phase measures too: normal or full (kubequiz serve -sync)")
	fs.BoolVar(&c.json, "json", false, "print the results as JSON")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of one phase's first turn (server and generator) to this file")
	fs.StringVar(&c.memProfile, "memprofile", "", "write the allocations of one phase's first turn to this file (and those before it to FILE.base, for go tool pprof -diff_base)")
	fs.StringVar(&c.profiled, "profile-phase", "study", "the phase -cpuprofile and -memprofile cover")
	fs.Int64Var(&c.maxRequests, "max-steps", 5_000_000, "upper bound on the steps of each turn of a phase")
	fs.DurationVar(&c.think, "think", 0, "mean pause before each request of the study phase (0: none, the server is saturated)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.users < 1 || c.users > 1000 {
		return c, fmt.Errorf("-users %d: want 1 to 1000", c.users)
	}
	if c.duration <= 0 || c.duration > time.Hour || c.warmup < 0 || c.warmup > time.Hour {
		return c, fmt.Errorf("-duration %s, -warmup %s: want up to an hour each", c.duration, c.warmup)
	}
	if c.copies < 0 || c.copies > 100 {
		return c, fmt.Errorf("-copies %d: want 0 to 100", c.copies)
	}
	if c.think < 0 || c.think > time.Minute {
		return c, fmt.Errorf("-think %s: want 0 to a minute", c.think)
	}
	if c.rounds < 1 || c.rounds > 100 || c.duration/time.Duration(max(c.rounds, 1)) < 100*time.Millisecond {
		return c, fmt.Errorf("-rounds %d: want 1 to 100, each turn at least 100ms of -duration %s", c.rounds, c.duration)
	}
	if c.runs < 1 || c.runs > 20 {
		return c, fmt.Errorf("-runs %d: want 1 to 20", c.runs)
	}
	if c.maxRequests < 1 {
		return c, fmt.Errorf("-max-steps %d: want at least 1", c.maxRequests)
	}
	for _, p := range strings.Split(phases, ",") {
		if !slices.Contains(knownPhases, p) {
			return c, fmt.Errorf("-phases: unknown phase %q (known: %s)", p, strings.Join(knownPhases, ","))
		}
		if slices.Contains(c.phases, p) {
			return c, fmt.Errorf("-phases: %q twice (-rounds repeats the phases)", p)
		}
		c.phases = append(c.phases, p)
	}
	var err error
	if c.sync, err = store.ParseSync(sync); err != nil {
		return c, fmt.Errorf("-sync: %w", err)
	}
	if c.url != "" {
		if err := checkLoopback(c.url); err != nil {
			return c, err
		}
		c.url = strings.TrimRight(c.url, "/")
	}
	if (c.url == "") != (c.dbPath == "") {
		return c, errors.New("-url and -db go together: the learners' accounts are created in the target's database file")
	}
	return c, nil
}

// checkLoopback refuses targets other than this machine's loopback.
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return fmt.Errorf("-url %q: want http://127.0.0.1:PORT", raw)
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-url %q: only a loopback address is allowed", raw)
	}
	return nil
}

// report is the whole run.
type report struct {
	Date        string `json:"date"`
	Users       int    `json:"users"`
	Think       string `json:"think"`
	LoadAverage string `json:"load_average,omitempty"`
	Duration    string `json:"duration"`
	Warmup      string `json:"warmup"`
	Rounds      int    `json:"rounds"`
	Sync        string `json:"sync"` // the in-process server's and the sqlite phase's
	CPUs        int    `json:"cpus"`
	GoMaxProcs  int    `json:"gomaxprocs"`
	Target      string `json:"target"`
	External    bool   `json:"external"` // -url: the server runs in another process
	Decks       int    `json:"decks"`
	// ReviewsPerLearner is the mean number of reviews each learner had
	// recorded when the study phase ended (warm-up included): the phases
	// after it serve the cards it left.
	ReviewsPerLearner float64       `json:"reviews_per_learner"`
	SetupSecond       float64       `json:"setup_seconds"`
	Phases            []phaseResult `json:"phases"`
	Ratios            ratios        `json:"ratios"`
	Errors            int           `json:"errors"`
}

type ratios struct {
	GradeToSQLite float64 `json:"grade_to_sqlite"`
	// GradeToSQLiteNormal is against the ceiling without a sync at every
	// commit, which the CPU bounds: a reference, not a goal.
	GradeToSQLiteNormal float64 `json:"grade_to_sqlite_normal"`
	PageToEcho          float64 `json:"page_to_echo"`
	GradeP99MS          float64 `json:"grade_p99_ms"`
	// FloorToSQLite is the echo-study phase's reviews/s against the same
	// ceiling: what the requests and answers of a review leave of the
	// goal when kubequiz's own work costs nothing.
	FloorToSQLite float64 `json:"floor_to_sqlite"`
	// GradeToFloor is the study phase's reviews/s against the echo-study
	// phase's: the share of the floor's rate kubequiz keeps with its work.
	GradeToFloor float64 `json:"grade_to_floor"`
}

// summary is every run and the median of their ratios, on which the goals
// are checked.
type summary struct {
	Runs   []report `json:"runs"`
	Median ratios   `json:"median"`
	Errors int      `json:"errors"`
	Goals  []goal   `json:"goals"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	var sum summary
	for i := range cfg.runs {
		if cfg.runs > 1 {
			fmt.Fprintf(stderr, "kqload: run %d of %d\n", i+1, cfg.runs)
		}
		rep, err := measureRun(ctx, cfg, stderr)
		if err != nil {
			return err
		}
		sum.Runs = append(sum.Runs, rep)
		sum.Errors += rep.Errors
	}
	sum.Median = medianRatios(sum.Runs)
	sum.Goals = checkGoals(sum.Runs[0], sum.Median, sum.Errors)
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		printSummary(stdout, sum)
	}
	if sum.Errors > 0 {
		return fmt.Errorf("%d requests failed", sum.Errors)
	}
	return nil
}

// measureRun is one whole run: a fresh server and database (or the
// target), every phase for its turns, and the ratios of their rates.
func measureRun(ctx context.Context, cfg config, stderr io.Writer) (report, error) {
	dir, err := os.MkdirTemp("", "kqload-")
	if err != nil {
		return report{}, err
	}
	defer os.RemoveAll(dir)
	// The write ceilings are measured on the filesystem of the server's
	// database, whose syncs they compare with: the temporary folder holds
	// the in-process server's, and with -db, a folder beside that file.
	ceilings := dir
	if cfg.dbPath != "" {
		if ceilings, err = os.MkdirTemp(filepath.Dir(cfg.dbPath), "kqload-ceiling-"); err != nil {
			return report{}, fmt.Errorf("a folder for the write ceilings beside %s: %w", cfg.dbPath, err)
		}
		defer os.RemoveAll(ceilings)
	}

	rep := report{
		Date: time.Now().Format(time.RFC3339), Users: cfg.users, Think: cfg.think.String(), LoadAverage: loadAverage(),
		Duration: cfg.duration.String(), Warmup: cfg.warmup.String(), Rounds: cfg.rounds, Sync: string(cfg.sync),
		CPUs: runtime.NumCPU(), GoMaxProcs: runtime.GOMAXPROCS(0),
	}
	transport := &http.Transport{
		MaxIdleConns:        2 * cfg.users,
		MaxIdleConnsPerHost: cfg.users,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	defer transport.CloseIdleConnections()

	setupStart := time.Now()
	base, learners, stopTarget, decks, err := setUp(ctx, cfg, dir, transport, stderr)
	if err != nil {
		return report{}, err
	}
	defer stopTarget()
	rep.Target, rep.Decks, rep.External = base, decks, cfg.url != ""
	rep.SetupSecond = time.Since(setupStart).Seconds()
	fmt.Fprintf(stderr, "kqload: %d learners signed in to %s, subscribed to %d decks (%.1f s)\n",
		len(learners), base, decks, rep.SetupSecond)

	// The phases take turns, so that a figure and its ceiling are measured
	// under the same conditions of the machine, whose speed drifts.
	turn := cfg.duration / time.Duration(cfg.rounds)
	acc := make(map[string]*measured, len(cfg.phases))
	for round := range cfg.rounds {
		for _, name := range cfg.phases {
			if ctx.Err() != nil {
				return report{}, ctx.Err()
			}
			warm := cfg.warmup
			if round > 0 {
				warm = min(cfg.warmup, rewarm)
			}
			fmt.Fprintf(stderr, "kqload: phase %s, turn %d of %d: %s warm-up, %s measured\n", name, round+1, cfg.rounds, warm, turn)
			stopProfile := func() error { return nil }
			if round == 0 {
				if stopProfile, err = startProfile(cfg, name); err != nil {
					return report{}, err
				}
			}
			m, err := runPhase(ctx, cfg, name, learners, transport, ceilings, warm, turn)
			if perr := stopProfile(); perr != nil {
				return report{}, fmt.Errorf("profile: %w", perr)
			}
			if err != nil {
				return report{}, err
			}
			if acc[name] == nil {
				acc[name] = &measured{}
			}
			acc[name].add(m)
		}
	}
	for _, name := range cfg.phases {
		res := acc[name].result(name)
		rep.Phases = append(rep.Phases, res)
		rep.Errors += res.Errors
	}
	if slices.Contains(cfg.phases, "study") {
		total := 0
		for _, l := range learners {
			total += l.Graded()
		}
		rep.ReviewsPerLearner = float64(total) / float64(len(learners))
	}
	rep.Ratios = ratios{
		GradeToSQLite:       ratio(rep.rate("study", loadclient.OpGrade), rep.rate("sqlite", opInsert)),
		GradeToSQLiteNormal: ratio(rep.rate("study", loadclient.OpGrade), rep.rate("sqlite-normal", opInsert)),
		PageToEcho:          ratio(rep.rate("page", loadclient.OpPage), rep.rate("echo", opHello)),
		GradeP99MS:          rep.phase("study").op(loadclient.OpGrade).P99MS,
		FloorToSQLite:       ratio(rep.rate("echo-study", loadclient.OpGrade), rep.rate("sqlite", opInsert)),
		GradeToFloor:        ratio(rep.rate("study", loadclient.OpGrade), rep.rate("echo-study", loadclient.OpGrade)),
	}

	return rep, nil
}

func (r report) phase(name string) phaseResult {
	for _, p := range r.Phases {
		if p.Name == name {
			return p
		}
	}
	return phaseResult{Name: name}
}

func (r report) rate(phase, op string) float64 { return r.phase(phase).op(op).PerSec }

// setUp starts the server (or checks the target), creates the learners and
// signs them in, and subscribes each to every deck.
func setUp(ctx context.Context, cfg config, dir string, transport http.RoundTripper, stderr io.Writer) (string, []*loadclient.Browser, func(), int, error) {
	stop := func() {}
	base := cfg.url
	// A tag of this run keeps logins unique on a server used before.
	tag := fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
	learners := make([]*loadclient.Browser, cfg.users)
	for i := range learners {
		login := fmt.Sprintf("load-%s-%03d", tag, i)
		learners[i] = loadclient.New(base, login, "study load passphrase "+login, transport, cfg.seed+uint64(i))
	}
	if cfg.url == "" {
		p, err := startInProcess(ctx, dir, cfg.copies, cfg.sync, discardLogger())
		if err != nil {
			return "", nil, stop, 0, err
		}
		closeDB := func() {
			if err := p.db.Close(); err != nil {
				fmt.Fprintln(stderr, "kqload: close database:", err)
			}
		}
		if err := addLearners(ctx, p.db, learners, loadNewPerDay, loadReviewsPerDay); err != nil {
			closeDB()
			return "", nil, stop, 0, err
		}
		b, stopServer, err := loopback(p.srv, discardLogger())
		if err != nil {
			closeDB()
			return "", nil, stop, 0, err
		}
		base, stop = b, func() { stopServer(); closeDB() }
		for _, l := range learners {
			l.Base = base
		}
	} else if err := addToDatabase(ctx, cfg.dbPath, learners, loadNewPerDay, loadReviewsPerDay); err != nil {
		return "", nil, stop, 0, err
	}
	// Sign-ins run two at a time: the server hashes two passwords at once,
	// and more attempts in flight from one address would meet its
	// per-address sign-in limit.
	err := eachOf(learners, 2, func(l *loadclient.Browser) error { return l.SignIn(ctx) })
	var decks atomic.Int64
	if err == nil {
		err = eachOf(learners, 8, func(l *loadclient.Browser) error {
			n, err := l.SubscribeAll(ctx)
			if n == 0 && err == nil {
				err = fmt.Errorf("%s: no deck to subscribe to", l.Login)
			}
			decks.Store(int64(n)) // the same for every learner
			return err
		})
	}
	if err != nil {
		stop()
		return "", nil, func() {}, 0, err
	}
	return base, learners, stop, int(decks.Load()), nil
}

// eachOf runs fn for every learner, n at a time, and returns the first error.
func eachOf(ls []*loadclient.Browser, n int, fn func(*loadclient.Browser) error) error {
	errs := make([]error, len(ls))
	sem := make(chan struct{}, n)
	done := make(chan struct{})
	for i, l := range ls {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; done <- struct{}{} }()
			errs[i] = fn(l)
		}()
	}
	for range ls {
		<-done
	}
	return errors.Join(errs...)
}

// runPhase runs one turn of a named phase: warmup unrecorded, then d
// recorded. The write ceilings keep their files in dir.
func runPhase(ctx context.Context, cfg config, name string, ls []*loadclient.Browser, transport http.RoundTripper, dir string, warmup, d time.Duration) (measured, error) {
	switch name {
	case "study":
		for _, l := range ls {
			l.Think = loadclient.PauseAround(cfg.think)
		}
		defer func() {
			for _, l := range ls {
				l.Think = nil
			}
		}()
		return warmAndMeasure(ctx, len(ls), warmup, d, cfg.maxRequests,
			func(ctx context.Context, w int, rec *loadclient.Recorder) error { return ls[w].StudyOnce(ctx, rec) },
			loadclient.OpAnswer, loadclient.OpGrade), nil
	case "page":
		return warmAndMeasure(ctx, len(ls), warmup, d, cfg.maxRequests,
			func(ctx context.Context, w int, rec *loadclient.Recorder) error { return ls[w].PageOnce(ctx, rec) },
			loadclient.OpPage), nil
	case "echo":
		base, stop, err := loopback(bareEcho(), discardLogger())
		if err != nil {
			return measured{}, err
		}
		defer stop()
		clients := make([]*loadclient.Browser, len(ls))
		for i := range clients {
			clients[i] = loadclient.New(base, "", "", transport, 0)
		}
		return warmAndMeasure(ctx, len(ls), warmup, d, cfg.maxRequests,
			func(ctx context.Context, w int, rec *loadclient.Recorder) error { return hello(ctx, clients[w], rec) },
			opHello), nil
	case "echo-study":
		return replayedStudy(ctx, cfg, ls, transport, warmup, d)
	case "sqlite":
		return sqliteCeiling(ctx, cfg, filepath.Join(dir, "ceiling.db"), cfg.sync, warmup, d)
	case "sqlite-normal":
		return sqliteCeiling(ctx, cfg, filepath.Join(dir, "ceiling-normal.db"), store.SyncNormal, warmup, d)
	}
	return measured{}, fmt.Errorf("unknown phase %q", name)
}

// replayedStudy runs the study phase against replayEcho, with the answers
// of a review the first learner makes first. Each learner has a stand-in
// there, with a jar of its own holding the learner's cookies: the same
// requests, cookies and answers, without kubequiz's work, and the cookies
// the replayed answers set stay with the stand-ins.
func replayedStudy(ctx context.Context, cfg config, ls []*loadclient.Browser, transport http.RoundTripper, warmup, d time.Duration) (measured, error) {
	answered, graded, err := ls[0].CaptureReview(ctx)
	if err != nil {
		return measured{}, err
	}
	base, stop, err := loopback(replayEcho(answered, graded), discardLogger())
	if err != nil {
		return measured{}, err
	}
	defer stop()
	stand := make([]*loadclient.Browser, len(ls))
	for i, l := range ls {
		cookies, err := l.Cookies("/study")
		if err != nil {
			return measured{}, err
		}
		stand[i] = loadclient.New(base, l.Login, "", transport, cfg.seed+uint64(i))
		if err := stand[i].SetCookies("/study", cookies); err != nil {
			return measured{}, err
		}
		stand[i].Think = loadclient.PauseAround(cfg.think)
	}
	return warmAndMeasure(ctx, len(stand), warmup, d, cfg.maxRequests,
		func(ctx context.Context, w int, rec *loadclient.Recorder) error { return stand[w].StudyOnce(ctx, rec) },
		loadclient.OpAnswer, loadclient.OpGrade), nil
}

// opHello and opInsert are the kinds of request of the ceilings, as
// reported beside the study loop's (loadclient.OpPage and the others).
const (
	opHello  = "GET /hello"
	opInsert = "BEGIN;INSERT;COMMIT"
)

// hello is one request of b to the bare echo handler.
func hello(ctx context.Context, b *loadclient.Browser, rec *loadclient.Recorder) error {
	start := time.Now()
	code, err := b.Send(ctx, http.MethodGet, "/hello", nil, false)
	if err == nil {
		err = loadclient.Expect(opHello, code, http.StatusOK, b.Body())
	}
	if err != nil {
		rec.Fail(opHello, err)
		return err
	}
	rec.Observe(opHello, time.Since(start))
	return nil
}

// sqliteCeiling commits single-row write transactions from one writer on a
// file with kubequiz's DSN and the synchronous setting sync, the same file
// in every turn.
func sqliteCeiling(ctx context.Context, cfg config, path string, sync store.Sync, warmup, d time.Duration) (measured, error) {
	p, err := store.OpenWriteProbe(ctx, path, sync)
	if err != nil {
		return measured{}, err
	}
	defer p.Close()
	limit := int(min(cfg.maxRequests, 1<<31-1))
	if _, err := p.Run(ctx, time.Now().Add(warmup), limit, nil); err != nil {
		return measured{}, err
	}
	rec := loadclient.NewRecorder()
	cpu := cpuTime()
	start := time.Now()
	_, err = p.Run(ctx, start.Add(d), limit, func(d time.Duration) { rec.Observe(opInsert, d) })
	elapsed := time.Since(start)
	if err != nil {
		rec.Fail(opInsert, err)
	}
	return measured{recs: []*loadclient.Recorder{rec}, elapsed: elapsed, cpu: cpuTime() - cpu, ops: []string{opInsert}}, nil
}

// loadAverage is the machine's 1, 5 and 15 minute load averages, where the
// system tells them.
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

// startProfile starts the profiles asked for when this phase is the
// profiled one. The allocation profile counts from the program's start, so
// it is written before the phase too, as a base to subtract.
func startProfile(cfg config, phase string) (stop func() error, err error) {
	stops := []func() error{}
	stop = func() error {
		var errs []error
		for _, s := range stops {
			errs = append(errs, s())
		}
		return errors.Join(errs...)
	}
	if cfg.profiled != phase {
		return stop, nil
	}
	if cfg.memProfile != "" {
		if err := writeAllocs(cfg.memProfile + ".base"); err != nil {
			return nil, err
		}
		stops = append(stops, func() error { return writeAllocs(cfg.memProfile) })
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	return stop, nil
}

// writeAllocs writes the allocation profile so far to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("allocation profile: %w", err)
	}
	return f.Close()
}

// The study-load goals. kubequiz's work is measured against floors of the
// same run on the same machine: a review against the echo-study phase (its
// requests and answers with none of kubequiz's work), a next-card page
// against a bare echo handler. The SQLite write ceiling is printed as
// information: a review's two requests, two renders, session and write
// cannot be held to one bare transaction.
const (
	goalGradeToFloor = 0.27
	goalPageToEcho   = 0.27
	goalGradeP99MS   = 50
	goalLearners     = 64
)

// goal is one goal checked on the median of the runs.
type goal struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Goal  string  `json:"goal"`
	Met   bool    `json:"met"`
}

// checkGoals checks the goals whose phases ran on the median ratios m; the
// grade latency goal holds at 64 learners.
func checkGoals(r report, m ratios, errs int) []goal {
	var gs []goal
	if r.has("study") && r.has("echo-study") {
		gs = append(gs, goal{"reviews/s ÷ echo-study reviews/s", m.GradeToFloor, fmt.Sprintf("≥ %.2f", goalGradeToFloor), m.GradeToFloor >= goalGradeToFloor})
	}
	if r.has("page") && r.has("echo") {
		gs = append(gs, goal{"next-card pages/s ÷ bare echo", m.PageToEcho, fmt.Sprintf("≥ %.2f", goalPageToEcho), m.PageToEcho >= goalPageToEcho})
	}
	if r.has("study") {
		name := fmt.Sprintf("grade p99 ms at %d learners", r.Users)
		target := fmt.Sprintf("< %d", goalGradeP99MS)
		if r.Users != goalLearners {
			target += fmt.Sprintf(" (set for %d learners)", goalLearners)
		}
		gs = append(gs, goal{name, m.GradeP99MS, target, m.GradeP99MS < goalGradeP99MS})
	}
	return append(gs, goal{"errors", float64(errs), "0", errs == 0})
}

// medianRatios is each ratio's median over the runs (of an even number,
// the mean of the middle two).
func medianRatios(rs []report) ratios {
	med := func(f func(ratios) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r.Ratios)
		}
		slices.Sort(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	return ratios{
		GradeToSQLite:       med(func(r ratios) float64 { return r.GradeToSQLite }),
		GradeToSQLiteNormal: med(func(r ratios) float64 { return r.GradeToSQLiteNormal }),
		PageToEcho:          med(func(r ratios) float64 { return r.PageToEcho }),
		GradeP99MS:          med(func(r ratios) float64 { return r.GradeP99MS }),
		FloorToSQLite:       med(func(r ratios) float64 { return r.FloorToSQLite }),
		GradeToFloor:        med(func(r ratios) float64 { return r.GradeToFloor }),
	}
}

// printSummary prints each run, then the median ratios and the goals.
func printSummary(w io.Writer, s summary) {
	for i, r := range s.Runs {
		if len(s.Runs) > 1 {
			fmt.Fprintf(w, "run %d of %d\n", i+1, len(s.Runs))
		}
		printReport(w, r)
		fmt.Fprintln(w)
	}
	if len(s.Runs) > 1 {
		fmt.Fprintf(w, "median of %d runs\n", len(s.Runs))
	} else {
		fmt.Fprintln(w, "one run (the goals are checked on the median of -runs 3)")
	}
	printRatios(w, s.Runs[0], s.Median)
	for _, g := range s.Goals {
		fmt.Fprintf(w, "goal: %-34s %9.3g  (%s): %s\n", g.Name, g.Value, g.Goal, verdict(g.Met))
	}
}

func (r report) has(name string) bool {
	return slices.ContainsFunc(r.Phases, func(p phaseResult) bool { return p.Name == name })
}

// printRatios prints the ratios m of the phases that ran in r.
func printRatios(w io.Writer, r report, m ratios) {
	if r.has("study") && r.has("echo-study") {
		fmt.Fprintf(w, "reviews/s ÷ echo-study reviews/s  %.3f  (what kubequiz keeps of the floor's rate)\n", m.GradeToFloor)
	}
	if r.has("page") && r.has("echo") {
		fmt.Fprintf(w, "next-card pages/s ÷ bare echo     %.3f\n", m.PageToEcho)
	}
	if r.has("study") {
		fmt.Fprintf(w, "grade p99 at %d learners          %.1f ms\n", r.Users, m.GradeP99MS)
	}
	if r.has("study") && r.has("sqlite") {
		fmt.Fprintf(w, "reviews/s ÷ SQLite write ceiling  %.3f  (synchronous=%s; information, not a goal)\n", m.GradeToSQLite, r.Sync)
	}
	if r.has("study") && r.has("sqlite-normal") {
		fmt.Fprintf(w, "reviews/s ÷ SQLite without sync   %.3f  (synchronous=NORMAL, CPU-bound; information)\n", m.GradeToSQLiteNormal)
	}
	if r.has("echo-study") && r.has("sqlite") {
		fmt.Fprintf(w, "echo-study reviews/s ÷ SQLite     %.3f  (the floor: a review's requests and kubequiz's answers, none of its work)\n", m.FloorToSQLite)
	}
}

func printReport(w io.Writer, r report) {
	fmt.Fprintf(w, "kqload %s: %d learners, %s per phase in %d turns taken in turn with the other phases, %s warm-up before the first, %d decks, target %s\n",
		r.Date, r.Users, r.Duration, r.Rounds, r.Warmup, r.Decks, r.Target)
	fmt.Fprintf(w, "load generator and server share this machine's %d CPUs (GOMAXPROCS %d); load average at start %s\n",
		r.CPUs, r.GoMaxProcs, r.LoadAverage)
	fmt.Fprintf(w, "think time in the study phase: %s; reviews per learner when it ended: %.0f\n", r.Think, r.ReviewsPerLearner)
	who := "server and load generator"
	if r.External {
		who = "load generator only (the server is another process)"
	}
	fmt.Fprintf(w, "CPU µs/op: CPU time of this process (%s) per review, page, request or transaction\n\n", who)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\trequest\tcount\tper s\tp50 ms\tp95 ms\tp99 ms\tmax ms\terrors\tCPU µs/op\t")
	for _, p := range r.Phases {
		for i, o := range p.Ops {
			errs, cpu := "", ""
			if i == 0 {
				errs = fmt.Sprint(p.Errors)
			}
			if i == len(p.Ops)-1 {
				cpu = fmt.Sprintf("%.0f", p.cpuPerOp())
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p.Name, o.Op, o.Count, o.PerSec,
				fmtMS(o.P50MS), fmtMS(o.P95MS), fmtMS(o.P99MS), fmtMS(o.MaxMS), errs, cpu)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	printRatios(w, r, r.Ratios)
	fmt.Fprintf(w, "errors                            %d\n", r.Errors)
	for _, p := range r.Phases {
		for _, s := range p.Sample {
			fmt.Fprintf(w, "  %s: %s\n", p.Name, s)
		}
	}
}
