package fsrs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/testshared"
)

// envVectors names a vectors file to replay instead of the shared one.
const envVectors = "KUBEQUIZ_FSRS_VECTORS"

// Reference vectors: one JSON object per line, one card each, produced by
// bench/fsrs-vs-ts from the reference implementation.
type vecCard struct {
	ID     string      `json:"id"`
	Config vecConfig   `json:"config"`
	Start  time.Time   `json:"start"`
	Revs   []vecReview `json:"reviews"`
}

type vecConfig struct {
	Name             string    `json:"name"`
	RequestRetention float64   `json:"request_retention"`
	MaximumInterval  int       `json:"maximum_interval"`
	EnableFuzz       bool      `json:"enable_fuzz"`
	EnableShortTerm  bool      `json:"enable_short_term"`
	LearningSteps    []string  `json:"learning_steps"`
	RelearningSteps  []string  `json:"relearning_steps"`
	W                []float64 `json:"w"`
}

type vecReview struct {
	Time    time.Time `json:"review_time"`
	Rating  int       `json:"rating"`
	Before  vecBefore `json:"before"`
	After   vecAfter  `json:"after"`
	Preview []vecOut  `json:"preview"`
}

type vecBefore struct {
	State          int      `json:"state"`
	Stability      float64  `json:"stability"`
	Difficulty     float64  `json:"difficulty"`
	ElapsedDays    int      `json:"elapsed_days"`
	Retrievability *float64 `json:"retrievability"`
	RetrievAPI     float64  `json:"retrievability_api"`
}

type vecAfter struct {
	Due           time.Time `json:"due"`
	Stability     float64   `json:"stability"`
	Difficulty    float64   `json:"difficulty"`
	State         int       `json:"state"`
	ScheduledDays int       `json:"scheduled_days"`
	ElapsedDays   int       `json:"elapsed_days"`
	Reps          int       `json:"reps"`
	Lapses        int       `json:"lapses"`
	LearningSteps int       `json:"learning_steps"`
	LastReview    time.Time `json:"last_review"`
}

type vecOut struct {
	Rating        int       `json:"rating"`
	Due           time.Time `json:"due"`
	State         int       `json:"state"`
	ScheduledDays int       `json:"scheduled_days"`
	Stability     float64   `json:"stability"`
	Difficulty    float64   `json:"difficulty"`
}

func loadVectors(path string) ([]vecCard, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	defer f.Close()
	var cards []vecCard
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var c vecCard
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		cards = append(cards, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return cards, nil
}

// params converts a vectors config to Params.
func (c vecConfig) params() (Params, error) {
	learn, err := parseSteps(c.LearningSteps)
	if err != nil {
		return Params{}, fmt.Errorf("learning steps: %w", err)
	}
	relearn, err := parseSteps(c.RelearningSteps)
	if err != nil {
		return Params{}, fmt.Errorf("relearning steps: %w", err)
	}
	return Params{
		W:                c.W,
		DesiredRetention: c.RequestRetention,
		MaximumInterval:  c.MaximumInterval,
		LearningSteps:    learn,
		RelearningSteps:  relearn,
		ShortTerm:        c.EnableShortTerm,
		Fuzz:             c.EnableFuzz,
	}, nil
}

// parseSteps reads the reference's step notation: an integer and a unit m, h or d.
func parseSteps(steps []string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, len(steps))
	for _, s := range steps {
		if len(s) < 2 {
			return nil, fmt.Errorf("step %q: too short", s)
		}
		n, err := strconv.Atoi(s[:len(s)-1])
		if err != nil {
			return nil, fmt.Errorf("step %q: %w", s, err)
		}
		unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[s[len(s)-1]]
		if unit == 0 {
			return nil, fmt.Errorf("step %q: unknown unit", s)
		}
		out = append(out, time.Duration(n)*unit)
	}
	return out, nil
}

// replayStats counts what a replay compared.
type replayStats struct {
	cards, reviews, previews int
	floats, exactFloats      int
	maxRelErr                float64
}

// checker compares one card's replay against its expected values. Our own
// output is fed into the next review, so errors compound as in production.
type checker struct {
	stats  *replayStats
	card   string
	idx    int
	at     time.Time
	rating Rating
	err    error
}

func (c *checker) fail(field string, got, want any) {
	if c.err == nil {
		c.err = fmt.Errorf("card %s, review %d (%s, %s): %s: got %v, want %v",
			c.card, c.idx+1, c.at.UTC().Format(time.RFC3339), c.rating, field, got, want)
	}
}

func (c *checker) eqInt(field string, got, want int) {
	if got != want {
		c.fail(field, got, want)
	}
}

func (c *checker) eqTime(field string, got, want time.Time) {
	if !got.Equal(want) {
		c.fail(field, got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
	}
}

// float applies the documented tolerance: relative error at most 1e-6, or
// absolute error at most 1e-9 near zero.
func (c *checker) eqFloat(field string, got, want float64) {
	c.stats.floats++
	if got == want {
		c.stats.exactFloats++
		return
	}
	diff := math.Abs(got - want)
	rel := diff / math.Max(math.Abs(got), math.Abs(want))
	if !(diff <= 1e-9 || rel <= 1e-6) {
		c.fail(field, strconv.FormatFloat(got, 'g', -1, 64), strconv.FormatFloat(want, 'g', -1, 64))
		return
	}
	c.stats.maxRelErr = math.Max(c.stats.maxRelErr, rel)
}

// replayCard replays one vectors card and returns the first mismatch.
func replayCard(vc vecCard, st *replayStats) error {
	p, err := vc.Config.params()
	if err != nil {
		return fmt.Errorf("card %s: config: %w", vc.ID, err)
	}
	s, err := NewScheduler(p)
	if err != nil {
		return fmt.Errorf("card %s: %w", vc.ID, err)
	}
	if len(vc.Revs) == 0 {
		return fmt.Errorf("card %s: no reviews", vc.ID)
	}
	ck := &checker{stats: st, card: vc.ID}
	card := NewCard(vc.Start)
	for i, r := range vc.Revs {
		rating := Rating(r.Rating)
		ck.idx, ck.at, ck.rating = i, r.Time, rating
		if !rating.Valid() {
			return fmt.Errorf("card %s, review %d: rating %d in the file is not 1..4", vc.ID, i+1, r.Rating)
		}

		b := r.Before
		ck.eqInt("before.state", int(card.State), b.State)
		ck.eqFloat("before.stability", card.Stability, b.Stability)
		ck.eqFloat("before.difficulty", card.Difficulty, b.Difficulty)
		ck.eqFloat("before.retrievability_api", s.Retrievability(card, r.Time), b.RetrievAPI)

		prev, err := s.Preview(card, r.Time)
		if err != nil {
			return fmt.Errorf("card %s, review %d: preview: %w", vc.ID, i+1, err)
		}
		next, log, err := s.Review(card, rating, r.Time)
		if err != nil {
			return fmt.Errorf("card %s, review %d: review: %w", vc.ID, i+1, err)
		}
		ck.eqInt("before.elapsed_days", log.ElapsedDays, b.ElapsedDays)
		if b.Retrievability == nil {
			ck.eqFloat("before.retrievability (null in file: no memory state)", log.Retrievability, 0)
		} else {
			ck.eqFloat("before.retrievability", log.Retrievability, *b.Retrievability)
		}
		ck.eqInt("log.rating", int(log.Rating), r.Rating)
		ck.eqInt("log.state", int(log.State), b.State)

		a := r.After
		ck.eqTime("after.due", next.Due, a.Due)
		ck.eqFloat("after.stability", next.Stability, a.Stability)
		ck.eqFloat("after.difficulty", next.Difficulty, a.Difficulty)
		ck.eqInt("after.state", int(next.State), a.State)
		ck.eqInt("after.scheduled_days", next.ScheduledDays, a.ScheduledDays)
		ck.eqInt("after.elapsed_days", next.ElapsedDays, a.ElapsedDays)
		ck.eqInt("after.reps", next.Reps, a.Reps)
		ck.eqInt("after.lapses", next.Lapses, a.Lapses)
		ck.eqInt("after.learning_steps", next.LearningSteps, a.LearningSteps)
		ck.eqTime("after.last_review", next.LastReview, a.LastReview)

		if len(r.Preview) != 4 {
			return fmt.Errorf("card %s, review %d: %d preview entries in the file, want 4", vc.ID, i+1, len(r.Preview))
		}
		for j, want := range r.Preview {
			g := Rating(j + 1)
			got := prev.For(g)
			f := fmt.Sprintf("preview[%s].", g)
			ck.eqInt(f+"rating", int(g), want.Rating)
			ck.eqTime(f+"due", got.Due, want.Due)
			ck.eqInt(f+"state", int(got.State), want.State)
			ck.eqInt(f+"scheduled_days", got.ScheduledDays, want.ScheduledDays)
			ck.eqFloat(f+"stability", got.Stability, want.Stability)
			ck.eqFloat(f+"difficulty", got.Difficulty, want.Difficulty)
		}
		if got := prev.For(rating); got != next {
			ck.fail("preview of the chosen rating vs review", fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", next))
		}
		if ck.err != nil {
			return ck.err
		}
		st.reviews++
		st.previews += 4
		card = next
	}
	st.cards++
	return nil
}

// replayFile replays every card of a vectors file and stops at the first
// mismatch. A file without cards is an error.
func replayFile(path string) (replayStats, error) {
	var st replayStats
	cards, err := loadVectors(path)
	if err != nil {
		return st, err
	}
	if len(cards) == 0 {
		return st, errors.New("no card in " + path)
	}
	for _, vc := range cards {
		if err := replayCard(vc, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

func reportReplay(t *testing.T, path string) {
	t.Helper()
	st, err := replayFile(path)
	if err != nil {
		t.Fatalf("replay %s: %v", filepath.Base(path), err)
	}
	t.Logf("%s: %d cards, %d reviews, %d previews match; %d of %d floats bit-identical, max relative error %.3g",
		filepath.Base(path), st.cards, st.reviews, st.previews, st.exactFloats, st.floats, st.maxRelErr)
}

// TestReferenceVectors replays the vectors file named by KUBEQUIZ_FSRS_VECTORS,
// or else the shared public vectors.
func TestReferenceVectors(t *testing.T) {
	path := vectorsPath(t)
	reportReplay(t, path)
}

// vectorsPath returns the file named by KUBEQUIZ_FSRS_VECTORS, failing the
// test when it does not exist, or else the shared public vectors (skipped or
// failed by testshared when absent). A relative name is looked up from the
// module root first, where go test is usually started, then from the
// package directory, where the test runs.
func vectorsPath(tb testing.TB) string {
	tb.Helper()
	name := os.Getenv(envVectors)
	if name == "" {
		return testshared.Path(tb, "fsrs-vectors", "public.jsonl")
	}
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		if root, err := moduleRoot(); err == nil {
			candidates = []string{filepath.Join(root, name), name}
		}
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
			return c
		}
	}
	tb.Fatalf("%s=%s: no such file (tried %v)", envVectors, name, candidates)
	return ""
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestReferenceTestdata replays the vectors committed with the package.
func TestReferenceTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no vectors file in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { reportReplay(t, f) })
	}
}

// TestCheckerCatchesAlteredValues alters one expected value at a time in a
// committed vectors card and requires the replay to fail on that field, so
// that a comparison which silently passes cannot go unnoticed.
func TestCheckerCatchesAlteredValues(t *testing.T) {
	cards, err := loadVectors(filepath.Join("testdata", "ts-fsrs-seed7-standard.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The first card with at least three reviews; alter its third review,
	// whose "before" has a memory state.
	var base vecCard
	for _, c := range cards {
		if len(c.Revs) >= 3 {
			base = c
			break
		}
	}
	if base.ID == "" {
		t.Fatal("no card with three reviews in testdata")
	}
	const k = 2
	var st replayStats
	if err := replayCard(base, &st); err != nil {
		t.Fatalf("unaltered card %s: %v", base.ID, err)
	}
	tests := []struct {
		field  string
		alter  func(r *vecReview)
		passes bool // a change within tolerance must not fail
	}{
		{"after.due", func(r *vecReview) { r.After.Due = r.After.Due.Add(time.Millisecond) }, false},
		{"after.stability", func(r *vecReview) { r.After.Stability *= 1 + 1e-5 }, false},
		{"after.stability", func(r *vecReview) { r.After.Stability *= 1 + 1e-7 }, true},
		{"after.difficulty", func(r *vecReview) { r.After.Difficulty += 1e-4 }, false},
		{"after.state", func(r *vecReview) { r.After.State = (r.After.State + 1) % 4 }, false},
		{"after.scheduled_days", func(r *vecReview) { r.After.ScheduledDays++ }, false},
		{"after.elapsed_days", func(r *vecReview) { r.After.ElapsedDays++ }, false},
		{"after.reps", func(r *vecReview) { r.After.Reps++ }, false},
		{"after.lapses", func(r *vecReview) { r.After.Lapses++ }, false},
		{"after.learning_steps", func(r *vecReview) { r.After.LearningSteps++ }, false},
		{"after.last_review", func(r *vecReview) { r.After.LastReview = r.After.LastReview.Add(time.Second) }, false},
		{"before.state", func(r *vecReview) { r.Before.State = (r.Before.State + 1) % 4 }, false},
		{"before.stability", func(r *vecReview) { r.Before.Stability += 0.01 }, false},
		{"before.difficulty", func(r *vecReview) { r.Before.Difficulty += 0.01 }, false},
		{"before.elapsed_days", func(r *vecReview) { r.Before.ElapsedDays++ }, false},
		{"before.retrievability", func(r *vecReview) { v := *r.Before.Retrievability - 1e-4; r.Before.Retrievability = &v }, false},
		{"before.retrievability", func(r *vecReview) { r.Before.Retrievability = nil }, false},
		{"before.retrievability_api", func(r *vecReview) { r.Before.RetrievAPI -= 1e-4 }, false},
		{"preview[Again].due", func(r *vecReview) { r.Preview[0].Due = r.Preview[0].Due.Add(time.Minute) }, false},
		{"preview[Hard].state", func(r *vecReview) { r.Preview[1].State = (r.Preview[1].State + 1) % 4 }, false},
		{"preview[Good].scheduled_days", func(r *vecReview) { r.Preview[2].ScheduledDays++ }, false},
		{"preview[Easy].stability", func(r *vecReview) { r.Preview[3].Stability *= 1 - 1e-5 }, false},
		{"preview[Again].difficulty", func(r *vecReview) { r.Preview[0].Difficulty += 1e-3 }, false},
		{"preview[Hard].rating", func(r *vecReview) { r.Preview[1].Rating = 3 }, false},
	}
	for _, tc := range tests {
		name := tc.field
		if tc.passes {
			name += " within tolerance"
		}
		t.Run(name, func(t *testing.T) {
			c := base
			c.Revs = append([]vecReview(nil), base.Revs...)
			r := c.Revs[k]
			r.Preview = append([]vecOut(nil), r.Preview...)
			tc.alter(&r)
			c.Revs[k] = r
			err := replayCard(c, &replayStats{})
			if tc.passes {
				if err != nil {
					t.Fatalf("replay failed on a change within tolerance: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("altering %s was not detected", tc.field)
			}
			wantPrefix := fmt.Sprintf("card %s, review %d (", base.ID, k+1)
			if msg := err.Error(); !strings.HasPrefix(msg, wantPrefix) || !strings.Contains(msg, "): "+tc.field) {
				t.Errorf("error %q should start with %q and name %s", msg, wantPrefix, tc.field)
			}
		})
	}
}
