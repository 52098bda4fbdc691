package web

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"kubequiz/internal/group"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file turns study groups into views. It holds no I/O: the handlers
// in groups.go and groups_progress.go make the store calls.

// weekdays are the days of the week as dates show them.
var weekdays = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// meetupText is a meetup's date, and its time when it has one, as pages
// show them: "2026年6月15日 (月) 19:00". The time is in loc; without a
// time the date is the meetup's own.
func meetupText(m group.Meetup, loc *time.Location) string {
	t := m.At
	if m.HasTime {
		t = t.In(loc)
	}
	s := fmt.Sprintf("%d年%d月%d日 (%s)", t.Year(), int(t.Month()), t.Day(), weekdays[t.Weekday()])
	if m.HasTime {
		s += " " + t.Format("15:04")
	}
	return s
}

// whenText says how far a meetup is for a member in loc: "あと 14 日",
// "明日", "今日" or "終了".
func whenText(m group.Meetup, now time.Time, loc *time.Location) string {
	days := m.DaysLeft(now, loc)
	switch {
	case m.Over(now):
		return "終了"
	case days <= 0:
		return "今日"
	case days == 1:
		return "明日"
	}
	return "あと " + strconv.Itoa(days) + " 日"
}

// deckLine is a deck's release and SIG: "v1.36 · SIG-Node".
func deckLine(d quiz.DeckSummary) string {
	switch {
	case d.Release != "" && d.SIG != "":
		return "v" + d.Release + " · " + d.SIG
	case d.Release != "":
		return "v" + d.Release
	}
	return d.SIG
}

// groupsPage is the list of u's groups and the new group's form, as sent
// (with its problems) or empty.
func groupsPage(list []store.GroupSummary, decks []quiz.DeckSummary, f group.Form, problems group.Problems, u quiz.User, now time.Time) views.GroupsPage {
	loc := userLocation(u)
	var v views.GroupsPage
	for _, g := range list {
		v.Groups = append(v.Groups, views.GroupItem{
			ID: g.ID, Name: g.Name, Release: g.Release,
			Meetup: meetupText(g.Meetup, loc), When: whenText(g.Meetup, now, loc),
			Organizer: g.Role == group.Organizer, Members: g.Members, Decks: g.Decks,
		})
	}
	v.Form = views.GroupForm{Name: f.Name, MeetupDate: f.MeetupDate, MeetupTime: f.MeetupTime, Release: f.Release,
		Note: f.Note, Zone: loc.String()}
	for _, d := range decks {
		v.Form.Decks = append(v.Form.Decks, views.GroupDeckChoice{Slug: d.Slug, Title: d.Title, Line: deckLine(d),
			Questions: d.Questions, Checked: slices.Contains(f.Decks, d.Slug)})
	}
	if len(problems) > 0 {
		v.Form.Problems = map[string]string{}
		for _, p := range problems {
			v.Form.Problems[p.Field] = p.Message
		}
	}
	return v
}

// groupView is a group's page for u, a member.
func groupView(g store.Group, u quiz.User, now time.Time) views.GroupView {
	loc := userLocation(u)
	zone := g.Meetup.At.Location().String()
	v := views.GroupView{
		ID: g.ID, Name: g.Name, Release: g.Release, Note: g.Note,
		Meetup:     meetupText(g.Meetup, g.Meetup.At.Location()) + " (" + zone + ")",
		Organizer:  group.CanManage(g.Viewer.Role),
		Organizers: g.Organizers(),
		MeetupMode: g.Viewer.MeetupMode,
		ExtraDays:  group.ExtraReviewDays,
	}
	if g.Meetup.HasTime && loc.String() != zone {
		v.MeetupLocal = meetupText(g.Meetup, loc) + " (" + loc.String() + ")"
	}
	names := map[int64]string{}
	for _, m := range g.Members {
		names[m.User.ID] = m.User.Name()
	}
	total := 0
	for _, d := range g.Decks {
		total += d.Questions
		v.Decks = append(v.Decks, views.GroupDeckRow{Slug: d.Slug, Title: d.Title, Questions: d.Questions,
			Presenter: names[d.Presenter], PresenterID: d.Presenter, Self: d.Presenter == u.ID})
	}
	for _, m := range g.Members {
		row := views.GroupMemberRow{ID: m.User.ID, Login: m.User.Login, Name: m.User.Name(),
			Organizer: m.Role == group.Organizer, Self: m.User.ID == u.ID}
		for _, d := range g.Decks {
			if d.Presenter == m.User.ID {
				row.Presents = append(row.Presents, d.Title)
			}
		}
		v.Members = append(v.Members, row)
	}
	p := group.NewPlan(g.Meetup, now, loc, g.Unseen, u.NewPerDay)
	v.Plan = views.GroupPlan{Over: p.Over, DaysLeft: p.DaysLeft, Unseen: p.Unseen, Total: total, StudyDays: p.StudyDays,
		NewPerDay: p.NewPerDay, NewLimit: u.NewPerDay, LimitTooLow: p.LimitTooLow, LeadDays: group.NewCardsLeadDays}
	if g.InviteActive && (g.InviteExpires.IsZero() || g.InviteExpires.After(now)) {
		v.Invite.Active = true
		if !g.InviteExpires.IsZero() {
			v.Invite.Expires = g.InviteExpires.In(loc).Format("2006-01-02 15:04") + " (" + loc.String() + ")"
		}
	}
	return v
}

// joinView is an invite link's page: all of the group for someone signed
// in (u), its name only for a visitor.
func joinView(inv store.GroupInvitation, code string, signedIn bool, u quiz.User) views.GroupJoinView {
	v := views.GroupJoinView{Code: code, Name: inv.Name, SignedIn: signedIn}
	here := joinPath(code)
	if !signedIn {
		v.Login = "/login?next=" + here
		v.Register = "/register?next=" + here
		return v
	}
	loc := userLocation(u)
	v.Member, v.GroupID, v.Release, v.Members, v.Note = inv.Member, inv.GroupID, inv.Release, inv.Members, inv.Note
	v.Meetup = meetupText(inv.Meetup, inv.Meetup.At.Location()) + " (" + inv.Meetup.At.Location().String() + ")"
	if inv.Meetup.HasTime && loc.String() != inv.Meetup.At.Location().String() {
		v.Meetup += " / " + meetupText(inv.Meetup, loc) + " (" + loc.String() + ")"
	}
	for _, d := range inv.Decks {
		v.Decks = append(v.Decks, d.Title)
	}
	return v
}

// presenterDuties are the decks u presents, for the home page.
func presenterDuties(duties []store.PresenterDuty, u quiz.User, now time.Time) []views.PresenterDuty {
	loc := userLocation(u)
	out := make([]views.PresenterDuty, len(duties))
	for i, d := range duties {
		out[i] = views.PresenterDuty{GroupID: d.GroupID, GroupName: d.GroupName, DeckTitle: d.Deck.Title, DeckSlug: d.Deck.Slug,
			Meetup: meetupText(d.Meetup, loc), When: whenText(d.Meetup, now, loc)}
	}
	return out
}
