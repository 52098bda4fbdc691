package group

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of a group's form.
const (
	MaxNameRunes = 80
	MaxNoteRunes = 2000
	MaxDecks     = 50
	// MaxMeetupYears bounds how far ahead a meetup may be set.
	MaxMeetupYears = 2
)

// Layouts of the form's date and time fields.
const (
	DateLayout = "2006-01-02"
	TimeLayout = "15:04"
)

// Form is a new group as its form sends it: one Decks entry per deck
// field.
type Form struct {
	Name, MeetupDate, MeetupTime, Release, Note string
	Decks                                       []string
}

// Group is a checked group: what is stored.
type Group struct {
	Name, Release, Note string
	Meetup              Meetup
	// Decks are the decks' slugs, each once, in the form's order.
	Decks []string
}

// Problem is one field of the form refused, with the message shown to the
// person who filled it in.
type Problem struct {
	// Field is the form field: "name", "meetup_date", "meetup_time",
	// "release", "note" or "deck".
	Field   string
	Message string
}

func (p Problem) Error() string { return p.Message }

// Problems are the refusals of a form, in the form's order of fields.
type Problems []Problem

func (ps Problems) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Message
	}
	return strings.Join(msgs, " ")
}

// Of returns the message about field, or "".
func (ps Problems) Of(field string) string {
	for _, p := range ps {
		if p.Field == field {
			return p.Message
		}
	}
	return ""
}

// Check reads a new group's form, filled in at now by an organizer in
// the time zone loc (where the meetup's date and time are). It returns the
// group, or every problem of the form.
func (f Form) Check(now time.Time, loc *time.Location) (Group, Problems) {
	var (
		g  Group
		ps Problems
	)
	add := func(field, msg string) { ps = append(ps, Problem{field, msg}) }
	var msg string
	if g.Name, msg = checkName(f.Name); msg != "" {
		add("name", msg)
	}
	var dateMsg, timeMsg string
	g.Meetup, dateMsg, timeMsg = checkMeetup(f.MeetupDate, f.MeetupTime, now, loc)
	if dateMsg != "" {
		add("meetup_date", dateMsg)
	}
	if timeMsg != "" {
		add("meetup_time", timeMsg)
	}
	if g.Release, msg = checkRelease(f.Release); msg != "" {
		add("release", msg)
	}
	if g.Note, msg = checkNote(f.Note); msg != "" {
		add("note", msg)
	}
	if g.Decks, msg = checkDecks(f.Decks); msg != "" {
		add("deck", msg)
	}
	if len(ps) > 0 {
		return Group{}, ps
	}
	return g, nil
}

func checkName(s string) (string, string) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return s, "グループ名を入力してください。"
	case !utf8.ValidString(s) || strings.IndexFunc(s, hidden) >= 0:
		return s, "グループ名に使えない文字が含まれています。"
	case utf8.RuneCountInString(s) > MaxNameRunes:
		return s, fmt.Sprintf("グループ名は %d 文字までにしてください。", MaxNameRunes)
	}
	return s, ""
}

// hidden reports whether r is a control or format character, which no
// name holds.
func hidden(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

func checkMeetup(date, clock string, now time.Time, loc *time.Location) (m Meetup, dateMsg, timeMsg string) {
	date, clock = strings.TrimSpace(date), strings.TrimSpace(clock)
	if date == "" {
		return m, "共有会の日付を入力してください。", ""
	}
	day, err := time.ParseInLocation(DateLayout, date, loc)
	if err != nil || day.Format(DateLayout) != date {
		return m, "共有会の日付は 2026-06-30 のように年-月-日で入力してください。", ""
	}
	m.At = day
	if clock != "" {
		t, err := time.Parse(TimeLayout, clock)
		if err != nil || t.Format(TimeLayout) != clock {
			return m, "", "開始時刻は 19:00 のように時:分 (24 時間制) で入力してください。"
		}
		m.At, m.HasTime = time.Date(day.Year(), day.Month(), day.Day(), t.Hour(), t.Minute(), 0, 0, loc), true
	}
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	switch {
	case day.Before(today):
		return m, "共有会の日付が過去になっています。", ""
	case m.HasTime && !m.At.After(now):
		return m, "", "共有会の開始時刻が過去になっています。"
	case day.After(today.AddDate(MaxMeetupYears, 0, 0)):
		return m, fmt.Sprintf("共有会の日付は %d 年以内にしてください。", MaxMeetupYears), ""
	}
	return m, "", ""
}

// checkRelease reads a release as "1.36": one or two digits, a dot and
// one to three digits; a leading "v" is dropped.
func checkRelease(s string) (string, string) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if s == "" {
		return s, ""
	}
	major, minor, ok := strings.Cut(s, ".")
	if !ok || !digits(major, 1, 2) || !digits(minor, 1, 3) {
		return s, "対象リリースは 1.36 のように入力してください。"
	}
	return s, ""
}

func digits(s string, least, most int) bool {
	if len(s) < least || len(s) > most {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func checkNote(s string) (string, string) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	switch {
	case !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && hidden(r) }) >= 0:
		return s, "メモに使えない文字が含まれています。"
	case utf8.RuneCountInString(s) > MaxNoteRunes:
		return s, fmt.Sprintf("メモは %d 文字までにしてください。", MaxNoteRunes)
	}
	return s, ""
}

func checkDecks(slugs []string) ([]string, string) {
	var out []string
	seen := map[string]bool{}
	for _, s := range slugs {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		if !Slug(s) {
			return nil, "デッキの指定が正しくありません。ページを読み込み直して、もう一度選んでください。"
		}
		seen[s] = true
		out = append(out, s)
	}
	switch {
	case len(out) == 0:
		return nil, "学習するデッキを 1 つ以上選んでください。"
	case len(out) > MaxDecks:
		return nil, fmt.Sprintf("デッキは %d 個までにしてください。", MaxDecks)
	}
	return out, ""
}

// Slug reports whether s has the form of a deck's slug: up to 100 of
// a-z, 0-9 and "-", not starting with "-".
func Slug(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
