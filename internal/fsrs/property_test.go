package fsrs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

const hundredYears = 36525 * day

// checkTransition verifies the invariants of one review: the Review result,
// its log and the Preview taken at the same moment. It returns a description
// of the first violation, or "".
func checkTransition(s *Scheduler, before Card, g Rating, now time.Time, next Card, log ReviewLog, prev Outcomes) string {
	now = now.UTC()
	if got := prev.For(g); got != next {
		return fmt.Sprintf("Preview(%v) = %+v, Review = %+v", g, got, next)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(log.Retrievability) || log.Retrievability < 0 || log.Retrievability > 1 {
		return fmt.Sprintf("retrievability %v outside [0, 1]", log.Retrievability)
	}
	if r := s.Retrievability(next, now); !finite(r) || r < 0 || r > 1 {
		return fmt.Sprintf("display retrievability %v outside [0, 1]", r)
	}
	for r := Again; r <= Easy; r++ {
		c := prev.For(r)
		switch {
		case !finite(c.Stability) || c.Stability < minStability || c.Stability > maxStability:
			return fmt.Sprintf("%v: stability %v outside [%v, %v]", r, c.Stability, minStability, maxStability)
		case !finite(c.Difficulty) || c.Difficulty < 1 || c.Difficulty > 10:
			return fmt.Sprintf("%v: difficulty %v outside [1, 10]", r, c.Difficulty)
		case !c.Due.After(now):
			return fmt.Sprintf("%v: due %v not after the review at %v", r, c.Due, now)
		case !c.LastReview.Equal(now):
			return fmt.Sprintf("%v: last review %v, want %v", r, c.LastReview, now)
		case c.Reps != before.Reps+1:
			return fmt.Sprintf("%v: reps %d -> %d", r, before.Reps, c.Reps)
		case c.ElapsedDays < 0 || c.ElapsedDays != log.ElapsedDays:
			return fmt.Sprintf("%v: elapsed days %d (log %d)", r, c.ElapsedDays, log.ElapsedDays)
		case c.ScheduledDays < 0 || c.ScheduledDays > s.maxIvl+3:
			return fmt.Sprintf("%v: %d scheduled days, cap %d", r, c.ScheduledDays, s.maxIvl)
		case c.State == New:
			return fmt.Sprintf("%v: card still New", r)
		case c.State == Review && (c.Due.Before(now.Add(time.Duration(c.ScheduledDays)*day)) ||
			!c.Due.Before(now.Add(time.Duration(c.ScheduledDays+1)*day))):
			// Exactly ScheduledDays days, or a step of a day or more
			// (ScheduledDays is then the step rounded down to days).
			return fmt.Sprintf("%v: due %v is not %d days after %v", r, c.Due, c.ScheduledDays, now)
		case c.State != Review && (c.ScheduledDays != 0 || !c.Due.Before(now.Add(day))):
			return fmt.Sprintf("%v: %v card due %v after %d days", r, c.State, c.Due.Sub(now), c.ScheduledDays)
		case c.Lapses != before.Lapses && (r != Again || c.Lapses != before.Lapses+1):
			return fmt.Sprintf("%v: lapses %d -> %d", r, before.Lapses, c.Lapses)
		}
	}
	// Answers never make a card look easier for a worse rating.
	for r := Again; r < Easy; r++ {
		if a, b := prev.For(r).Difficulty, prev.For(r+1).Difficulty; a < b {
			return fmt.Sprintf("difficulty after %v (%v) below that after %v (%v)", r, a, r+1, b)
		}
	}
	if before.Stability > 0 {
		for r := Hard; r < Easy; r++ {
			if a, b := prev.For(r).Stability, prev.For(r+1).Stability; a > b {
				return fmt.Sprintf("stability after %v (%v) above that after %v (%v)", r, a, r+1, b)
			}
		}
		if h := prev.For(Hard).Stability; h < math.Min(before.Stability, maxStability)-1e-8 {
			return fmt.Sprintf("Hard lowered stability %v -> %v", before.Stability, h)
		}
		if a := prev.For(Again).Stability; (log.ElapsedDays > 0 || !s.shortTerm) && a > before.Stability+1e-8 {
			return fmt.Sprintf("Again after %d days raised stability %v -> %v", log.ElapsedDays, before.Stability, a)
		}
	}
	// Interval ordering: strict for Hard < Good < Easy in Review (short-term),
	// strict for all four in long-term mode.
	days := func(r Rating) int { return prev.For(r).ScheduledDays }
	if !s.shortTerm {
		if !(days(Again) < days(Hard) && days(Hard) < days(Good) && days(Good) < days(Easy)) {
			return fmt.Sprintf("long-term intervals not increasing: %d %d %d %d", days(Again), days(Hard), days(Good), days(Easy))
		}
		for r := Again; r <= Easy; r++ {
			if prev.For(r).State != Review {
				return fmt.Sprintf("long-term %v: state %v, want Review", r, prev.For(r).State)
			}
		}
	} else if before.State == Review {
		if !(days(Hard) < days(Good) && days(Good) < days(Easy)) {
			return fmt.Sprintf("review intervals not increasing: Hard %d, Good %d, Easy %d", days(Hard), days(Good), days(Easy))
		}
		if days(Hard) < 1 {
			return fmt.Sprintf("Hard interval %d days", days(Hard))
		}
	}
	return ""
}

// delay draws an answer delay from 0 seconds to 100 years, mostly short.
func delay(rng *rand.Rand) time.Duration {
	switch rng.IntN(6) {
	case 0:
		return time.Duration(rng.Int64N(int64(20 * time.Minute)))
	case 1:
		return time.Duration(rng.Int64N(int64(2 * day)))
	case 2:
		return time.Duration(rng.Int64N(int64(60 * day)))
	case 3:
		return time.Duration(rng.Int64N(int64(3 * 365 * day)))
	case 4:
		return time.Duration(rng.Int64N(int64(hundredYears) + 1))
	}
	return 0
}

func propertyConfigs() []struct {
	name string
	p    Params
} {
	extreme := func(hi bool, shortTerm bool) Params {
		p := referenceParams(shortTerm)
		b := weightBounds(p.W, len(p.RelearningSteps), shortTerm)
		for i := range p.W {
			p.W[i] = b[i][0]
			if hi {
				p.W[i] = b[i][1]
			}
		}
		return p
	}
	custom := referenceParams(true)
	custom.Fuzz = true
	custom.DesiredRetention = 0.7
	custom.MaximumInterval = 5
	custom.LearningSteps = []time.Duration{5 * time.Minute, 2 * time.Hour, 2 * day}
	custom.RelearningSteps = []time.Duration{10 * time.Minute, day}
	lowRetention := referenceParams(false)
	lowRetention.DesiredRetention = 0.01
	lowRetention.Fuzz = true
	return []struct {
		name string
		p    Params
	}{
		{"short-term", referenceParams(true)},
		{"long-term", referenceParams(false)},
		{"server defaults (fuzz)", DefaultParams()},
		{"long-term fuzz", func() Params { p := referenceParams(false); p.Fuzz = true; return p }()},
		{"weights at lower bounds", extreme(false, true)},
		{"weights at upper bounds", extreme(true, true)},
		{"weights at upper bounds, long-term", extreme(true, false)},
		{"custom steps, cap 5 days", custom},
		{"retention 0.01", lowRetention},
	}
}

// TestPropertiesRandomWalks answers random ratings at random delays (0 s to
// 100 years) and checks every invariant after each answer.
func TestPropertiesRandomWalks(t *testing.T) {
	for _, cfg := range propertyConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			s := mustScheduler(t, cfg.p)
			rng := rand.New(rand.NewPCG(1, uint64(len(cfg.name))))
			for walk := 0; walk < 300; walk++ {
				now := time.Unix(rng.Int64N(4e9), 0)
				card := NewCard(now)
				for step := 0; step < 25; step++ {
					if step > 0 {
						now = now.Add(delay(rng))
					}
					g := Rating(1 + rng.IntN(4))
					prev, err := s.Preview(card, now)
					if err != nil {
						t.Fatalf("walk %d step %d: Preview: %v", walk, step, err)
					}
					next, log, err := s.Review(card, g, now)
					if err != nil {
						t.Fatalf("walk %d step %d: Review: %v", walk, step, err)
					}
					if msg := checkTransition(s, card, g, now, next, log, prev); msg != "" {
						t.Fatalf("walk %d step %d: card %+v, %v at %v: %s", walk, step, card, g, now, msg)
					}
					card = next
				}
			}
		})
	}
}

// TestSpreadIsDeterministic checks the interval spread: a pure function of
// card and review time, inside the documented range, and not a no-op.
func TestSpreadIsDeterministic(t *testing.T) {
	plain := mustScheduler(t, referenceParams(true))
	spread := mustScheduler(t, DefaultParams())
	rng := rand.New(rand.NewPCG(7, 7))
	moved := 0
	const n = 2000
	for i := 0; i < n; i++ {
		last := time.Unix(1.7e9+rng.Int64N(1e8), 0)
		st := 3 + rng.Float64()*400
		card := Card{State: Review, Stability: round8(st), Difficulty: round8(1 + 9*rng.Float64()), Reps: 3,
			LastReview: last, Due: last.Add(time.Duration(math.Round(st)) * day)}
		now := card.Due.Add(time.Duration(rng.Int64N(int64(3 * day))))
		a, _, err := spread.Review(card, Good, now)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := spread.Review(card, Good, now)
		if a != b {
			t.Fatalf("same input, different results: %+v vs %+v", a, b)
		}
		base, log, _ := plain.Review(card, Good, now)
		lo, hi := fuzzRange(base.ScheduledDays, log.ElapsedDays, MaxInterval)
		// Ordering may add a day on top of the range (Good > Hard).
		if a.ScheduledDays < lo || a.ScheduledDays > hi+1 {
			t.Fatalf("spread interval %d outside [%d, %d] around %d", a.ScheduledDays, lo, hi, base.ScheduledDays)
		}
		if a.ScheduledDays != base.ScheduledDays {
			moved++
		}
		if a.Stability != base.Stability || a.Difficulty != base.Difficulty {
			t.Fatalf("spread changed the memory state: %+v vs %+v", a, base)
		}
	}
	if moved < n/2 {
		t.Errorf("spread moved only %d of %d intervals", moved, n)
	}
}

// TestConcurrentUse runs one Scheduler from several goroutines; run with
// -race to check that it shares no mutable state.
func TestConcurrentUse(t *testing.T) {
	s := mustScheduler(t, DefaultParams())
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	run := func(seed uint64) Card {
		rng := rand.New(rand.NewPCG(seed, 1))
		card, now := NewCard(start), start
		for i := 0; i < 200; i++ {
			now = now.Add(time.Duration(rng.Int64N(int64(30 * day))))
			var err error
			if card, _, err = s.Review(card, Rating(1+rng.IntN(4)), now); err != nil {
				t.Error(err)
				return Card{}
			}
		}
		return card
	}
	want := make([]Card, 8)
	for i := range want {
		want[i] = run(uint64(i))
	}
	got := make([]Card, len(want))
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = run(uint64(i))
		}()
	}
	wg.Wait()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("goroutine %d: %+v, sequential %+v", i, got[i], want[i])
		}
	}
}
