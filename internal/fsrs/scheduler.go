package fsrs

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Errors returned by Review and Preview, wrapped with the offending values.
var (
	ErrInvalidRating = errors.New("fsrs: invalid rating")
	ErrInvalidCard   = errors.New("fsrs: invalid card")
	// ErrTimeBackwards means the review is on an earlier UTC day than the
	// card's last review.
	ErrTimeBackwards = errors.New("fsrs: review time before last review")
)

// FuzzMinDays is the shortest interval, in days, that fuzz spreads (the
// rounded interval must be at least 2.5 days).
const FuzzMinDays = 3

const (
	minStability = 0.001
	maxStability = 36500.0
	minutesInDay = 1440
	day          = 24 * time.Hour
)

// Numerical note. Every product that feeds an addition or subtraction is
// wrapped in an explicit float64 conversion. The Go specification allows the
// compiler to fuse x*y+z into one fused multiply-add (it does so on arm64 and
// on amd64 with GOAMD64=v3), which would change the last bit of some results
// and, through the rounding to eight decimals, occasionally a printed digit.
// The conversion forces the separate rounding that the reference performs.

// Scheduler computes the next state of a card. It is immutable once built and
// safe for concurrent use.
type Scheduler struct {
	w         [NumWeights]float64
	decay     float64 // -w[20]
	factor    float64 // 0.9^(1/decay) - 1, rounded to 8 decimals
	ivlMod    float64 // interval per day of stability at the desired retention
	maxIvl    int
	learn     []int // learning steps in minutes
	relearn   []int // relearning steps in minutes
	shortTerm bool
	fuzz      bool

	// Values that depend only on the weights, computed once. Each equals the
	// expression the reference evaluates on every call, bit for bit.
	expW8      float64    // exp(w8)
	d0Easy     float64    // unclamped initial difficulty for Easy: the mean-reversion target
	initD      [4]float64 // clamped initial difficulty per rating
	initS      [4]float64 // initial stability per rating
	shortInc   [4]float64 // exp(w17*(G-3+w18)) per rating
	lapseShort float64    // exp(w17*w18), the short-term divisor of the post-lapse cap
}

// NewScheduler validates p and builds a Scheduler from it.
func NewScheduler(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &Scheduler{
		maxIvl:    p.MaximumInterval,
		shortTerm: p.ShortTerm,
		fuzz:      p.Fuzz,
		learn:     minutes(p.LearningSteps),
		relearn:   minutes(p.RelearningSteps),
	}
	copy(s.w[:], p.W)
	w := &s.w
	s.decay = -w[20]
	s.factor = round8(math.Exp(float64(math.Pow(s.decay, -1)*math.Log(0.9))) - 1)
	s.ivlMod = round8((math.Pow(p.DesiredRetention, 1/s.decay) - 1) / s.factor)
	s.expW8 = math.Exp(w[8])
	s.d0Easy = s.initDifficulty(Easy)
	for g := Again; g <= Easy; g++ {
		s.initD[g-1] = clamp(s.initDifficulty(g), 1, 10)
		s.initS[g-1] = math.Max(w[g-1], 0.1)
		s.shortInc[g-1] = math.Exp(float64(w[17] * (float64(g-3) + w[18])))
	}
	if s.shortTerm {
		s.lapseShort = math.Exp(float64(w[17] * w[18]))
	} else {
		s.lapseShort = math.Exp(0)
	}
	return s, nil
}

func minutes(steps []time.Duration) []int {
	m := make([]int, len(steps))
	for i, d := range steps {
		m[i] = int(d / time.Minute)
	}
	return m
}

// Review applies rating to card at time now and returns the updated card and
// a log of the review. now may be early or late relative to card.Due; it must
// not fall on an earlier UTC day than card.LastReview.
func (s *Scheduler) Review(card Card, rating Rating, now time.Time) (Card, ReviewLog, error) {
	if !rating.Valid() {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: %d", ErrInvalidRating, int(rating))
	}
	var rv review
	if err := s.begin(&rv, card, now); err != nil {
		return Card{}, ReviewLog{}, err
	}
	return s.outcome(&rv, rating), rv.log(card, rating), nil
}

// Preview returns what each of the four ratings would produce at time now,
// for labelling answer buttons. Preview(c, now).For(r) equals the card that
// Review(c, r, now) returns.
func (s *Scheduler) Preview(card Card, now time.Time) (Outcomes, error) {
	var rv review
	if err := s.begin(&rv, card, now); err != nil {
		return Outcomes{}, err
	}
	var out Outcomes
	for g := Again; g <= Easy; g++ {
		out[g-1] = s.outcome(&rv, g)
	}
	return out, nil
}

// Retrievability is the estimated probability of recalling card at time now.
// It counts whole 24-hour periods since the last review (the display value of
// the reference implementation, which differs from the calendar-day count the
// scheduler uses). It is 0 for a card that has never been reviewed.
func (s *Scheduler) Retrievability(card Card, now time.Time) float64 {
	if card.State == New || card.LastReview.IsZero() || !(card.Stability > 0) || math.IsInf(card.Stability, 0) {
		return 0
	}
	t := floorDiv(now.UnixMilli()-card.LastReview.UnixMilli(), 86_400_000)
	if t < 0 {
		t = 0
	}
	return s.curve(float64(t), round8(card.Stability))
}

// review carries what one review needs. Preview asks for the stability of
// every rating; the terms the ratings share and each rating's stability and
// interval are computed once.
type review struct {
	cur  Card // card before the review with reps, last review and elapsed days updated
	now  time.Time
	t    int     // elapsed UTC calendar days
	r    float64 // retrievability at t (0 without a memory state)
	seed float64 // fuzz factor in [0, 1), valid when haveSeed

	// recallBase is exp(w8)*(11-D)*S^-w9*(exp(w10*(1-R))-1), the part of the
	// recall stability increase shared by Hard, Good and Easy, multiplied in
	// the reference's order; shortPow is S^-w19 for same-day reviews.
	recallBase, shortPow float64

	stab [4]float64
	ivl  [4]int
	// bit g-1 set when stab[g-1] or ivl[g-1] has been computed
	haveStab, haveIvl               uint8
	haveSeed, haveRecall, haveShort bool
}

func (s *Scheduler) begin(rv *review, c Card, now time.Time) error {
	if err := checkCard(&c); err != nil {
		return err
	}
	now = now.UTC()
	t := 0
	if c.State != New && !c.LastReview.IsZero() {
		t = int(dayNumber(now) - dayNumber(c.LastReview))
		if t < 0 {
			return fmt.Errorf("%w: reviewed at %v, last review %v", ErrTimeBackwards,
				now.Format(time.RFC3339), c.LastReview.UTC().Format(time.RFC3339))
		}
	}
	rv.now = now
	rv.t = t
	rv.cur = c
	rv.cur.LastReview = now
	rv.cur.ElapsedDays = t
	rv.cur.Reps++
	if c.Stability > 0 {
		rv.r = s.curve(float64(t), c.Stability)
	}
	return nil
}

func checkCard(c *Card) error {
	switch {
	case !c.State.Valid():
		return fmt.Errorf("%w: state %d", ErrInvalidCard, int(c.State))
	case math.IsNaN(c.Stability) || math.IsInf(c.Stability, 0) || math.IsNaN(c.Difficulty) || math.IsInf(c.Difficulty, 0):
		return fmt.Errorf("%w: stability %v, difficulty %v", ErrInvalidCard, c.Stability, c.Difficulty)
	case c.Stability == 0 && c.Difficulty == 0:
		// no memory state yet: the first answer sets one
	case c.Stability < minStability || c.Difficulty < 1 || c.Stability > maxStability || c.Difficulty > 10:
		return fmt.Errorf("%w: stability %v, difficulty %v", ErrInvalidCard, c.Stability, c.Difficulty)
	}
	if c.LearningSteps < 0 || c.Reps < 0 || c.Lapses < 0 {
		return fmt.Errorf("%w: negative counter (learning step %d, reps %d, lapses %d)",
			ErrInvalidCard, c.LearningSteps, c.Reps, c.Lapses)
	}
	return nil
}

func (rv *review) log(before Card, g Rating) ReviewLog {
	return ReviewLog{
		Rating:         g,
		Review:         rv.now,
		State:          before.State,
		Due:            before.Due,
		Stability:      before.Stability,
		Difficulty:     before.Difficulty,
		ScheduledDays:  before.ScheduledDays,
		LearningSteps:  before.LearningSteps,
		ElapsedDays:    rv.t,
		Retrievability: rv.r,
	}
}

// outcome returns the card produced by rating g.
func (s *Scheduler) outcome(rv *review, g Rating) Card {
	next := rv.cur
	next.Stability = s.stability(rv, g)
	next.Difficulty = s.difficulty(rv.cur.Stability, rv.cur.Difficulty, g)
	if !s.shortTerm {
		s.longTerm(rv, g, &next)
		return next
	}
	switch rv.cur.State {
	case New:
		s.applySteps(rv, g, &next, Learning)
	case Learning, Relearning:
		s.applySteps(rv, g, &next, rv.cur.State)
	case Review:
		if g == Again {
			s.applySteps(rv, g, &next, Relearning)
			next.Lapses++
			return next
		}
		h, gd := s.interval(rv, Hard), s.interval(rv, Good)
		h = min(h, gd)
		gd = max(gd, h+1)
		var days int
		switch g {
		case Hard:
			days = h
		case Good:
			days = gd
		case Easy:
			days = max(s.interval(rv, Easy), gd+1)
		}
		setDays(&next, rv.now, days)
	}
	return next
}

// longTerm schedules whole days for every rating, ordered strictly
// Again < Hard < Good < Easy (after the cap, so the result may exceed it).
func (s *Scheduler) longTerm(rv *review, g Rating, next *Card) {
	a, h := s.interval(rv, Again), s.interval(rv, Hard)
	a = min(a, h)
	h = max(h, a+1)
	days := a
	switch g {
	case Hard:
		days = h
	case Good, Easy:
		days = max(s.interval(rv, Good), h+1)
		if g == Easy {
			days = max(s.interval(rv, Easy), days+1)
		}
	}
	setDays(next, rv.now, days)
	if g == Again && rv.cur.State != New {
		next.Lapses++
	}
}

func setDays(c *Card, now time.Time, days int) {
	c.State = Review
	c.LearningSteps = 0
	c.ScheduledDays = days
	c.Due = now.Add(time.Duration(days) * day)
}

// applySteps decides the (re)learning step for rating g, or graduates the
// card to Review when no step applies.
func (s *Scheduler) applySteps(rv *review, g Rating, next *Card, to State) {
	mins, idx := s.step(rv.cur.State, rv.cur.LearningSteps, g)
	switch {
	case mins > 0 && mins < minutesInDay:
		next.State = to
		next.LearningSteps = idx
		next.ScheduledDays = 0
		next.Due = rv.now.Add(time.Duration(mins) * time.Minute)
	case mins >= minutesInDay:
		next.State = Review
		next.LearningSteps = idx
		next.ScheduledDays = mins / minutesInDay
		next.Due = rv.now.Add(time.Duration(mins) * time.Minute)
	default:
		setDays(next, rv.now, s.interval(rv, g))
	}
}

// step returns the delay in minutes and the next step index for rating g
// given the card's state and current step index i, or 0 minutes when the card
// graduates. The Hard delay is the same at every index; Easy always graduates.
func (s *Scheduler) step(state State, i int, g Rating) (mins, next int) {
	steps := s.learn
	if state == Relearning || state == Review {
		steps = s.relearn
	}
	n := len(steps)
	if n == 0 || i >= n {
		return 0, 0
	}
	if state == Review {
		if g == Again {
			return steps[i], 0
		}
		return 0, 0
	}
	switch g {
	case Again:
		return steps[0], 0
	case Hard:
		if n == 1 {
			return (3*steps[0] + 1) / 2, i // round(1.5*s0), half up
		}
		return (steps[0] + steps[1] + 1) / 2, i // round((s0+s1)/2), half up
	case Good:
		if i+1 < n {
			return steps[i+1], i + 1
		}
	}
	return 0, 0
}

// stability returns the stability after rating g, computing it once.
func (s *Scheduler) stability(rv *review, g Rating) float64 {
	bit := uint8(1) << (g - 1)
	if rv.haveStab&bit == 0 {
		rv.stab[g-1] = s.nextStability(rv, g)
		rv.haveStab |= bit
	}
	return rv.stab[g-1]
}

// nextStability applies the FSRS-6 stability model for rating g.
func (s *Scheduler) nextStability(rv *review, g Rating) float64 {
	st, d, w := rv.cur.Stability, rv.cur.Difficulty, &s.w
	switch {
	case st == 0 && d == 0:
		return s.initS[g-1]
	case rv.t == 0 && s.shortTerm:
		if !rv.haveShort {
			rv.shortPow = math.Pow(st, -w[19])
			rv.haveShort = true
		}
		inc := rv.shortPow * s.shortInc[g-1]
		if g >= Hard {
			inc = max(inc, 1)
		}
		return round8(clamp(st*inc, minStability, maxStability))
	case g == Again:
		sf := round8(clamp(w[11]*math.Pow(d, -w[12])*(math.Pow(st+1, w[13])-1)*math.Exp(float64((1-rv.r)*w[14])),
			minStability, maxStability))
		return clamp(round8(st/s.lapseShort), minStability, sf)
	default:
		if !rv.haveRecall {
			base := float64(s.expW8*(11-d)) * math.Pow(st, -w[9])
			rv.recallBase = float64(base * (math.Exp(float64((1-rv.r)*w[10])) - 1))
			rv.haveRecall = true
		}
		inc := float64(rv.recallBase * hardEasy(w, g))
		return round8(clamp(st*(1+inc), minStability, maxStability))
	}
}

// difficulty returns the difficulty after rating g for a card with
// stability st and difficulty d.
func (s *Scheduler) difficulty(st, d float64, g Rating) float64 {
	if st == 0 && d == 0 {
		return s.initD[g-1]
	}
	return s.nextDifficulty(d, g)
}

func hardEasy(w *[NumWeights]float64, g Rating) float64 {
	switch g {
	case Hard:
		return w[15]
	case Easy:
		return w[16]
	}
	return 1
}

func (s *Scheduler) initDifficulty(g Rating) float64 {
	return round8(s.w[4] - math.Exp(float64(float64(g-1)*s.w[5])) + 1)
}

func (s *Scheduler) nextDifficulty(d float64, g Rating) float64 {
	delta := -s.w[6] * float64(g-3)
	next := d + round8(float64(delta*(10-d))/9)
	w7 := s.w[7]
	return clamp(round8(float64(w7*s.d0Easy)+float64((1-w7)*next)), 1, 10)
}

// curve is the forgetting curve R(t, S), rounded to eight decimals.
func (s *Scheduler) curve(t, st float64) float64 {
	return round8(math.Pow(1+float64(s.factor*t)/st, s.decay))
}

// interval returns the interval in days for the stability after rating g:
// stability scaled to the desired retention, at least 1, capped, then
// fuzzed when enabled. Ordering between ratings is applied by the caller.
func (s *Scheduler) interval(rv *review, g Rating) int {
	bit := uint8(1) << (g - 1)
	if rv.haveIvl&bit != 0 {
		return rv.ivl[g-1]
	}
	// Clamp as a float first: a very low desired retention can make the
	// product too large for an int.
	ivl := int(min(max(1, jsRound(float64(s.stability(rv, g)*s.ivlMod))), float64(s.maxIvl)))
	if s.fuzz && ivl >= FuzzMinDays {
		if !rv.haveSeed {
			rv.seed = fuzzFactor(rv.now.UnixMilli(), rv.cur.Reps, float64(rv.cur.Difficulty*rv.cur.Stability))
			rv.haveSeed = true
		}
		ivl = fuzzInterval(ivl, rv.t, s.maxIvl, rv.seed)
	}
	rv.ivl[g-1] = ivl
	rv.haveIvl |= bit
	return ivl
}

// fuzzRange returns the closed range [lo, hi] an interval of ivl days (ivl >= 3)
// may be spread over, t being the elapsed days of the review.
func fuzzRange(ivl, t, maxIvl int) (lo, hi int) {
	i := float64(ivl)
	delta := 1.0
	delta += float64(0.15 * max(min(i, 7)-2.5, 0))
	delta += float64(0.1 * max(min(i, 20)-7, 0))
	delta += float64(0.05 * max(i-20, 0))
	i = min(i, float64(maxIvl))
	lo = max(2, int(jsRound(i-delta)))
	hi = min(int(jsRound(i+delta)), maxIvl)
	if i > float64(t) {
		lo = max(lo, t+1)
	}
	return min(lo, hi), hi
}

// fuzzInterval picks the interval in fuzzRange selected by u in [0, 1).
// Alea's outputs are multiples of 2^-32, far enough below 1 that the
// reference formula stays within [lo, hi]; the final min only guards
// against u values Alea cannot produce.
func fuzzInterval(ivl, t, maxIvl int, u float64) int {
	lo, hi := fuzzRange(ivl, t, maxIvl)
	return min(int(math.Floor(float64(u*float64(hi-lo+1))+float64(lo))), hi)
}

// round8 rounds to eight decimals, halves up, as the reference does.
func round8(x float64) float64 {
	return jsRound(float64(x*1e8)) / 1e8
}

// jsRound rounds to the nearest integer with halves going up (towards +Inf),
// like JavaScript's Math.round. Unlike math.Floor(x+0.5) it is exact for every
// float64: x-math.Floor(x) is computed without rounding error.
func jsRound(x float64) float64 {
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return f
}

// dayNumber is the number of UTC calendar days since 1970-01-01.
func dayNumber(t time.Time) int64 { return floorDiv(t.Unix(), 86400) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
