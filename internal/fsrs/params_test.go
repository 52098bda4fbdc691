package fsrs

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestDefaultParams(t *testing.T) {
	p := DefaultParams()
	if err := p.Validate(); err != nil {
		t.Fatalf("DefaultParams().Validate() = %v", err)
	}
	if !p.Fuzz || !p.ShortTerm {
		t.Errorf("DefaultParams: Fuzz %v, ShortTerm %v; want both on for server use", p.Fuzz, p.ShortTerm)
	}
	if p.DesiredRetention != 0.9 || p.MaximumInterval != 36500 {
		t.Errorf("DefaultParams: retention %v, maximum interval %d; want 0.9 and 36500", p.DesiredRetention, p.MaximumInterval)
	}
	// DefaultWeights hands out copies.
	w := DefaultWeights()
	w[0] = 99
	if got := DefaultWeights()[0]; got != 0.212 {
		t.Errorf("after changing a returned slice, DefaultWeights()[0] = %v, want 0.212", got)
	}
	if got := DefaultParams().W[0]; got != 0.212 {
		t.Errorf("after changing a returned slice, DefaultParams().W[0] = %v, want 0.212", got)
	}
}

func TestValidate(t *testing.T) {
	with := func(f func(p *Params)) Params {
		p := DefaultParams()
		f(&p)
		return p
	}
	setW := func(i int, v float64) func(p *Params) { return func(p *Params) { p.W[i] = v } }
	tests := []struct {
		name string
		p    Params
		want []string // substrings of the error; nil means valid
	}{
		{"defaults", DefaultParams(), nil},
		{"19 weights", with(func(p *Params) { p.W = p.W[:19] }), []string{"got 19 weights, want 21"}},
		{"no weights", with(func(p *Params) { p.W = nil }), []string{"got 0 weights"}},
		{"NaN weight", with(setW(3, math.NaN())), []string{"w[3] is NaN"}},
		{"infinite weight", with(setW(8, math.Inf(1))), []string{"w[8] is +Inf"}},
		{"w5 above 4", with(setW(5, 4.5)), []string{"w[5] = 4.5 is outside [0.001, 4]"}},
		{"w0 below its bound", with(setW(0, 0)), []string{"w[0] = 0 is outside [0.001, 100]"}},
		{"w20 at its lower bound", with(setW(20, 0.1)), nil},
		{"w19 of 0 with short-term", with(setW(19, 0)), []string{"w[19] = 0 is outside [0.01, 0.8]"}},
		{"w19 of 0 without short-term", with(func(p *Params) { p.W[19] = 0; p.ShortTerm = false }), nil},
		{"w17 of 1.5 with one relearning step", with(setW(17, 1.5)), nil},
		{"w17 of 1.5 with two relearning steps", with(func(p *Params) {
			p.W[17] = 1.5
			p.RelearningSteps = []time.Duration{10 * time.Minute, time.Hour}
		}), []string{"w[17] = 1.5 is outside [0, "}},
		{"retention 0", with(func(p *Params) { p.DesiredRetention = 0 }), []string{"desired retention 0 is outside (0, 1)"}},
		{"retention 1", with(func(p *Params) { p.DesiredRetention = 1 }), []string{"desired retention 1 is outside (0, 1)"}},
		{"retention NaN", with(func(p *Params) { p.DesiredRetention = math.NaN() }), []string{"desired retention NaN"}},
		{"maximum interval 0", with(func(p *Params) { p.MaximumInterval = 0 }), []string{"maximum interval 0 days"}},
		{"maximum interval 36501", with(func(p *Params) { p.MaximumInterval = 36501 }), []string{"maximum interval 36501 days"}},
		{"zero learning step", with(func(p *Params) { p.LearningSteps = []time.Duration{0} }), []string{"learning step[0] = 0s is not positive"}},
		{"90 second relearning step", with(func(p *Params) { p.RelearningSteps = []time.Duration{90 * time.Second} }),
			[]string{"relearning step[0] = 1m30s is not a whole number of minutes"}},
		{"no steps at all", with(func(p *Params) { p.LearningSteps, p.RelearningSteps = nil, nil }), nil},
		{"several problems at once", with(func(p *Params) { p.W[4] = 0.5; p.DesiredRetention = 2 }),
			[]string{"w[4] = 0.5 is outside [1, 10]", "desired retention 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				if _, err := NewScheduler(tc.p); err != nil {
					t.Fatalf("NewScheduler = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("Validate() = %v, want an error wrapping ErrInvalidParams", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to mention %q", err, w)
				}
			}
			if _, err := NewScheduler(tc.p); !errors.Is(err, ErrInvalidParams) {
				t.Errorf("NewScheduler error = %v, want ErrInvalidParams", err)
			}
		})
	}
}

// TestWeightCeilingWithSeveralRelearningSteps checks the w17/w18 ceiling
// against values computed from its definition for the default weights.
func TestWeightCeilingWithSeveralRelearningSteps(t *testing.T) {
	w := DefaultWeights()
	for n := 0; n <= 4; n++ {
		b := weightBounds(w, n, true)
		want := 2.0
		if n > 1 {
			v := -(math.Log(w[11]) + math.Log(math.Pow(2, w[13])-1) + float64(w[14]*0.3)) / float64(n)
			want = math.Min(math.Max(round8(math.Sqrt(math.Max(v, 0))), 0.01), 2)
		}
		if b[17][1] != want || b[18][1] != want {
			t.Errorf("%d relearning steps: w17/w18 ceiling = %v/%v, want %v", n, b[17][1], b[18][1], want)
		}
	}
	if b2, b3 := weightBounds(w, 2, true), weightBounds(w, 3, true); !(b3[17][1] < b2[17][1] && b2[17][1] < 2) {
		t.Errorf("ceiling should fall as steps are added: 2 steps %v, 3 steps %v", b2[17][1], b3[17][1])
	}
}
