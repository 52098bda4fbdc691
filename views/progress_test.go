package views

import (
	"context"
	"strings"
	"testing"
)

func TestDaySummaryText(t *testing.T) {
	tests := []struct {
		s    DaySummary
		want string
	}{
		{DaySummary{Reviews: 3, Correct: 1, Time: "45秒"}, "今日の学習: 3 枚、正解 1 枚 (33%)、45秒。"},
		{DaySummary{Reviews: 3, Correct: 2, Time: "1分"}, "今日の学習: 3 枚、正解 2 枚 (67%)、1分。"},
		{DaySummary{Reviews: 8, Correct: 1, Time: "2分"}, "今日の学習: 8 枚、正解 1 枚 (13%)、2分。"},
		{DaySummary{Reviews: 200, Correct: 200, Time: "1時間"}, "今日の学習: 200 枚、正解 200 枚 (100%)、1時間。"},
		{DaySummary{Reviews: 7, Time: "9秒"}, "今日の学習: 7 枚、正解 0 枚 (0%)、9秒。"},
	}
	for _, tt := range tests {
		if got := tt.s.Text(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestStudyCountsMarkup: the counts in Anki's order, the kind of the card
// shown marked for sight and for screen readers; without counts, an empty
// hidden element for a fragment to replace; out of band only in a
// fragment.
func TestStudyCountsMarkup(t *testing.T) {
	render := func(c *StudyCounts, oob bool) string {
		t.Helper()
		var b strings.Builder
		if err := studyCounts(c, oob).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := render(&StudyCounts{New: 3, Learning: 1, Review: 12, Current: CountReview}, false)
	for _, want := range []string{`<p id="study-counts" class="study-counts">`, `新規 <strong>3</strong>`,
		`<span class="count count-review current">復習 <strong>12</strong> <span class="visually-hidden">(表示中のカード)</span>`} {
		if !strings.Contains(got, want) {
			t.Errorf("counts lack %s: %s", want, got)
		}
	}
	if strings.Index(got, "新規") > strings.Index(got, "学習中") || strings.Index(got, "学習中") > strings.Index(got, "復習") {
		t.Errorf("counts not in the order new, learning, review: %s", got)
	}
	if strings.Count(got, "表示中のカード") != 1 || strings.Contains(got, "hx-swap-oob") {
		t.Errorf("counts: %s", got)
	}
	if got := render(&StudyCounts{}, true); !strings.Contains(got, `hx-swap-oob="true"`) || strings.Contains(got, "表示中") {
		t.Errorf("out-of-band counts without a card: %s", got)
	}
	if got := render(nil, false); got != `<p id="study-counts" class="study-counts" hidden></p>` {
		t.Errorf("no counts: %s", got)
	}
}
