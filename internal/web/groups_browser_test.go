package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// groupJourneyLayoutJS lists what is wrong with a group page's layout: a
// page wider than the screen, what reaches past its right edge outside a
// box that scrolls (the progress table's), a member's card empty under
// its header, a figure of the progress table broken over lines, an
// invite link not shown whole.
const groupJourneyLayoutJS = `(() => {
	const bad = [], html = document.documentElement, vw = html.clientWidth;
	if (html.scrollWidth > vw) bad.push('the page is ' + html.scrollWidth + 'px wide, its viewport ' + vw + 'px');
	if (window.innerWidth > screen.width) bad.push('the layout is ' + window.innerWidth + 'px wide, the screen ' + screen.width + 'px');
	for (const e of document.querySelectorAll('body *')) {
		if (e.parentElement && e.parentElement.closest('.overflow-auto')) continue;
		const r = e.getBoundingClientRect();
		if (r.width > 0 && r.right > vw + 0.5) bad.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + e.className + ' ends at ' + r.right + 'px');
	}
	for (const a of document.querySelectorAll('article.user-row')) {
		if (a.querySelector(':scope > header') && a.children.length === 1) bad.push('the card of ' + a.innerText.trim() + ' is empty under its header');
	}
	for (const e of document.querySelectorAll('.progress-table td > small, .progress-table th small')) {
		if (e.getClientRects().length !== 1) bad.push('"' + e.textContent + '" breaks over lines');
	}
	const link = document.getElementById('invite-link');
	if (link && (link.scrollHeight > link.clientHeight + 1 || link.scrollWidth > link.clientWidth + 1)) bad.push('the invite link is not shown whole');
	return bad;
})()`

// groupRowJS reads a member's row of the progress table: per deck, the
// cell's text.
const groupRowJS = `((name) => {
	const row = [...document.querySelectorAll('table.progress-table tbody tr')].find(tr => tr.querySelector('th').textContent.trim().startsWith(name));
	return row ? [...row.querySelectorAll('td')].map(td => td.innerText.replace(/\s+/g, ' ').trim()) : null;
})`

// groupCell is what the progress table shows of a member's deck.
var groupCell = regexp.MustCompile(`^(?:★ 発表担当 )?(\d+) / (\d+) 習得 (\S+) · 7 日 (\d+)`)

// TestGroupJourneyInBrowser follows a study group through the real server
// in headless Chromium at phone size (375x667): an organizer signs in and
// creates a group for a meetup two weeks away with two decks through the
// form on /groups, and reads the invite link off the group's page; a
// second user, signed out in a browser of their own, opens the link,
// registers from it (registration needs an invite: the link is one),
// comes back to the join page, joins, lands on the group's page and
// studies three cards from its study button. The organizer's dashboard
// then shows that member's cards seen and reviews of the last 7 days, as
// the store counts them, and the CSV behind the page's link (fetched by
// the page) has the member's rows with the same figures. Neither the
// group's page (the organizer's and the member's) nor the dashboard is
// wider than the screen (nor the join page), and their cards and figures
// are laid out whole; each is saved as a PNG in
// $KUBEQUIZ_SCREENSHOT_DIR (or the temp folder). Console errors and
// uncaught exceptions fail the test.
func TestGroupJourneyInBrowser(t *testing.T) {
	browser := chromium(t)
	bg := context.Background()
	ts := withAdmin(t, newAccountServer(t, Config{}))
	importYAML(t, ts, "node.yaml", studyDeckYAML, false)
	importYAML(t, ts, "other.yaml", otherDeckYAML, false)
	if err := ts.db.SetRegistrationMode(bg, store.RegistrationInvite); err != nil {
		t.Fatal(err)
	}
	const organizerName, memberLogin = "Olga", "mika"
	organizer, err := ts.addUser(bg, "olga", organizerName, memberPassword, quiz.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	questions := map[int64]quiz.Question{}
	for _, slug := range []string{"v1-36-sig-node", "v1-35-sig-node"} {
		qs, err := ts.db.DeckQuestions(bg, slug, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, sq := range qs {
			questions[sq.ID] = sq.Question
		}
	}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)

	// Two browsers in one: the organizer's tab and, in a browser context
	// of its own (its own cookies), the member's.
	var (
		mu       sync.Mutex
		problems []string
	)
	favicon := srv.URL + "/favicon.ico"
	listen := func(who string) func(ev any) {
		return func(ev any) {
			var p string
			switch ev := ev.(type) {
			case *runtime.EventExceptionThrown:
				p = "uncaught exception: " + exceptionText(ev.ExceptionDetails)
			case *runtime.EventConsoleAPICalled:
				if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
					p = "console." + string(ev.Type)
					for _, a := range ev.Args {
						p += " " + remoteText(a)
					}
				}
			case *cdplog.EventEntryAdded:
				// The browser asks for /favicon.ico on its own; kubequiz
				// does not serve one.
				e := ev.Entry
				if e.Level == cdplog.EntryLevelError && !(e.URL == favicon && strings.Contains(e.Text, "404")) {
					p = "browser log (" + string(e.Source) + "): " + e.Text + " " + e.URL
				}
			}
			if p != "" {
				mu.Lock()
				problems = append(problems, who+": "+p)
				mu.Unlock()
			}
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(375, 667),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-default-apps", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(bg, opts...)
	t.Cleanup(cancelAlloc)
	orgTab, cancelOrg := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf), chromedp.WithListener(listen("organizer")))
	t.Cleanup(cancelOrg)
	if err := chromedp.Do(orgTab); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	memberTab, cancelMember := chromedp.NewContext(orgTab, chromedp.WithNewBrowserContext(), chromedp.WithListener(listen("member")))
	t.Cleanup(cancelMember)
	org, cancel := context.WithTimeout(orgTab, 2*time.Minute)
	t.Cleanup(cancel)
	member, cancel := context.WithTimeout(memberTab, 2*time.Minute)
	t.Cleanup(cancel)
	for _, tab := range []context.Context{org, member} {
		browserStep(t, tab)("phone screen", chromedp.EmulateViewport(375, 667, chromedp.EmulateMobile))
	}
	t.Cleanup(func() {
		if t.Failed() {
			journeyScreenshot(t, orgTab)
		}
	})

	dir := os.Getenv("KUBEQUIZ_SCREENSHOT_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	// checkPage checks that the page fits the phone's screen and saves
	// it whole as kubequiz-NAME.png.
	checkPage := func(tab context.Context, name string) {
		t.Helper()
		if bad := journeyEval[[]string](t, tab, groupJourneyLayoutJS); len(bad) > 0 {
			t.Errorf("%s at 375px:\n%s", name, strings.Join(bad, "\n"))
		}
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot of %s: %v", name, err)
		}
		path := filepath.Join(dir, "kubequiz-"+name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	load := func(tab context.Context, what, wantPath string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if got := loadPage(t, tab, what, steps...); got != wantPath {
			t.Fatalf("%s: the browser is at %q, want %q", what, got, wantPath)
		}
	}
	text := func(tab context.Context) string {
		t.Helper()
		return journeyEval[string](t, tab, `document.querySelector('main').innerText`)
	}

	// 1. The organizer signs in and creates the group through the form.
	load(org, "open the sign-in page", "/login", chromedp.Navigate(srv.URL+"/login"))
	load(org, "sign in", "/",
		chromedp.SendKeys(chromedp.CSS(`#login`), "olga"),
		chromedp.SendKeys(chromedp.CSS(`#password`), memberPassword),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)))
	load(org, "open the groups", "/groups", chromedp.Navigate(srv.URL+"/groups"))
	meetup := time.Now().In(userLocation(organizer)).AddDate(0, 0, 14)
	const groupName = "1.36 変更内容共有会"
	step := browserStep(t, org)
	step("fill in the new group",
		chromedp.SendKeys(chromedp.CSS(`#group-name`), groupName),
		chromedp.SetValue(chromedp.CSS(`#group-meetup-date`), meetup.Format(time.DateOnly)),
		chromedp.SetValue(chromedp.CSS(`#group-meetup-time`), "19:00"),
		chromedp.SendKeys(chromedp.CSS(`#group-release`), "1.36"),
		chromedp.Click(chromedp.CSS(`input[name=deck][value="v1-36-sig-node"]`)),
		chromedp.Click(chromedp.CSS(`input[name=deck][value="v1-35-sig-node"]`)),
		chromedp.SendKeys(chromedp.CSS(`#group-note`), "SIG ごとに 1 人が発表します。"))
	resp, err := chromedp.RunResponse(org, chromedp.Click(chromedp.CSS(`form[action="/groups"] button[type=submit]`)))
	if err != nil || resp.Status != http.StatusOK {
		t.Fatalf("create the group: %v, %+v", err, resp)
	}
	at := journeyEval[string](t, org, `location.pathname`)
	id, err := strconv.ParseInt(strings.TrimPrefix(at, "/groups/"), 10, 64)
	if err != nil {
		t.Fatalf("after creating the group the browser is at %q, want /groups/{id}", at)
	}
	groupPath := "/groups/" + strconv.FormatInt(id, 10)
	page := text(org)
	for _, want := range []string{groupName, "あと 14 日", "19:00", "v1.36 SIG-Node", "v1.35 SIG-Node", "招待リンク"} {
		if !strings.Contains(page, want) {
			t.Errorf("the new group's page lacks %q:\n%s", want, page)
		}
	}
	link := journeyEval[string](t, org, `(document.getElementById('invite-link') || {value: ''}).value`)
	joinPrefix := srv.URL + "/groups/join/"
	if !strings.HasPrefix(link, joinPrefix) || len(link) < len(joinPrefix)+22 {
		t.Fatalf("the invite link on the group's page is %q", link)
	}
	checkPage(org, "group-organizer")
	joinAt := strings.TrimPrefix(link, srv.URL)

	// 2. The member, signed out, opens the link: the name only, and the
	// ways in; registering through it comes back to it.
	load(member, "open the invite link", joinAt, chromedp.Navigate(link))
	page = text(member)
	if !strings.Contains(page, groupName) || strings.Contains(page, "SIG ごとに") || strings.Contains(page, "v1.36 SIG-Node") {
		t.Errorf("a visitor's join page shows more than the group's name:\n%s", page)
	}
	load(member, "open the registration from the link", "/register?next="+joinAt,
		chromedp.Click(chromedp.CSS(`main a[href^="/register?next="]`)))
	load(member, "register", joinAt,
		chromedp.SendKeys(chromedp.CSS(`#login`), memberLogin),
		chromedp.SendKeys(chromedp.CSS(`#password`), memberPassword),
		chromedp.SendKeys(chromedp.CSS(`#password2`), memberPassword),
		chromedp.Click(chromedp.CSS(`form[action="/register"] button[type=submit]`)))
	page = text(member)
	for _, want := range []string{groupName, "SIG ごとに 1 人が発表します。", "v1.36 SIG-Node", "v1.35 SIG-Node", "メンバー 1 人"} {
		if !strings.Contains(page, want) {
			t.Errorf("the join page signed in lacks %q:\n%s", want, page)
		}
	}
	checkPage(member, "group-join")
	load(member, "join", groupPath, chromedp.Click(chromedp.CSS(`main form[action^="/groups/join/"] button[type=submit]`)))
	page = text(member)
	for _, want := range []string{groupName, "あと 14 日", "まだ見ていないカード: 8 / 8 枚", memberLogin, organizerName, "このグループを抜ける"} {
		if !strings.Contains(page, want) {
			t.Errorf("the member's group page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "招待リンク") {
		t.Error("the member sees the invite link's section")
	}
	checkPage(member, "group-member")
	creds, err := ts.db.Credentials(bg, memberLogin)
	if err != nil {
		t.Fatal(err)
	}
	mika := creds.User

	// 3. The member studies three cards from the group's button: two
	// right (Good), one wrong (Again).
	load(member, "study for the group", "/study/group/"+strconv.FormatInt(id, 10),
		chromedp.Click(chromedp.CSS(`main a[href="/study/group/`+strconv.FormatInt(id, 10)+`"]`)))
	mstep := browserStep(t, member)
	for i, right := range []bool{true, true, false} {
		card := journeyShown(t, member, questions)
		actions, err := journeyAnswer(card.q, right)
		if err != nil {
			t.Fatal(err)
		}
		rating := map[bool]string{true: "3", false: "1"}[right]
		mstep(fmt.Sprintf("answer card %d (%s)", i+1, card.q.ExtID), append(actions,
			chromedp.Click(chromedp.CSS(`#study form.study-answer button[type=submit]`)),
			untilSettled("the grade to be preselected", `!!document.querySelector('#study button[name=rating][value="`+rating+`"][data-preselected]')`, 10*time.Second))...)
		mstep(fmt.Sprintf("grade card %d", i+1), chromedp.KeyEvent(rating),
			untilSettled("the next card", `(() => { const q = document.querySelector('#study form.study-answer input[name=q]');
				return !q || q.value !== `+jsString(strconv.FormatInt(card.id, 10))+` })()`, 10*time.Second))
	}
	p, err := ts.db.GroupProgress(bg, id, organizer.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var studied int
	for _, r := range p.Rows {
		if r.UserID == mika.ID {
			studied += r.RecentReviews
		}
	}
	if studied != 3 {
		t.Fatalf("the store counts %d reviews of the member's in the group's decks, want 3", studied)
	}

	// 4. The organizer's dashboard shows the member's progress as the
	// store counts it.
	load(org, "back to the group's page", groupPath, chromedp.Navigate(srv.URL+groupPath))
	load(org, "open the dashboard", groupPath+"/progress", chromedp.Click(chromedp.CSS(`main a[href="`+groupPath+`/progress"]`)))
	cells := journeyEval[[]string](t, org, groupRowJS+`(`+jsString(memberLogin)+`)`)
	if len(cells) != len(p.Group.Decks) {
		t.Fatalf("the dashboard's row of %s: %q, want a cell for each of %d decks", memberLogin, cells, len(p.Group.Decks))
	}
	type figures struct{ seen, total, reviews, mastery string }
	shown := map[string]figures{} // by deck slug
	for j, d := range p.Group.Decks {
		m := groupCell.FindStringSubmatch(cells[j])
		if m == nil {
			t.Fatalf("the dashboard's cell of %s, %s: %q", memberLogin, d.Slug, cells[j])
		}
		shown[d.Slug] = figures{seen: m[1], total: m[2], mastery: m[3], reviews: m[4]}
		r, _ := p.Row(mika.ID, d.ID)
		mastery, _ := r.Cards.Mastery().Ratio()
		if want := (figures{strconv.Itoa(r.Seen), strconv.Itoa(r.Total), strconv.Itoa(r.RecentReviews), percent(mastery)}); shown[d.Slug] != want {
			t.Errorf("the dashboard shows %s's %s as %+v, the store %+v", memberLogin, d.Slug, shown[d.Slug], want)
		}
	}
	if want := (figures{"3", "7", "3", "0%"}); shown["v1-36-sig-node"] != want {
		t.Errorf("the dashboard shows %s's v1.36 deck as %+v, want %+v: three cards seen and reviewed, none yet mastered", memberLogin, shown["v1-36-sig-node"], want)
	}
	if want := (figures{"0", "1", "0", "0%"}); shown["v1-35-sig-node"] != want {
		t.Errorf("the dashboard shows %s's v1.35 deck as %+v, want %+v", memberLogin, shown["v1-35-sig-node"], want)
	}
	checkPage(org, "group-dashboard")

	// 5. The CSV behind the page's link, as the browser downloads it.
	body := journeyEval[string](t, org, `(async () => {
		const a = document.querySelector('main a[href$="/progress.csv"]');
		if (!a) return 'no link';
		const r = await fetch(a.href);
		return r.status + ' ' + r.headers.get('Content-Type') + '\n' + await r.text();
	})()`, chromedp.EvalAwaitPromise)
	head, data, _ := strings.Cut(body, "\n")
	if head != "200 text/csv; charset=utf-8" {
		t.Fatalf("the CSV link answers %q", head)
	}
	rows, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV: %v\n%s", err, data)
	}
	if len(rows) != 1+2*len(p.Group.Decks) || strings.Join(rows[0], ",") != strings.Join(groupProgressColumns, ",") {
		t.Fatalf("the CSV has %d rows, header %q:\n%s", len(rows), rows[0], data)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	found := 0
	for _, r := range rows[1:] {
		if r[col["login"]] != memberLogin {
			continue
		}
		found++
		f, ok := shown[r[col["deck"]]]
		mastery, err := strconv.ParseFloat(r[col["mastery"]], 64)
		if !ok || err != nil || r[col["seen"]] != f.seen || r[col["cards_total"]] != f.total || r[col["reviews_7d"]] != f.reviews || percent(mastery) != f.mastery {
			t.Errorf("the CSV's row %q, the dashboard's cell %+v", r, f)
		}
	}
	if found != len(p.Group.Decks) {
		t.Errorf("the CSV has %d rows of %s, want %d:\n%s", found, memberLogin, len(p.Group.Decks), data)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}
