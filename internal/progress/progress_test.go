package progress

import (
	"slices"
	"testing"
	"time"

	_ "time/tzdata" // time zones in tests do not depend on the machine

	"kubequiz/internal/fsrs"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func memory(t *testing.T, retention float64) Memory {
	t.Helper()
	p := fsrs.DefaultParams()
	p.DesiredRetention = retention
	s, err := fsrs.NewScheduler(p)
	if err != nil {
		t.Fatal(err)
	}
	return Memory{Scheduler: s, DesiredRetention: retention}
}

var now = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// reviewed is a card in state with stability s, last reviewed ago before
// now and due at due.
func reviewed(state fsrs.State, s float64, ago time.Duration, due time.Time) fsrs.Card {
	return fsrs.Card{State: state, Stability: s, Difficulty: 5, LastReview: now.Add(-ago), Due: due, Reps: 3}
}

func TestMastered(t *testing.T) {
	tests := []struct {
		name      string
		card      fsrs.Card
		retention float64
		want      bool
	}{
		// The forgetting curve falls to 0.9 at t = S: before, R is above it.
		{"review card well within its stability", reviewed(fsrs.Review, 10, 9*day, now), 0.9, true},
		{"review card past its stability", reviewed(fsrs.Review, 10, 11*day, now), 0.9, false},
		{"reviewed minutes ago", reviewed(fsrs.Review, 10, time.Minute, now), 0.9, true},
		{"a higher desired retention asks more", reviewed(fsrs.Review, 10, 5*day, now), 0.97, false},
		{"a lower one asks less", reviewed(fsrs.Review, 10, 20*day, now), 0.7, true},
		{"whole days only: 9 days 23 hours is 9 days", reviewed(fsrs.Review, 10, 10*day-time.Hour, now), 0.9, true},
		{"learning card answered a minute ago", reviewed(fsrs.Learning, 2.3, time.Minute, now), 0.9, false},
		{"relearning card", reviewed(fsrs.Relearning, 5, time.Hour, now), 0.9, false},
		{"new card", fsrs.NewCard(now), 0.9, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := memory(t, tt.retention)
			if got := m.Mastered(tt.card, now); got != tt.want {
				t.Errorf("Mastered = %v (retrievability %v), want %v", got, m.Scheduler.Retrievability(tt.card, now), tt.want)
			}
		})
	}
}

func TestCountCards(t *testing.T) {
	m := memory(t, 0.9)
	tests := []struct {
		name        string
		cards       []fsrs.Card
		total       int
		want        Cards
		wantMastery Share
	}{
		{"deck never studied", nil, 12, Cards{Total: 12}, Share{0, 12}},
		{"unseen cards count as not mastered", []fsrs.Card{
			reviewed(fsrs.Review, 30, 2*day, now),   // mature, mastered
			reviewed(fsrs.Review, 21, 30*day, now),  // mature, forgotten
			reviewed(fsrs.Review, 20.9, 1*day, now), // not mature, mastered
			reviewed(fsrs.Learning, 25, 0, now),     // mature, still learning
		}, 10, Cards{Total: 10, Seen: 4, Mature: 3, Mastered: 2}, Share{2, 10}},
		{"a card in the New state is unseen", []fsrs.Card{fsrs.NewCard(now)}, 1, Cards{Total: 1}, Share{0, 1}},
		{"empty deck", nil, 0, Cards{}, Share{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CountCards(tt.cards, tt.total, now, m)
			if got != tt.want {
				t.Errorf("CountCards = %+v, want %+v", got, tt.want)
			}
			if s := Mastery(tt.cards, tt.total, now, m); s != tt.wantMastery || got.Mastery() != s {
				t.Errorf("Mastery = %+v (Cards.Mastery %+v), want %+v", s, got.Mastery(), tt.wantMastery)
			}
			if got.Unseen() != tt.total-tt.want.Seen {
				t.Errorf("Unseen = %d, want %d", got.Unseen(), tt.total-tt.want.Seen)
			}
		})
	}
	sum := Cards{Total: 3, Seen: 2, Mature: 1, Mastered: 1}.Add(Cards{Total: 5, Seen: 4, Mature: 2, Mastered: 3})
	if sum != (Cards{Total: 8, Seen: 6, Mature: 3, Mastered: 4}) {
		t.Errorf("Cards.Add = %+v", sum)
	}
}

func TestShare(t *testing.T) {
	tests := []struct {
		s      Share
		want   float64
		wantOK bool
	}{
		{Share{0, 0}, 0, false},
		{Share{0, 4}, 0, true},
		{Share{3, 4}, 0.75, true},
		{Share{4, 4}, 1, true},
	}
	for _, tt := range tests {
		r, ok := tt.s.Ratio()
		if r != tt.want || ok != tt.wantOK {
			t.Errorf("%+v.Ratio() = %v, %v; want %v, %v", tt.s, r, ok, tt.want, tt.wantOK)
		}
	}
	if got := (Share{1, 2}).Add(Share{3, 5}); got != (Share{4, 7}) {
		t.Errorf("Share.Add = %+v", got)
	}
}

func TestTrueRetention(t *testing.T) {
	tests := []struct {
		name   string
		counts []ReviewCount
		want   Share
	}{
		{"no reviews", nil, Share{}},
		{"Hard and better pass, Again fails", []ReviewCount{
			{fsrs.Review, fsrs.Again, 2}, {fsrs.Review, fsrs.Hard, 3}, {fsrs.Review, fsrs.Good, 10}, {fsrs.Review, fsrs.Easy, 5},
		}, Share{18, 20}},
		{"only cards in review before the review count", []ReviewCount{
			{fsrs.New, fsrs.Good, 7}, {fsrs.Learning, fsrs.Again, 4}, {fsrs.Relearning, fsrs.Good, 2},
			{fsrs.Review, fsrs.Good, 1},
		}, Share{1, 1}},
		{"all forgotten", []ReviewCount{{fsrs.Review, fsrs.Again, 3}}, Share{0, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TrueRetention(tt.counts); got != tt.want {
				t.Errorf("TrueRetention = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDueToday(t *testing.T) {
	end := now.Add(16 * time.Hour)
	cards := []fsrs.Card{
		reviewed(fsrs.Learning, 1, time.Minute, now.Add(9*time.Minute)),
		reviewed(fsrs.Relearning, 1, time.Minute, now.Add(-time.Minute)),
		reviewed(fsrs.Learning, 1, time.Minute, end), // due as the next day starts
		reviewed(fsrs.Review, 5, 5*day, now.Add(-40*day)),
		reviewed(fsrs.Review, 5, 5*day, end.Add(-time.Millisecond)),
		reviewed(fsrs.Review, 5, 5*day, end.Add(day)),
	}
	if got, want := CountDue(cards, end), (Due{Learning: 2, Review: 2}); got != want {
		t.Errorf("CountDue = %+v, want %+v", got, want)
	}
	tests := []struct {
		name       string
		due        Due
		limits     [4]int // new per day, reviews per day, new today, reviews today
		want       Due
		wantAllows Allowance
	}{
		{"within the limits", Due{Learning: 3, Review: 10, New: 4}, [4]int{20, 200, 0, 0}, Due{3, 10, 4}, Allowance{20, 200}},
		{"new cards up to what is left", Due{Learning: 0, Review: 10, New: 50}, [4]int{20, 200, 15, 3}, Due{0, 10, 5}, Allowance{5, 197}},
		{"reviews up to what is left", Due{Learning: 1, Review: 300, New: 0}, [4]int{20, 200, 0, 150}, Due{1, 50, 0}, Allowance{20, 50}},
		{"limits reached: learning cards still count", Due{Learning: 2, Review: 9, New: 9}, [4]int{20, 200, 20, 200}, Due{2, 0, 0}, Allowance{}},
		{"limits lowered below the day's work", Due{Review: 9, New: 9}, [4]int{5, 10, 8, 30}, Due{}, Allowance{}},
		{"a limit of 0", Due{Review: 9, New: 9}, [4]int{0, 0, 0, 0}, Due{}, Allowance{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := AllowanceLeft(tt.limits[0], tt.limits[1], tt.limits[2], tt.limits[3])
			if a != tt.wantAllows {
				t.Errorf("AllowanceLeft = %+v, want %+v", a, tt.wantAllows)
			}
			if got := tt.due.Limit(a); got != tt.want {
				t.Errorf("Limit = %+v, want %+v", got, tt.want)
			}
		})
	}
	// The allowance is shared: the sum of two decks is limited once.
	a := Allowance{New: 5, Review: 100}
	d1, d2 := Due{New: 4}, Due{New: 4}
	if got := d1.Add(d2).Limit(a); got.New != 5 || got.Total() != 5 {
		t.Errorf("two decks of 4 new cards with 5 allowed: %+v", got)
	}
}

func TestNextDue(t *testing.T) {
	tests := []struct {
		name  string
		cards []fsrs.Card
		want  time.Time
	}{
		{"no cards", nil, time.Time{}},
		{"every card due already", []fsrs.Card{reviewed(fsrs.Review, 5, day, now.Add(-time.Hour))}, time.Time{}},
		{"the earliest after now", []fsrs.Card{
			reviewed(fsrs.Review, 5, day, now.Add(-time.Hour)),
			reviewed(fsrs.Review, 5, day, now.Add(3*day)),
			reviewed(fsrs.Learning, 1, time.Minute, now.Add(10*time.Minute)),
			fsrs.NewCard(now.Add(time.Minute)),
		}, now.Add(10 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextDue(tt.cards, now); !got.Equal(tt.want) {
				t.Errorf("NextDue = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDays(t *testing.T) {
	tokyo, ny := mustZone(t, "Asia/Tokyo"), mustZone(t, "America/New_York")
	tests := []struct {
		name     string
		now      time.Time
		loc      *time.Location
		from, n  int
		want     []time.Time
		wantHour []time.Duration // each day's length
	}{
		{"today, before 04:00 is yesterday's", time.Date(2026, 3, 10, 3, 0, 0, 0, tokyo), tokyo, 0, 1,
			[]time.Time{time.Date(2026, 3, 9, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo)}, nil},
		{"the three days before today", time.Date(2026, 3, 10, 12, 0, 0, 0, tokyo), tokyo, -3, 3,
			[]time.Time{time.Date(2026, 3, 7, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 8, 4, 0, 0, 0, tokyo),
				time.Date(2026, 3, 9, 4, 0, 0, 0, tokyo), time.Date(2026, 3, 10, 4, 0, 0, 0, tokyo)}, nil},
		{"a DST change (2026-03-08 02:00) makes a day of 23 hours", time.Date(2026, 3, 9, 12, 0, 0, 0, ny), ny, -2, 3,
			[]time.Time{time.Date(2026, 3, 7, 4, 0, 0, 0, ny), time.Date(2026, 3, 8, 4, 0, 0, 0, ny),
				time.Date(2026, 3, 9, 4, 0, 0, 0, ny), time.Date(2026, 3, 10, 4, 0, 0, 0, ny)},
			[]time.Duration{23 * time.Hour, 24 * time.Hour, 24 * time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Days(tt.now, tt.loc, tt.from, tt.n)
			if !slices.EqualFunc(got, tt.want, time.Time.Equal) {
				t.Errorf("Days = %v, want %v", got, tt.want)
			}
			for i, h := range tt.wantHour {
				if d := got[i+1].Sub(got[i]); d != h {
					t.Errorf("day %d lasts %v, want %v", i, d, h)
				}
			}
		})
	}
}

func TestForecast(t *testing.T) {
	days := Days(now, time.UTC, 0, 3) // 04:00 UTC on the 15th, 16th, 17th and 18th
	at := func(d, h int) time.Time { return time.Date(2026, 6, d, h, 0, 0, 0, time.UTC) }
	tests := []struct {
		name string
		dues []time.Time
		want []int
	}{
		{"nothing scheduled", nil, []int{0, 0, 0}},
		{"overdue cards count today", []time.Time{at(1, 12), at(15, 3), at(15, 23)}, []int{3, 0, 0}},
		{"a day runs from 04:00 to 04:00", []time.Time{at(16, 3), at(16, 4), at(17, 3)}, []int{1, 2, 0}},
		{"after the last day: none", []time.Time{at(17, 4), at(18, 4), at(30, 0)}, []int{0, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cards []fsrs.Card
			for _, d := range tt.dues {
				cards = append(cards, reviewed(fsrs.Review, 5, day, d))
			}
			cards = append(cards, fsrs.NewCard(at(15, 12))) // never reviewed: not scheduled
			if got := Forecast(cards, days); !slices.Equal(got, tt.want) {
				t.Errorf("Forecast = %v, want %v", got, tt.want)
			}
		})
	}
	if got := Forecast(nil, days[:1]); got != nil {
		t.Errorf("Forecast over no day = %v", got)
	}
}

func TestCalendar(t *testing.T) {
	days := Days(now, time.UTC, -2, 3)
	got := Calendar(days, []int{4, 0, 7})
	want := []Day{{days[0], 4}, {days[1], 0}, {days[2], 7}}
	if !slices.Equal(got, want) {
		t.Errorf("Calendar = %v, want %v", got, want)
	}
}

func TestCountStreak(t *testing.T) {
	tests := []struct {
		name        string
		studied     []bool
		want        Streak
		wantReaches bool
	}{
		{"no days", nil, Streak{}, false},
		{"never studied", []bool{false, false, false}, Streak{}, false},
		{"studied today only", []bool{false, false, true}, Streak{Days: 1, StudiedToday: true}, false},
		{"not yet today: the run ends yesterday", []bool{false, true, true, false}, Streak{Days: 2}, false},
		{"a day missed before yesterday", []bool{true, false, true, true}, Streak{Days: 2, StudiedToday: true}, false},
		{"yesterday missed: no streak", []bool{true, true, false, false}, Streak{}, false},
		{"every day: it may go on before", []bool{true, true, true}, Streak{Days: 3, StudiedToday: true}, true},
		{"every day but today: it may go on before", []bool{true, true, false}, Streak{Days: 2}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CountStreak(tt.studied)
			if got != tt.want {
				t.Errorf("CountStreak = %+v, want %+v", got, tt.want)
			}
			if r := got.Reaches(len(tt.studied)); r != tt.wantReaches {
				t.Errorf("Reaches(%d) = %v, want %v", len(tt.studied), r, tt.wantReaches)
			}
		})
	}
}

func TestFiguresAdd(t *testing.T) {
	a := Figures{Cards: Cards{Total: 10, Seen: 4, Mature: 1, Mastered: 2}, Retention: Share{8, 9}, Due: Due{1, 2, 6}}
	b := Figures{Cards: Cards{Total: 5, Seen: 5, Mature: 5, Mastered: 5}, Retention: Share{0, 1}, Due: Due{0, 3, 0}}
	want := Figures{Cards: Cards{Total: 15, Seen: 9, Mature: 6, Mastered: 7}, Retention: Share{8, 10}, Due: Due{1, 5, 6}}
	if got := a.Add(b); got != want {
		t.Errorf("Figures.Add = %+v, want %+v", got, want)
	}
}
