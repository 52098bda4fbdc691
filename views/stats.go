package views

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Share is a part of a whole as the statistics page shows it: mastered
// cards of a deck's cards, passed reviews of the reviews counted.
type Share struct {
	Part, Whole int
}

// Percent is the share as a whole percentage, rounded down so that 100%
// means all of it; "—" when the whole is 0, which has no share.
func (s Share) Percent() string {
	if s.Whole <= 0 {
		return "—"
	}
	return strconv.Itoa(s.percent()) + "%"
}

// percent is the share in whole percent, rounded down (0 when the whole is 0).
func (s Share) percent() int {
	if s.Whole <= 0 {
		return 0
	}
	return s.Part * 100 / s.Whole
}

// Detail is the share's part and whole: "12 / 40".
func (s Share) Detail() string { return strconv.Itoa(s.Part) + " / " + strconv.Itoa(s.Whole) }

// StatsRow is the figures of one deck, one SIG or all of them.
type StatsRow struct {
	// Name is the deck's title or the SIG's name.
	Name string
	// Href links a deck to its card on the decks page; "" for a SIG.
	Href string
	// Release and SIG are a deck's; Line is a SIG's line under its name.
	Release, SIG, Line string
	// Total counts the cards (published questions, seen or not), Seen
	// those the learner has reviewed, Mature those with a stability of
	// at least MatureDays days.
	Total, Seen, Mature int
	// Retention is the true retention of the last RetentionDays days:
	// passed reviews of cards in review among those reviews.
	Retention Share
	// Mastery is the share of the cards mastered.
	Mastery Share
}

// ChartDay is one study day of the forecast or the calendar: the date it
// began on (in the learner's time zone) and its count.
type ChartDay struct {
	Date  time.Time
	Count int
}

// MapCell is one release and SIG of the mastery map.
type MapCell struct {
	// Decks counts the decks of that release and SIG; none: no cell.
	Decks   int
	Mastery Share
}

// StatsView is what the statistics page shows.
type StatsView struct {
	// Empty is a learner who has reviewed nothing yet.
	Empty bool
	// DesiredRetention is the learner's, in whole percent.
	DesiredRetention int
	// MatureDays and RetentionDays are the figures' thresholds.
	MatureDays, RetentionDays int
	Total                     StatsRow
	Decks, SIGs               []StatsRow
	// StreakDays counts the study days in a row with reviews; StudiedToday
	// tells whether today is one of them.
	StreakDays   int
	StudiedToday bool
	// DueToday counts the cards left to study today, within the daily
	// limits; NextDue is when the next card falls due, in the learner's
	// time zone (zero when none is scheduled).
	DueToday int
	NextDue  time.Time
	// Forecast counts the cards falling due on each of the next days,
	// today first; Calendar the reviews on each of the last days, today
	// last.
	Forecast, Calendar []ChartDay
	// Releases and MapSIGs head the mastery map's rows and columns; Map
	// holds a row of cells per release, a cell per SIG.
	Releases, MapSIGs []string
	Map               [][]MapCell
}

// The statistics page's empty labels.
const noneLabel = "(なし)"

// orNone is s, or noneLabel when it is empty.
func orNone(s string) string {
	if s == "" {
		return noneLabel
	}
	return s
}

var weekdays = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// dayLabel is a short date with its weekday: "11/20 (金)".
func dayLabel(t time.Time) string {
	return fmt.Sprintf("%d/%d (%s)", t.Month(), t.Day(), weekdays[t.Weekday()])
}

// fullDate is "2026年11月20日 (金)".
func fullDate(t time.Time) string {
	return fmt.Sprintf("%d年%d月%d日 (%s)", t.Year(), t.Month(), t.Day(), weekdays[t.Weekday()])
}

// dueTime is when a card falls due, as the summary says it: "11/21 (土) 09:30".
func dueTime(t time.Time) string { return dayLabel(t) + " " + t.Format("15:04") }

// itoa is strconv.Itoa, for templates.
func itoa(n int) string { return strconv.Itoa(n) }

// num formats SVG coordinates: at most two decimals, no trailing zeros.
func num(f float64) string { return strconv.FormatFloat(float64(int64(f*100+0.5))/100, 'f', -1, 64) }

// em is a length in user units as CSS ems of 16 units, so that a chart
// drawn at its own size grows with the page's text.
func em(units string) string {
	f, err := strconv.ParseFloat(units, 64)
	if err != nil {
		return units
	}
	return num(f/16) + "em"
}

// Chart geometry. Lengths are in the SVG's user units; the forecast
// scales to the width of its box, the calendar and the map keep their
// size (in ems: they grow with the text) and scroll in their box on a
// narrow screen.
const (
	chartFont = 12

	fcWidth, fcHeight             = 400, 180
	fcLeft, fcRight, fcTop, fcBot = 34, 6, 10, 24

	calCell, calGap  = 12, 3
	calLeft, calTop  = 22, 18
	calPitch         = calCell + calGap
	mapCellW, mapRow = 60, 32
	mapGap           = 3
)

// Bar is one bar of the forecast.
type Bar struct {
	X, Y, W, H string
	Label      string // the bar's <title>
}

// Tick is a label on an axis, at a position.
type Tick struct {
	Pos, Pos2 string
	Text      string
}

// forecastChart is the forecast's bars and axes.
type forecastChart struct {
	Bars          []Bar
	YTicks        []Tick // horizontal grid lines with their counts
	XTicks        []Tick // dates under the bars
	Width, Height string
	Total         int
	Max           int
}

// niceStep is a step of 1, 2 or 5 times a power of ten such that at most
// four steps cover top.
func niceStep(top int) int {
	for step := 1; ; step *= 10 {
		for _, m := range []int{1, 2, 5} {
			if top <= 4*step*m {
				return step * m
			}
		}
	}
}

// forecast lays out the bar chart of days.
func forecast(days []ChartDay) forecastChart {
	out := forecastChart{Width: itoa(fcWidth), Height: itoa(fcHeight)}
	for _, d := range days {
		out.Total += d.Count
		out.Max = max(out.Max, d.Count)
	}
	step := niceStep(max(out.Max, 1))
	top := step * ((max(out.Max, 1) + step - 1) / step)
	plotW, plotH := float64(fcWidth-fcLeft-fcRight), float64(fcHeight-fcTop-fcBot)
	base := float64(fcTop) + plotH
	for v := 0; v <= top; v += step {
		y := base - plotH*float64(v)/float64(top)
		out.YTicks = append(out.YTicks, Tick{Pos: num(y), Pos2: num(y + 4), Text: itoa(v)})
	}
	if len(days) == 0 {
		return out
	}
	slot := plotW / float64(len(days))
	for i, d := range days {
		x := float64(fcLeft) + slot*float64(i)
		if i%7 == 0 {
			text := fmt.Sprintf("%d/%d", d.Date.Month(), d.Date.Day())
			if i == 0 {
				text = "今日"
			}
			out.XTicks = append(out.XTicks, Tick{Pos: num(x + slot/2), Text: text})
		}
		label := dayLabel(d.Date) + ": " + itoa(d.Count) + " 枚"
		if i == 0 {
			label = "今日 " + label + " (期限切れを含む)"
		}
		if d.Count == 0 {
			continue
		}
		h := max(plotH*float64(d.Count)/float64(top), 1)
		out.Bars = append(out.Bars, Bar{X: num(x + slot*0.15), Y: num(base - h), W: num(slot * 0.7), H: num(h), Label: label})
	}
	return out
}

// Cell is one square of the calendar or one cell of the mastery map.
type Cell struct {
	X, Y  string
	Level int // 0 (none) to 4 (most)
	Label string
}

// calendarChart is the calendar's grid: a column per week, Sunday on top.
type calendarChart struct {
	Cells         []Cell
	Months        []Tick
	Days          []Tick // weekday names at the left
	Width, Height string
	Total, Max    int
	Studied       int
}

// calendarLevel is the shade of a day of count reviews when the busiest
// day had most: 0 for none, then quarters of most.
func calendarLevel(count, most int) int {
	if count <= 0 || most <= 0 {
		return 0
	}
	return min((4*count+most-1)/most, 4)
}

// calendar lays out days (consecutive, oldest first) as weeks.
func calendar(days []ChartDay) calendarChart {
	var out calendarChart
	for _, d := range days {
		out.Total += d.Count
		out.Max = max(out.Max, d.Count)
		if d.Count > 0 {
			out.Studied++
		}
	}
	weeks := 0
	if len(days) > 0 {
		offset := int(days[0].Date.Weekday())
		weeks = (offset + len(days) + 6) / 7
		lastLabel := -3
		for i, d := range days {
			col, row := (offset+i)/7, int(d.Date.Weekday())
			x, y := calLeft+col*calPitch, calTop+row*calPitch
			label := fullDate(d.Date) + ": " + itoa(d.Count) + " 回"
			out.Cells = append(out.Cells, Cell{X: itoa(x), Y: itoa(y), Level: calendarLevel(d.Count, out.Max), Label: label})
			if d.Date.Day() == 1 && col-lastLabel >= 3 {
				out.Months = append(out.Months, Tick{Pos: itoa(x), Text: itoa(int(d.Date.Month())) + "月"})
				lastLabel = col
			}
		}
	}
	for _, row := range []int{1, 3, 5} {
		out.Days = append(out.Days, Tick{Pos: itoa(calTop + row*calPitch + calCell - 2), Text: weekdays[row]})
	}
	// Room on the right for the last month's name.
	out.Width, out.Height = itoa(calLeft+max(weeks, 1)*calPitch+24), itoa(calTop+7*calPitch)
	return out
}

// calendarRange says which counts a shade of the calendar stands for.
func calendarRange(level, most int) string {
	if level == 0 {
		return "0 回"
	}
	if most <= 0 {
		return "—"
	}
	lo, hi := 1, 0
	for n := 1; n <= most; n++ {
		switch lv := calendarLevel(n, most); {
		case lv < level:
			lo = n + 1
		case lv == level:
			hi = n
		}
	}
	switch {
	case hi < lo:
		return "—"
	case lo == hi:
		return itoa(lo) + " 回"
	}
	return itoa(lo) + "〜" + itoa(hi) + " 回"
}

// Month is one month of the calendar's table.
type Month struct {
	Label            string
	Reviews, Studied int
}

// months sums days by calendar month, oldest first.
func months(days []ChartDay) []Month {
	var out []Month
	for _, d := range days {
		label := fmt.Sprintf("%d年%d月", d.Date.Year(), d.Date.Month())
		if len(out) == 0 || out[len(out)-1].Label != label {
			out = append(out, Month{Label: label})
		}
		m := &out[len(out)-1]
		m.Reviews += d.Count
		if d.Count > 0 {
			m.Studied++
		}
	}
	return out
}

// masteryLevel is the shade of a mastery share: 0 for none, then 1 to 4
// for each quarter (a cell 100% mastered is 4).
func masteryLevel(s Share) int {
	if s.Part <= 0 || s.Whole <= 0 {
		return 0
	}
	return min(s.percent()/25+1, 4)
}

// masteryRanges says which shares each shade of the map stands for.
var masteryRanges = [...]string{"0%", "1〜24%", "25〜49%", "50〜74%", "75〜100%"}

// MapText is a cell's percentage, centred in it.
type MapText struct {
	X, Y, Text string
	Level      int
}

// masteryMap is the release x SIG map's layout.
type masteryMap struct {
	Cells         []Cell
	Texts         []MapText
	Empty         []Cell // release and SIG without a deck
	Rows, Cols    []Tick
	Width, Height string
}

// textWidth estimates the width of s at the chart's font size: wide
// (CJK) characters one em, others 0.62 em.
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if utf8.RuneLen(r) >= 3 {
			w += chartFont
		} else {
			w += 0.62 * chartFont
		}
	}
	return w
}

// mastery lays out the map: a row per release, a column per SIG, the
// SIGs' names slanted above their columns.
func mastery(v StatsView) masteryMap {
	var out masteryMap
	left := 0.0
	for _, r := range v.Releases {
		left = max(left, textWidth(releaseName(r)))
	}
	left += 10
	longest := 0.0
	for _, s := range v.MapSIGs {
		longest = max(longest, textWidth(orNone(s)))
	}
	// Names slant up to the right at 45 degrees from each column's middle.
	top := longest*0.71 + 12
	colX := func(j int) float64 { return left + float64(j*mapCellW) }
	rowY := func(i int) float64 { return top + float64(i*mapRow) }
	for j, s := range v.MapSIGs {
		x := colX(j) + mapCellW/2
		out.Cols = append(out.Cols, Tick{Pos: num(x), Pos2: num(top - 6), Text: orNone(s)})
	}
	for i, r := range v.Releases {
		out.Rows = append(out.Rows, Tick{Pos: num(left - 8), Pos2: num(rowY(i) + mapRow/2 + 2), Text: releaseName(r)})
		for j, s := range v.MapSIGs {
			c := v.Map[i][j]
			x, y := colX(j), rowY(i)
			cell := Cell{X: num(x), Y: num(y)}
			if c.Decks == 0 {
				cell.Label = releaseName(r) + " × " + orNone(s) + ": デッキなし"
				out.Empty = append(out.Empty, cell)
				continue
			}
			cell.Level = masteryLevel(c.Mastery)
			cell.Label = releaseName(r) + " × " + orNone(s) + ": 習得率 " + c.Mastery.Percent() + " (" + c.Mastery.Detail() + " 枚)"
			out.Cells = append(out.Cells, cell)
			out.Texts = append(out.Texts, MapText{X: num(x + (mapCellW-mapGap)/2.0), Y: num(y + (mapRow-mapGap)/2.0 + 4),
				Text: c.Mastery.Percent(), Level: cell.Level})
		}
	}
	width := colX(len(v.MapSIGs)) + max(longest*0.71-mapCellW/2, 0) + 4
	out.Width, out.Height = num(width), num(rowY(len(v.Releases)))
	return out
}

// mapSummary is the mastery map's description, for its text alternative.
func mapSummary(v StatsView) string {
	n := 0
	for _, row := range v.Map {
		for _, c := range row {
			if c.Decks > 0 {
				n++
			}
		}
	}
	return fmt.Sprintf("%d リリース × %d SIG のうち、デッキのある %d の組み合わせの習得率。色が濃いほど高い。各マスに割合を表示。",
		len(v.Releases), len(v.MapSIGs), n)
}

// releaseName is a release as the map's rows name it: "v1.36".
func releaseName(r string) string {
	if r == "" {
		return noneLabel
	}
	return "v" + strings.TrimPrefix(r, "v")
}

// forecastSummary says the forecast in words: its total, its busiest day
// and today's count.
func forecastSummary(days []ChartDay, c forecastChart) string {
	if len(days) == 0 {
		return "予定はありません。"
	}
	if c.Total == 0 {
		return fmt.Sprintf("今後 %d 日に期限が来るカードはありません。", len(days))
	}
	busiest := days[0]
	for _, d := range days {
		if d.Count > busiest.Count {
			busiest = d
		}
	}
	return fmt.Sprintf("今後 %d 日で合計 %d 枚。今日は期限切れを含めて %d 枚。最も多いのは %s の %d 枚。",
		len(days), c.Total, days[0].Count, dayLabel(busiest.Date), busiest.Count)
}

// calendarSummary says the calendar in words.
func calendarSummary(days []ChartDay, c calendarChart) string {
	if c.Total == 0 {
		return fmt.Sprintf("過去 %d 日に復習はありません。", len(days))
	}
	busiest := days[0]
	for _, d := range days {
		if d.Count > busiest.Count {
			busiest = d
		}
	}
	return fmt.Sprintf("過去 %d 日で %d 回復習し、%d 日学習しました。最も多かったのは %s の %d 回。",
		len(days), c.Total, c.Studied, fullDate(busiest.Date), busiest.Count)
}

// line is the row's line under its name: a deck's release and SIG when its
// title does not say them, a SIG's Line.
func (r StatsRow) line() string {
	if r.Href != "" {
		return releaseLine(r.Name, r.Release, r.SIG)
	}
	return r.Line
}
