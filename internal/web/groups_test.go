package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// groupEnv is a server with the two study decks and group G
// ("変更内容共有会", both decks, meetup two weeks ahead at 19:00 in Tokyo)
// organized by olga with mia a member, and group H organized by omar with
// otto a member; adam is a site admin in neither. The server's clock is
// fixed at now.
type groupEnv struct {
	t                                *testing.T
	ts                               *testServer
	now                              time.Time
	out, mia, otto, olga, omar, adam studyClient
	g, h                             int64
	code                             string // G's invite link's code
}

func newGroupEnv(t *testing.T) *groupEnv {
	t.Helper()
	now := time.Now()
	ts := newAccountServer(t, Config{Now: func() time.Time { return now }})
	importYAML(t, ts, "node.yaml", studyDeckYAML, false)
	importYAML(t, ts, "other.yaml", otherDeckYAML, false)
	env := &groupEnv{t: t, ts: ts, now: now}
	env.out = studyClient{t: t, ts: ts}
	env.mia = newGroupClient(t, ts, "mia", quiz.RoleMember)
	env.otto = newGroupClient(t, ts, "otto", quiz.RoleMember)
	env.olga = newGroupClient(t, ts, "olga", quiz.RoleMember)
	env.omar = newGroupClient(t, ts, "omar", quiz.RoleMember)
	env.adam = newGroupClient(t, ts, "adam", quiz.RoleAdmin)
	env.g, env.code = env.group("変更内容共有会", env.olga, env.mia)
	env.h, _ = env.group("ほかのグループ", env.omar, env.otto)
	return env
}

// newGroupClient is newStudyClient with a role.
func newGroupClient(t *testing.T, ts *testServer, login string, role quiz.Role) studyClient {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	u, err := ts.db.CreateUser(ctx, store.NewUser{Login: login, DisplayName: strings.ToUpper(login), PasswordHash: "unused", Role: role}, now)
	if err != nil {
		t.Fatal(err)
	}
	tok, hash, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.db.CreateSession(ctx, u.ID, store.NewSession{TokenHash: hash, ExpiresAt: now.Add(time.Hour)}, now, idleTimeout); err != nil {
		t.Fatal(err)
	}
	return studyClient{t: t, ts: ts, user: u, session: tok}
}

// group makes a group of both decks organized by organizer, with member
// joined by its link, and returns its id and the link's code.
func (env *groupEnv) group(name string, organizer, member studyClient) (int64, string) {
	env.t.Helper()
	ctx := context.Background()
	code, hash, err := newToken()
	if err != nil {
		env.t.Fatal(err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	day := env.now.In(tokyo).AddDate(0, 0, 14)
	m := group.Meetup{At: time.Date(day.Year(), day.Month(), day.Day(), 19, 0, 0, 0, tokyo), HasTime: true}
	id, err := env.ts.db.CreateGroup(ctx, organizer.user.ID, store.NewGroup{
		Group:  group.Group{Name: name, Release: "1.36", Note: "メモ: SIG ごとに発表", Meetup: m, Decks: []string{"v1-36-sig-node", "v1-35-sig-node"}},
		Invite: store.GroupInvite{Hash: hash},
	}, env.now)
	if err != nil {
		env.t.Fatal(err)
	}
	if _, err := env.ts.db.JoinGroup(ctx, hash, member.user.ID, env.now); err != nil {
		env.t.Fatal(err)
	}
	return id, code
}

// checksums reads every table's checksum but the sessions'.
func (env *groupEnv) checksums() map[string]string {
	env.t.Helper()
	sums, err := env.ts.db.TableChecksums(context.Background())
	if err != nil {
		env.t.Fatal(err)
	}
	delete(sums, "sessions")
	return sums
}

// actors of the authorization matrix, in its columns' order.
type actor int

const (
	signedOut actor = iota
	aMember
	otherMember
	organizer
	otherOrganizer
	siteAdmin
	actors
)

var actorNames = [actors]string{"signed out", "member", "member of another group", "organizer", "organizer of another group", "admin"}

func (env *groupEnv) client(a actor) studyClient {
	return [actors]studyClient{env.out, env.mia, env.otto, env.olga, env.omar, env.adam}[a]
}

// toLogin is the status the matrix writes for a redirect to the sign-in
// page; any other 303 is a redirect elsewhere.
const toLogin = -303

// TestGroupAuthorization sends every group route as each kind of user
// and checks the status; a request refused (and every page) changes
// nothing in the database.
func TestGroupAuthorization(t *testing.T) {
	const (
		ok   = http.StatusOK
		see  = http.StatusSeeOther
		no   = http.StatusNotFound
		deny = http.StatusForbidden
		auth = http.StatusUnauthorized
	)
	g := func(env *groupEnv) string { return "/groups/" + strconv.FormatInt(env.g, 10) }
	tests := []struct {
		method string
		path   func(env *groupEnv) string
		form   func(env *groupEnv) url.Values
		want   [actors]int
	}{
		{"GET", func(*groupEnv) string { return "/groups" }, nil, [actors]int{toLogin, ok, ok, ok, ok, ok}},
		{"POST", func(*groupEnv) string { return "/groups" }, func(env *groupEnv) url.Values {
			return url.Values{"name": {"新しい会"}, "meetup_date": {env.now.AddDate(0, 0, 20).Format("2006-01-02")}, "deck": {"v1-36-sig-node"}}
		}, [actors]int{auth, see, see, see, see, see}},
		{"GET", g, nil, [actors]int{toLogin, ok, no, ok, no, no}},
		{"GET", func(env *groupEnv) string { return g(env) + "/progress" }, nil, [actors]int{toLogin, ok, no, ok, no, no}},
		{"GET", func(env *groupEnv) string { return g(env) + "/progress.csv" }, nil, [actors]int{toLogin, deny, no, ok, no, no}},
		{"GET", func(env *groupEnv) string { return "/study/group/" + strconv.FormatInt(env.g, 10) }, nil, [actors]int{toLogin, ok, no, ok, no, no}},
		{"POST", func(env *groupEnv) string { return g(env) + "/meetup-mode" }, func(*groupEnv) url.Values { return url.Values{"on": {"1"}} },
			[actors]int{auth, see, no, see, no, no}},
		{"POST", func(env *groupEnv) string { return g(env) + "/leave" }, nil, [actors]int{auth, see, no, http.StatusConflict, no, no}},
		{"POST", func(env *groupEnv) string { return g(env) + "/invite" }, func(*groupEnv) url.Values { return url.Values{"expires": {"7"}} },
			[actors]int{auth, deny, no, see, no, no}},
		{"POST", func(env *groupEnv) string { return g(env) + "/invite/revoke" }, nil, [actors]int{auth, deny, no, see, no, no}},
		{"POST", func(env *groupEnv) string { return g(env) + "/decks/v1-36-sig-node/presenter" },
			func(env *groupEnv) url.Values { return url.Values{"user": {strconv.FormatInt(env.mia.user.ID, 10)}} },
			[actors]int{auth, deny, no, see, no, no}},
		{"POST", func(env *groupEnv) string {
			return g(env) + "/members/" + strconv.FormatInt(env.mia.user.ID, 10) + "/role"
		},
			func(*groupEnv) url.Values { return url.Values{"role": {"organizer"}} }, [actors]int{auth, deny, no, see, no, no}},
		{"POST", func(env *groupEnv) string {
			return g(env) + "/members/" + strconv.FormatInt(env.mia.user.ID, 10) + "/handover"
		},
			nil, [actors]int{auth, deny, no, see, no, no}},
		{"POST", func(env *groupEnv) string {
			return g(env) + "/members/" + strconv.FormatInt(env.mia.user.ID, 10) + "/remove"
		},
			nil, [actors]int{auth, deny, no, see, no, no}},
		{"GET", func(env *groupEnv) string { return g(env) + "/delete" }, nil, [actors]int{toLogin, deny, no, ok, no, no}},
		{"POST", func(env *groupEnv) string { return g(env) + "/delete" }, func(*groupEnv) url.Values { return url.Values{"confirm": {"1"}} },
			[actors]int{auth, deny, no, see, no, no}},
		{"GET", func(env *groupEnv) string { return "/groups/join/" + env.code }, nil, [actors]int{ok, ok, ok, ok, ok, ok}},
		{"POST", func(env *groupEnv) string { return "/groups/join/" + env.code }, nil, [actors]int{auth, see, see, see, see, see}},
		// A group that does not exist is the same to everyone signed in
		// as one they are not a member of.
		{"GET", func(*groupEnv) string { return "/groups/999999" }, nil, [actors]int{toLogin, no, no, no, no, no}},
		{"POST", func(*groupEnv) string { return "/groups/999999/invite" }, func(*groupEnv) url.Values { return url.Values{"expires": {""}} },
			[actors]int{auth, no, no, no, no, no}},
		{"GET", func(*groupEnv) string { return "/groups/join/" + strings.Repeat("A", 43) }, nil, [actors]int{no, no, no, no, no, no}},
	}
	for _, tt := range tests {
		shared := newGroupEnv(t)
		name := tt.method + " " + strings.NewReplacer(strconv.FormatInt(shared.g, 10), "{G}", shared.code, "{code}").Replace(tt.path(shared))
		t.Run(name, func(t *testing.T) {
			for a := range actors {
				want := tt.want[a]
				changes := tt.method == "POST" && (want == see || want == ok)
				env := shared
				if changes {
					env = newGroupEnv(t) // a change of its own
				}
				var form url.Values
				if tt.form != nil {
					form = tt.form(env)
				}
				before := env.checksums()
				cl := env.client(a)
				var rec *httptest.ResponseRecorder
				if tt.method == "GET" {
					rec = cl.get(tt.path(env), false)
				} else {
					if form == nil {
						form = url.Values{}
					}
					rec = cl.post(tt.path(env), form, false)
				}
				got := rec.Code
				if got == see && strings.HasPrefix(rec.Header().Get("Location"), "/login?next=") {
					got = toLogin
				}
				if got != want {
					t.Errorf("%s: %d (to %q), want %d; body %.300s", actorNames[a], got, rec.Header().Get("Location"), want, rec.Body.String())
				}
				if !changes && !maps.Equal(before, env.checksums()) {
					t.Errorf("%s: %d, and the database changed", actorNames[a], got)
				}
				if got == no && strings.Contains(rec.Body.String(), "変更内容共有会") {
					t.Errorf("%s: the 404 names the group", actorNames[a])
				}
			}
		})
	}
}

func TestCreateGroupForm(t *testing.T) {
	env := newGroupEnv(t)
	day := func(d int) string {
		return env.now.In(userLocation(env.mia.user)).AddDate(0, 0, d).Format("2006-01-02")
	}
	tests := []struct {
		name     string
		form     url.Values
		wantMsgs []string
	}{
		{"no name", url.Values{"meetup_date": {day(14)}, "deck": {"v1-36-sig-node"}}, []string{"グループ名を入力してください。"}},
		{"bad date and time", url.Values{"name": {"会"}, "meetup_date": {"来週"}, "meetup_time": {"夜"}, "deck": {"v1-36-sig-node"}},
			[]string{"年-月-日で入力してください。"}},
		{"past date", url.Values{"name": {"会"}, "meetup_date": {day(-1)}, "deck": {"v1-36-sig-node"}}, []string{"過去になっています。"}},
		{"bad time", url.Values{"name": {"会"}, "meetup_date": {day(3)}, "meetup_time": {"25:00"}, "deck": {"v1-36-sig-node"}},
			[]string{"時:分 (24 時間制)"}},
		{"no deck", url.Values{"name": {"会"}, "meetup_date": {day(14)}}, []string{"デッキを 1 つ以上選んでください。"}},
		{"unknown deck", url.Values{"name": {"会"}, "meetup_date": {day(14)}, "deck": {"v1-36-sig-node", "no-such-deck"}},
			[]string{"見つからないものがあります"}},
		{"everything wrong", url.Values{"release": {"latest"}, "note": {strings.Repeat("x", 2001)}},
			[]string{"グループ名を入力", "日付を入力", "1.36 のように", "2000 文字", "1 つ以上"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := env.checksums()
			rec := env.mia.post("/groups", tt.form, false)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", rec.Code)
			}
			body := html.UnescapeString(rec.Body.String())
			for _, m := range tt.wantMsgs {
				if !strings.Contains(body, m) {
					t.Errorf("body lacks %q", m)
				}
			}
			if !strings.Contains(body, "グループはまだ作成されていません") || !strings.Contains(body, `class="form-error"`) {
				t.Errorf("the form is not shown again as refused: %.500s", body)
			}
			// What was sent is kept.
			if name := tt.form.Get("name"); name != "" && !strings.Contains(body, `value="`+name+`"`) {
				t.Errorf("the name %q is not kept", name)
			}
			if !maps.Equal(before, env.checksums()) {
				t.Error("a refused form changed the database")
			}
		})
	}

	form := url.Values{"name": {"  1.36 共有会  "}, "meetup_date": {day(14)}, "meetup_time": {"19:30"}, "release": {"1.36"},
		"note": {"各自 1 SIG"}, "deck": {"v1-36-sig-node", "v1-35-sig-node"}}
	rec := env.mia.post("/groups", form, false)
	loc := rec.Header().Get("Location")
	if _, err := strconv.ParseInt(strings.TrimPrefix(loc, "/groups/"), 10, 64); rec.Code != http.StatusSeeOther || err != nil {
		t.Fatalf("create = %d to %q, want a 303 to /groups/{id}", rec.Code, loc)
	}
	var invite *http.Cookie
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == groupInviteCookie {
			invite = ck
		}
	}
	if invite == nil || invite.Path != loc || !invite.HttpOnly || invite.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the new link's cookie: %+v", invite)
	}
	page := func(withCookie bool) string {
		req := httptest.NewRequest(http.MethodGet, loc, nil)
		if withCookie {
			req.AddCookie(&http.Cookie{Name: invite.Name, Value: invite.Value})
		}
		rec := env.mia.send(req, false)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", loc, rec.Code)
		}
		return rec.Body.String()
	}
	body := page(true)
	link := "http://example.com/groups/join/" + invite.Value
	for _, want := range []string{"1.36 共有会", "19:30", "あと 14 日", link, "主催者", "共有会モード"} {
		if !strings.Contains(body, want) {
			t.Errorf("the new group's page lacks %q", want)
		}
	}
	// The link shows once; the code is kept hashed.
	if body := page(false); strings.Contains(body, invite.Value) || !strings.Contains(body, "招待リンクは有効です") {
		t.Error("the link is shown again, or no longer said to work")
	}
	ctx := context.Background()
	if ok, err := env.ts.db.GroupInviteValid(ctx, hashToken(invite.Value), env.now); err != nil || !ok {
		t.Errorf("the code's hash is not a link: %v, %v", ok, err)
	}
	if ok, err := env.ts.db.GroupInviteValid(ctx, []byte(invite.Value), env.now); err != nil || ok {
		t.Errorf("the code is stored as it is: %v, %v", ok, err)
	}
	// The list shows it.
	if body := env.mia.get("/groups", false).Body.String(); !strings.Contains(body, "1.36 共有会") || !strings.Contains(body, "変更内容共有会") {
		t.Errorf("mia's groups: %.500s", body)
	}
}

func TestJoinThroughTheLink(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	importYAML(t, ts, "node.yaml", studyDeckYAML, false)
	ctx := context.Background()
	olga, err := ts.addUser(ctx, "olga", "", memberPassword, quiz.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.addUser(ctx, "mia", "", memberPassword, quiz.RoleMember); err != nil {
		t.Fatal(err)
	}
	code, hash, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	id, err := ts.db.CreateGroup(ctx, olga.ID, store.NewGroup{Group: group.Group{Name: "招待の会", Note: "秘密のメモ",
		Meetup: group.Meetup{At: time.Now().In(tokyo).AddDate(0, 0, 10)}, Decks: []string{"v1-36-sig-node"}},
		Invite: store.GroupInvite{Hash: hash}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.db.SetRegistrationMode(ctx, store.RegistrationInvite); err != nil {
		t.Fatal(err)
	}
	join := "/groups/join/" + code
	groupPage := "/groups/" + strconv.FormatInt(id, 10)

	// Signed out: the name only, and the ways in that come back here.
	visitor := newClient(t, ts, "192.0.2.10")
	body := visitor.get(join).Body.String()
	if !strings.Contains(body, "招待の会") || strings.Contains(body, "秘密のメモ") || strings.Contains(body, "v1.36 SIG-Node") {
		t.Errorf("a visitor's join page shows more than the name: %.600s", body)
	}
	for _, want := range []string{`href="/login?next=` + join + `"`, `href="/register?next=` + join + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("join page lacks %s", want)
		}
	}
	if strings.Contains(ts.log.String(), code) {
		t.Error("the log holds the invite code")
	}

	// Registration needs an invite, and the link is one.
	reg := visitor.get("/register?next=" + url.QueryEscape(join)).Body.String()
	if strings.Contains(reg, `name="invite"`) || !strings.Contains(reg, "招待リンクから登録します") || !strings.Contains(reg, `name="next" value="`+join+`"`) {
		t.Errorf("the register page for the link: %.800s", reg)
	}
	rec := visitor.register("newbie", memberPassword, url.Values{"next": {join}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != join {
		t.Fatalf("register = %d to %q, want a 303 back to the link; %.400s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	body = visitor.get(join).Body.String()
	if !strings.Contains(body, "秘密のメモ") || !strings.Contains(body, "このグループに参加する") {
		t.Errorf("the signed-in join page: %.600s", body)
	}
	rec = visitor.post(join, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != groupPage {
		t.Fatalf("join = %d to %q, want a 303 to %s", rec.Code, rec.Header().Get("Location"), groupPage)
	}
	if body := visitor.get(groupPage).Body.String(); !strings.Contains(body, "newbie") {
		t.Errorf("the group's page after joining: %.400s", body)
	}
	decks := visitor.get("/decks").Body.String()
	if !strings.Contains(decks, "· 購読中") {
		t.Error("joining did not subscribe to the group's deck")
	}

	// Signing in through the link comes back to it.
	mia := newClient(t, ts, "192.0.2.11")
	if rec := mia.get("/login?next=" + url.QueryEscape(join)); !strings.Contains(rec.Body.String(), `href="/register?next=`+url.QueryEscape(join)+`"`) {
		t.Errorf("the sign-in page does not carry the link to registration: %.600s", rec.Body.String())
	}
	rec = mia.post("/login", url.Values{"login": {"mia"}, "password": {memberPassword}, "next": {join}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != join {
		t.Errorf("sign in = %d to %q, want back to the link", rec.Code, rec.Header().Get("Location"))
	}

	// Without a working link, registration still needs an invite; a next
	// of another site is not followed.
	stranger := newClient(t, ts, "192.0.2.12")
	rec = stranger.register("stranger", memberPassword, url.Values{"next": {"/groups/join/" + strings.Repeat("B", 43)}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), msgInviteNeeded) {
		t.Errorf("register with a dead link = %d", rec.Code)
	}
	if err := ts.db.SetRegistrationMode(ctx, store.RegistrationOpen); err != nil {
		t.Fatal(err)
	}
	rec = stranger.register("stranger", memberPassword, url.Values{"next": {"//evil.example/x"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
		t.Errorf("register with a foreign next = %d to %q, want home", rec.Code, rec.Header().Get("Location"))
	}
}

func TestGroupPageAndPresenters(t *testing.T) {
	env := newGroupEnv(t)
	gp := "/groups/" + strconv.FormatInt(env.g, 10)
	// mia presents SIG-Node; her limit of new cards is too low for the plan.
	if rec := env.olga.post(gp+"/decks/v1-36-sig-node/presenter", url.Values{"user": {strconv.FormatInt(env.mia.user.ID, 10)}}, false); rec.Code != http.StatusSeeOther {
		t.Fatalf("assign = %d", rec.Code)
	}
	if err := env.ts.db.SetStudyLimits(context.Background(), env.mia.user.ID, 0, 100); err != nil {
		t.Fatal(err)
	}
	body := html.UnescapeString(env.mia.get(gp, false).Body.String())
	for _, want := range []string{
		"あと 14 日", "まだ見ていないカード: <strong>8</strong> / 8 枚", "1 日 <strong>1 枚</strong>",
		"新しいカードの 1 日の上限 (0 枚) が必要な枚数より少なくなっています",
		"発表担当:", "<strong>MIA</strong>", "(あなた)", `href="/study/group/` + strconv.FormatInt(env.g, 10) + `"`, "このグループを抜ける",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("mia's group page lacks %q", want)
		}
	}
	for _, not := range []string{"招待リンク", "グループを削除", "主催者を引き継ぐ"} {
		if strings.Contains(body, not) {
			t.Errorf("mia, a member, sees %q", not)
		}
	}
	home := html.UnescapeString(env.mia.get("/", false).Body.String())
	if !strings.Contains(home, "発表担当") || !strings.Contains(home, "v1.36 SIG-Node") || !strings.Contains(home, "変更内容共有会") {
		t.Errorf("mia's home lacks her duty: %.800s", home)
	}
	if strings.Contains(env.olga.get("/", false).Body.String(), "duties-heading") {
		t.Error("olga's home shows duties she does not have")
	}
	// The last organizer cannot leave: the page says why, nothing changes.
	before := env.checksums()
	rec := env.olga.post(gp+"/leave", url.Values{}, false)
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), msgLastOrganizer) {
		t.Errorf("the last organizer leaves = %d", rec.Code)
	}
	if !maps.Equal(before, env.checksums()) {
		t.Error("a refused leave changed the database")
	}
	// Sharing the role, then handing it over, then leaving.
	steps := []struct {
		cl   studyClient
		path string
		form url.Values
		want string
	}{
		{env.olga, gp + "/members/" + strconv.FormatInt(env.mia.user.ID, 10) + "/role", url.Values{"role": {"organizer"}}, gp + "?done=role"},
		{env.mia, gp + "/members/" + strconv.FormatInt(env.olga.user.ID, 10) + "/role", url.Values{"role": {"member"}}, gp + "?done=role"},
		{env.mia, gp + "/members/" + strconv.FormatInt(env.olga.user.ID, 10) + "/handover", url.Values{}, gp + "?done=handover"},
		{env.mia, gp + "/leave", url.Values{}, "/groups?done=left"},
	}
	for _, s := range steps {
		if rec := s.cl.post(s.path, s.form, false); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != s.want {
			t.Fatalf("POST %s = %d to %q, want %s; %.300s", s.path, rec.Code, rec.Header().Get("Location"), s.want, rec.Body.String())
		}
	}
	if rec := env.mia.get(gp, false); rec.Code != http.StatusNotFound {
		t.Errorf("mia after leaving = %d, want 404", rec.Code)
	}
	if body := env.olga.get(gp, false).Body.String(); !strings.Contains(body, "招待リンク") || strings.Contains(body, "MIA") {
		t.Error("olga is not the organizer again, or mia is still shown")
	}
	// Deleting asks first; the reviews stay.
	if body := env.olga.get(gp+"/delete", false).Body.String(); !strings.Contains(body, `name="confirm" value="1"`) {
		t.Errorf("the confirmation page: %.400s", body)
	}
	if rec := env.olga.post(gp+"/delete", url.Values{}, false); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != gp+"/delete" {
		t.Errorf("delete unconfirmed = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := env.olga.post(gp+"/delete", url.Values{"confirm": {"1"}}, false); rec.Header().Get("Location") != "/groups?done=deleted" {
		t.Errorf("delete = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := env.olga.get(gp, false); rec.Code != http.StatusNotFound {
		t.Errorf("a deleted group = %d", rec.Code)
	}
}

func TestGroupProgressTable(t *testing.T) {
	env := newGroupEnv(t)
	ctx := context.Background()
	gp := "/groups/" + strconv.FormatInt(env.g, 10)
	// mia studies one card of the group on its page.
	page := env.mia.get("/study/group/"+strconv.FormatInt(env.g, 10), false).Body.String()
	f := hiddenFields(page)
	if f.Get("g") != strconv.FormatInt(env.g, 10) || f.Get("d") != "" {
		t.Fatalf("the group's study form: %v", f)
	}
	f.Set("choice", "2")
	ans := env.mia.post("/study/answer", f, false).Body.String()
	gf := hiddenFields(ans)
	gf.Set("rating", "3")
	gf.Set("ms", "1000")
	if rec := env.mia.post("/study/grade", gf, false); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/study/group/") {
		t.Fatalf("grade = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	// A member of no group cannot grade from its page.
	gf.Set("p", newPresentationID(env.now))
	if rec := env.otto.post("/study/grade", gf, false); rec.Code != http.StatusNotFound {
		t.Errorf("otto grades from G's page = %d, want 404", rec.Code)
	}
	// mia remembers another card of the deck well: in review, a stability
	// of 100 days, reviewed yesterday. It is mature and mastered.
	qs, err := env.ts.db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if err != nil {
		t.Fatal(err)
	}
	known := fsrs.Card{State: fsrs.Review, Stability: 100, Difficulty: 5, Reps: 3, ScheduledDays: 100,
		LastReview: env.now.Add(-24 * time.Hour), Due: env.now.Add(99 * 24 * time.Hour)}
	if err := env.ts.db.PutCard(ctx, env.mia.user.ID, qs[len(qs)-1].ID, known); err != nil {
		t.Fatal(err)
	}

	// The organizer sees both rows and the averages; mia her own row and,
	// with two members, no averages.
	olga := html.UnescapeString(env.olga.get(gp+"/progress", false).Body.String())
	mia := html.UnescapeString(env.mia.get(gp+"/progress", false).Body.String())
	for _, want := range []string{"MIA", "OLGA", "<tfoot>", "2 / 7", "14%", "1.0 / 7", "7%"} {
		if !strings.Contains(olga, want) {
			t.Errorf("olga's table lacks %q", want)
		}
	}
	for _, c := range []struct {
		what string
		ok   bool
	}{{"OLGA's row", !strings.Contains(mia, "OLGA")}, {"her row", strings.Contains(mia, "MIA")},
		{"averages", !strings.Contains(mia, "<tfoot>")}, {"why", strings.Contains(mia, "3 人以上になると")}} {
		if !c.ok {
			t.Errorf("mia's table, %s: %s", c.what, mia[strings.Index(mia, "<main"):])
		}
	}
	// With a third member, mia sees the averages.
	if _, err := env.ts.db.JoinGroup(ctx, hashToken(env.code), env.otto.user.ID, env.now); err != nil {
		t.Fatal(err)
	}
	if mia := env.mia.get(gp+"/progress", false).Body.String(); !strings.Contains(mia, "<tfoot>") || strings.Contains(mia, "OLGA") {
		t.Error("mia, of three, sees no averages, or others' rows")
	}

	// The export: the organizer's, with the BOM when asked.
	rec := env.olga.get(gp+"/progress.csv?bom=1", false)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") {
		t.Fatalf("export = %d, %v", rec.Code, rec.Header())
	}
	body := rec.Body.String()
	if !strings.HasPrefix(body, "\uFEFFlogin,display_name,deck,cards_total,seen,mature,due,mastery,retention_30d,reviews_7d,last_review\r\n") {
		t.Errorf("export header: %q", body[:min(len(body), 200)])
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*2 {
		t.Fatalf("%d rows, want a header and 6", len(rows))
	}
	var miaNode []string
	for _, r := range rows {
		if r[0] == "mia" && r[2] == "v1-36-sig-node" {
			miaNode = r
		}
	}
	// Seen: the card studied and the one remembered; mature and mastered:
	// the one remembered, of the deck's 7; no review of a card in review
	// yet, so no retention.
	if fmt.Sprint(miaNode[:7]) != "[mia MIA v1-36-sig-node 7 2 1 0]" || miaNode[8] != "" || miaNode[9] != "1" || miaNode[10] == "" {
		t.Errorf("mia's row: %q", miaNode)
	}
	if m, err := strconv.ParseFloat(miaNode[7], 64); err != nil || math.Abs(m-1.0/7) > 1e-9 {
		t.Errorf("mia's mastery %q, want 1/7", miaNode[7])
	}
	if rec := env.olga.get(gp+"/progress.csv", false); strings.HasPrefix(rec.Body.String(), "\uFEFF") {
		t.Error("a BOM without bom=1")
	}
}

func TestMeetupModeStudyPage(t *testing.T) {
	env := newGroupEnv(t)
	ctx := context.Background()
	gp := "/groups/" + strconv.FormatInt(env.g, 10)
	if rec := env.mia.post(gp+"/meetup-mode", url.Values{"on": {"1"}}, false); rec.Code != http.StatusSeeOther {
		t.Fatalf("meetup mode = %d", rec.Code)
	}
	if body := env.mia.get(gp+"?done=mode-on", false).Body.String(); !strings.Contains(body, "共有会モードをオフにする") || !strings.Contains(body, "共有会モードをオンにしました。") {
		t.Error("the page does not show the mode on")
	}
	if rec := env.mia.post(gp+"/meetup-mode", url.Values{"on": {"yes"}}, false); rec.Code != http.StatusBadRequest {
		t.Errorf("a bad mode = %d", rec.Code)
	}
	// Two days before the meetup, a card seen a week ago, not due, that
	// the meetup would find forgotten, is put as an extra review.
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	meetup := env.now.In(tokyo).AddDate(0, 0, 14)
	at := time.Date(meetup.Year(), meetup.Month(), meetup.Day()-2, 21, 0, 0, 0, tokyo)
	qs, err := env.ts.db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if err != nil {
		t.Fatal(err)
	}
	card := fsrs.Card{State: fsrs.Review, Stability: 7, Difficulty: 5, Reps: 2, ScheduledDays: 8,
		LastReview: at.AddDate(0, 0, -7), Due: at.AddDate(0, 0, 1)}
	if err := env.ts.db.PutCard(ctx, env.mia.user.ID, qs[0].ID, card); err != nil {
		t.Fatal(err)
	}
	if err := env.ts.db.SetStudyLimits(ctx, env.mia.user.ID, 0, 0); err != nil {
		t.Fatal(err)
	}
	env.ts.cfg.Now = func() time.Time { return at }
	mia := env.mia
	tok, hash, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	if err := env.ts.db.CreateSession(ctx, mia.user.ID, store.NewSession{TokenHash: hash, ExpiresAt: at.Add(time.Hour)}, at, idleTimeout); err != nil {
		t.Fatal(err)
	}
	mia.session = tok
	body := mia.get("/study/group/"+strconv.FormatInt(env.g, 10), false).Body.String()
	if !strings.Contains(body, "共有会に向けた追加の復習") {
		t.Errorf("no extra review on the group's page: %.1200s", body)
	}
}
