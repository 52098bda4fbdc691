package fsrs

import (
	"strconv"
	"time"
)

// FuzzMinDays is the shortest interval, in days, that fuzz spreads (the
// rounded interval must be at least 2.5 days).
const FuzzMinDays = 3

// IntervalUnit is the unit SplitInterval chose for a delay.
type IntervalUnit int

const (
	UnderMinute IntervalUnit = iota // less than a minute; the number is ""
	Minutes
	Hours
	Days
	Months // of 30 days
	Years  // of 365 days
)

// intervalSuffixes are FormatInterval's units, by IntervalUnit.
var intervalSuffixes = [...]string{UnderMinute: "<1m", Minutes: "m", Hours: "h", Days: "d", Months: "mo", Years: "y"}

// FormatInterval renders a delay compactly for an answer button: "<1m",
// "10m", "1.5h", "4d", "3mo", "1.2y" (the number and unit of SplitInterval).
func FormatInterval(d time.Duration) string {
	n, u := SplitInterval(d)
	return n + intervalSuffixes[u]
}

// SplitInterval gives a delay as a number and a unit, for rendering in any
// language. Minutes are whole; hours, days, months (30 days) and years (365
// days) carry at most one decimal, rounded half up. A value that rounds up
// to the next unit is given in that unit (1 hour, not 60 minutes). A delay
// under a minute, negative ones included, is UnderMinute with no number.
func SplitInterval(d time.Duration) (string, IntervalUnit) {
	if d < time.Minute {
		return "", UnderMinute
	}
	if d < time.Hour {
		m := (d + 30*time.Second) / time.Minute
		if m < 60 {
			return strconv.FormatInt(int64(m), 10), Minutes
		}
	}
	hours := d.Hours()
	if v := roundTenth(hours); v < 24 {
		return formatTenth(v), Hours
	}
	days := hours / 24
	if v := roundTenth(days); v < 30 {
		return formatTenth(v), Days
	}
	if days < 365 {
		return formatTenth(roundTenth(days / 30)), Months
	}
	return formatTenth(roundTenth(days / 365)), Years
}

func roundTenth(x float64) float64 { return jsRound(float64(x*10)) / 10 }

func formatTenth(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
