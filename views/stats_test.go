package views

import (
	"strings"
	"testing"
	"time"
)

func TestSharePercent(t *testing.T) {
	tests := []struct {
		s    Share
		want string
	}{
		{Share{0, 0}, "—"},
		{Share{0, 5}, "0%"},
		{Share{1, 3}, "33%"},
		{Share{2, 3}, "66%"}, // rounded down: 100% only when all are
		{Share{199, 200}, "99%"},
		{Share{29, 100}, "29%"},
		{Share{7, 7}, "100%"},
	}
	for _, tt := range tests {
		if got := tt.s.Percent(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	tests := []struct{ top, want int }{
		{1, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 5}, {20, 5}, {21, 10}, {40, 10}, {41, 20}, {199, 50}, {201, 100}, {4001, 2000},
	}
	for _, tt := range tests {
		if got := niceStep(tt.top); got != tt.want || 4*got < tt.top {
			t.Errorf("niceStep(%d) = %d, want %d", tt.top, got, tt.want)
		}
	}
}

// TestCalendarLevels: every count has one shade, 0 only for none, the
// busiest day the darkest, and each shade's range says so.
func TestCalendarLevels(t *testing.T) {
	for _, most := range []int{1, 2, 3, 4, 5, 7, 36, 274, 1000} {
		for n := 0; n <= most; n++ {
			lv := calendarLevel(n, most)
			if (n == 0) != (lv == 0) || lv > 4 || (n == most && lv != 4) {
				t.Errorf("calendarLevel(%d, %d) = %d", n, most, lv)
			}
			if r := calendarRange(lv, most); r == "—" {
				t.Errorf("most %d: the shade of %d has no range", most, n)
			}
		}
	}
	tests := []struct {
		level, most int
		want        string
	}{
		{0, 8, "0 回"}, {1, 8, "1〜2 回"}, {4, 8, "7〜8 回"}, {1, 1, "—"}, {4, 1, "1 回"}, {2, 0, "—"},
	}
	for _, tt := range tests {
		if got := calendarRange(tt.level, tt.most); got != tt.want {
			t.Errorf("calendarRange(%d, %d) = %q, want %q", tt.level, tt.most, got, tt.want)
		}
	}
}

func TestMasteryLevel(t *testing.T) {
	tests := []struct {
		s    Share
		want int
	}{
		{Share{0, 0}, 0}, {Share{0, 10}, 0}, {Share{1, 100}, 1}, {Share{24, 100}, 1}, {Share{25, 100}, 2},
		{Share{1, 2}, 3}, {Share{74, 100}, 3}, {Share{3, 4}, 4}, {Share{10, 10}, 4},
	}
	for _, tt := range tests {
		if got := masteryLevel(tt.s); got != tt.want {
			t.Errorf("masteryLevel(%+v) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

// TestCalendarLayout: a year of days in week columns, Sunday on top, each
// day once, with its count in its title and month names where months
// begin.
func TestCalendarLayout(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	first := time.Date(2025, 12, 3, 4, 0, 0, 0, tokyo) // a Wednesday
	var days []ChartDay
	for i := range 365 {
		days = append(days, ChartDay{Date: first.AddDate(0, 0, i), Count: i % 5})
	}
	c := calendar(days)
	if len(c.Cells) != 365 || c.Total != 730 || c.Max != 4 {
		t.Fatalf("%d cells, total %d, most %d", len(c.Cells), c.Total, c.Max)
	}
	// Wednesday is the fourth row of the first column; the day after the
	// last Saturday of a column starts the next one.
	if c.Cells[0].X != "22" || c.Cells[0].Y != "63" || c.Cells[4].X != "37" || c.Cells[4].Y != "18" {
		t.Errorf("the first days at %+v, %+v", c.Cells[0], c.Cells[4])
	}
	if !strings.HasPrefix(c.Cells[364].Label, "2026年12月2日 (水): 4 回") {
		t.Errorf("the last day's title: %q", c.Cells[364].Label)
	}
	var names []string
	for _, m := range c.Months {
		names = append(names, m.Text)
	}
	if got := strings.Join(names, " "); got != "1月 2月 3月 4月 5月 6月 7月 8月 9月 10月 11月 12月" {
		t.Errorf("month names %q", got)
	}
	// 53 weeks, and room for the last month's name.
	if c.Width != "841" {
		t.Errorf("width %s", c.Width)
	}
	m := months(days)
	if len(m) != 13 || m[0].Label != "2025年12月" || m[12].Label != "2026年12月" || m[0].Studied+m[0].Reviews == 0 {
		t.Errorf("months %+v", m)
	}
}

// TestMasteryMap: a cell per release and SIG with a deck, an empty one
// for a pair without, each titled with its figures.
func TestMasteryMap(t *testing.T) {
	v := StatsView{
		Releases: []string{"1.36", "1.35"},
		MapSIGs:  []string{"SIG-Apps", "SIG-Node"},
		Map: [][]MapCell{
			{{Decks: 1, Mastery: Share{1, 4}}, {Decks: 2, Mastery: Share{9, 9}}},
			{{}, {Decks: 1, Mastery: Share{0, 3}}},
		},
	}
	m := mastery(v)
	if len(m.Cells) != 3 || len(m.Empty) != 1 || len(m.Texts) != 3 || len(m.Rows) != 2 || len(m.Cols) != 2 {
		t.Fatalf("%+v", m)
	}
	want := []string{"v1.36 × SIG-Apps: 習得率 25% (1 / 4 枚)", "v1.36 × SIG-Node: 習得率 100% (9 / 9 枚)", "v1.35 × SIG-Node: 習得率 0% (0 / 3 枚)"}
	for i, c := range m.Cells {
		if c.Label != want[i] || m.Texts[i].Text != strings.Fields(strings.SplitN(want[i], "習得率 ", 2)[1])[0] {
			t.Errorf("cell %d: %q %q, want %q", i, c.Label, m.Texts[i].Text, want[i])
		}
	}
	if m.Empty[0].Label != "v1.35 × SIG-Apps: デッキなし" {
		t.Errorf("empty cell %q", m.Empty[0].Label)
	}
	if levels := []int{m.Cells[0].Level, m.Cells[1].Level, m.Cells[2].Level}; levels[0] != 2 || levels[1] != 4 || levels[2] != 0 {
		t.Errorf("levels %v", levels)
	}
}
