package web

import (
	"math"
	"strconv"
	"time"

	"kubequiz/internal/fsrs"
)

// This file words the delays the scheduler computes: the grade buttons'
// intervals, the next review after a grade, the next card due.

// intervalUnit is the unit splitInterval chose for a delay.
type intervalUnit int

const (
	underMinute intervalUnit = iota // less than a minute; the number is ""
	unitMinute
	unitHour
	unitDay
	unitMonth // of 30 days
	unitYear  // of 365 days
)

// word is the unit as the page writes it.
func (u intervalUnit) word() string {
	switch u {
	case unitMinute:
		return "分"
	case unitHour:
		return "時間"
	case unitDay:
		return "日"
	case unitMonth:
		return "か月"
	case unitYear:
		return "年"
	}
	return ""
}

// splitInterval gives a delay as a number and a unit. Minutes are whole;
// hours, days, months (30 days) and years (365 days) carry at most one
// decimal, rounded half up. A value that rounds up to the next unit is
// given in that unit (1 hour, not 60 minutes). A delay under a minute,
// negative ones included, is underMinute with no number.
func splitInterval(d time.Duration) (string, intervalUnit) {
	if d < time.Minute {
		return "", underMinute
	}
	if d < time.Hour {
		m := (d + 30*time.Second) / time.Minute
		if m < 60 {
			return strconv.FormatInt(int64(m), 10), unitMinute
		}
	}
	h := d.Hours()
	if v := roundTenth(h); v < 24 {
		return formatTenth(v), unitHour
	}
	dd := h / 24
	if v := roundTenth(dd); v < 30 {
		return formatTenth(v), unitDay
	}
	if dd < 365 {
		return formatTenth(roundTenth(dd / 30)), unitMonth
	}
	return formatTenth(roundTenth(dd / 365)), unitYear
}

// roundTenth rounds x to one decimal, halves up.
func roundTenth(x float64) float64 { return roundHalfUp(float64(x*10)) / 10 }

// roundHalfUp rounds to the nearest integer with halves going up (towards
// +Inf). Unlike math.Floor(x+0.5) it is exact for every float64:
// x-math.Floor(x) is computed without rounding error.
func roundHalfUp(x float64) float64 {
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return f
}

func formatTenth(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// interval renders a delay for the page: "1分未満", "10分", "1.5時間", "4日",
// "3か月", "1.2年".
func interval(d time.Duration) string {
	n, u := splitInterval(d)
	if u == underMinute {
		return "1分未満"
	}
	return n + u.word()
}

// fuzzFrom is where the scheduler starts to spread intervals at random, so
// that cards graded together do not all come back on the same day.
const fuzzFrom = fsrs.FuzzMinDays * 24 * time.Hour

// buttonInterval labels a grade button. Its interval is computed before
// the scheduler's random spread, so from fuzzFrom on it reads "約": the
// review recorded may land a day or more either side.
func buttonInterval(d time.Duration) string {
	if d >= fuzzFrom {
		return "約" + interval(d)
	}
	return interval(d)
}
