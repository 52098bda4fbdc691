package fsrs

import (
	"testing"
	"time"
)

func TestFormatInterval(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "<1m"},
		{0, "<1m"},
		{59 * time.Second, "<1m"},
		{time.Minute, "1m"},
		{6 * time.Minute, "6m"},
		{10 * time.Minute, "10m"},
		{10*time.Minute + 29*time.Second, "10m"},
		{10*time.Minute + 30*time.Second, "11m"},
		{59*time.Minute + 40*time.Second, "1h"},
		{90 * time.Minute, "1.5h"},
		{6 * time.Hour, "6h"},
		{23*time.Hour + 58*time.Minute, "1d"},
		{36 * time.Hour, "1.5d"},
		{4 * day, "4d"},
		{29 * day, "29d"},
		{30 * day, "1mo"},
		{45 * day, "1.5mo"},
		{90 * day, "3mo"},
		{364 * day, "12.1mo"},
		{365 * day, "1y"},
		{438 * day, "1.2y"},
		{36500 * day, "100y"},
	}
	for _, tc := range tests {
		if got := FormatInterval(tc.d); got != tc.want {
			t.Errorf("FormatInterval(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// Button labels for a new card with the default steps.
func TestFormatIntervalLabels(t *testing.T) {
	s := mustScheduler(t, referenceParams(true))
	out, err := s.Preview(NewCard(t0), t0)
	if err != nil {
		t.Fatal(err)
	}
	want := [4]string{"1m", "6m", "10m", "8d"}
	for g := Again; g <= Easy; g++ {
		if got := FormatInterval(out.For(g).Due.Sub(t0)); got != want[g-1] {
			t.Errorf("%v label = %q, want %q", g, got, want[g-1])
		}
	}
}
