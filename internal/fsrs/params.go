package fsrs

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// NumWeights is the number of FSRS-6 model weights.
const NumWeights = 21

// MaxInterval is the largest MaximumInterval accepted, in days. Stability is
// capped at the same value.
const MaxInterval = 36500

// maxStep bounds a single (re)learning step so that due dates stay far inside
// the range of time.Duration.
const maxStep = MaxInterval * 24 * time.Hour

// defaultWeights are the FSRS-6 defaults shared by ts-fsrs, py-fsrs and fsrs-rs.
// Never handed out directly: DefaultWeights returns a copy.
var defaultWeights = [NumWeights]float64{
	0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666,
	0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658,
	0.1542,
}

// ErrInvalidParams is wrapped by every error returned from Params.Validate.
var ErrInvalidParams = errors.New("fsrs: invalid parameters")

// DefaultWeights returns a fresh copy of the 21 default FSRS-6 weights.
func DefaultWeights() []float64 {
	w := defaultWeights
	return w[:]
}

// Params configures a Scheduler.
type Params struct {
	// W holds the 21 model weights w[0]..w[20].
	W []float64
	// DesiredRetention is the target probability of recall at the due date,
	// strictly between 0 and 1.
	DesiredRetention float64
	// MaximumInterval caps intervals computed from stability, in days
	// (1..MaxInterval). The strict ordering of intervals may still push a
	// result one or two days above it, as the reference implementation does.
	MaximumInterval int
	// LearningSteps are the delays used for new cards, in whole minutes.
	LearningSteps []time.Duration
	// RelearningSteps are the delays used after a lapse, in whole minutes.
	RelearningSteps []time.Duration
	// ShortTerm enables (re)learning steps and the same-day stability formula.
	// When false every answer schedules whole days.
	ShortTerm bool
	// Fuzz spreads intervals of three days or more over a small range, so
	// that cards learned together do not stay together. The spread is a pure
	// function of the card and the review time.
	Fuzz bool
}

// DefaultParams returns the settings for server use: default weights, 90%
// retention, a 100-year cap, steps of 1m and 10m, relearning 10m, short-term
// scheduling and fuzz both on.
func DefaultParams() Params {
	return Params{
		W:                DefaultWeights(),
		DesiredRetention: 0.9,
		MaximumInterval:  MaxInterval,
		LearningSteps:    []time.Duration{time.Minute, 10 * time.Minute},
		RelearningSteps:  []time.Duration{10 * time.Minute},
		ShortTerm:        true,
		Fuzz:             true,
	}
}

// Validate reports every problem with p, joined into one error. Each problem
// wraps ErrInvalidParams.
func (p Params) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidParams}, args...)...))
	}
	if len(p.W) != NumWeights {
		bad("got %d weights, want %d", len(p.W), NumWeights)
	} else {
		finite := true
		for i, v := range p.W {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				bad("w[%d] is %v", i, v)
				finite = false
			}
		}
		if finite {
			b := weightBounds(p.W, len(p.RelearningSteps), p.ShortTerm)
			for i, v := range p.W {
				if v < b[i][0] || v > b[i][1] {
					bad("w[%d] = %v is outside [%v, %v]", i, v, b[i][0], b[i][1])
				}
			}
		}
	}
	if !(p.DesiredRetention > 0 && p.DesiredRetention < 1) {
		bad("desired retention %v is outside (0, 1)", p.DesiredRetention)
	}
	if p.MaximumInterval < 1 || p.MaximumInterval > MaxInterval {
		bad("maximum interval %d days is outside [1, %d]", p.MaximumInterval, MaxInterval)
	}
	checkSteps := func(name string, steps []time.Duration) {
		for i, d := range steps {
			switch {
			case d <= 0:
				bad("%s[%d] = %v is not positive", name, i, d)
			case d%time.Minute != 0:
				bad("%s[%d] = %v is not a whole number of minutes", name, i, d)
			case d > maxStep:
				bad("%s[%d] = %v is longer than %d days", name, i, d, MaxInterval)
			}
		}
	}
	checkSteps("learning step", p.LearningSteps)
	checkSteps("relearning step", p.RelearningSteps)
	return errors.Join(errs...)
}

// weightBounds returns the closed range allowed for each weight. They are the
// ranges the reference implementation clamps to. With more than one
// relearning step, w17 and w18 get a lower ceiling so that a lapse followed by
// several same-day steps cannot end above the stability it started from.
// w must hold NumWeights finite values.
func weightBounds(w []float64, relearningSteps int, shortTerm bool) [NumWeights][2]float64 {
	b := [NumWeights][2]float64{
		{0.001, 100}, {0.001, 100}, {0.001, 100}, {0.001, 100},
		{1, 10}, {0.001, 4}, {0.001, 4}, {0.001, 0.75},
		{0, 4.5}, {0, 0.8}, {0.001, 3.5}, {0.001, 5},
		{0.001, 0.25}, {0.001, 0.9}, {0, 4}, {0, 1},
		{1, 6}, {0, 2}, {0, 2}, {0.01, 0.8},
		{0.1, 0.8},
	}
	if !shortTerm {
		b[19][0] = 0
	}
	if relearningSteps > 1 {
		w11 := clamp(w[11], b[11][0], b[11][1])
		w13 := clamp(w[13], b[13][0], b[13][1])
		w14 := clamp(w[14], b[14][0], b[14][1])
		v := -(math.Log(w11) + math.Log(math.Pow(2, w13)-1) + float64(w14*0.3)) / float64(relearningSteps)
		c := clamp(round8(math.Sqrt(math.Max(v, 0))), 0.01, 2)
		b[17][1] = c
		b[18][1] = c
	}
	return b
}

// clamp is min(max(v, lo), hi), as the reference computes it.
func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
