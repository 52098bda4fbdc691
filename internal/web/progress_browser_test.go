package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// progressDeckYAML is a deck of n single-choice questions, p1 to pN.
func progressDeckYAML(n int) string {
	var b strings.Builder
	b.WriteString(`deck:
  slug: v1-37-sig-apps
  title: "v1.37 SIG-Apps"
  release: "1.37"
  sig: SIG-Apps
  language: ja
questions:
`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `  - id: p%d
    type: single_choice
    prompt: 問題 %d の答えは?
    choices: ["%d-a", "%d-b", "%d-c"]
    answer: "%d-b"
    explanation: 説明 %d。
    source: {release: "1.37", sig: SIG-Apps, kind: feature, prs: [%d]}
`, i, i, i, i, i, i, i, 1000+i)
	}
	return b.String()
}

// progressEnv is a study env with a third deck of twelve questions, to
// which alice subscribes, ten of them reviewed three weeks ago and due.
func progressEnv(t *testing.T) (*studyEnv, *testClock) {
	t.Helper()
	env := newStudyEnv(t)
	clock := useClock(t, env)
	importYAML(t, env.ts, "progress.yaml", progressDeckYAML(12), false)
	ctx := context.Background()
	qs, err := env.ts.db.DeckQuestions(ctx, "v1-37-sig-apps", true)
	if err != nil || len(qs) != 12 {
		t.Fatalf("deck: %d questions, %v", len(qs), err)
	}
	for _, sq := range qs {
		env.q[sq.Question.ExtID] = sq.ID
	}
	if _, err := env.ts.db.SetSubscription(ctx, env.alice.user.ID, "v1-37-sig-apps", true, clock.now()); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		env.pastReview(env.alice, "p"+strconv.Itoa(i), quiz.Response{Choice: 1}, fsrs.Easy, clock.now().AddDate(0, 0, -21).Add(time.Duration(i)*time.Minute))
	}
	return env, clock
}

// TestProgressInBrowser studies ten cards in headless Chromium with the
// keys and watches the counts above the card fall, one per card; takes the
// last grade back with the key U and gets the card back, with the
// intervals it had; then opens the statistics page and downloads both
// exports where the server has them.
func TestProgressInBrowser(t *testing.T) {
	env, _ := progressEnv(t)
	ctx, srvURL := studyBrowser(t, env)
	step := browserStep(t, ctx)
	until := func(what, cond string) chromedp.Action[chromedp.Void] { return untilSettled(what, cond, 5*time.Second) }
	const counts = `[...document.querySelectorAll('#study-counts strong')].map(e => e.textContent).join(' ')`
	const question = `(document.querySelector('#study input[name=q]') || {value: ''}).value`
	const intervals = `[...document.querySelectorAll('#study button[name=rating]')].map(b => b.textContent.trim().replace(/\s+/g, ' ')).join(' | ')`

	step("open the deck's study page", chromedp.EmulateViewport(375, 667, chromedp.EmulateMobile),
		chromedp.Navigate(srvURL+"/study/v1-37-sig-apps"),
		until("the first card", `!!document.activeElement && document.activeElement.matches('#study form.study-answer input[name=choice]')`),
		chromedp.Evaluate[chromedp.Void](`window.kqErrors = []; window.addEventListener('error', e => kqErrors.push(e.message));
			document.body.addEventListener('htmx:responseError', e => kqErrors.push('htmx ' + e.detail.xhr.status))`))
	if got := journeyEval[string](t, ctx, counts); got != "2 0 10" {
		t.Fatalf("the study page shows the counts %q, want 2 new, 0 learning, 10 to review", got)
	}
	var (
		lastQuestion  string
		lastIntervals string
		lastCard      store.CardPreview
	)
	for i := range 10 {
		q := journeyEval[string](t, ctx, question)
		if i == 9 {
			id, _ := strconv.ParseInt(q, 10, 64)
			lastQuestion, lastCard = q, journeyCard(t, env.ts, env.alice.user.ID, id)
		}
		step(fmt.Sprintf("answer card %d with keys 2 and Enter", i+1), chromedp.KeyEvent("2"), chromedp.KeyEvent("\r"),
			until("the grade buttons", `!!document.activeElement && document.activeElement.matches('#study form.study-grade button[data-preselected]')`))
		if i == 9 {
			lastIntervals = journeyEval[string](t, ctx, intervals)
		}
		want := fmt.Sprintf("2 0 %d", 9-i)
		step(fmt.Sprintf("grade card %d with key 3", i+1), chromedp.KeyEvent("3"),
			until("the counts to fall by one, "+want, counts+` === '`+want+`' && !!document.querySelector('#study form.study-answer')`))
	}
	if !strings.Contains(lastIntervals, "正解") || !strings.Contains(lastIntervals, "もう一度") {
		t.Errorf("the grade buttons say %q, want the Japanese grades", lastIntervals)
	}
	if id, _ := strconv.ParseInt(lastQuestion, 10, 64); journeyCard(t, env.ts, env.alice.user.ID, id).Card == lastCard.Card {
		t.Fatal("the tenth grade changed nothing")
	}

	// The next card (a new one) offers the undo; U takes the grade back.
	step("undo with key U", until("the undo button", `!!document.querySelector('#study form.study-undo button')`),
		chromedp.KeyEvent("u"),
		until("the tenth card again", question+` === '`+lastQuestion+`' && document.getElementById('study').textContent.includes('評価を取り消しました')`),
		until("the counts back up", counts+` === '2 0 1'`))
	if id, _ := strconv.ParseInt(lastQuestion, 10, 64); journeyCard(t, env.ts, env.alice.user.ID, id).Card != lastCard.Card {
		t.Errorf("after the undo the card is not as it was: %+v", journeyCard(t, env.ts, env.alice.user.ID, id).Card)
	}
	step("answer it again", chromedp.KeyEvent("2"), chromedp.KeyEvent("\r"),
		until("the grade buttons", `!!document.activeElement && document.activeElement.matches('#study form.study-grade button[data-preselected]')`))
	if got := journeyEval[string](t, ctx, intervals); got != lastIntervals {
		t.Errorf("after the undo the grade buttons say %q, were %q", got, lastIntervals)
	}
	// U typed into nothing while no undo is offered does nothing.
	step("U on the feedback", chromedp.KeyEvent("u"), chromedp.Sleep(300*time.Millisecond),
		until("the feedback, still", `!!document.querySelector('#study form.study-grade')`))

	// The statistics page, and both exports downloaded as the page's
	// links do: a header and a row for each review and card the store
	// holds of the learner (the undone review gone, its second grade
	// there).
	rows := map[string]int{}
	for _, err := range env.ts.db.ExportReviews(context.Background(), env.alice.user.ID) {
		if err != nil {
			t.Fatal(err)
		}
		rows["/export/reviews.csv"]++
	}
	for _, err := range env.ts.db.ExportCards(context.Background(), env.alice.user.ID, time.Now()) {
		if err != nil {
			t.Fatal(err)
		}
		rows["/export/cards.csv"]++
	}
	if rows["/export/cards.csv"] != 10 {
		t.Errorf("the store holds %d cards of the learner, want 10", rows["/export/cards.csv"])
	}
	for _, page := range []struct{ path, head string }{
		{"/stats", ""},
		{"/export/reviews.csv", "reviewed_at"},
		{"/export/cards.csv", "deck"},
	} {
		res := journeyEval[[]string](t, ctx, `fetch(`+jsString(page.path)+`).then(async r => { const text = await r.text(); return [String(r.status), r.headers.get('content-type') || '', text.slice(0, 200), String(text.trim().split('\n').length)] })`, chromedp.EvalAwaitPromise)
		if res[0] != strconv.Itoa(http.StatusOK) {
			t.Errorf("%s = %s", page.path, res[0])
			continue
		}
		if page.path == "/stats" {
			loadPage(t, ctx, "open the statistics page", chromedp.Navigate(srvURL+page.path))
			shows(t, ctx, "the statistics page's heading", `!!document.querySelector('main h1')`)
			continue
		}
		if !strings.HasPrefix(strings.TrimPrefix(res[2], "\ufeff"), page.head) || !strings.HasPrefix(res[1], "text/csv") {
			t.Errorf("%s (%s) starts %q, want the header %s", page.path, res[1], res[2], page.head)
		}
		if res[3] != strconv.Itoa(rows[page.path]+1) {
			t.Errorf("%s has %s lines, want a header and %d rows", page.path, res[3], rows[page.path])
		}
	}
	errs := journeyEval[[]string](t, ctx, `window.kqErrors || []`)
	if len(errs) > 0 {
		t.Errorf("script errors: %v", errs)
	}
}

// TestProgressPagesFitScreens shows the home page and the study page
// (with counts, the undo and the day's summary) on a phone and a desktop
// screen: no page scrolls sideways, the counts keep each on one line, and
// the grade buttons fit. With KUBEQUIZ_SCREENSHOT_DIR set, it saves a
// screenshot of each there.
func TestProgressPagesFitScreens(t *testing.T) {
	env, _ := progressEnv(t)
	ctx, srvURL := studyBrowser(t, env)
	step := browserStep(t, ctx)
	until := func(what, cond string) chromedp.Action[chromedp.Void] { return untilSettled(what, cond, 5*time.Second) }
	// The page fits the screen: fitsScreen on a phone, and on the desktop
	// (whose emulated screen is the window's) no sideways scrolling.
	const countsOnOneLine = `[...document.querySelectorAll('.study-counts .count')].every(e => e.getClientRects().length === 1)`
	fits := func(mobile bool) string {
		if mobile {
			return fitsScreen + ` && ` + countsOnOneLine
		}
		return `document.documentElement.scrollWidth <= document.documentElement.clientWidth && ` + countsOnOneLine
	}
	shot := func(name string) {
		t.Helper()
		dir := os.Getenv("KUBEQUIZ_SCREENSHOT_DIR")
		if dir == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "kubequiz-"+name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	screens := []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"phone", 375, 667, true},
		{"desktop", 1280, 800, false},
	}
	for _, sc := range screens {
		emulate := chromedp.EmulateViewport(sc.width, sc.height)
		if sc.mobile {
			emulate = chromedp.EmulateViewport(sc.width, sc.height, chromedp.EmulateMobile)
		}
		step(sc.name+" screen", emulate)
		step(sc.name+": home", chromedp.Navigate(srvURL+"/"),
			until("the counts of today", `!!document.querySelector('.home-today .study-counts')`),
			until("the page to fit", fits(sc.mobile)))
		shot(sc.name + "-home")
		step(sc.name+": study", chromedp.Navigate(srvURL+"/study"),
			until("a card", `!!document.querySelector('#study form.study-answer')`),
			chromedp.KeyEvent("1"), chromedp.KeyEvent("\r"),
			until("the feedback", `!!document.querySelector('#study form.study-grade')`),
			until("the page to fit", fits(sc.mobile)))
		shot(sc.name + "-feedback")
		step(sc.name+": grade", chromedp.KeyEvent("3"),
			until("the next card and the undo", `!!document.querySelector('#study form.study-undo') && !!document.querySelector('#study form.study-answer')`),
			until("the page to fit", fits(sc.mobile)))
		shot(sc.name + "-study")
	}
	// Every card of the day studied: the end of the queue, on the desktop
	// and then on the phone.
	for n := 0; n < 20 && journeyEval[bool](t, ctx, `!!document.querySelector('#study form.study-answer')`); n++ {
		step("answer", chromedp.KeyEvent("2"), chromedp.KeyEvent("\r"),
			until("the feedback", `!!document.activeElement && document.activeElement.matches('#study form.study-grade button[data-preselected]')`),
			chromedp.KeyEvent("4"), until("the next page", `!document.querySelector('#study form.study-grade')`))
	}
	for _, sc := range []struct {
		name   string
		mobile bool
		emul   chromedp.Action[chromedp.Void]
	}{
		{"desktop", false, chromedp.Evaluate[chromedp.Void](`0`)},
		{"phone", true, chromedp.EmulateViewport(375, 667, chromedp.EmulateMobile)},
	} {
		step(sc.name+": end of the queue", sc.emul, chromedp.Navigate(srvURL+"/study"),
			until("the day's summary", `!!document.querySelector('#study .day-summary')`),
			until("the page to fit", fits(sc.mobile)))
		shot(sc.name + "-done")
	}
}

// TestStudyWaitsInBrowser: the last card graded Again comes back in a
// minute; the page waits for it and shows it by itself when it is due.
func TestStudyWaitsInBrowser(t *testing.T) {
	env := newStudyEnv(t)
	clock := useClock(t, env)
	if _, err := env.ts.db.SetSubscription(context.Background(), env.alice.user.ID, "v1-35-sig-node", true, clock.now()); err != nil {
		t.Fatal(err)
	}
	ctx, srvURL := studyBrowser(t, env)
	step := browserStep(t, ctx)
	until := func(what, cond string) chromedp.Action[chromedp.Void] { return untilSettled(what, cond, 5*time.Second) }
	step("answer the one card wrong and grade it Again", chromedp.Navigate(srvURL+"/study"),
		until("the card", `!!document.querySelector('#study input[name=text]')`),
		chromedp.SendKeys(`#study input[name=text]`, "nope\r"),
		until("the grade buttons", `!!document.querySelector('#study form.study-grade')`),
		chromedp.KeyEvent("1"),
		until("the page waiting", `document.getElementById('study').textContent.includes('次のカードを待っています')`))
	// Two seconds before the card is due, the page loaded again waits
	// two seconds, then shows the card.
	clock.advance(58 * time.Second)
	step("load the page again", chromedp.Navigate(srvURL+"/study"),
		until("the page waiting two seconds", `!!document.querySelector('#study [hx-trigger="load delay:2s"]')`),
		chromedp.Evaluate[chromedp.Void](`window.kqSamePage = true`))
	clock.advance(5 * time.Second)
	step("wait", until("the card, on the same page", `window.kqSamePage && !!document.querySelector('#study input[name=text]') &&
		document.getElementById('study-counts').textContent.includes('学習中 1')`))
}
