package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// testClock is a server clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// useClock sets env's server clock to the real time (the sessions were
// made by it), an hour earlier in the last hour before 04:00 in Tokyo, the
// learners' zone, so that cards due in minutes are due the same study day.
func useClock(t *testing.T, env *studyEnv) *testClock {
	t.Helper()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	c := &testClock{t: time.Now().Truncate(time.Second)}
	if c.t.In(tokyo).Hour() == quiz.DayStartHour-1 {
		c.t = c.t.Add(-time.Hour)
	}
	env.ts.cfg.Now = c.now
	return c
}

var (
	countsRe = regexp.MustCompile(`(?s)<p id="study-counts"[^>]*>(.*?)</p>`)
	countRe  = regexp.MustCompile(`(新規|学習中|復習) <strong>(\d+)</strong>`)
)

// shownDue reads the study counts a page or fragment shows; ok is false
// when it shows none.
func shownDue(t *testing.T, body string) (d progress.Due, ok bool) {
	t.Helper()
	m := countsRe.FindStringSubmatch(body)
	if m == nil {
		return d, false
	}
	found := 0
	for _, c := range countRe.FindAllStringSubmatch(m[1], -1) {
		n, _ := strconv.Atoi(c[2])
		switch c[1] {
		case "新規":
			d.New = n
		case "学習中":
			d.Learning = n
		case "復習":
			d.Review = n
		}
		found++
	}
	if found != 3 {
		t.Fatalf("study counts show %d counts, want 3: %s", found, m[0])
	}
	return d, true
}

// pastReview records cl's review of question ext at at, as if graded then.
func (env *studyEnv) pastReview(cl studyClient, ext string, r quiz.Response, rating fsrs.Rating, at time.Time) {
	env.t.Helper()
	_, err := env.ts.db.RecordReview(context.Background(), store.Review{UserID: cl.user.ID, QuestionID: env.q[ext],
		RequestID: newPresentationID(at), Rating: rating, Response: r, At: at})
	if err != nil {
		env.t.Fatalf("review of %s at %s: %v", ext, at, err)
	}
}

// answerShown answers the card a study body shows (htmx) with nothing
// chosen (an order question in its shown order) and returns the feedback.
func answerShown(t *testing.T, cl studyClient, body string) string {
	t.Helper()
	form := hiddenFields(body)
	for i := range 8 {
		if strings.Contains(body, `name="pos-`+strconv.Itoa(i)+`"`) {
			form.Set("pos-"+strconv.Itoa(i), strconv.Itoa(i+1))
		}
	}
	rec := cl.post("/study/answer", form, true)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `class="study-grade"`) {
		t.Fatalf("answer = %d with %v: %.800s\n%s", rec.Code, form, rec.Body.String(), cl.ts.log.String())
	}
	return rec.Body.String()
}

// gradeShown grades the feedback of body with rating (htmx).
func gradeShown(t *testing.T, cl studyClient, body string, rating fsrs.Rating) string {
	t.Helper()
	form := hiddenFields(body)
	form.Set("rating", strconv.Itoa(int(rating)))
	rec := cl.post("/study/grade", form, true)
	if rec.Code != http.StatusOK {
		t.Fatalf("grade = %d: %.800s", rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

var buttonIntervalRe = regexp.MustCompile(`name="rating" value="(\d)"[^>]*>\s*([^<]*?) <small>([^<]*)</small>`)

// gradeButtons are the grade buttons of a feedback: label and interval by
// rating.
func gradeButtons(body string) map[string][2]string {
	out := map[string][2]string{}
	for _, m := range buttonIntervalRe.FindAllStringSubmatch(body, -1) {
		out[m[1]] = [2]string{m[2], m[3]}
	}
	return out
}

// TestHomeSignedIn: the home page of a learner shows HomeSummary's
// figures, per subscribed deck and in all, and when nothing is left today
// when the next card comes, in the learner's zone.
func TestHomeSignedIn(t *testing.T) {
	env := newStudyEnv(t)
	clock := useClock(t, env)
	ctx := context.Background()
	now := clock.now()
	alice, bob := env.alice, env.bob
	for _, slug := range []string{"v1-36-sig-node", "v1-35-sig-node"} {
		alice.post("/decks/"+slug+"/subscription", url.Values{"subscribed": {"1"}}, true)
	}
	bob.post("/decks/v1-35-sig-node/subscription", url.Values{"subscribed": {"1"}}, true)
	qs, err := env.ts.db.DeckQuestions(ctx, "v1-35-sig-node", true)
	if err != nil || len(qs) != 1 {
		t.Fatalf("deck v1-35: %d questions, %v", len(qs), err)
	}
	env.q["kept"] = qs[0].ID
	// Alice: two review cards due (one in each deck), answered Easy three
	// weeks ago; one learning card, graded Good now; four new cards.
	env.pastReview(alice, "multi", quiz.Response{Choice: -1, Selected: []int{0, 1}}, fsrs.Easy, now.AddDate(0, 0, -21))
	env.pastReview(alice, "kept", quiz.Response{Choice: -1, Texts: []string{"kept"}}, fsrs.Easy, now.AddDate(0, 0, -21))
	env.pastReview(alice, "single", quiz.Response{Choice: 2}, fsrs.Good, now)
	// Bob, in New York, has studied his one card today; it comes back in
	// days.
	if err := env.ts.db.SetTimezone(ctx, bob.user.ID, "America/New_York"); err != nil {
		t.Fatal(err)
	}
	env.pastReview(bob, "kept", quiz.Response{Choice: -1, Texts: []string{"kept"}}, fsrs.Easy, now.Add(-time.Minute))

	t.Run("cards left", func(t *testing.T) {
		sum, err := env.ts.db.HomeSummary(ctx, alice.user.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if want := (progress.Due{Learning: 1, Review: 2, New: 5}); sum.Today != want {
			t.Fatalf("HomeSummary's cards left today %+v, want %+v", sum.Today, want)
		}
		rec := alice.get("/", false)
		body := rec.Body.String()
		if rec.Code != http.StatusOK {
			t.Fatalf("GET / = %d", rec.Code)
		}
		total := regexp.MustCompile(`(?s)<p class="study-counts home-counts">(.*?)</p>`).FindStringSubmatch(body)
		if total == nil {
			t.Fatalf("no counts of today: %.3000s", body)
		}
		var got progress.Due
		for _, c := range countRe.FindAllStringSubmatch(total[1], -1) {
			n, _ := strconv.Atoi(c[2])
			switch c[1] {
			case "新規":
				got.New = n
			case "学習中":
				got.Learning = n
			case "復習":
				got.Review = n
			}
		}
		if got != sum.Today {
			t.Errorf("home page shows %+v today, HomeSummary %+v", got, sum.Today)
		}
		if len(sum.Decks) != 2 {
			t.Fatalf("%d subscribed decks", len(sum.Decks))
		}
		for _, d := range sum.Decks {
			row := `<th scope="row"><a href="/study/` + d.Slug + `">` + d.Title + `</a></th><td class="num count-new">` +
				strconv.Itoa(d.Today.New) + `</td><td class="num count-learning">` + strconv.Itoa(d.Today.Learning) +
				`</td><td class="num count-review">` + strconv.Itoa(d.Today.Review) + `</td>`
			if !strings.Contains(body, row) {
				t.Errorf("home page lacks the row %s: %.4000s", row, body)
			}
		}
		for _, want := range []string{`<a href="/study" role="button">学習を始める (8 枚)</a>`,
			"連続学習: <strong>1 日</strong>", "今日学習した新規カード 1 枚、復習 0 枚"} {
			if !strings.Contains(body, want) {
				t.Errorf("home page lacks %s: %.4000s", want, body)
			}
		}
		checkLabelsAndCSRF(t, "/", body)
	})

	t.Run("nothing left", func(t *testing.T) {
		sum, err := env.ts.db.HomeSummary(ctx, bob.user.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Today.Total() != 0 || sum.NextDue.IsZero() || sum.NextDue.Location().String() != "America/New_York" {
			t.Fatalf("bob's summary: %+v", sum)
		}
		body := bob.get("/", false).Body.String()
		when := `<time datetime="` + sum.NextDue.Format(time.RFC3339) + `">` + dueText(sum.NextDue, now) + `</time>`
		for _, want := range []string{"今日のカードはすべて終わりました", when, "-05:00\"", "(あと ",
			"連続学習: <strong>1 日</strong>", `<a href="/study" role="button" class="secondary">`} {
			if strings.Contains(want, "-05:00") && sum.NextDue.Format("-07:00") == "-04:00" {
				want = "-04:00\"" // summer time
			}
			if !strings.Contains(body, want) {
				t.Errorf("home page lacks %s: %.4000s", want, body)
			}
		}
		if strings.Contains(body, "学習を始める") {
			t.Error("nothing left today, yet a button to start")
		}
	})
}

// TestStudyCountsFall studies a deck through htmx: each grade's answer
// shows the counts left today as the store counts them, the new cards
// falling by one per card graded, and each card's kind marked.
func TestStudyCountsFall(t *testing.T) {
	env := newStudyEnv(t)
	clock := useClock(t, env)
	ctx := context.Background()
	cl := env.alice
	cl.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, true)
	page := cl.get("/study", false).Body.String()
	shown, ok := shownDue(t, page)
	if !ok || shown != (progress.Due{New: 7}) {
		t.Fatalf("the study page shows %+v (%v), want 7 new cards: %.2000s", shown, ok, page)
	}
	if !strings.Contains(page, `<span class="count count-new current">新規 <strong>7</strong>`) {
		t.Errorf("the new card shown is not marked among the new cards: %.2000s", page)
	}
	ratings := []fsrs.Rating{fsrs.Easy, fsrs.Good, fsrs.Again, fsrs.Easy, fsrs.Hard, fsrs.Easy, fsrs.Easy}
	body := page
	for i, r := range ratings {
		before := shown
		feedback := answerShown(t, cl, body)
		if _, ok := shownDue(t, feedback); ok {
			t.Errorf("card %d: the answer's fragment replaces the counts", i)
		}
		body = gradeShown(t, cl, feedback, r)
		var ok bool
		if shown, ok = shownDue(t, body); !ok {
			t.Fatalf("card %d: the grade's answer shows no counts: %.1500s", i, body)
		}
		exact, err := env.ts.db.StudyCounts(ctx, cl.user, store.Scope{Deck: "v1-36-sig-node"}, env.ts.now())
		if err != nil {
			t.Fatal(err)
		}
		if shown != exact {
			t.Errorf("card %d graded %v: counts %+v, the store counts %+v", i, r, shown, exact)
		}
		if shown.New != before.New-1 {
			t.Errorf("card %d: new cards %d, want %d", i, shown.New, before.New-1)
		}
		if want := before.Learning + map[fsrs.Rating]int{fsrs.Again: 1, fsrs.Hard: 1, fsrs.Good: 1}[r]; shown.Learning != want {
			t.Errorf("card %d graded %v: learning cards %d, want %d", i, r, shown.Learning, want)
		}
	}
	// The queue has nothing due now: its counts are the learning cards
	// of later today.
	if !strings.Contains(body, "次のカード") || shown != (progress.Due{Learning: 3}) {
		t.Errorf("after the last new card: counts %+v: %.1500s", shown, body)
	}

	// A form carrying no counts, or counts no page writes, is counted
	// again; a whole page of an answer shows the counts it carries. Half
	// an hour later the learning cards are due; each is graded Again, and
	// due again two minutes later.
	clock.advance(30 * time.Minute)
	later := strconv.FormatInt(env.ts.now().Add(time.Hour).UnixMilli(), 10)
	for _, carried := range []string{"", "1.2.3", "99999999999999.1.1.1.x.a", later + ".1.-1.1.n.a", later + ".1.1.1.n.dv1-36-sig-node"} {
		clock.advance(2 * time.Minute)
		page := cl.get("/study", true).Body.String()
		feedback := answerShown(t, cl, page)
		grade := hiddenFields(feedback)
		grade.Set("c", carried)
		grade.Set("rating", "1")
		rec := cl.post("/study/grade", grade, true)
		got, _ := shownDue(t, rec.Body.String())
		exact, err := env.ts.db.StudyCounts(ctx, cl.user, store.Scope{Deck: "v1-36-sig-node"}, env.ts.now())
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusOK || got != exact {
			t.Errorf("carrying %q: %d with counts %+v, want %+v", carried, rec.Code, got, exact)
		}
	}
	page = cl.get("/study", false).Body.String()
	fields := hiddenFields(page)
	if fields.Get("c") == "" {
		t.Fatalf("the answer form carries no counts: %.2000s", page)
	}
	fields.Set("c", strconv.FormatInt(env.ts.now().Add(time.Hour).UnixMilli(), 10)+".4.5.6.l.a")
	answered := cl.get("/study/answer?"+fields.Encode(), false).Body.String()
	if got, ok := shownDue(t, answered); !ok || got != (progress.Due{New: 4, Learning: 5, Review: 6}) {
		t.Errorf("the plain answer page shows %+v (%v), want the counts carried", got, ok)
	}
	if hiddenFields(answered).Get("c") != fields.Get("c") {
		t.Error("the grade form does not carry the answer form's counts on")
	}
}

// TestShownCounts: the counts a form carries, read back, and the counts
// after a grade.
func TestShownCounts(t *testing.T) {
	end := time.Date(2026, 5, 2, 4, 0, 0, 0, time.UTC)
	now := end.Add(-time.Hour)
	deck := store.Scope{Deck: "v1-36-sig-node"}
	s := shownCounts{due: progress.Due{New: 3, Learning: 1, Review: 12}, kind: views.CountReview, dayEnds: end, scope: deck}
	same := func(a, b shownCounts) bool {
		return a.due == b.due && a.kind == b.kind && a.dayEnds.Equal(b.dayEnds) && a.scope == b.scope
	}
	back, ok := parseCarried(s.carried(), deck)
	if !ok || !same(back, s) {
		t.Fatalf("carried %q read back as %+v, %v", s.carried(), back, ok)
	}
	for _, bad := range []string{"", "x", "1.2.3.4", "1.2.3.4.n", "1.2.3.4.n.5", "0.1.1.1.n.a", "-5.1.1.1.n.a", "1.01.1.1.n.a", "1.1.+1.1.n.a",
		"1.1.1.99999999999.n.a", "1.1.1.1.q.a", "1.1.1.1..a", "1. 1.1.1.n.a", "1.1.1.1.n.a.a"} {
		if _, ok := parseCarried(bad, store.Scope{}); ok {
			t.Errorf("parseCarried(%q) accepted", bad)
		}
	}
	// Each page carries its own counts: those of another page are
	// refused. A card of none of the counts (an extra review) is carried
	// as such.
	pages := []store.Scope{{}, deck, {Deck: "v1-35-sig-node"}, {Group: 7}, {Group: 70}}
	for _, from := range pages {
		c := s
		c.scope, c.kind = from, ""
		for _, to := range pages {
			if back, ok := parseCarried(c.carried(), to); ok != (from == to) || ok && !same(back, c) {
				t.Errorf("counts of page %+v carried to page %+v: %+v, %v", from, to, back, ok)
			}
		}
	}
	tests := []struct {
		name   string
		kind   string
		rec    store.Recorded
		at     time.Time
		want   progress.Due
		wantOK bool
	}{
		{"new graded Easy", views.CountNew, store.Recorded{State: fsrs.Review, Due: end.AddDate(0, 0, 5)}, now, progress.Due{New: 2, Learning: 1, Review: 12}, true},
		{"new graded Good", views.CountNew, store.Recorded{State: fsrs.Learning, Due: now.Add(10 * time.Minute)}, now, progress.Due{New: 2, Learning: 2, Review: 12}, true},
		{"new back after the day ends", views.CountNew, store.Recorded{State: fsrs.Learning, Due: end.Add(time.Minute)}, now, progress.Due{New: 2, Learning: 1, Review: 12}, true},
		{"learning graduates", views.CountLearning, store.Recorded{State: fsrs.Review, Due: end.AddDate(0, 0, 1)}, now, progress.Due{New: 3, Review: 12}, true},
		{"review lapses", views.CountReview, store.Recorded{State: fsrs.Relearning, Due: now.Add(10 * time.Minute)}, now, progress.Due{New: 3, Learning: 2, Review: 11}, true},
		{"review back in review today", views.CountReview, store.Recorded{State: fsrs.Review, Due: now.Add(time.Hour / 2)}, now, progress.Due{}, false},
		{"a grade sent again", views.CountReview, store.Recorded{Duplicate: true, State: fsrs.Review, Due: end.AddDate(0, 0, 3)}, now, progress.Due{}, false},
		{"the next day", views.CountReview, store.Recorded{State: fsrs.Review, Due: end.AddDate(0, 0, 3)}, end, progress.Due{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s
			s.kind = tt.kind
			got, ok := s.graded(tt.rec, tt.at)
			if ok != tt.wantOK || ok && got != tt.want {
				t.Errorf("graded = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
	if _, ok := (shownCounts{dayEnds: end}).graded(store.Recorded{State: fsrs.Review, Due: end.AddDate(0, 0, 1)}, now); ok {
		t.Error("an extra review graded is not counted again")
	}
	if got, ok := (shownCounts{kind: views.CountNew, dayEnds: end}).graded(store.Recorded{State: fsrs.Review, Due: end.AddDate(0, 0, 1)}, now); !ok || got != (progress.Due{}) {
		t.Errorf("a count carried at 0 goes below it: %+v, %v", got, ok)
	}
}

// TestStudyUndo: a grade taken back puts the card and its review as they
// were (the store's rows compared), shows the same question again as a new
// presentation whose grade buttons give the intervals they gave, and
// offers the undo on the next card only.
func TestStudyUndo(t *testing.T) {
	env := newStudyEnv(t)
	clock := useClock(t, env)
	ctx := context.Background()
	cl := env.alice
	cl.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, true)
	// multi is a review card, due.
	env.pastReview(cl, "multi", quiz.Response{Choice: -1, Selected: []int{0, 1}}, fsrs.Easy, clock.now().AddDate(0, 0, -21))
	clock.advance(time.Second)
	rows := func() map[string]string {
		t.Helper()
		sums, err := env.ts.db.TableChecksums(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]string{"cards": sums["cards"], "review_log": sums["review_log"]}
	}

	page := cl.get("/study", true).Body.String()
	if hiddenFields(page).Get("q") != strconv.FormatInt(env.q["multi"], 10) {
		t.Fatalf("the due review is not served first: %.1000s", page)
	}
	if strings.Contains(page, "/study/undo") {
		t.Error("the undo is offered before any grade")
	}
	before, beforeRows, counts := env.card(cl, "multi"), rows(), mustShownDue(t, page)
	feedback := answerShown(t, cl, page)
	buttons := gradeButtons(feedback)
	if len(buttons) != 4 {
		t.Fatalf("%d grade buttons: %.2000s", len(buttons), feedback)
	}
	next := gradeShown(t, cl, feedback, fsrs.Good)
	if env.card(cl, "multi").Card == before.Card {
		t.Fatal("the grade changed nothing")
	}
	for _, want := range []string{`<form method="post" action="/study/undo" hx-post="/study/undo" hx-target="#study"`,
		`<input type="hidden" name="d" value="">`, `元に戻す <small class="keys">(U)</small>`} {
		if !strings.Contains(next, want) {
			t.Errorf("the next card lacks %s: %.2000s", want, next)
		}
	}
	checkLabelsAndCSRF(t, "the next card", next)

	clock.advance(5 * time.Second)
	rec := cl.post("/study/undo", url.Values{"d": {"v1-36-sig-node"}}, true)
	undone := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("undo = %d: %.1000s", rec.Code, undone)
	}
	if after := env.card(cl, "multi"); after.Card != before.Card || after.IsNew {
		t.Errorf("after the undo the card is %+v, was %+v", after.Card, before.Card)
	}
	if got := rows(); got["cards"] != beforeRows["cards"] || got["review_log"] != beforeRows["review_log"] {
		t.Errorf("after the undo the rows differ from before the grade: %v, were %v", got, beforeRows)
	}
	f := hiddenFields(undone)
	if f.Get("q") != strconv.FormatInt(env.q["multi"], 10) || f.Get("p") == hiddenFields(feedback).Get("p") || !validPresentationID(f.Get("p")) {
		t.Errorf("the undone card is not put again as a new presentation: q=%s p=%s (was %s)", f.Get("q"), f.Get("p"), hiddenFields(feedback).Get("p"))
	}
	if !strings.Contains(undone, `<p class="muted">`+msgUndone+`</p>`) || !strings.HasSuffix(undone, studyStatus(msgUndone)) {
		t.Errorf("the undo is not told, on the page and to the live region: %.2000s", undone)
	}
	if strings.Contains(undone, "/study/undo") {
		t.Error("the undone card offers another undo")
	}
	if got := mustShownDue(t, undone); got != counts {
		t.Errorf("after the undo the counts are %+v, were %+v", got, counts)
	}
	again := answerShown(t, cl, undone)
	if got := gradeButtons(again); len(got) != 4 || got["1"] != buttons["1"] || got["2"] != buttons["2"] || got["3"] != buttons["3"] || got["4"] != buttons["4"] {
		t.Errorf("the grade buttons after the undo are %v, were %v", got, buttons)
	}
	for r, want := range map[string]string{"1": "もう一度", "2": "難しい", "3": "正解", "4": "簡単"} {
		if buttons[r][0] != want {
			t.Errorf("button %s says %q, want %q", r, buttons[r][0], want)
		}
	}

	// Graded again and undone without script: the plain form goes on to
	// the page of the card it put back, which says so.
	grade := hiddenFields(again)
	grade.Set("rating", "4")
	rec = cl.post("/study/grade", grade, false)
	graded := cl.get(rec.Header().Get("Location"), false).Body.String()
	if !strings.Contains(graded, `action="/study/undo"`) {
		t.Errorf("the page after a plain grade offers no undo: %.2000s", graded)
	}
	rec = cl.post("/study/undo", url.Values{"d": {"v1-36-sig-node"}}, false)
	back := "/study/v1-36-sig-node?undone=" + strconv.FormatInt(env.q["multi"], 10)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != back {
		t.Fatalf("plain undo = %d to %q, want 303 to %s", rec.Code, rec.Header().Get("Location"), back)
	}
	page = cl.get(back, false).Body.String()
	if hiddenFields(page).Get("q") != strconv.FormatInt(env.q["multi"], 10) || !strings.Contains(page, msgUndone) ||
		!strings.Contains(page, "<!doctype html>") {
		t.Errorf("the page after a plain undo: %.2000s", page)
	}
	if env.card(cl, "multi").Card != before.Card {
		t.Error("the plain undo did not put the card back")
	}
	// The page of the plain undo, opened again once the card is graded,
	// is the next card, without the notice.
	gradeShown(t, cl, answerShown(t, cl, page), fsrs.Good)
	if body := cl.get(back, false).Body.String(); strings.Contains(body, msgUndone) ||
		hiddenFields(body).Get("q") == strconv.FormatInt(env.q["multi"], 10) {
		t.Errorf("the plain undo's page, opened again after a grade, shows the card again: %.2000s", body)
	}
	if rec := cl.post("/study/undo", url.Values{"d": {"no such deck!"}}, true); rec.Code != http.StatusBadRequest {
		t.Errorf("undo with a bad deck = %d, want 400", rec.Code)
	}
}

func mustShownDue(t *testing.T, body string) progress.Due {
	t.Helper()
	d, ok := shownDue(t, body)
	if !ok {
		t.Fatalf("no counts shown: %.1500s", body)
	}
	return d
}

// TestStudyUndoRefused: an undo takes back only the learner's own most
// recent review of the study day; otherwise it changes nothing and says
// why, with a 409.
func TestStudyUndoRefused(t *testing.T) {
	env := newStudyEnv(t)
	clock := useClock(t, env)
	ctx := context.Background()
	alice, bob := env.alice, env.bob
	for _, cl := range []studyClient{alice, bob} {
		cl.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, true)
	}
	rows := func() string {
		t.Helper()
		sums, err := env.ts.db.TableChecksums(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sums["cards"] + sums["review_log"]
	}
	refused := func(cl studyClient, htmx bool, msg string) {
		t.Helper()
		was := rows()
		rec := cl.post("/study/undo", url.Values{"d": {""}}, htmx)
		body := rec.Body.String()
		if rec.Code != http.StatusConflict || !strings.Contains(body, `<p class="form-error">`+msg+`</p>`) {
			t.Errorf("%s's undo = %d, want 409 saying %q: %.1500s", cl.user.Login, rec.Code, msg, body)
		}
		if htmx && !strings.HasSuffix(body, studyStatus(msg)) {
			t.Errorf("the refusal is not told to the live region: %.1500s", body)
		}
		if !htmx && !strings.Contains(body, "<!doctype html>") {
			t.Errorf("a plain undo refused is not a page: %.500s", body)
		}
		if rows() != was {
			t.Errorf("%s's refused undo changed the rows", cl.user.Login)
		}
	}
	refused(alice, true, msgNothingToUndo)
	refused(alice, false, msgNothingToUndo)

	// Alice's most recent review is of yesterday's study day.
	env.pastReview(alice, "single", quiz.Response{Choice: 2}, fsrs.Good, clock.now().AddDate(0, 0, -1))
	refused(alice, true, msgUndoOtherDay)

	// Each learner undoes only their own grade: bob's undo with none of
	// his own refuses, then takes back his, never alice's. Alice's first
	// card is single, in learning since yesterday.
	yesterday := env.card(alice, "single")
	page := alice.get("/study", true).Body.String()
	if hiddenFields(page).Get("q") != strconv.FormatInt(env.q["single"], 10) {
		t.Fatalf("alice's learning card is not served first: %.1000s", page)
	}
	gradeShown(t, alice, answerShown(t, alice, page), fsrs.Again)
	aliceCard := env.card(alice, "single")
	if aliceCard.Card == yesterday.Card {
		t.Fatalf("alice's grade is not recorded: %.1000s", page)
	}
	refused(bob, true, msgNothingToUndo)
	if env.card(alice, "single").Card != aliceCard.Card {
		t.Error("bob's undo changed alice's card")
	}
	page = bob.get("/study", true).Body.String()
	gradeShown(t, bob, answerShown(t, bob, page), fsrs.Good)
	if env.card(bob, "single").IsNew {
		t.Fatal("bob's grade is not recorded")
	}
	if rec := bob.post("/study/undo", url.Values{"d": {""}}, true); rec.Code != http.StatusOK {
		t.Fatalf("bob's undo = %d", rec.Code)
	}
	if !env.card(bob, "single").IsNew || env.card(alice, "single").Card != aliceCard.Card {
		t.Error("bob's undo did not take back his own grade only")
	}
	if rec := alice.post("/study/undo", url.Values{"d": {""}}, true); rec.Code != http.StatusOK || env.card(alice, "single").Card != yesterday.Card {
		t.Errorf("alice's undo = %d; her card %+v, want %+v", rec.Code, env.card(alice, "single").Card, yesterday.Card)
	}
	// Signed out, or without the CSRF token: refused before anything.
	anon := studyClient{t: t, ts: env.ts}
	if rec := anon.post("/study/undo", url.Values{"d": {""}}, true); rec.Code != http.StatusUnauthorized {
		t.Errorf("signed-out undo = %d, want 401", rec.Code)
	}
}

// TestStudyEndOfQueue: when the day's queue ends, the page sums the day's
// study and offers to take back the last grade; while the next card is a
// learning card due within a minute, it waits for it instead, and loads
// it by itself once due.
func TestStudyEndOfQueue(t *testing.T) {
	env := newStudyEnv(t)
	clock := useClock(t, env)
	cl := env.alice
	cl.post("/decks/v1-35-sig-node/subscription", url.Values{"subscribed": {"1"}}, true)
	page := cl.get("/study", true).Body.String()
	grade := hiddenFields(page)
	grade.Set("answer", `{"Texts":["kept"]}`)
	grade.Set("ms", "12400")
	grade.Set("rating", "4")
	body := cl.post("/study/grade", grade, true).Body.String()
	for _, want := range []string{"<header><strong>今は学習するカードがありません</strong></header>",
		`<h2 id="day-summary-heading">今日の学習</h2>`, "<dt>学習したカード</dt><dd>1 枚</dd>", "<dd>1 枚 (100%)</dd>", "<dd>12秒</dd>",
		`action="/study/undo"`, "今日の学習: 1 枚、正解 1 枚 (100%)、12秒。</p>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the end of the queue lacks %s: %.2500s", want, body)
		}
	}
	if strings.Contains(body, "hx-trigger") {
		t.Error("the end of the queue waits for a card days away")
	}

	// Undone and graded Again, the card comes back in a minute: the page
	// waits for it.
	page = cl.post("/study/undo", url.Values{"d": {""}}, true).Body.String()
	grade = hiddenFields(page)
	grade.Set("answer", `{"Texts":["nope"]}`)
	grade.Set("ms", "3000")
	grade.Set("rating", "1")
	body = cl.post("/study/grade", grade, true).Body.String()
	for _, want := range []string{"<header><strong>次のカードを待っています</strong></header>", "次のカードはあと 60 秒で出てきます。",
		`<div hx-get="/study" hx-trigger="load delay:60s" hx-target="#study" hx-swap="outerHTML show:window:top"></div>`,
		`role="button" class="secondary" autofocus>もう一度見る</a>`, `action="/study/undo"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the waiting page lacks %s: %.2500s", want, body)
		}
	}
	if strings.Contains(body, nothingDue) || strings.Contains(body, "day-summary") {
		t.Errorf("the waiting page says nothing is due, or sums the day: %.2500s", body)
	}
	clock.advance(45 * time.Second)
	if body := cl.get("/study", true).Body.String(); !strings.Contains(body, `hx-trigger="load delay:15s"`) {
		t.Errorf("15 s before the card is due the page waits %s", regexp.MustCompile(`load delay:\d+s`).FindString(body))
	}
	clock.advance(15 * time.Second)
	if body := cl.get("/study", true).Body.String(); !strings.Contains(body, "kept?") {
		t.Errorf("once due, the card is not served: %.1500s", body)
	}
	// A card due in more than a minute is not waited for.
	clock.advance(-2 * time.Minute)
	if body := cl.get("/study", true).Body.String(); strings.Contains(body, "hx-trigger") || !strings.Contains(body, nothingDue) {
		t.Errorf("two minutes before the card is due: %.1500s", body)
	}
}

// nothingDue is the empty queue's heading.
const nothingDue = "今は学習するカードがありません"

func TestStudyTime(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0秒"},
		{400 * time.Millisecond, "0秒"},
		{500 * time.Millisecond, "1秒"},
		{59 * time.Second, "59秒"},
		{59500 * time.Millisecond, "1分"},
		{12*time.Minute + 30*time.Second, "12分30秒"},
		{time.Hour, "1時間"},
		{time.Hour + 5*time.Minute + 20*time.Second, "1時間5分"},
		{26 * time.Hour, "26時間"},
	}
	for _, tt := range tests {
		if got := studyTime(tt.d); got != tt.want {
			t.Errorf("studyTime(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestGroupStudyCountsAndUndo: a study group's page counts the cards left
// today in the group's decks only, and its forms carry them as the
// group's; an undo from the group's page puts the card back on that page,
// through htmx and without script, unless the grade was of a deck the
// group does not study.
func TestGroupStudyCountsAndUndo(t *testing.T) {
	env := newGroupEnv(t)
	ctx := context.Background()
	mia := env.mia
	for _, slug := range []string{"v1-36-sig-node", "v1-35-sig-node"} {
		mia.post("/decks/"+slug+"/subscription", url.Values{"subscribed": {"1"}}, true)
	}
	// Group N studies v1-36-sig-node alone; mia is its member.
	_, hash, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	id, err := env.ts.db.CreateGroup(ctx, env.olga.user.ID, store.NewGroup{
		Group:  group.Group{Name: "ノードの会", Release: "1.36", Decks: []string{"v1-36-sig-node"}},
		Invite: store.GroupInvite{Hash: hash},
	}, env.now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.ts.db.JoinGroup(ctx, hash, mia.user.ID, env.now); err != nil {
		t.Fatal(err)
	}
	gid := strconv.FormatInt(id, 10)
	groupPage := "/study/group/" + gid
	counts := func(scope store.Scope) progress.Due {
		t.Helper()
		d, err := env.ts.db.StudyCounts(ctx, mia.user, scope, env.now)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	node := counts(store.Scope{Deck: "v1-36-sig-node"})
	if all := counts(store.Scope{}); all.New <= node.New {
		t.Fatalf("every subscribed deck has %+v, the group's deck %+v: nothing to tell apart", all, node)
	}

	page := mia.get(groupPage, false).Body.String()
	shown := mustShownDue(t, page)
	if shown != node || counts(store.Scope{Group: id}) != node {
		t.Errorf("the group's page shows %+v, the store counts %+v for the group; want its deck's %+v",
			shown, counts(store.Scope{Group: id}), node)
	}
	f := hiddenFields(page)
	if f.Get("g") != gid || f.Get("d") != "" || !strings.HasSuffix(f.Get("c"), ".g"+gid) {
		t.Errorf("the group's answer form: %v", f)
	}
	if _, err := env.ts.db.StudyCounts(ctx, env.otto.user, store.Scope{Group: id}, env.now); !errors.Is(err, group.ErrNotMember) {
		t.Errorf("counts of a group for one outside it: %v, want ErrNotMember", err)
	}

	// A grade on the group's page: the counts of the next card are the
	// group's, less the card graded; the undo offered carries the group.
	next := gradeShown(t, mia, answerShown(t, mia, mia.get(groupPage, true).Body.String()), fsrs.Again)
	after := mustShownDue(t, next)
	if want := counts(store.Scope{Group: id}); after != want || after.New != node.New-1 || after.Learning != node.Learning+1 {
		t.Errorf("after a grade Again the group's page shows %+v, the store counts %+v (from %+v)", after, want, node)
	}
	if hiddenFields(next).Get("g") != gid {
		t.Errorf("the next card's form leaves the group: %v", hiddenFields(next))
	}
	undo := undoFields(t, next)
	if undo.Get("g") != gid || undo.Get("d") != "" {
		t.Fatalf("the undo form: %v", undo)
	}
	rec := mia.post("/study/undo", undo, true)
	undone := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(undone, msgUndone) {
		t.Fatalf("undo = %d: %.1500s", rec.Code, undone)
	}
	uf := hiddenFields(undone)
	if uf.Get("g") != gid || uf.Get("d") != "" || !strings.HasSuffix(uf.Get("c"), ".g"+gid) {
		t.Errorf("the undone card is not on the group's page: %v", uf)
	}
	if got := mustShownDue(t, undone); got != node {
		t.Errorf("after the undo the group's page shows %+v, want %+v", got, node)
	}

	// Without script: graded again, the plain undo goes back to the
	// group's page, which puts the card again.
	grade := hiddenFields(answerShown(t, mia, undone))
	grade.Set("rating", "3")
	if rec := mia.post("/study/grade", grade, false); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), groupPage+"?graded=") {
		t.Fatalf("plain grade = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	back := groupPage + "?undone=" + uf.Get("q")
	if rec := mia.post("/study/undo", url.Values{"g": {gid}}, false); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != back {
		t.Fatalf("plain undo = %d to %q, want 303 to %s", rec.Code, rec.Header().Get("Location"), back)
	}
	page = mia.get(back, false).Body.String()
	pf := hiddenFields(page)
	if pf.Get("q") != uf.Get("q") || pf.Get("g") != gid || !strings.Contains(page, msgUndone) || !strings.Contains(page, "<!doctype html>") {
		t.Errorf("the group's page after a plain undo: %v: %.2000s", pf, page)
	}
	if got := mustShownDue(t, page); got != node {
		t.Errorf("the group's page after a plain undo shows %+v, want %+v", got, node)
	}
	// Someone outside the group gets no card of it by its undo page.
	if rec := env.otto.get(back, false); rec.Code != http.StatusNotFound {
		t.Errorf("otto opens the group's undo page: %d, want 404", rec.Code)
	}

	// A grade of a deck the group does not study, taken back from the
	// group's page: the card comes back on its deck's page.
	other := mia.get("/study/v1-35-sig-node", true).Body.String()
	gradeShown(t, mia, answerShown(t, mia, other), fsrs.Good)
	rec = mia.post("/study/undo", url.Values{"g": {gid}}, true)
	if of := hiddenFields(rec.Body.String()); rec.Code != http.StatusOK || of.Get("d") != "v1-35-sig-node" || of.Get("g") != "" {
		t.Errorf("undo from the group's page of another deck's grade = %d, form %v", rec.Code, of)
	}
	for _, bad := range []url.Values{{"g": {"x"}}, {"g": {"0"}}, {"g": {gid}, "d": {"v1-36-sig-node"}}} {
		if rec := mia.post("/study/undo", bad, true); rec.Code != http.StatusBadRequest {
			t.Errorf("undo with %v = %d, want 400", bad, rec.Code)
		}
	}
}

// undoFields are the fields of the undo form in body.
func undoFields(t *testing.T, body string) url.Values {
	t.Helper()
	i := strings.Index(body, `action="/study/undo"`)
	if i < 0 {
		t.Fatalf("no undo form: %.1500s", body)
	}
	body = body[i:]
	body = body[:strings.Index(body, "</form>")]
	f := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		if m[1] != csrfFormField {
			f.Set(m[1], m[2])
		}
	}
	return f
}
