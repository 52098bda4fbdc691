package quiz

import "time"

// DayStartHour is the local hour at which a study day begins, as in Anki:
// reviews done at 01:00 still count towards the day before. The daily
// limits reset at it, and the figures of a learner's progress count days
// by it.
const DayStartHour = 4

// StudyDay returns the start of the study day that contains now in loc, and
// the start of the next one. A day is 23 or 25 hours long when the zone's
// clocks change within it.
func StudyDay(now time.Time, loc *time.Location) (start, next time.Time) {
	t := now.In(loc)
	start = time.Date(t.Year(), t.Month(), t.Day(), DayStartHour, 0, 0, 0, loc)
	if t.Before(start) {
		start = time.Date(t.Year(), t.Month(), t.Day()-1, DayStartHour, 0, 0, 0, loc)
	}
	next = time.Date(start.Year(), start.Month(), start.Day()+1, DayStartHour, 0, 0, 0, loc)
	return start, next
}
