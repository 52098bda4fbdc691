package group

import (
	"errors"
	"strings"
	"testing"
	"time"

	_ "time/tzdata" // time zones in tests do not depend on the machine

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestFormCheck(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, tokyo)
	good := Form{Name: " 1.36 変更内容共有会 ", MeetupDate: "2026-06-15", MeetupTime: "19:00", Release: "v1.36",
		Note: "各自 SIG を 1 つ\r\n担当", Decks: []string{"v1-36-sig-node", "v1-36-sig-network", "v1-36-sig-node", ""}}
	with := func(change func(*Form)) Form {
		f := good
		f.Decks = append([]string(nil), good.Decks...)
		change(&f)
		return f
	}
	tests := []struct {
		name      string
		form      Form
		wantField string // "" for none
		wantMsg   string
	}{
		{"good", good, "", ""},
		{"today without a time", with(func(f *Form) { f.MeetupDate, f.MeetupTime = "2026-06-01", "" }), "", ""},
		{"no name", with(func(f *Form) { f.Name = "  " }), "name", "グループ名を入力してください。"},
		{"long name", with(func(f *Form) { f.Name = strings.Repeat("あ", MaxNameRunes+1) }), "name", "80 文字まで"},
		{"name at the limit", with(func(f *Form) { f.Name = strings.Repeat("あ", MaxNameRunes) }), "", ""},
		{"control character", with(func(f *Form) { f.Name = "a\x07b" }), "name", "使えない文字"},
		{"bidi control", with(func(f *Form) { f.Name = "a\u202eb" }), "name", "使えない文字"},
		{"no date", with(func(f *Form) { f.MeetupDate = "" }), "meetup_date", "日付を入力"},
		{"slashes", with(func(f *Form) { f.MeetupDate = "2026/06/15" }), "meetup_date", "年-月-日"},
		{"no zero padding", with(func(f *Form) { f.MeetupDate = "2026-6-15" }), "meetup_date", "年-月-日"},
		{"no such day", with(func(f *Form) { f.MeetupDate = "2026-02-30" }), "meetup_date", "年-月-日"},
		{"past day", with(func(f *Form) { f.MeetupDate = "2026-05-31" }), "meetup_date", "過去"},
		{"too far", with(func(f *Form) { f.MeetupDate = "2028-06-02" }), "meetup_date", "2 年以内"},
		{"bad time", with(func(f *Form) { f.MeetupTime = "25:00" }), "meetup_time", "時:分"},
		{"time without zero", with(func(f *Form) { f.MeetupTime = "7:00" }), "meetup_time", "時:分"},
		{"time past today", with(func(f *Form) { f.MeetupDate, f.MeetupTime = "2026-06-01", "11:59" }), "meetup_time", "過去"},
		{"bad release", with(func(f *Form) { f.Release = "latest" }), "release", "1.36"},
		{"long note", with(func(f *Form) { f.Note = strings.Repeat("x", MaxNoteRunes+1) }), "note", "2000 文字"},
		{"no deck", with(func(f *Form) { f.Decks = nil }), "deck", "1 つ以上"},
		{"bad slug", with(func(f *Form) { f.Decks = []string{"../x"} }), "deck", "デッキの指定"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ps := tt.form.Check(now, tokyo)
			if tt.wantField == "" {
				if ps != nil {
					t.Fatalf("problems %v", ps)
				}
				return
			}
			if len(ps) != 1 || ps[0].Field != tt.wantField || !strings.Contains(ps[0].Message, tt.wantMsg) {
				t.Fatalf("problems %+v, want one of %s containing %q", ps, tt.wantField, tt.wantMsg)
			}
			if ps.Of(tt.wantField) != ps[0].Message || g.Name != "" {
				t.Errorf("Of(%s) = %q, group %+v", tt.wantField, ps.Of(tt.wantField), g)
			}
		})
	}
	g, _ := good.Check(now, tokyo)
	if g.Name != "1.36 変更内容共有会" || g.Release != "1.36" || g.Note != "各自 SIG を 1 つ\n担当" ||
		strings.Join(g.Decks, ",") != "v1-36-sig-node,v1-36-sig-network" {
		t.Errorf("group = %+v", g)
	}
	if want := time.Date(2026, 6, 15, 19, 0, 0, 0, tokyo); !g.Meetup.At.Equal(want) || !g.Meetup.HasTime || g.Meetup.At.Location() != tokyo {
		t.Errorf("meetup = %v (time %v), want %v in Tokyo", g.Meetup.At, g.Meetup.HasTime, want)
	}
	// Several problems at once.
	_, ps := Form{MeetupDate: "x"}.Check(now, tokyo)
	if len(ps) != 3 || ps.Of("name") == "" || ps.Of("meetup_date") == "" || ps.Of("deck") == "" {
		t.Errorf("problems of an empty form = %+v", ps)
	}
}

func TestMeetupDays(t *testing.T) {
	tokyo, ny := zone(t, "Asia/Tokyo"), zone(t, "America/New_York")
	evening := Meetup{At: time.Date(2026, 6, 15, 19, 0, 0, 0, tokyo), HasTime: true}
	allDay := Meetup{At: time.Date(2026, 6, 15, 0, 0, 0, 0, tokyo)}
	tests := []struct {
		name     string
		m        Meetup
		now      time.Time
		loc      *time.Location
		wantDays int
		wantOver bool
		wantOpen bool
	}{
		{"two weeks ahead", evening, time.Date(2026, 6, 1, 9, 0, 0, 0, tokyo), tokyo, 14, false, false},
		{"four days ahead", evening, time.Date(2026, 6, 11, 23, 0, 0, 0, tokyo), tokyo, 4, false, false},
		{"three days ahead opens the extra reviews", evening, time.Date(2026, 6, 12, 0, 30, 0, 0, tokyo), tokyo, 3, false, true},
		{"the day, before the start", evening, time.Date(2026, 6, 15, 18, 59, 0, 0, tokyo), tokyo, 0, false, true},
		{"the day, at the start", evening, time.Date(2026, 6, 15, 19, 0, 0, 0, tokyo), tokyo, 0, true, false},
		{"after", evening, time.Date(2026, 6, 16, 9, 0, 0, 0, tokyo), tokyo, -1, true, false},
		// 19:00 in Tokyo is 06:00 the same day in New York.
		{"a member in New York", evening, time.Date(2026, 6, 14, 20, 0, 0, 0, ny), ny, 1, false, true},
		// Without a time, the date is the same everywhere, and the whole day counts.
		{"all day, in New York", allDay, time.Date(2026, 6, 14, 20, 0, 0, 0, ny), ny, 1, false, true},
		{"all day, late on the day", allDay, time.Date(2026, 6, 15, 23, 59, 0, 0, tokyo), tokyo, 0, false, true},
		{"all day, the next day", allDay, time.Date(2026, 6, 16, 0, 0, 0, 0, tokyo), tokyo, -1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.DaysLeft(tt.now, tt.loc); got != tt.wantDays {
				t.Errorf("DaysLeft = %d, want %d", got, tt.wantDays)
			}
			if got := tt.m.Over(tt.now); got != tt.wantOver {
				t.Errorf("Over = %v, want %v", got, tt.wantOver)
			}
			if got := tt.m.ExtraReviewsOpen(tt.now, tt.loc); got != tt.wantOpen {
				t.Errorf("ExtraReviewsOpen = %v, want %v", got, tt.wantOpen)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, tokyo)
	past := Meetup{At: time.Date(2026, 6, 9, 19, 0, 0, 0, tokyo), HasTime: true}
	soon := Meetup{At: time.Date(2026, 6, 12, 19, 0, 0, 0, tokyo), HasTime: true}
	later := Meetup{At: time.Date(2026, 6, 20, 0, 0, 0, 0, tokyo)}
	tests := []struct {
		name string
		in   []Meetup
		want Meetup
		ok   bool
	}{
		{"none", nil, Meetup{}, false},
		{"only past ones", []Meetup{past}, Meetup{}, false},
		{"the nearest ahead", []Meetup{later, past, soon}, soon, true},
		{"one ahead", []Meetup{past, later}, later, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Nearest(tt.in, now)
			if ok != tt.ok || got != tt.want {
				t.Errorf("Nearest = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestNewPlan(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	m := Meetup{At: time.Date(2026, 6, 15, 19, 0, 0, 0, tokyo), HasTime: true}
	day := func(d int) time.Time { return time.Date(2026, 6, d, 9, 0, 0, 0, tokyo) }
	tests := []struct {
		name   string
		now    time.Time
		unseen int
		limit  int
		want   Plan
	}{
		// From the 1st to the 12th: 12 days for 100 cards.
		{"two weeks ahead", day(1), 100, 20, Plan{DaysLeft: 14, Unseen: 100, StudyDays: 12, NewPerDay: 9}},
		{"limit too low", day(1), 300, 20, Plan{DaysLeft: 14, Unseen: 300, StudyDays: 12, NewPerDay: 25, LimitTooLow: true}},
		{"the last day of new cards", day(12), 30, 20, Plan{DaysLeft: 3, Unseen: 30, StudyDays: 1, NewPerDay: 30, LimitTooLow: true}},
		{"past that day: all now", day(13), 5, 20, Plan{DaysLeft: 2, Unseen: 5, NewPerDay: 5}},
		{"all seen", day(1), 0, 0, Plan{DaysLeft: 14, StudyDays: 12}},
		{"over", day(16), 5, 20, Plan{DaysLeft: -1, Over: true, Unseen: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewPlan(m, tt.now, tokyo, tt.unseen, tt.limit); got != tt.want {
				t.Errorf("NewPlan = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestExtraReview(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	sched, err := fsrs.NewScheduler(fsrs.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	mem := Memory{Scheduler: sched, DesiredRetention: 0.9}
	m := Meetup{At: time.Date(2026, 6, 15, 19, 0, 0, 0, tokyo), HasTime: true}
	now := time.Date(2026, 6, 13, 21, 0, 0, 0, tokyo)
	dayStart := time.Date(2026, 6, 13, 4, 0, 0, 0, tokyo)
	card := func(state fsrs.State, stability float64, last, due time.Time) fsrs.Card {
		return fsrs.Card{State: state, Stability: stability, Difficulty: 5, LastReview: last, Due: due, Reps: 3}
	}
	lastWeek := time.Date(2026, 6, 6, 21, 0, 0, 0, tokyo)
	tests := []struct {
		name string
		c    fsrs.Card
		m    Meetup
		now  time.Time
		want bool
	}{
		// Reviewed a week before with a stability of 7 days and an interval
		// fuzzed to 8: due the 14th, after now, but 8 days old at the
		// meetup, past its 7 days at the desired retention.
		{"forgotten by the meetup", card(fsrs.Review, 7, lastWeek, lastWeek.AddDate(0, 0, 8)), m, now, true},
		{"at the desired retention at the meetup", card(fsrs.Review, 8, lastWeek, lastWeek.AddDate(0, 0, 8)), m, now, false},
		{"remembered at the meetup", card(fsrs.Review, 30, lastWeek, lastWeek.AddDate(0, 0, 30)), m, now, false},
		{"due: the normal schedule's", card(fsrs.Review, 8, lastWeek, now.Add(-time.Hour)), m, now, false},
		{"reviewed this study day", card(fsrs.Review, 1, dayStart.Add(time.Hour), now.Add(24*time.Hour)), m, now, false},
		{"learning", card(fsrs.Learning, 1, lastWeek, now.Add(time.Hour)), m, now, false},
		{"before the extra reviews open", card(fsrs.Review, 8, lastWeek, lastWeek.AddDate(0, 0, 8)), m,
			time.Date(2026, 6, 11, 21, 0, 0, 0, tokyo), false},
		{"after the meetup", card(fsrs.Review, 8, lastWeek, lastWeek.AddDate(0, 0, 30)), m,
			time.Date(2026, 6, 15, 21, 0, 0, 0, tokyo), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := dayStart
			if !tt.now.Equal(now) {
				start = time.Date(tt.now.Year(), tt.now.Month(), tt.now.Day(), 4, 0, 0, 0, tokyo)
			}
			if got := ExtraReview(tt.c, tt.m, tt.now, start, tokyo, mem); got != tt.want {
				t.Errorf("ExtraReview = %v, want %v (retrievability at the meetup %.3f)", got, tt.want,
					sched.Retrievability(tt.c, tt.m.Deadline()))
			}
		})
	}
}

func TestRoles(t *testing.T) {
	tests := []struct {
		name       string
		role       Role
		organizers int
		members    int
		wantLeave  error
		wantManage error
		wantView   ProgressView
	}{
		{"the only organizer", Organizer, 1, 2, ErrLastOrganizer, nil, ProgressView{AllRows: true, Averages: true}},
		{"one of two organizers", Organizer, 2, 2, nil, nil, ProgressView{AllRows: true, Averages: true}},
		{"a member of two", Member, 1, 2, nil, ErrNotOrganizer, ProgressView{}},
		{"a member of three", Member, 1, 3, nil, ErrNotOrganizer, ProgressView{Averages: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckOrganizerLeaves(tt.role, tt.organizers); !errors.Is(err, tt.wantLeave) || (tt.wantLeave == nil) != (err == nil) {
				t.Errorf("CheckOrganizerLeaves = %v, want %v", err, tt.wantLeave)
			}
			if err := CheckManage(tt.role); !errors.Is(err, tt.wantManage) || (tt.wantManage == nil) != (err == nil) {
				t.Errorf("CheckManage = %v, want %v", err, tt.wantManage)
			}
			if got := ProgressViewOf(tt.role, tt.members); got != tt.wantView {
				t.Errorf("ProgressViewOf = %+v, want %+v", got, tt.wantView)
			}
		})
	}
	for _, e := range []struct {
		err  error
		kind error
	}{{ErrNotMember, quiz.ErrNotFound}, {ErrNotOrganizer, quiz.ErrForbidden}, {ErrLastOrganizer, quiz.ErrConflict}} {
		if !errors.Is(e.err, e.kind) {
			t.Errorf("%v is not a %v", e.err, e.kind)
		}
	}
}
