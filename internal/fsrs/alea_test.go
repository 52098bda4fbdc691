package fsrs

import (
	"math"
	"testing"
)

// Expected values were printed by the Alea code bundled in ts-fsrs 5.4.2
// (alea(seed)() and String(x) under Node 20).

func TestAleaFirstMatchesReference(t *testing.T) {
	tests := []struct {
		seed string
		want float64
	}{
		{"1753487158000_2_4.885734", 0.04572977847419679},
		{"0_1_0", 0.17711191764101386},
		{"1712574709000_5_37.44113408119871", 0.32235572626814246},
		{"-86400000_3_12.5", 0.6219472785014659},
		{"", 0.1666577742435038},
		{"kubequiz", 0.7037547207437456},
	}
	for _, tc := range tests {
		if got := aleaFirst([]byte(tc.seed)); got != tc.want {
			t.Errorf("aleaFirst(%q) = %v, want %v", tc.seed, got, tc.want)
		}
	}
}

func TestSpreadSeedText(t *testing.T) {
	// fuzzFactor must hash exactly "<ms>_<reps>_<D*S>".
	tests := []struct {
		ms   int64
		reps int
		ds   float64
		seed string
	}{
		{1753487158000, 2, 4.885734, "1753487158000_2_4.885734"},
		{0, 1, 0, "0_1_0"},
		{-86400000, 3, 12.5, "-86400000_3_12.5"},
		{1712574709000, 5, 37.44113408119871, "1712574709000_5_37.44113408119871"},
	}
	for _, tc := range tests {
		if got, want := fuzzFactor(tc.ms, tc.reps, tc.ds), aleaFirst([]byte(tc.seed)); got != want {
			t.Errorf("fuzzFactor(%d, %d, %v) = %v, want aleaFirst(%q) = %v", tc.ms, tc.reps, tc.ds, got, tc.seed, want)
		}
	}
}

func TestAppendJSNumber(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{0.001, "0.001"},
		{365000, "365000"},
		{4.885734, "4.885734"},
		{37.44113408119871, "37.44113408119871"},
		{0.30000000000000004, "0.30000000000000004"}, // 0.1+0.2 at run time
		{1.0 / 3, "0.3333333333333333"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{2.5e-10, "2.5e-10"},
		{123456789012345680000, "123456789012345680000"},
		{1e21, "1e+21"},
	}
	for _, tc := range tests {
		if got := string(appendJSNumber(nil, tc.x)); got != tc.want {
			t.Errorf("appendJSNumber(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestSpreadRangeBounds(t *testing.T) {
	tests := []struct {
		ivl, t, max int
		lo, hi      int
	}{
		{3, 0, 36500, 2, 4},      // delta 1.075
		{7, 0, 36500, 5, 9},      // delta 1.675
		{20, 0, 36500, 17, 23},   // delta 2.975
		{100, 0, 36500, 93, 107}, // delta 6.975
		{100, 99, 36500, 100, 107},
		{100, 150, 36500, 93, 107},      // interval not above t: no lower floor
		{36500, 0, 36500, 34673, 36500}, // delta 1826.975
		{5, 0, 5, 4, 5},
	}
	for _, tc := range tests {
		lo, hi := fuzzRange(tc.ivl, tc.t, tc.max)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("fuzzRange(%d, t=%d, max=%d) = [%d, %d], want [%d, %d]", tc.ivl, tc.t, tc.max, lo, hi, tc.lo, tc.hi)
		}
		// Alea's largest output is 1-2^-32; nextafter(1, 0) is beyond it.
		for _, u := range []float64{0, 0.5, 1 - 0x1p-32, math.Nextafter(1, 0)} {
			if got := fuzzInterval(tc.ivl, tc.t, tc.max, u); got < lo || got > hi {
				t.Errorf("fuzzInterval(%d, u=%v) = %d, outside [%d, %d]", tc.ivl, u, got, lo, hi)
			}
		}
		if got := fuzzInterval(tc.ivl, tc.t, tc.max, 0); got != lo {
			t.Errorf("fuzzInterval(%d, u=0) = %d, want the low end %d", tc.ivl, got, lo)
		}
		if got := fuzzInterval(tc.ivl, tc.t, tc.max, 1-0x1p-32); got != hi {
			t.Errorf("fuzzInterval(%d, u=1-2^-32) = %d, want the high end %d", tc.ivl, got, hi)
		}
	}
}

func TestJSRound(t *testing.T) {
	tests := []struct{ x, want float64 }{
		{0.5, 1}, {1.5, 2}, {2.5, 3}, {-0.5, 0}, {-1.5, -1}, {-2.5, -2}, {-2.6, -3},
		{0.49999999999999994, 0}, // math.Floor(x+0.5) gets this one wrong
		{4503599627370497, 4503599627370497},
	}
	for _, tc := range tests {
		if got := jsRound(tc.x); got != tc.want {
			t.Errorf("jsRound(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	// round8 rounds negative ties up, unlike math.Round.
	if got, want := round8(-0.000000125), -0.00000012; got != want {
		t.Errorf("round8(-1.25e-7) = %v, want %v", got, want)
	}
}
