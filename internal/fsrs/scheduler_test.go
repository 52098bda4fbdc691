package fsrs

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// Golden values in this file are the worked examples of the FSRS-6 / ts-fsrs
// 5.4.2 behaviour with the default weights.

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// memoryAfter returns stability and difficulty after rating g for a card with
// stability st and difficulty d, t days after its last review, at
// retrievability r.
func memoryAfter(s *Scheduler, st, d float64, t int, r float64, g Rating) (float64, float64) {
	rv := review{cur: Card{Stability: st, Difficulty: d}, t: t, r: r}
	return s.stability(&rv, g), s.difficulty(st, d, g)
}

func mustScheduler(tb testing.TB, p Params) *Scheduler {
	tb.Helper()
	s, err := NewScheduler(p)
	if err != nil {
		tb.Fatalf("NewScheduler: %v", err)
	}
	return s
}

// referenceParams are the reference defaults: like DefaultParams but without fuzz.
func referenceParams(shortTerm bool) Params {
	p := DefaultParams()
	p.Fuzz = false
	p.ShortTerm = shortTerm
	return p
}

func TestDerivedConstants(t *testing.T) {
	tests := []struct {
		retention float64
		want      float64
	}{
		{0.9, 1},
		{0.80, 3.3159598},
		{0.85, 1.90642614},
		{0.95, 0.40255869},
		{0.97, 0.22276844},
	}
	for _, tc := range tests {
		p := referenceParams(true)
		p.DesiredRetention = tc.retention
		s := mustScheduler(t, p)
		if s.ivlMod != tc.want {
			t.Errorf("retention %v: interval modifier = %v, want %v", tc.retention, s.ivlMod, tc.want)
		}
		if s.factor != 0.98034649 {
			t.Errorf("retention %v: factor = %v, want 0.98034649", tc.retention, s.factor)
		}
	}
}

func TestRetrievability(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	card := Card{State: Review, Stability: 10, Difficulty: 5, LastReview: t0, Due: t0.Add(10 * day)}
	tests := []struct {
		name  string
		after time.Duration
		want  float64
	}{
		{"just reviewed", 0, 1},
		{"23h59m counts as zero periods", 23*time.Hour + 59*time.Minute, 1},
		{"1 day", 1 * day, 0.98568241},
		{"5 days", 5 * day, 0.94034429},
		{"10 days (= stability)", 10 * day, 0.9},
		{"20 days", 20 * day, 0.84588465},
		{"100 days", 100 * day, 0.69282664},
		{"before the last review", -time.Hour, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.Retrievability(card, t0.Add(tc.after)); got != tc.want {
				t.Errorf("Retrievability = %v, want %v", got, tc.want)
			}
		})
	}
	if got := s.Retrievability(NewCard(t0), t0.Add(day)); got != 0 {
		t.Errorf("new card: Retrievability = %v, want 0", got)
	}
}

func TestInitialMemory(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	tests := []struct {
		g          Rating
		wantS      float64
		wantD0     float64 // before clamping
		wantDClamp float64
	}{
		{Again, 0.212, 6.4133, 6.4133},
		{Hard, 1.2931, 5.11217071, 5.11217071},
		{Good, 2.3065, 2.11810397, 2.11810397},
		{Easy, 8.2956, -4.7716307, 1},
	}
	for _, tc := range tests {
		if got := s.initDifficulty(tc.g); got != tc.wantD0 {
			t.Errorf("%v: unclamped initial difficulty = %v, want %v", tc.g, got, tc.wantD0)
		}
		gotS, gotD := memoryAfter(s, 0, 0, 0, 0, tc.g)
		if gotS != tc.wantS || gotD != tc.wantDClamp {
			t.Errorf("%v: first memory state = (S %v, D %v), want (S %v, D %v)", tc.g, gotS, gotD, tc.wantS, tc.wantDClamp)
		}
	}
}

func TestNextDifficulty(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	want := map[Rating]float64{Again: 8.34176237, Hard: 6.66599536, Good: 4.99022837, Easy: 3.31446137}
	for g := Again; g <= Easy; g++ {
		if got := s.nextDifficulty(5, g); got != want[g] {
			t.Errorf("D=5, %v: next difficulty = %v, want %v", g, got, want[g])
		}
	}
	// Damping applies to decreases too: from 10, Easy moves only by mean reversion.
	if got, want := s.nextDifficulty(10, Easy), round8(0.001*-4.7716307+0.999*10); got != want {
		t.Errorf("D=10, Easy: next difficulty = %v, want %v", got, want)
	}
}

func TestShortTermStability(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	tests := []struct {
		s    float64
		want [4]float64
	}{
		{2.3065, [4]float64{0.77508398, 2.3065, 2.3065, 3.94605407}},
		{50, [4]float64{13.72320083, 50, 50, 69.86661272}},
	}
	for _, tc := range tests {
		for g := Again; g <= Easy; g++ {
			got, _ := memoryAfter(s, tc.s, 5, 0, 1, g)
			if got != tc.want[g-1] {
				t.Errorf("S=%v, same day, %v: stability = %v, want %v", tc.s, g, got, tc.want[g-1])
			}
		}
	}
}

func TestReviewStateExample(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	last := t0
	card := Card{State: Review, Stability: 10, Difficulty: 5, ScheduledDays: 10, Reps: 5, LastReview: last, Due: last.Add(10 * day)}
	now := last.Add(10 * day)
	out, err := s.Preview(card, now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		g         Rating
		state     State
		days      int
		due       time.Time
		stability float64
		lapses    int
	}{
		{Again, Relearning, 0, now.Add(10 * time.Minute), 1.39198697, 1},
		{Hard, Review, 23, now.Add(23 * day), 23.24687511, 0},
		{Good, Review, 32, now.Add(32 * day), 32.02672948, 0},
		{Easy, Review, 51, now.Add(51 * day), 51.25386165, 0},
	}
	for _, tc := range tests {
		got := out.For(tc.g)
		if got.State != tc.state || got.ScheduledDays != tc.days || !got.Due.Equal(tc.due) ||
			got.Stability != tc.stability || got.Lapses != tc.lapses {
			t.Errorf("%v: got state %v, %d days, due %v, S %v, lapses %d; want %v, %d days, due %v, S %v, lapses %d",
				tc.g, got.State, got.ScheduledDays, got.Due, got.Stability, got.Lapses,
				tc.state, tc.days, tc.due, tc.stability, tc.lapses)
		}
	}
	if got := out.For(Again).Difficulty; got != 8.34176237 {
		t.Errorf("Again: difficulty = %v, want 8.34176237", got)
	}
}

func TestNewCardOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		shortTerm bool
		want      [4]time.Duration
		wantState [4]State
		wantStep  [4]int
	}{
		{"short-term", true,
			[4]time.Duration{time.Minute, 6 * time.Minute, 10 * time.Minute, 8 * day},
			[4]State{Learning, Learning, Learning, Review}, [4]int{0, 0, 1, 0}},
		{"long-term", false,
			[4]time.Duration{1 * day, 2 * day, 3 * day, 8 * day},
			[4]State{Review, Review, Review, Review}, [4]int{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustScheduler(t, referenceParams(tc.shortTerm))
			out, err := s.Preview(NewCard(t0), t0)
			if err != nil {
				t.Fatal(err)
			}
			for g := Again; g <= Easy; g++ {
				c := out.For(g)
				if got := c.Due.Sub(t0); got != tc.want[g-1] || c.State != tc.wantState[g-1] || c.LearningSteps != tc.wantStep[g-1] {
					t.Errorf("%v: due in %v, %v, step %d; want %v, %v, step %d",
						g, got, c.State, c.LearningSteps, tc.want[g-1], tc.wantState[g-1], tc.wantStep[g-1])
				}
				if c.Lapses != 0 || c.Reps != 1 {
					t.Errorf("%v: lapses %d reps %d, want 0 and 1", g, c.Lapses, c.Reps)
				}
			}
		})
	}
}

// TestLearningSteps covers the step rules with several step lists: Hard is
// the same at every index, Good advances or graduates from the last step,
// Easy always graduates, and steps of a day or more go to Review.
func TestLearningSteps(t *testing.T) {
	tests := []struct {
		name      string
		steps     []time.Duration
		state     State
		index     int
		g         Rating
		wantDelay time.Duration // 0: graduates to whole days
		wantState State
		wantIndex int
		wantDays  int
	}{
		{"hard at step 0 of 1m,10m", []time.Duration{time.Minute, 10 * time.Minute}, Learning, 0, Hard, 6 * time.Minute, Learning, 0, 0},
		{"hard at step 1 of 1m,10m", []time.Duration{time.Minute, 10 * time.Minute}, Learning, 1, Hard, 6 * time.Minute, Learning, 1, 0},
		{"hard with one 5m step rounds 7.5 up", []time.Duration{5 * time.Minute}, Learning, 0, Hard, 8 * time.Minute, Learning, 0, 0},
		{"hard halfway rounds up", []time.Duration{time.Minute, 4 * time.Minute}, Learning, 0, Hard, 3 * time.Minute, Learning, 0, 0},
		{"again goes back to the first step", []time.Duration{time.Minute, 10 * time.Minute, time.Hour}, Learning, 2, Again, time.Minute, Learning, 0, 0},
		{"good advances", []time.Duration{time.Minute, 10 * time.Minute, time.Hour}, Learning, 1, Good, time.Hour, Learning, 2, 0},
		{"good graduates from the last step", []time.Duration{time.Minute, 10 * time.Minute}, Learning, 1, Good, 0, Review, 0, 2}, // same-day Good keeps S = 2.3065
		{"easy graduates from step 0", []time.Duration{time.Minute, 10 * time.Minute}, Learning, 0, Easy, 0, Review, 0, 4},        // same-day Easy: S = 3.94605407
		{"a step of a day goes to Review", []time.Duration{10 * time.Minute, 36 * time.Hour}, Learning, 0, Good, 36 * time.Hour, Review, 1, 1},
		{"index past the list graduates", []time.Duration{time.Minute}, Learning, 3, Again, 0, Review, 0, 1},
		{"no steps graduates", nil, Learning, 0, Again, 0, Review, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := referenceParams(true)
			p.LearningSteps = tc.steps
			s := mustScheduler(t, p)
			// A learning card with the Good initial memory, reviewed on the same day.
			card := Card{State: tc.state, Stability: 2.3065, Difficulty: 2.11810397, LearningSteps: tc.index,
				Reps: 1, LastReview: t0, Due: t0.Add(time.Minute)}
			now := t0.Add(5 * time.Minute)
			got, _, err := s.Review(card, tc.g, now)
			if err != nil {
				t.Fatal(err)
			}
			wantDue := now.Add(tc.wantDelay)
			if tc.wantDelay == 0 {
				wantDue = now.Add(time.Duration(tc.wantDays) * day)
			}
			if got.State != tc.wantState || got.LearningSteps != tc.wantIndex || got.ScheduledDays != tc.wantDays || !got.Due.Equal(wantDue) {
				t.Errorf("got %v step %d, %d days, due %v; want %v step %d, %d days, due %v",
					got.State, got.LearningSteps, got.ScheduledDays, got.Due.Sub(now),
					tc.wantState, tc.wantIndex, tc.wantDays, wantDue.Sub(now))
			}
		})
	}
}

// TestElapsedDaysUseUTCDates checks that t counts UTC calendar dates, not
// 24-hour periods and not the local dates of the times passed in.
func TestElapsedDaysUseUTCDates(t *testing.T) {
	pst := time.FixedZone("UTC-8", -8*3600)
	tests := []struct {
		name     string
		last     time.Time
		now      time.Time
		wantDays int
	}{
		{"15 minutes across UTC midnight", time.Date(2025, 3, 1, 23, 50, 0, 0, time.UTC), time.Date(2025, 3, 2, 0, 5, 0, 0, time.UTC), 1},
		{"30 hours on consecutive dates", time.Date(2025, 3, 1, 0, 10, 0, 0, time.UTC), time.Date(2025, 3, 2, 6, 10, 0, 0, time.UTC), 1},
		{"23 hours on the same date", time.Date(2025, 3, 1, 0, 10, 0, 0, time.UTC), time.Date(2025, 3, 1, 23, 10, 0, 0, time.UTC), 0},
		{"same local date, different UTC dates", time.Date(2025, 3, 1, 15, 50, 0, 0, pst), time.Date(2025, 3, 1, 16, 5, 0, 0, pst), 1},
		{"different local dates, same UTC date", time.Date(2025, 3, 1, 23, 50, 0, 0, pst).Add(-16 * time.Hour), time.Date(2025, 3, 2, 0, 5, 0, 0, pst).Add(-16 * time.Hour), 0},
		{"before 1970", time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC), time.Date(1970, 1, 1, 1, 0, 0, 0, time.UTC), 1},
	}
	s := mustScheduler(t, referenceParams(true))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			card := Card{State: Learning, Stability: 2.3065, Difficulty: 2.11810397, LearningSteps: 1, Reps: 1,
				LastReview: tc.last, Due: tc.last.Add(10 * time.Minute)}
			got, log, err := s.Review(card, Good, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if got.ElapsedDays != tc.wantDays || log.ElapsedDays != tc.wantDays {
				t.Errorf("elapsed days = %d (log %d), want %d", got.ElapsedDays, log.ElapsedDays, tc.wantDays)
			}
			// Same day: the short-term formula keeps S; a day later the recall formula raises it.
			if sameDay := got.Stability == card.Stability; sameDay != (tc.wantDays == 0) {
				t.Errorf("stability %v -> %v with %d elapsed days", card.Stability, got.Stability, tc.wantDays)
			}
			if got.LastReview.Location() != time.UTC || got.Due.Location() != time.UTC {
				t.Errorf("times not in UTC: last review %v, due %v", got.LastReview, got.Due)
			}
		})
	}
}

func TestLapses(t *testing.T) {
	tests := []struct {
		name      string
		shortTerm bool
		state     State
		g         Rating
		want      int
	}{
		{"short-term Again in Review", true, Review, Again, 1},
		{"short-term Again in Relearning", true, Relearning, Again, 0},
		{"short-term Again in Learning", true, Learning, Again, 0},
		{"short-term Hard in Review", true, Review, Hard, 0},
		{"long-term Again in Learning", false, Learning, Again, 1},
		{"long-term Again in Relearning", false, Relearning, Again, 1},
		{"long-term Good in Review", false, Review, Good, 0},
		{"long-term Again on a new card", false, New, Again, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustScheduler(t, referenceParams(tc.shortTerm))
			card := Card{State: tc.state, Stability: 4, Difficulty: 5, Reps: 3, LastReview: t0, Due: t0.Add(4 * day)}
			if tc.state == New {
				card = NewCard(t0)
			}
			got, _, err := s.Review(card, tc.g, t0.Add(4*day))
			if err != nil {
				t.Fatal(err)
			}
			if got.Lapses != card.Lapses+tc.want {
				t.Errorf("lapses %d -> %d, want +%d", card.Lapses, got.Lapses, tc.want)
			}
		})
	}
}

func TestReviewLog(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	before := Card{State: Review, Stability: 10, Difficulty: 5, ScheduledDays: 10, LearningSteps: 0, Reps: 4, Lapses: 1,
		LastReview: t0, Due: t0.Add(10 * day)}
	now := t0.Add(12 * day)
	_, log, err := s.Review(before, Hard, now)
	if err != nil {
		t.Fatal(err)
	}
	want := ReviewLog{Rating: Hard, Review: now, State: Review, Due: before.Due, Stability: 10, Difficulty: 5,
		ScheduledDays: 10, ElapsedDays: 12, Retrievability: s.curve(12, 10)}
	if log != want {
		t.Errorf("log = %+v\nwant  %+v", log, want)
	}
}

func TestReviewErrors(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	good := Card{State: Review, Stability: 10, Difficulty: 5, LastReview: t0, Due: t0.Add(10 * day)}
	tests := []struct {
		name   string
		card   Card
		rating Rating
		now    time.Time
		want   error
	}{
		{"rating 0", good, 0, t0.Add(day), ErrInvalidRating},
		{"rating 5", good, 5, t0.Add(day), ErrInvalidRating},
		{"unknown state", Card{State: 7, LastReview: t0}, Good, t0.Add(day), ErrInvalidCard},
		{"NaN stability", Card{State: Review, Stability: math.NaN(), Difficulty: 5, LastReview: t0}, Good, t0.Add(day), ErrInvalidCard},
		{"stability without difficulty", Card{State: Review, Stability: 5, LastReview: t0}, Good, t0.Add(day), ErrInvalidCard},
		{"difficulty above 10", Card{State: Review, Stability: 5, Difficulty: 11, LastReview: t0}, Good, t0.Add(day), ErrInvalidCard},
		{"negative step index", Card{State: Learning, Stability: 5, Difficulty: 5, LearningSteps: -1, LastReview: t0}, Good, t0.Add(day), ErrInvalidCard},
		{"previous UTC day", good, Good, t0.Add(-13 * time.Hour), ErrTimeBackwards},
		{"earlier the same UTC day is allowed", good, Good, t0.Add(-time.Hour), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.Review(tc.card, tc.rating, tc.now)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Review error = %v, want %v", err, tc.want)
			}
			if tc.rating.Valid() {
				if _, err := s.Preview(tc.card, tc.now); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Errorf("Preview error = %v, want %v", err, tc.want)
				}
			}
			if err != nil && !strings.HasPrefix(err.Error(), "fsrs: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestStringers(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{New.String(), "New"}, {Learning.String(), "Learning"}, {Review.String(), "Review"},
		{Relearning.String(), "Relearning"}, {State(9).String(), "State(9)"},
		{Again.String(), "Again"}, {Hard.String(), "Hard"}, {Good.String(), "Good"}, {Easy.String(), "Easy"},
		{Rating(0).String(), "Rating(0)"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}
