package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// flashDeckYAML is a deck of n flashcards, f1 to fn.
func flashDeckYAML(slug, title, release, sig string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "deck:\n  slug: %s\n  title: %q\n  release: %q\n  sig: %s\n  language: ja\nquestions:\n", slug, title, release, sig)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - id: f%d\n    type: flashcard\n    prompt: %s の問い %d\n    answer: 答え %d\n    explanation: 説明 %d\n"+
			"    source: {release: %q, sig: %s, kind: feature, prs: [%d]}\n", i, slug, i, i, i, release, sig, 100+i)
	}
	return b.String()
}

// statsEnv is a server whose clock stands still, with three decks (1.36
// SIG-Node, 1.36 SIG-Apps, 1.35 SIG-Node; none for 1.35 SIG-Apps) and
// the learners alice, bob and carol.
type statsEnv struct {
	t                 *testing.T
	ts                *testServer
	now               time.Time
	alice, bob, carol studyClient
	q                 map[string]int64 // "slug/ext" -> question id
	reviews           map[int64]int    // reviews recorded per user
	seen              map[int64]map[int64]bool
	n                 int
}

func newStatsEnv(t *testing.T) *statsEnv {
	t.Helper()
	ts := newTestServer(t)
	env := &statsEnv{t: t, ts: ts, now: time.Now().Truncate(time.Second), q: map[string]int64{},
		reviews: map[int64]int{}, seen: map[int64]map[int64]bool{}}
	ts.cfg.Now = func() time.Time { return env.now }
	decks := []struct {
		slug, title, release, sig string
		n                         int
	}{
		{"v1-36-node", "v1.36 SIG-Node", "1.36", "SIG-Node", 6},
		{"v1-36-apps", "v1.36 SIG-Apps", "1.36", "SIG-Apps", 4},
		{"v1-35-node", "v1.35 SIG-Node", "1.35", "SIG-Node", 3},
	}
	ctx := context.Background()
	for _, d := range decks {
		importYAML(t, ts, d.slug+".yaml", flashDeckYAML(d.slug, d.title, d.release, d.sig, d.n), false)
		qs, err := ts.db.DeckQuestions(ctx, d.slug, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, sq := range qs {
			env.q[d.slug+"/"+sq.Question.ExtID] = sq.ID
		}
	}
	env.alice = newStudyClient(t, ts, "alice")
	env.bob = newStudyClient(t, ts, "bob")
	env.carol = newStudyClient(t, ts, "carol")
	for _, sub := range []struct {
		cl   studyClient
		slug string
	}{{env.alice, "v1-36-node"}, {env.alice, "v1-36-apps"}, {env.bob, "v1-36-node"}, {env.carol, "v1-36-node"}} {
		if _, err := ts.db.SetSubscription(ctx, sub.cl.user.ID, sub.slug, true, env.now); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// review records cl's grade of a deck's flashcard, daysAgo days and an
// hour before now, on the deck's own page.
func (env *statsEnv) review(cl studyClient, slug, ext string, daysAgo int, r fsrs.Rating) {
	env.t.Helper()
	qid := env.q[slug+"/"+ext]
	if qid == 0 {
		env.t.Fatalf("no question %s/%s", slug, ext)
	}
	env.n++
	at := env.now.Add(-time.Duration(daysAgo)*24*time.Hour - time.Hour)
	_, err := env.ts.db.RecordReview(context.Background(), store.Review{UserID: cl.user.ID, QuestionID: qid,
		RequestID: fmt.Sprintf("stats-%d", env.n), Rating: r, Response: quiz.Response{Choice: -1, Revealed: true},
		Scope: store.Scope{Deck: slug}, Duration: 4 * time.Second, At: at})
	if err != nil {
		env.t.Fatalf("review %s/%s: %v", slug, ext, err)
	}
	env.reviews[cl.user.ID]++
	if env.seen[cl.user.ID] == nil {
		env.seen[cl.user.ID] = map[int64]bool{}
	}
	env.seen[cl.user.ID][qid] = true
}

// aliceStudies gives alice 40 days of study: a card reviewed Easy
// throughout (mastered and mature by now), others forgotten and
// relearned, and a card of a deck she does not subscribe to.
func (env *statsEnv) aliceStudies() {
	a := env.alice
	for _, r := range []struct {
		slug, ext string
		days      int
		rating    fsrs.Rating
	}{
		{"v1-36-node", "f1", 60, fsrs.Easy}, {"v1-36-node", "f2", 60, fsrs.Good}, {"v1-36-node", "f3", 60, fsrs.Good},
		{"v1-36-node", "f4", 59, fsrs.Good}, {"v1-36-apps", "f1", 59, fsrs.Good}, {"v1-36-apps", "f2", 59, fsrs.Again},
		{"v1-36-apps", "f2", 58, fsrs.Good}, {"v1-36-node", "f2", 50, fsrs.Good}, {"v1-36-node", "f1", 40, fsrs.Easy},
		{"v1-36-node", "f2", 28, fsrs.Again}, {"v1-36-node", "f3", 25, fsrs.Hard}, {"v1-36-node", "f2", 27, fsrs.Good},
		{"v1-36-apps", "f1", 20, fsrs.Easy}, {"v1-36-node", "f4", 12, fsrs.Good}, {"v1-36-node", "f1", 8, fsrs.Easy},
		{"v1-36-apps", "f2", 5, fsrs.Again}, {"v1-36-node", "f5", 2, fsrs.Good}, {"v1-35-node", "f1", 1, fsrs.Good},
		{"v1-36-node", "f3", 0, fsrs.Good}, {"v1-36-node", "f4", 0, fsrs.Again},
	} {
		env.review(a, r.slug, r.ext, r.days, r.rating)
	}
}

// bobStudies gives bob more reviews than alice, none on her days, all
// Again: none of it may show on her page.
func (env *statsEnv) bobStudies() {
	for d := 3; d < 50; d += 2 {
		for i := 1; i <= 6; i++ {
			env.review(env.bob, "v1-36-node", "f"+strconv.Itoa(i), d, fsrs.Again)
		}
	}
}

var (
	tagRe   = regexp.MustCompile(`<[^>]*>`)
	spaceRe = regexp.MustCompile(`\s+`)
)

// plainText is HTML's text, tags dropped and spaces folded.
func plainText(s string) string {
	return strings.TrimSpace(spaceRe.ReplaceAllString(html.UnescapeString(tagRe.ReplaceAllString(s, " ")), " "))
}

// tableRows returns the text of each row of the table with id in body.
func tableRows(t *testing.T, body, id string) []string {
	t.Helper()
	start := strings.Index(body, `id="`+id+`"`)
	if start < 0 {
		t.Fatalf("no table %s", id)
	}
	table := body[start:]
	table = table[:strings.Index(table, "</table>")]
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(table, -1) {
		out = append(out, plainText(m[1]))
	}
	return out
}

// pct is a share as the page says it, rounded down: "—" without a whole.
func pct(s progress.Share) string {
	if _, ok := s.Ratio(); !ok {
		return "—"
	}
	return strconv.Itoa(s.Part*100/s.Whole) + "%"
}

// figuresText is a row of the figures' tables as its text reads.
func figuresText(name string, f progress.Figures) string {
	s := fmt.Sprintf("%s %d / %d %d %s", name, f.Seen, f.Total, f.Mature, pct(f.Retention))
	if f.Retention.Whole > 0 {
		s += fmt.Sprintf(" %d / %d", f.Retention.Part, f.Retention.Whole)
	}
	m := f.Mastery()
	return s + fmt.Sprintf(" %s %d / %d", pct(m), m.Part, m.Whole)
}

// TestStatsPage: alice's page shows the figures progress defines, as the
// store gathers them: per deck, per SIG and in total, the forecast, the
// calendar and the map; bob's reviews change nothing on it.
func TestStatsPage(t *testing.T) {
	env := newStatsEnv(t)
	env.aliceStudies()
	ctx := context.Background()
	st, err := env.ts.db.Stats(ctx, env.alice.user.ID, nil, env.now)
	if err != nil {
		t.Fatal(err)
	}
	// The fixture means something: cards mastered, mature, retention
	// counted, three decks of two SIGs.
	if st.Total.Mastered == 0 || st.Total.Mature == 0 || st.Today.Total() == 0 || st.Total.Retention.Whole == 0 || len(st.Decks) != 3 || len(st.SIGs) != 2 {
		t.Fatalf("the fixture's figures are too thin: %+v", st)
	}
	rec := env.alice.get("/stats", false)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /stats = %d: %.500s", rec.Code, rec.Body.String())
	}
	body := rec.Body.String()

	summary := body[strings.Index(body, `id="stats-summary"`):]
	summary = plainText(summary[:strings.Index(summary, "</dl>")])
	for _, want := range []string{
		fmt.Sprintf("見たカード %d / %d 枚", len(env.seen[env.alice.user.ID]), st.Total.Total),
		fmt.Sprintf("定着したカード %d 枚", st.Total.Mature),
		fmt.Sprintf("実際の正答率 (直近 30 日) %s %d / %d 回", pct(st.Total.Retention), st.Total.Retention.Part, st.Total.Retention.Whole),
		fmt.Sprintf("習得率 %s %d / %d 枚", pct(st.Total.Mastery()), st.Total.Mastered, st.Total.Total),
		fmt.Sprintf("連続学習 %d 日", st.Streak.Days),
		fmt.Sprintf("今日学習できるカード %d 枚", st.Today.Total()),
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q: %s", want, summary)
		}
	}
	if st.Total.Seen != len(env.seen[env.alice.user.ID]) {
		t.Errorf("seen = %d, alice reviewed %d cards", st.Total.Seen, len(env.seen[env.alice.user.ID]))
	}

	var want []string
	for _, d := range st.Decks {
		want = append(want, figuresText(d.Title, d.Figures))
	}
	want = append(want, figuresText("合計", st.Total))
	if got := tableRows(t, body, "stats-decks")[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("deck rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	want = want[:0]
	for _, g := range st.SIGs {
		want = append(want, figuresText(fmt.Sprintf("%s %d デッキ", g.SIG, g.Decks), g.Figures))
	}
	want = append(want, figuresText("合計", st.Total))
	if got := tableRows(t, body, "stats-sigs")[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SIG rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The forecast's table, day by day.
	rows := tableRows(t, body, "forecast-table")[1:]
	if len(rows) != progress.ForecastDays {
		t.Fatalf("%d forecast rows", len(rows))
	}
	for i, d := range st.Forecast {
		if !strings.HasSuffix(rows[i], " "+strconv.Itoa(d.Count)) || !strings.Contains(rows[i], fmt.Sprintf("%d/%d", d.Start.Month(), d.Start.Day())) {
			t.Errorf("forecast row %d = %q, want %v: %d", i, rows[i], d.Start, d.Count)
		}
	}
	// The calendar counts every review of alice's, and only hers.
	if want := fmt.Sprintf("過去 365 日で %d 回復習し", env.reviews[env.alice.user.ID]); !strings.Contains(body, want) {
		t.Errorf("the calendar does not say %q", want)
	}
	months := 0
	for _, r := range tableRows(t, body, "calendar-table")[1:] {
		f := strings.Fields(r)
		n, _ := strconv.Atoi(f[len(f)-4])
		months += n
	}
	if months != env.reviews[env.alice.user.ID] {
		t.Errorf("the months' table sums %d reviews, alice made %d", months, env.reviews[env.alice.user.ID])
	}

	// The map: a row per release, a column per SIG (in st's SIG order),
	// the share of each pair's cards mastered; no deck for 1.35 SIG-Apps.
	head := tableRows(t, body, "mastery-table")[0]
	if head != "リリース SIG-Apps SIG-Node" {
		t.Errorf("the map's head = %q", head)
	}
	cell := map[string]progress.Cards{}
	for _, d := range st.Decks {
		cell[d.Release+" "+d.SIG] = cell[d.Release+" "+d.SIG].Add(d.Cards)
	}
	text := func(release, sig string) string {
		c, ok := cell[release+" "+sig]
		if !ok {
			return "デッキなし"
		}
		return fmt.Sprintf("%s %d / %d 枚", pct(c.Mastery()), c.Mastered, c.Total)
	}
	wantMap := []string{
		"v1.36 " + text("1.36", "SIG-Apps") + " " + text("1.36", "SIG-Node"),
		"v1.35 " + text("1.35", "SIG-Apps") + " " + text("1.35", "SIG-Node"),
	}
	if got := tableRows(t, body, "mastery-table")[1:]; strings.Join(got, "\n") != strings.Join(wantMap, "\n") {
		t.Errorf("map rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantMap, "\n"))
	}
	if !strings.Contains(body, `<title>v1.35 × SIG-Apps: デッキなし</title>`) {
		t.Error("the map's cell without a deck has no title")
	}
	checkCharts(t, body, 3)
	checkScrollBoxes(t, "/stats", body)
	for _, link := range []string{`href="/export/reviews.csv"`, `href="/export/cards.csv"`, `href="/stats"`} {
		if !strings.Contains(body, link) {
			t.Errorf("the page lacks the link %s", link)
		}
	}

	// Bob studies more, on other days and the same cards: alice's page
	// stays as it was.
	env.bobStudies()
	if again := env.alice.get("/stats", false).Body.String(); again != body {
		t.Errorf("bob's reviews changed alice's page")
	}
	if bob := env.bob.get("/stats", false).Body.String(); !strings.Contains(bob, fmt.Sprintf("過去 365 日で %d 回復習し", env.reviews[env.bob.user.ID])) {
		t.Errorf("bob's page does not count his %d reviews", env.reviews[env.bob.user.ID])
	}
}

var (
	svgRe   = regexp.MustCompile(`(?s)<svg class="chart-svg[^"]*"[^>]*>.*?</svg>`)
	labelRe = regexp.MustCompile(`aria-labelledby="([^"]+)"`)
)

// checkCharts checks that body has n charts, each an image with a
// viewBox, named by its title and described by its description, each
// followed by a table of its figures.
func checkCharts(t *testing.T, body string, n int) {
	t.Helper()
	charts := svgRe.FindAllString(body, -1)
	if len(charts) != n {
		t.Fatalf("%d charts, want %d", len(charts), n)
	}
	for _, svg := range charts {
		open := svg[:strings.Index(svg, ">")]
		ids := labelRe.FindStringSubmatch(open)
		if !strings.Contains(open, `role="img"`) || !strings.Contains(open, `viewBox="0 0 `) || ids == nil {
			t.Errorf("a chart is no image named and described: %s", open)
			continue
		}
		parts := strings.Fields(ids[1])
		if len(parts) != 2 || !strings.Contains(svg, `<title id="`+parts[0]+`">`) || !strings.Contains(svg, `<desc id="`+parts[1]+`">`) {
			t.Errorf("a chart's title or description is missing: %s", open)
		}
		if desc := regexp.MustCompile(`<desc id="[^"]+">([^<]+)</desc>`).FindStringSubmatch(svg); desc == nil || len(desc[1]) < 20 {
			t.Errorf("a chart without a description of its figures: %s", open)
		}
		rest := body[strings.Index(body, svg)+len(svg):]
		if d := strings.Index(rest, "<details>"); d < 0 || !strings.Contains(rest[d:d+600], "<table") {
			t.Errorf("a chart without a table of its figures after it: %s", open)
		}
	}
}

// TestStatsPageEmpty: a learner who has reviewed nothing gets a word and
// the way to start, no charts; signed out, the page leads to sign-in.
func TestStatsPageEmpty(t *testing.T) {
	env := newStatsEnv(t)
	env.bobStudies()
	rec := env.carol.get("/stats", false)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "まだ復習の記録がありません") || !strings.Contains(body, `href="/study"`) {
		t.Fatalf("carol's page = %d: %.1500s", rec.Code, body)
	}
	if strings.Contains(body, "<svg class=\"chart-svg") || strings.Contains(body, "stats-decks") {
		t.Error("the empty page shows charts or tables")
	}

	out := studyClient{t: t, ts: env.ts}
	for _, htmx := range []bool{false, true} {
		rec := out.get("/stats", htmx)
		switch {
		case !htmx && (rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login?next=%2Fstats"):
			t.Errorf("signed out: %d to %q", rec.Code, rec.Header().Get("Location"))
		case htmx && rec.Header().Get("HX-Redirect") != "/login?next=%2Fstats":
			t.Errorf("signed out with htmx: %d, HX-Redirect %q", rec.Code, rec.Header().Get("HX-Redirect"))
		}
		if strings.Contains(rec.Body.String(), "学習の統計") {
			t.Error("the page was shown signed out")
		}
	}
}

// TestRetentionForm: a learner sets their desired retention; a value the
// rule refuses, or none, gets the rule's message with a 422, keeps what
// was sent in the form and stores nothing.
func TestRetentionForm(t *testing.T) {
	env := newStudyEnv(t)
	cl := env.alice
	stored := func() float64 {
		t.Helper()
		u, err := env.ts.db.UserByID(context.Background(), cl.user.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.DesiredRetention
	}
	page := cl.get("/account", false).Body.String()
	input := regexp.MustCompile(`<input id="desired_retention"[^>]*>`).FindString(page)
	for _, attr := range []string{`name="desired_retention"`, `type="number"`, `min="0.70"`, `max="0.97"`, `step="0.01"`, `value="0.9"`, `aria-describedby="retention-hint"`} {
		if !strings.Contains(input, attr) {
			t.Errorf("the retention input lacks %s: %s", attr, input)
		}
	}
	if !strings.Contains(page, `action="/account/retention"`) || !strings.Contains(page, "復習が増えます") {
		t.Error("the account page lacks the retention form or its explanation")
	}
	msg := quiz.SettingProblem{Code: quiz.RetentionOutOfRange}.Error()
	tests := []struct {
		name string
		form url.Values
		want int
		kept float64 // stored afterwards
	}{
		{"valid", url.Values{"desired_retention": {"0.85"}}, http.StatusSeeOther, 0.85},
		{"the lowest", url.Values{"desired_retention": {"0.70"}}, http.StatusSeeOther, 0.70},
		{"the highest, with spaces", url.Values{"desired_retention": {" 0.97 "}}, http.StatusSeeOther, 0.97},
		{"full-width digits", url.Values{"desired_retention": {"０．９２"}}, http.StatusSeeOther, 0.92},
		{"below", url.Values{"desired_retention": {"0.69"}}, http.StatusUnprocessableEntity, 0.92},
		{"above", url.Values{"desired_retention": {"0.98"}}, http.StatusUnprocessableEntity, 0.92},
		{"a percentage", url.Values{"desired_retention": {"90"}}, http.StatusUnprocessableEntity, 0.92},
		{"negative", url.Values{"desired_retention": {"-0.9"}}, http.StatusUnprocessableEntity, 0.92},
		{"not a number", url.Values{"desired_retention": {"たくさん"}}, http.StatusUnprocessableEntity, 0.92},
		{"NaN", url.Values{"desired_retention": {"NaN"}}, http.StatusUnprocessableEntity, 0.92},
		{"infinity", url.Values{"desired_retention": {"+Inf"}}, http.StatusUnprocessableEntity, 0.92},
		{"empty", url.Values{"desired_retention": {""}}, http.StatusUnprocessableEntity, 0.92},
		{"missing", url.Values{}, http.StatusUnprocessableEntity, 0.92},
		{"markup", url.Values{"desired_retention": {`<b>0.9</b>`}}, http.StatusUnprocessableEntity, 0.92},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := cl.post("/account/retention", tt.form, false)
			if rec.Code != tt.want {
				t.Fatalf("POST /account/retention = %d, want %d: %.500s", rec.Code, tt.want, rec.Body.String())
			}
			if got := stored(); got != tt.kept {
				t.Errorf("stored %v, want %v", got, tt.kept)
			}
			if tt.want == http.StatusSeeOther {
				if loc := rec.Header().Get("Location"); loc != "/account?done=retention" {
					t.Errorf("redirect to %q", loc)
				}
				return
			}
			body := rec.Body.String()
			input := regexp.MustCompile(`<input id="desired_retention"[^>]*>`).FindString(body)
			sent := html.EscapeString(strings.TrimSpace(tt.form.Get("desired_retention")))
			if !strings.Contains(body, `id="retention-error">`+msg+`</p>`) || !strings.Contains(input, `aria-invalid="true"`) ||
				!strings.Contains(input, "autofocus") || !strings.Contains(input, `value="`+sent+`"`) ||
				!strings.Contains(input, `aria-describedby="retention-error retention-hint"`) {
				t.Errorf("refusal lacks the message, the marked field or the value sent: %s", input)
			}
		})
	}
	if page := cl.get("/account?done=retention", false).Body.String(); !strings.Contains(page, "目標正答率を保存しました。") {
		t.Error("no notice after saving the desired retention")
	}
	// Signed out, the form stores nothing.
	out := studyClient{t: t, ts: env.ts}
	if rec := out.post("/account/retention", url.Values{"desired_retention": {"0.8"}}, false); rec.Code != http.StatusUnauthorized && rec.Code != http.StatusForbidden {
		t.Errorf("signed out: %d", rec.Code)
	}
	if got := stored(); got != 0.92 {
		t.Errorf("stored %v after a signed-out post", got)
	}
}
