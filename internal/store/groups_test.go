package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
)

// groupFixture is a group "g" of decks d1 and d2 (three questions each),
// organized by alice, with bob a member; carol is in no group, and deck d3
// is no group's.
type groupFixture struct {
	db                *DB
	alice, bob, carol int64
	id                int64
	q                 map[string]int64 // "d1-1" ... -> question id
	now               time.Time
	tokyo             *time.Location
	code              string
}

func hashCode(code string) []byte {
	h := sha256.Sum256([]byte(code))
	return h[:]
}

func newGroupFixture(t *testing.T) groupFixture {
	t.Helper()
	db := newTestDB(t)
	f := groupFixture{db: db, q: map[string]int64{}, tokyo: mustZone(t, "Asia/Tokyo"), code: "invite-code-1"}
	f.now = time.Date(2026, 6, 1, 12, 0, 0, 0, f.tokyo)
	f.alice = addStudyUser(t, db, "alice", studyUserOpts{})
	f.bob = addStudyUser(t, db, "bob", studyUserOpts{})
	f.carol = addStudyUser(t, db, "carol", studyUserOpts{})
	for _, slug := range []string{"d1", "d2", "d3"} {
		deck := addStudyDeck(t, db, slug, "1.36")
		for i := 1; i <= 3; i++ {
			ext := fmt.Sprintf("%s-%d", slug, i)
			f.q[ext] = addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(ext))
		}
	}
	f.id = f.create(t, f.alice, "g", []string{"d1", "d2"}, group.Meetup{At: time.Date(2026, 6, 15, 19, 0, 0, 0, f.tokyo), HasTime: true}, f.code)
	if _, err := db.JoinGroup(context.Background(), hashCode(f.code), f.bob, f.now); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f groupFixture) create(t *testing.T, organizer int64, name string, decks []string, m group.Meetup, code string) int64 {
	t.Helper()
	id, err := f.db.CreateGroup(context.Background(), organizer, NewGroup{
		Group:  group.Group{Name: name, Release: "1.36", Note: "note", Meetup: m, Decks: decks},
		Invite: GroupInvite{Hash: hashCode(code)},
	}, f.now)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (f groupFixture) page(t *testing.T, viewer int64) Group {
	t.Helper()
	g, err := f.db.GroupPage(context.Background(), f.id, viewer)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCreateGroup(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	g := f.page(t, f.bob)
	if g.Name != "g" || g.Release != "1.36" || g.Note != "note" || !g.InviteActive || !g.InviteExpires.IsZero() {
		t.Errorf("group = %+v", g)
	}
	if !g.Meetup.At.Equal(time.Date(2026, 6, 15, 19, 0, 0, 0, f.tokyo)) || !g.Meetup.HasTime || g.Meetup.At.Location().String() != "Asia/Tokyo" {
		t.Errorf("meetup = %+v", g.Meetup)
	}
	var slugs []string
	for _, d := range g.Decks {
		slugs = append(slugs, d.Slug)
		if d.Questions != 3 || d.Presenter != 0 {
			t.Errorf("deck %+v", d)
		}
	}
	if strings.Join(slugs, ",") != "d1,d2" {
		t.Errorf("decks = %v", slugs)
	}
	if len(g.Members) != 2 || g.Members[0].User.Login != "alice" || g.Members[0].Role != group.Organizer ||
		g.Members[1].User.Login != "bob" || g.Members[1].Role != group.Member || g.Viewer.User.ID != f.bob || g.Organizers() != 1 {
		t.Errorf("members = %+v, viewer %+v", g.Members, g.Viewer)
	}
	if g.Unseen != 6 {
		t.Errorf("unseen = %d, want 6", g.Unseen)
	}
	// Both the organizer and the member who joined study the decks.
	for _, u := range []int64{f.alice, f.bob} {
		if n := countRows(t, f.db, `SELECT count(*) FROM subscriptions WHERE user_id = ?`, u); n != 2 {
			t.Errorf("user %d has %d subscriptions, want 2", u, n)
		}
	}
	// An unknown deck stores nothing.
	before, err := f.db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.db.CreateGroup(ctx, f.carol, NewGroup{Group: group.Group{Name: "x", Meetup: g.Meetup, Decks: []string{"d1", "nope"}}}, f.now)
	if !errors.Is(err, ErrUnknownDeck) || !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("a group of an unknown deck: %v", err)
	}
	after, err := f.db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(before, after) {
		t.Error("a refused group changed the database")
	}
	list, err := f.db.UserGroups(ctx, f.bob, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != f.id || list[0].Role != group.Member || list[0].Members != 2 || list[0].Decks != 2 {
		t.Errorf("bob's groups = %+v", list)
	}
	if list, err := f.db.UserGroups(ctx, f.carol, f.now); err != nil || len(list) != 0 {
		t.Errorf("carol's groups = %+v, %v", list, err)
	}
	// Meetups to come first, the nearest first; then those over, the
	// latest first.
	for _, c := range []struct {
		name string
		at   time.Time
	}{{"later", time.Date(2026, 7, 1, 0, 0, 0, 0, f.tokyo)}, {"long over", time.Date(2026, 4, 1, 0, 0, 0, 0, f.tokyo)},
		{"over", time.Date(2026, 5, 1, 0, 0, 0, 0, f.tokyo)}, {"today", time.Date(2026, 6, 1, 9, 0, 0, 0, f.tokyo)}} {
		f.create(t, f.alice, c.name, []string{"d1"}, group.Meetup{At: c.at, HasTime: true}, c.name)
	}
	list, err = f.db.UserGroups(ctx, f.alice, f.now)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range list {
		names = append(names, g.Name)
	}
	if got := strings.Join(names, ", "); got != "today, g, later, over, long over" {
		t.Errorf("alice's groups in the order %s", got)
	}
}

func TestGroupInvite(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	if _, err := f.db.GroupPage(ctx, f.id, f.carol); !errors.Is(err, group.ErrNotMember) || !errors.Is(err, quiz.ErrNotFound) {
		t.Fatalf("an outsider sees the group: %v", err)
	}
	inv, err := f.db.GroupInvitation(ctx, hashCode(f.code), f.carol, f.now)
	if err != nil || inv.GroupID != f.id || inv.Name != "g" || inv.Members != 2 || inv.Member || len(inv.Decks) != 2 {
		t.Fatalf("invitation = %+v, %v", inv, err)
	}
	if inv, err := f.db.GroupInvitation(ctx, hashCode(f.code), f.bob, f.now); err != nil || !inv.Member {
		t.Errorf("bob's invitation = %+v, %v", inv, err)
	}
	// A new link replaces the old one, with an expiry.
	expires := f.now.Add(24 * time.Hour)
	if err := f.db.SetGroupInvite(ctx, f.id, f.bob, &GroupInvite{Hash: hashCode("new"), Expires: expires}); !errors.Is(err, group.ErrNotOrganizer) {
		t.Errorf("a member set the link: %v", err)
	}
	if err := f.db.SetGroupInvite(ctx, f.id, f.alice, &GroupInvite{Hash: hashCode("new"), Expires: expires}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		code string
		at   time.Time
		ok   bool
	}{
		{"the replaced link", f.code, f.now, false},
		{"the new link", "new", f.now, true},
		{"the new link, expired", "new", expires, false},
		{"no link", "", f.now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.db.GroupInvitation(ctx, hashCode(tt.code), f.carol, tt.at)
			if ok := err == nil; ok != tt.ok || (!ok && !errors.Is(err, quiz.ErrNotFound)) {
				t.Errorf("invitation: %v, want ok %v", err, tt.ok)
			}
			valid, err := f.db.GroupInviteValid(ctx, hashCode(tt.code), tt.at)
			if err != nil || valid != tt.ok {
				t.Errorf("valid = %v, %v; want %v", valid, err, tt.ok)
			}
		})
	}
	if _, err := f.db.JoinGroup(ctx, hashCode(f.code), f.carol, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("joined with a replaced link: %v", err)
	}
	id, err := f.db.JoinGroup(ctx, hashCode("new"), f.carol, f.now)
	if err != nil || id != f.id {
		t.Fatalf("join = %d, %v", id, err)
	}
	// Joining again changes nothing; a revoked link lets nobody in.
	if _, err := f.db.JoinGroup(ctx, hashCode("new"), f.carol, f.now); err != nil {
		t.Errorf("join again: %v", err)
	}
	if err := f.db.SetGroupInvite(ctx, f.id, f.alice, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.GroupInvitation(ctx, hashCode("new"), 0, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("a revoked link: %v", err)
	}
	if g := f.page(t, f.carol); len(g.Members) != 3 || g.InviteActive {
		t.Errorf("after joining and revoking: %+v", g)
	}
}

func TestRegisterByGroupInvite(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	if err := f.db.SetRegistrationMode(ctx, RegistrationInvite); err != nil {
		t.Fatal(err)
	}
	nu := func(login string) NewUser { return NewUser{Login: login, PasswordHash: "x"} }
	if _, err := f.db.RegisterByGroupInvite(ctx, nu("dave"), hashCode(f.code), f.now); !errors.Is(err, ErrRegistrationClosed) {
		t.Errorf("registration before an admin exists: %v", err)
	}
	if _, err := f.db.write.Exec(`UPDATE users SET role = 'admin' WHERE id = ?`, f.carol); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.RegisterByGroupInvite(ctx, nu("dave"), hashCode("wrong"), f.now); !errors.Is(err, ErrTokenInvalid) {
		t.Errorf("a wrong code: %v", err)
	}
	u, err := f.db.RegisterByGroupInvite(ctx, nu("dave"), hashCode(f.code), f.now)
	if err != nil || u.Role != quiz.RoleMember {
		t.Fatalf("register = %+v, %v", u, err)
	}
	// The link is not used up, and registering does not join.
	if _, err := f.db.RegisterByGroupInvite(ctx, nu("erin"), hashCode(f.code), f.now); err != nil {
		t.Errorf("a second registration: %v", err)
	}
	if g := f.page(t, f.alice); len(g.Members) != 2 {
		t.Errorf("registering joined: %d members", len(g.Members))
	}
}

func TestGroupMembership(t *testing.T) {
	type step struct {
		name string
		do   func(f groupFixture) error
		want error // nil: done
	}
	ctx := context.Background()
	leave := func(who func(groupFixture) int64) func(f groupFixture) error {
		return func(f groupFixture) error { return f.db.LeaveGroup(ctx, f.id, who(f)) }
	}
	alice := func(f groupFixture) int64 { return f.alice }
	bob := func(f groupFixture) int64 { return f.bob }
	carol := func(f groupFixture) int64 { return f.carol }
	role := func(actor, member func(groupFixture) int64, r group.Role) func(f groupFixture) error {
		return func(f groupFixture) error { return f.db.SetGroupRole(ctx, f.id, actor(f), member(f), r) }
	}
	remove := func(actor, member func(groupFixture) int64) func(f groupFixture) error {
		return func(f groupFixture) error { return f.db.RemoveGroupMember(ctx, f.id, actor(f), member(f)) }
	}
	handOver := func(actor, member func(groupFixture) int64) func(f groupFixture) error {
		return func(f groupFixture) error { return f.db.HandOverGroup(ctx, f.id, actor(f), member(f)) }
	}
	tests := []struct {
		name  string
		steps []step
		// wantRoles are the roles after the steps, by login.
		wantRoles map[string]group.Role
	}{
		{"the last organizer cannot leave", []step{{"alice leaves", leave(alice), group.ErrLastOrganizer}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"a member leaves", []step{{"bob leaves", leave(bob), nil}},
			map[string]group.Role{"alice": group.Organizer}},
		{"an outsider leaves nothing", []step{{"carol leaves", leave(carol), group.ErrNotMember}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"shared, then the first leaves", []step{{"share", role(alice, bob, group.Organizer), nil}, {"alice leaves", leave(alice), nil}},
			map[string]group.Role{"bob": group.Organizer}},
		{"the last organizer cannot step down", []step{{"demote self", role(alice, alice, group.Member), group.ErrLastOrganizer}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"a member cannot promote", []step{{"bob promotes himself", role(bob, bob, group.Organizer), group.ErrNotOrganizer}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"an outsider cannot promote", []step{{"carol promotes bob", role(carol, bob, group.Organizer), group.ErrNotMember}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"no role for an outsider", []step{{"promote carol", role(alice, carol, group.Organizer), quiz.ErrNotFound}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"handed over", []step{{"hand over", handOver(alice, bob), nil}},
			map[string]group.Role{"alice": group.Member, "bob": group.Organizer}},
		{"no handing over to oneself", []step{{"hand over", handOver(alice, alice), quiz.ErrInvalid}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"a member cannot remove", []step{{"bob removes alice", remove(bob, alice), group.ErrNotOrganizer}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"the organizer removes", []step{{"alice removes bob", remove(alice, bob), nil}},
			map[string]group.Role{"alice": group.Organizer}},
		{"removing an outsider", []step{{"alice removes carol", remove(alice, carol), quiz.ErrNotFound}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
		{"the last organizer cannot remove herself", []step{{"alice removes alice", remove(alice, alice), group.ErrLastOrganizer}},
			map[string]group.Role{"alice": group.Organizer, "bob": group.Member}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGroupFixture(t)
			for _, s := range tt.steps {
				before, err := f.db.TableChecksums(ctx)
				if err != nil {
					t.Fatal(err)
				}
				err = s.do(f)
				if (err == nil) != (s.want == nil) || (s.want != nil && !errors.Is(err, s.want)) {
					t.Fatalf("%s: %v, want %v", s.name, err, s.want)
				}
				if err != nil {
					after, cerr := f.db.TableChecksums(ctx)
					if cerr != nil {
						t.Fatal(cerr)
					}
					if !maps.Equal(before, after) {
						t.Errorf("%s: refused, but the database changed", s.name)
					}
				}
			}
			roles := map[string]group.Role{}
			rows, err := f.db.read.Query(`SELECT u.login, m.role FROM study_group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = ?`, f.id)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var login, r string
				if err := rows.Scan(&login, &r); err != nil {
					t.Fatal(err)
				}
				roles[login] = group.Role(r)
			}
			if !maps.Equal(roles, tt.wantRoles) {
				t.Errorf("roles = %v, want %v", roles, tt.wantRoles)
			}
		})
	}
}

func TestGroupPresentersAndDelete(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	tests := []struct {
		name      string
		actor     int64
		deck      string
		presenter int64
		want      error
	}{
		{"a member cannot assign", f.bob, "d1", f.bob, group.ErrNotOrganizer},
		{"an outsider cannot assign", f.carol, "d1", f.carol, group.ErrNotMember},
		{"not to an outsider", f.alice, "d1", f.carol, ErrNotGroupMember},
		{"not a deck of the group", f.alice, "d3", f.bob, quiz.ErrNotFound},
		{"no such deck", f.alice, "nope", f.bob, quiz.ErrNotFound},
		{"bob presents d1", f.alice, "d1", f.bob, nil},
		{"alice presents d2", f.alice, "d2", f.alice, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.db.SetPresenter(ctx, f.id, tt.actor, tt.deck, tt.presenter)
			if (err == nil) != (tt.want == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("SetPresenter = %v, want %v", err, tt.want)
			}
		})
	}
	duties, err := f.db.PresenterDuties(ctx, f.bob, f.now)
	if err != nil || len(duties) != 1 || duties[0].Deck.Slug != "d1" || duties[0].GroupName != "g" {
		t.Fatalf("bob's duties = %+v, %v", duties, err)
	}
	if duties, err := f.db.PresenterDuties(ctx, f.bob, time.Date(2026, 6, 15, 19, 0, 0, 0, f.tokyo)); err != nil || len(duties) != 0 {
		t.Errorf("bob's duties after the meetup = %+v, %v", duties, err)
	}
	// A presenter who leaves presents no more; clearing works.
	if err := f.db.LeaveGroup(ctx, f.id, f.bob); err != nil {
		t.Fatal(err)
	}
	g := f.page(t, f.alice)
	if g.Decks[0].Presenter != 0 || g.Decks[1].Presenter != f.alice {
		t.Errorf("presenters after bob left: %+v", g.Decks)
	}
	if err := f.db.SetPresenter(ctx, f.id, f.alice, "d2", 0); err != nil {
		t.Fatal(err)
	}
	if g := f.page(t, f.alice); g.Decks[1].Presenter != 0 {
		t.Errorf("presenter not cleared: %+v", g.Decks)
	}

	// Deleting: only an organizer; the members' reviews stay.
	if _, err := f.db.JoinGroup(ctx, hashCode(f.code), f.bob, f.now); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.RecordReview(ctx, Review{UserID: f.bob, QuestionID: f.q["d1-1"], RequestID: reqID(1), Rating: fsrs.Good,
		Response: quiz.Response{Choice: 1}, Scope: Scope{Group: f.id}, At: f.now}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.DeleteGroup(ctx, f.id, f.bob); !errors.Is(err, group.ErrNotOrganizer) {
		t.Errorf("a member deleted: %v", err)
	}
	if err := f.db.DeleteGroup(ctx, f.id, f.carol); !errors.Is(err, group.ErrNotMember) {
		t.Errorf("an outsider deleted: %v", err)
	}
	if err := f.db.DeleteGroup(ctx, f.id, f.alice); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"study_groups", "study_group_members", "study_group_decks"} {
		if n := countRows(t, f.db, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("%s keeps %d rows", table, n)
		}
	}
	if n := countRows(t, f.db, `SELECT count(*) FROM review_log WHERE user_id = ?`, f.bob); n != 1 {
		t.Errorf("bob's reviews: %d, want 1", n)
	}
	if _, ok := readCard(t, f.db, f.bob, f.q["d1-1"]); !ok {
		t.Error("bob's card is gone")
	}
	if _, err := f.db.GroupPage(ctx, f.id, f.alice); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("a deleted group: %v", err)
	}
}

func TestGroupProgress(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	review := func(user int64, ext string, at time.Time, i int) {
		t.Helper()
		if _, err := f.db.RecordReview(ctx, Review{UserID: user, QuestionID: f.q[ext], RequestID: reqID(i), Rating: fsrs.Easy,
			Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: ext[:2]}, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	old := f.now.AddDate(0, 0, -10)
	review(f.bob, "d1-1", old, 1)                   // long ago
	review(f.bob, "d1-2", f.now.Add(-time.Hour), 2) // recent
	review(f.bob, "d3-1", f.now, 3)                 // not a group deck
	review(f.alice, "d2-1", f.now, 4)
	p, err := f.db.GroupProgress(ctx, f.id, f.bob, f.now)
	if err != nil {
		t.Fatal(err)
	}
	want := []GroupProgressRow{
		{UserID: f.alice, DeckID: p.Group.Decks[0].ID, Total: 3},
		{UserID: f.alice, DeckID: p.Group.Decks[1].ID, Total: 3, Seen: 1, RecentReviews: 1, LastReview: f.now.UTC()},
		{UserID: f.bob, DeckID: p.Group.Decks[0].ID, Total: 3, Seen: 2, Due: 1, RecentReviews: 1, LastReview: f.now.Add(-time.Hour).UTC()},
		{UserID: f.bob, DeckID: p.Group.Decks[1].ID, Total: 3},
	}
	// The progress rules' figures are TestGroupProgressFigures'.
	counts := slices.Clone(p.Rows)
	for i := range counts {
		counts[i].Cards = progress.Cards{}
	}
	if !slices.Equal(counts, want) {
		t.Errorf("rows:\n%+v\nwant\n%+v", p.Rows, want)
	}
	if _, err := f.db.GroupProgress(ctx, f.id, f.carol, f.now); !errors.Is(err, group.ErrNotMember) {
		t.Errorf("an outsider's progress: %v", err)
	}
	var exported []string
	each := func(r GroupExportRow) error {
		exported = append(exported, fmt.Sprintf("%s/%s/%d/%d", r.Member.User.Login, r.Deck.Slug, r.Progress.Seen, r.Progress.Total))
		return nil
	}
	if err := f.db.GroupExport(ctx, f.id, f.bob, f.now, each); !errors.Is(err, group.ErrNotOrganizer) || len(exported) > 0 {
		t.Errorf("a member's export: %v, %v", err, exported)
	}
	if err := f.db.GroupExport(ctx, f.id, f.carol, f.now, each); !errors.Is(err, group.ErrNotMember) {
		t.Errorf("an outsider's export: %v", err)
	}
	if err := f.db.GroupExport(ctx, f.id, f.alice, f.now, each); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(exported, " "); got != "alice/d1/0/3 alice/d2/1/3 bob/d1/2/3 bob/d2/0/3" {
		t.Errorf("exported %s", got)
	}
	stop := errors.New("stop")
	n := 0
	err = f.db.GroupExport(ctx, f.id, f.alice, f.now, func(GroupExportRow) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("an export whose writer fails: %v after %d rows", err, n)
	}
}

func TestGroupStudyScope(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	bob := learner(t, f.db, f.bob)
	// d3 is subscribed but no deck of the group: the group's page serves
	// d1's cards, then d2's.
	subscribe(t, f.db, f.bob, "d3")
	var served []string
	for i := range 7 {
		n, err := f.db.NextCardIn(ctx, bob, Scope{Group: f.id}, f.now.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if n.Group.ID != f.id || n.Group.Name != "g" {
			t.Fatalf("group = %+v", n.Group)
		}
		if !n.Found {
			break
		}
		served = append(served, n.Card.Question.Question.ExtID)
		if _, err := f.db.RecordReview(ctx, Review{UserID: f.bob, QuestionID: n.Card.Question.ID, RequestID: reqID(i), Rating: fsrs.Easy,
			Response: quiz.Response{Choice: 1}, Scope: Scope{Group: f.id}, At: f.now.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(served, " "); got != "d1-1 d1-2 d1-3 d2-1 d2-2 d2-3" {
		t.Errorf("served %s", got)
	}
	n, err := f.db.NextCardIn(ctx, bob, Scope{Group: f.id}, f.now.Add(time.Hour))
	if err != nil || n.Found || n.NextDue.IsZero() || n.Subscriptions != 0 {
		t.Errorf("after the group's cards: %+v, %v", n, err)
	}
	// Not a member: no page, and no review from it.
	carol := learner(t, f.db, f.carol)
	if _, err := f.db.NextCardIn(ctx, carol, Scope{Group: f.id}, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("an outsider's group page: %v", err)
	}
	tests := []struct {
		name string
		user int64
		ext  string
		want error
	}{
		{"an outsider", f.carol, "d1-1", quiz.ErrNotFound},
		{"a deck outside the group", f.bob, "d3-1", quiz.ErrNotFound},
		{"a member's card of the group", f.alice, "d1-1", nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.db.RecordReview(ctx, Review{UserID: tt.user, QuestionID: f.q[tt.ext], RequestID: reqID(100 + i), Rating: fsrs.Good,
				Response: quiz.Response{Choice: 1}, Scope: Scope{Group: f.id}, At: f.now})
			if (err == nil) != (tt.want == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("review = %v, want %v", err, tt.want)
			}
			p, err := f.db.PreviewCard(ctx, tt.user, f.q[tt.ext], f.now)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.ScopeError(Scope{Group: f.id}); (err == nil) != (tt.want == nil) {
				t.Errorf("ScopeError = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestGroupStudyCounts: the counts of a group's study page are of the
// group's decks, subscribed or not, and of no other deck; each page's
// counts are kept apart; one outside the group has none.
func TestGroupStudyCounts(t *testing.T) {
	f := newGroupFixture(t)
	ctx := context.Background()
	bob := learner(t, f.db, f.bob)
	subscribe(t, f.db, f.bob, "d3") // no deck of the group; bob subscribes to all three
	counts := func(scope Scope, at time.Time) progress.Due {
		t.Helper()
		d, err := f.db.StudyCounts(ctx, bob, scope, at)
		if err != nil {
			t.Fatalf("StudyCounts(%+v): %v", scope, err)
		}
		return d
	}
	for _, tt := range []struct {
		scope Scope
		want  progress.Due
	}{
		{Scope{Group: f.id}, progress.Due{New: 6}},
		{Scope{}, progress.Due{New: 9}},
		{Scope{Deck: "d1"}, progress.Due{New: 3}},
		{Scope{Deck: "d3"}, progress.Due{New: 3}},
		{Scope{Group: f.id}, progress.Due{New: 6}}, // kept, and apart from the others
	} {
		if got := counts(tt.scope, f.now); got != tt.want {
			t.Errorf("counts of %+v = %+v, want %+v", tt.scope, got, tt.want)
		}
	}
	// A card graded Again on the group's page: one new card fewer and one
	// learning card more there and on every subscribed deck's page,
	// nothing changed on the page of d3.
	n, err := f.db.NextCardIn(ctx, bob, Scope{Group: f.id}, f.now)
	if err != nil || !n.Found {
		t.Fatalf("NextCardIn = %+v, %v", n, err)
	}
	if _, err := f.db.RecordReview(ctx, Review{UserID: f.bob, QuestionID: n.Card.Question.ID, RequestID: reqID(1), Rating: fsrs.Again,
		Response: quiz.Response{Choice: 1}, Scope: Scope{Group: f.id}, At: f.now}); err != nil {
		t.Fatal(err)
	}
	at := f.now.Add(time.Second)
	if got := counts(Scope{Group: f.id}, at); got != (progress.Due{New: 5, Learning: 1}) {
		t.Errorf("after a grade on the group's page: %+v", got)
	}
	if got := counts(Scope{}, at); got != (progress.Due{New: 8, Learning: 1}) {
		t.Errorf("after a grade on the group's page, every subscribed deck: %+v", got)
	}
	if got := counts(Scope{Deck: "d3"}, at); got != (progress.Due{New: 3}) {
		t.Errorf("after a grade on the group's page, d3: %+v", got)
	}
	carol := learner(t, f.db, f.carol)
	if _, err := f.db.StudyCounts(ctx, carol, Scope{Group: f.id}, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("an outsider's counts of the group: %v", err)
	}
}

// meetupFixture is a learner, bob, with cards in review in d1 (a group
// deck) and d3 (no group's), none of them due, each last reviewed a week
// before now with a stability of 7 days and due tomorrow: FSRS puts their
// retrievability at a meetup the day after tomorrow below 0.9.
type meetupFixture struct {
	groupFixture
	meetup   group.Meetup
	now      time.Time
	dayStart time.Time
}

func newMeetupFixture(t *testing.T) meetupFixture {
	t.Helper()
	f := newGroupFixture(t)
	m := meetupFixture{groupFixture: f}
	m.meetup = group.Meetup{At: time.Date(2026, 6, 15, 19, 0, 0, 0, f.tokyo), HasTime: true}
	m.now = time.Date(2026, 6, 13, 21, 0, 0, 0, f.tokyo)
	m.dayStart = time.Date(2026, 6, 13, 4, 0, 0, 0, f.tokyo)
	last := m.now.AddDate(0, 0, -7)
	for _, ext := range []string{"d1-1", "d1-2", "d3-1"} {
		setCard(t, f.db, f.bob, f.q[ext], fsrs.Card{State: fsrs.Review, Stability: 7, Difficulty: 5, Reps: 3,
			LastReview: last, Due: m.now.Add(24 * time.Hour), ScheduledDays: 8})
	}
	subscribe(t, f.db, f.bob, "d3")
	return m
}

func (m meetupFixture) next(t *testing.T, scope Scope, at time.Time) StudyNext {
	t.Helper()
	n, err := m.db.NextCardIn(context.Background(), learner(t, m.db, m.bob), scope, at)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMeetupModeQueue(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, m meetupFixture)
		scope func(m meetupFixture) Scope
		at    func(m meetupFixture) time.Time
		want  string // ext id of the extra review, "" for none
	}{
		{"mode off", nil, nil, nil, ""},
		{"mode on, every subscribed deck", on, nil, nil, "d1-1"},
		{"mode on, the group's page", on, func(m meetupFixture) Scope { return Scope{Group: m.id} }, nil, "d1-1"},
		{"mode on, the deck's page", on, func(meetupFixture) Scope { return Scope{Deck: "d1"} }, nil, "d1-1"},
		{"mode on, another deck's page", on, func(meetupFixture) Scope { return Scope{Deck: "d3"} }, nil, ""},
		{"before the extra reviews open", on, nil, func(m meetupFixture) time.Time { return m.now.AddDate(0, 0, -2) }, ""},
		{"after the meetup", on, nil, func(m meetupFixture) time.Time { return time.Date(2026, 6, 15, 19, 30, 0, 0, m.tokyo) }, ""},
		// Another group with the mode on studies d1 and meets tomorrow
		// morning: its meetup applies, and at that time the cards are
		// still at the desired retention.
		{"the nearest meetup applies", func(t *testing.T, m meetupFixture) {
			on(t, m)
			id := m.create(t, m.alice, "h", []string{"d1"}, group.Meetup{At: time.Date(2026, 6, 14, 9, 0, 0, 0, m.tokyo), HasTime: true}, "h")
			if _, err := m.db.JoinGroup(ctx, hashCode("h"), m.bob, m.now); err != nil {
				t.Fatal(err)
			}
			if err := m.db.SetMeetupMode(ctx, id, m.bob, true); err != nil {
				t.Fatal(err)
			}
		}, nil, nil, ""},
		{"a nearer meetup without the mode does not", func(t *testing.T, m meetupFixture) {
			on(t, m)
			m.create(t, m.alice, "h", []string{"d1"}, group.Meetup{At: time.Date(2026, 6, 14, 9, 0, 0, 0, m.tokyo), HasTime: true}, "h")
			if _, err := m.db.JoinGroup(ctx, hashCode("h"), m.bob, m.now); err != nil {
				t.Fatal(err)
			}
		}, nil, nil, "d1-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMeetupFixture(t)
			if tt.setup != nil {
				tt.setup(t, m)
			}
			at := m.now
			if tt.at != nil {
				at = tt.at(m)
			}
			var scope Scope
			if tt.scope != nil {
				scope = tt.scope(m)
			}
			n := m.next(t, scope, at)
			// d2's new cards are the only other cards: an extra review
			// comes before them.
			got := ""
			if n.Extra {
				got = n.Card.Question.Question.ExtID
			}
			if got != tt.want {
				t.Errorf("extra review %q, want %q (found %v: %s)", got, tt.want, n.Found, n.Card.Question.Question.ExtID)
			}
			if n.Found && !n.Extra && !n.Card.IsNew && n.Card.Card.Due.After(at) {
				t.Errorf("served %s, not due, as no extra review", n.Card.Question.Question.ExtID)
			}
		})
	}
}

// on turns bob's meetup mode on in the fixture's group.
func on(t *testing.T, m meetupFixture) {
	t.Helper()
	if err := m.db.SetMeetupMode(context.Background(), m.id, m.bob, true); err != nil {
		t.Fatal(err)
	}
}

func TestMeetupModeReviews(t *testing.T) {
	m := newMeetupFixture(t)
	ctx := context.Background()
	on(t, m)
	// A review limit already reached holds back no extra review, and an
	// extra review takes nothing of it.
	if err := m.db.SetStudyLimits(ctx, m.bob, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.db.SetMeetupMode(ctx, m.id, m.carol, true); !errors.Is(err, group.ErrNotMember) {
		t.Errorf("an outsider's meetup mode: %v", err)
	}
	var got []string
	at := m.now
	for i := range 4 {
		n := m.next(t, Scope{}, at)
		if !n.Found {
			break
		}
		if !n.Extra {
			t.Fatalf("served %s, not as an extra review", n.Card.Question.Question.ExtID)
		}
		got = append(got, n.Card.Question.Question.ExtID)
		rec, err := m.db.RecordReview(ctx, Review{UserID: m.bob, QuestionID: n.Card.Question.ID, RequestID: reqID(i), Rating: fsrs.Good,
			Response: quiz.Response{Choice: 1}, At: at})
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Due.After(m.meetup.Deadline()) {
			t.Errorf("after its extra review %s is due %v, before the meetup", got[len(got)-1], rec.Due)
		}
		at = at.Add(time.Minute)
	}
	if strings.Join(got, " ") != "d1-1 d1-2" {
		t.Errorf("extra reviews %v, want d1-1 d1-2, each once", got)
	}
	n := m.next(t, Scope{}, at)
	if n.Found || n.ReviewsToday != 0 || n.NewToday != 0 {
		t.Errorf("after the extra reviews: found %v, %d reviews and %d new cards counted today", n.Found, n.ReviewsToday, n.NewToday)
	}
	if c := countRows(t, m.db, `SELECT coalesce(sum(review_count), 0) FROM daily_reviews WHERE user_id = ?`, m.bob); c != 0 {
		t.Errorf("daily review count %d, want 0", c)
	}
	// The next study day, the cards are remembered at the meetup: no
	// extra review again.
	if n := m.next(t, Scope{}, m.now.Add(24*time.Hour)); n.Extra {
		t.Errorf("an extra review the next day: %s", n.Card.Question.Question.ExtID)
	}
}

func TestGroupQueryPlans(t *testing.T) {
	db := newTestDB(t)
	tests := []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"queue, a group", queueGroupQuery, []any{1, 0, 7, 0, noCursor}, []string{"cards_user_learning_due (user_id=? AND due<?)",
			"cards_user_review_due (user_id=? AND due<?)", "questions_deck_status (deck_id=? AND status=? AND position>?)"}},
		{"cards due today, a group", dueBeforeGroupQuery, []any{1, 0, 7}, []string{"cards_user_learning_due (user_id=? AND due<?)",
			"cards_user_review_due (user_id=? AND due<?)"}},
		{"new cards left today, a group", newLeftGroupQuery, []any{1, 0, 7, 0, noCursor, 20}, []string{"questions_deck_status (deck_id=? AND status=? AND position>?)"}},
		{"meetup decks", meetupDecksQuery, []any{1, 0}, []string{"study_group_members_mode (user_id=?)"}},
		{"extra review candidates", extraCandidatesQuery, []any{1, 0, 0, 0, noCursor, "[1]"}, []string{"cards_user_review_due (user_id=? AND due>?)"}},
		{"extra review candidates, a group", extraCandidatesGroupQuery, []any{1, 0, 7, 0, noCursor, "[1]"}, []string{"cards_user_review_due (user_id=? AND due>?)"}},
		{"card for an answer", cardForAnswerQuery, []any{1, 2}, []string{"study_group_members_user (user_id=?)", "gd USING PRIMARY KEY (group_id=? AND deck_id=?)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := queryPlan(t, db, tt.query, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("plan lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, "TEMP B-TREE") && tt.query != meetupDecksQuery {
				t.Errorf("plan sorts:\n%s", text)
			}
		})
	}
}

// TestGroupProgressFigures checks the progress table's figures of every
// member and deck of a group against each member's own statistics (Stats,
// as /stats shows them): members in two time zones, with desired
// retentions from 0.85 to 0.95, and one without cards.
func TestGroupProgressFigures(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "groups.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 20, 21, 30, 0, 0, time.UTC) // 06:30 in Tokyo, 13:30 in Los Angeles
	gb, err := db.SeedGroupBench(ctx, GroupBenchSize{Members: 50, Decks: 3, PerDeck: 40, Reviews: 6000}, now)
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.GroupProgress(ctx, gb.Group, gb.Members[0], now)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 50*3 {
		t.Fatalf("%d rows, want 150", len(p.Rows))
	}
	// The export's rows are the table's, with true retention.
	type memberDeck struct{ user, deck int64 }
	exported := map[memberDeck]GroupExportRow{}
	err = db.GroupExport(ctx, gb.Group, gb.Members[0], now, func(r GroupExportRow) error {
		exported[memberDeck{r.Member.User.ID, r.Deck.ID}] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := p.Group.DeckIDs()
	var mastered, mature, retention, zones, empty int
	seenZones := map[string]bool{}
	for _, m := range p.Group.Members {
		st, err := db.Stats(ctx, m.User.ID, ids, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Decks) != len(ids) {
			t.Fatalf("user %d: statistics of %d decks", m.User.ID, len(st.Decks))
		}
		seenZones[m.User.Timezone] = true
		for _, d := range st.Decks {
			r, ok := p.Row(m.User.ID, d.ID)
			e := exported[memberDeck{m.User.ID, d.ID}]
			if !ok || e.Progress != r {
				t.Fatalf("user %d, deck %d: row %+v, exported %+v", m.User.ID, d.ID, r, e.Progress)
			}
			if r.Cards != d.Cards || e.Retention != d.Retention || r.Total != d.Total || r.Seen != d.Seen {
				t.Errorf("%s, %s: row %+v %+v (seen %d of %d), statistics %+v %+v", m.User.Login, d.Slug,
					r.Cards, e.Retention, r.Seen, r.Total, d.Cards, d.Retention)
			}
			mastered += r.Cards.Mastered
			mature += r.Cards.Mature
			retention += e.Retention.Whole
			if r.Seen == 0 {
				empty++
			}
		}
	}
	zones = len(seenZones)
	// The figures compared are not all zero, and the members differ as
	// the benchmark's group says.
	if mastered == 0 || mature == 0 || retention == 0 || zones != 2 || empty != 3 {
		t.Errorf("mastered %d, mature %d, reviews for retention %d, %d time zones, %d rows without cards (want 3)",
			mastered, mature, retention, zones, empty)
	}
}
