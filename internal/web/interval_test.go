package web

import (
	"testing"
	"time"

	"kubequiz/internal/fsrs"
)

const oneDay = 24 * time.Hour

func TestInterval(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "1分未満"},
		{0, "1分未満"},
		{59 * time.Second, "1分未満"},
		{time.Minute, "1分"},
		{6 * time.Minute, "6分"},
		{10 * time.Minute, "10分"},
		{10*time.Minute + 29*time.Second, "10分"},
		{10*time.Minute + 30*time.Second, "11分"},
		{59*time.Minute + 40*time.Second, "1時間"},
		{90 * time.Minute, "1.5時間"},
		{6 * time.Hour, "6時間"},
		{23*time.Hour + 58*time.Minute, "1日"},
		{36 * time.Hour, "1.5日"},
		{4 * oneDay, "4日"},
		{29 * oneDay, "29日"},
		{30 * oneDay, "1か月"},
		{45 * oneDay, "1.5か月"},
		{90 * oneDay, "3か月"},
		{364 * oneDay, "12.1か月"},
		{365 * oneDay, "1年"},
		{438 * oneDay, "1.2年"},
		{36500 * oneDay, "100年"},
	}
	for _, tc := range tests {
		if got := interval(tc.d); got != tc.want {
			t.Errorf("interval(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// The grade buttons of a new card with the default steps.
func TestIntervalOfNewCard(t *testing.T) {
	p := fsrs.DefaultParams()
	p.Fuzz = false
	s, err := fsrs.NewScheduler(p)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	out, err := s.Preview(fsrs.NewCard(t0), t0)
	if err != nil {
		t.Fatal(err)
	}
	want := [4]string{"1分", "6分", "10分", "約8日"}
	for g := fsrs.Again; g <= fsrs.Easy; g++ {
		if got := buttonInterval(out.For(g).Due.Sub(t0)); got != want[g-1] {
			t.Errorf("%v label = %q, want %q", g, got, want[g-1])
		}
	}
}

func TestIntervalLabels(t *testing.T) {
	tests := []struct {
		d               time.Duration
		label, onButton string
	}{
		{20 * time.Second, "1分未満", "1分未満"},
		{10 * time.Minute, "10分", "10分"},
		{90 * time.Minute, "1.5時間", "1.5時間"},
		{2 * 24 * time.Hour, "2日", "2日"},
		{3 * 24 * time.Hour, "3日", "約3日"},
		{90 * 24 * time.Hour, "3か月", "約3か月"},
		{438 * 24 * time.Hour, "1.2年", "約1.2年"},
	}
	for _, tt := range tests {
		if got := interval(tt.d); got != tt.label {
			t.Errorf("interval(%v) = %q, want %q", tt.d, got, tt.label)
		}
		if got := buttonInterval(tt.d); got != tt.onButton {
			t.Errorf("buttonInterval(%v) = %q, want %q", tt.d, got, tt.onButton)
		}
	}
}
