package fsrs

import (
	"strconv"
	"time"
)

// FormatInterval renders a delay compactly for an answer button: "<1m",
// "10m", "1.5h", "4d", "3mo", "1.2y". Minutes are whole; hours, days, months
// (30 days) and years (365 days) carry at most one decimal, rounded half up.
// A value that rounds up to the next unit is shown in that unit ("1h", not
// "60m"). Negative delays render as "<1m".
func FormatInterval(d time.Duration) string {
	if d < time.Minute {
		return "<1m"
	}
	if d < time.Hour {
		m := (d + 30*time.Second) / time.Minute
		if m < 60 {
			return strconv.FormatInt(int64(m), 10) + "m"
		}
	}
	hours := d.Hours()
	if v := roundTenth(hours); v < 24 {
		return formatTenth(v) + "h"
	}
	days := hours / 24
	if v := roundTenth(days); v < 30 {
		return formatTenth(v) + "d"
	}
	if days < 365 {
		return formatTenth(roundTenth(days/30)) + "mo"
	}
	return formatTenth(roundTenth(days/365)) + "y"
}

func roundTenth(x float64) float64 { return jsRound(float64(x*10)) / 10 }

func formatTenth(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
