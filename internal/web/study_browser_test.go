package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// chromium returns the browser to drive. Without one the test is skipped,
// unless CI is set: a CI machine that lost its browser must not pass.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped with -short")
	}
	path := os.Getenv("CHROMIUM_PATH")
	if path == "" {
		path, _ = exec.LookPath("chromium")
	}
	if _, err := os.Stat(path); path == "" || err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium found (set CHROMIUM_PATH)")
		}
		t.Skip("no chromium found (set CHROMIUM_PATH)")
	}
	return path
}

// htmxSettled holds in a page where htmx has no request, swap or settle
// under way.
const htmxSettled = `!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')`

// fitsScreen holds in a page that needs no sideways scrolling and whose
// header links and menu each keep their text on one line (the menu its
// marker too). A mobile browser
// widens its layout to fit content that overflows, so the widths are
// compared with the screen's.
const fitsScreen = `document.documentElement.scrollWidth <= screen.width && window.innerWidth <= screen.width &&
	[...document.querySelectorAll('header nav a, header nav summary')].every(e => {
		const tops = [], texts = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
		for (let n; (n = texts.nextNode());) {
			const r = document.createRange(); r.selectNodeContents(n);
			for (const b of r.getClientRects()) tops.push(b.top);
		}
		return tops.length === 0 || Math.max(...tops) - Math.min(...tops) < 8 }) &&
	[...document.querySelectorAll('header nav summary')].every(e => e.scrollHeight <= e.clientHeight + 1 &&
		parseFloat(getComputedStyle(e, '::after').width) >= 8)`

// browserStep returns a function that runs actions in ctx and stops the
// test, naming the step, when one fails.
func browserStep(t *testing.T, ctx context.Context) func(what string, steps ...chromedp.Action[chromedp.Void]) {
	return func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// untilSettled waits up to timeout for a script condition to hold and htmx
// to be settled: until then the page drops the submits of the forms htmx
// swapped in. Polls do not survive a navigation: wait for page loads
// otherwise.
func untilSettled(what, cond string, timeout time.Duration) chromedp.Action[chromedp.Void] {
	cond = "(" + cond + ") && " + htmxSettled
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(timeout))(ctx, tg); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		return nil
	})
}

// studyBrowser starts headless Chromium signed in as env's alice (the
// server adds her session cookie to every request) and returns the
// browser's context, which ends with the test, and the server's address.
func studyBrowser(t *testing.T, env *studyEnv) (context.Context, string) {
	t.Helper()
	browser := chromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if env.unreachable.Load() || env.stalled.Load() {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				if env.stalled.Load() {
					time.Sleep(time.Second)
				}
				conn.Close() // no answer at all
				return
			}
		}
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: env.alice.session})
		env.ts.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(390, 844))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelBrowser)
	ctx, cancel := context.WithTimeout(bctx, time.Minute)
	t.Cleanup(cancel)
	return ctx, srv.URL
}

// TestStudyInBrowser drives the decks page and the review loop in headless
// Chromium at phone width: htmx swaps, autofocus of the preselected grade,
// and the keys 1-4, Enter and Space from app.js.
func TestStudyInBrowser(t *testing.T) {
	env := newStudyEnv(t)
	ctx, srvURL := studyBrowser(t, env)

	step := browserStep(t, ctx)
	until := func(what, cond string) chromedp.Action[chromedp.Void] { return untilSettled(what, cond, 5*time.Second) }
	focused := func(sel string) string {
		return `document.activeElement && document.activeElement.matches('` + sel + `')`
	}
	shows := func(text string) string {
		return `document.getElementById('study').textContent.includes('` + text + `')`
	}
	// The live region stays the node it was when the page loaded (a new
	// one is often not read out), hidden from sight, and says text.
	announces := func(text string) string {
		return `document.getElementById('` + views.StudyStatusID + `') === window.kqStatus && kqStatus.getAttribute('role') === 'status' &&
			kqStatus.offsetWidth <= 1 && kqStatus.textContent.startsWith('` + text + `')`
	}

	step("subscribe", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(srvURL+"/decks"),
		chromedp.Click(chromedp.CSS(`#deck-v1-36-sig-node button[type=submit]`)),
		until("the deck to show as subscribed", `!!document.querySelector('#deck-v1-36-sig-node a[href="/study/v1-36-sig-node"]')`),
		until("the toggle to keep focus", focused(`#deck-v1-36-sig-node button[type=submit]`)))

	step("answer a question that is gone", chromedp.Navigate(srvURL+"/study"),
		until("the study form", focused(`input[name=choice]`)),
		chromedp.Evaluate[chromedp.Void](`window.kqSamePage = true`), // gone if the browser loads a new page
		chromedp.SetValue(chromedp.CSS(`input[name=q]`), "99999"),
		chromedp.Click(chromedp.CSS(`input[name=choice]`)),
		chromedp.Click(chromedp.CSS(`form.study-answer button[type=submit]`)),
		until("the error message in place of the card", `window.kqSamePage && document.querySelector('main .error-page') && document.querySelector('main').textContent.includes('ページが見つかりません')`))

	step("open the study page", chromedp.Navigate(srvURL+"/study"),
		chromedp.Evaluate[chromedp.Void](`window.kqErrors = []; window.addEventListener('error', e => kqErrors.push(e.message));
			document.body.addEventListener('htmx:responseError', e => kqErrors.push('htmx ' + e.detail.xhr.status))`),
		until("the first choice to have focus", focused(`input[name=choice]`)),
		chromedp.Evaluate[chromedp.Void](`window.kqStatus = document.getElementById('`+views.StudyStatusID+`')`))
	// Each choice is a row a finger can hit (44 CSS pixels).
	step("finger-sized choices", until("every choice row 44px tall or more",
		`[...document.querySelectorAll('#study fieldset label')].every(l => l.getBoundingClientRect().height >= 44)`))
	// Enter before any choice asks for one and sends nothing.
	step("Enter without a choice", chromedp.KeyEvent("\r"), chromedp.Sleep(300*time.Millisecond),
		until("the answer form, still unanswered", `!!document.querySelector('#study form.study-answer') && !document.querySelector('#study form.study-grade')`))

	// A right answer preselects Good, which has focus; key 1 grades Again instead.
	step("answer right with Enter", chromedp.Click(chromedp.CSS(`input[name=choice][value="2"]`)), chromedp.KeyEvent("\r"),
		until("Good to have focus", focused(`button[name=rating][value="3"][data-preselected]`)),
		until("the verdict to be announced", announces("正解")))
	step("fit a phone screen", until("no sideways scrolling at 390px", fitsScreen))
	// While htmx is busy with a swap (here: told so by the event it sends
	// when a request starts), Enter on the focused grade button must not
	// post the form as a plain page.
	step("Enter while htmx is busy", chromedp.Evaluate[chromedp.Void](`window.kqSamePage = true;
			document.querySelector('#study form.study-grade').dispatchEvent(new CustomEvent('htmx:beforeRequest', {bubbles: true}))`),
		chromedp.KeyEvent("\r"), chromedp.Sleep(300*time.Millisecond),
		until("the same page, still waiting for a grade", `window.kqSamePage && !!document.querySelector('#study form.study-grade')`),
		chromedp.Evaluate[chromedp.Void](`document.body.dispatchEvent(new CustomEvent('htmx:afterSettle', {bubbles: true}))`))
	if c := env.card(env.alice, "single"); !c.IsNew {
		t.Errorf("Enter while htmx was busy graded the card: %+v", c.Card)
	}
	// A grade the browser cannot send leaves the card on screen with a
	// message; sent again, it records one review.
	const sendError = "送信できませんでした"
	env.unreachable.Store(true)
	step("grade while the server is unreachable", chromedp.KeyEvent("1"),
		until("the message above the grade form", `(document.querySelector('#study .send-error') || {textContent: ''}).textContent.includes('`+sendError+`') && !!document.querySelector('#study form.study-grade')`),
		until("the message to be announced", announces(sendError)))
	env.unreachable.Store(false)
	// One whose answer does not come in time (the page's timeout, cut
	// short here) says so too.
	const noAnswer = "応答がありませんでした"
	env.stalled.Store(true)
	step("grade while the server hangs", until("the page's htmx timeout of 20 s", `htmx.config.timeout === 20000`),
		chromedp.Evaluate[chromedp.Void](`window.kqTimeout = htmx.config.timeout; htmx.config.timeout = 300`),
		chromedp.KeyEvent("1"),
		until("the timeout's message above the grade form", `(document.querySelector('#study .send-error') || {textContent: ''}).textContent.includes('`+noAnswer+`') && !!document.querySelector('#study form.study-grade')`),
		until("the timeout to be announced", announces(noAnswer)),
		chromedp.Evaluate[chromedp.Void](`htmx.config.timeout = window.kqTimeout`))
	env.stalled.Store(false)
	if c := env.card(env.alice, "single"); !c.IsNew {
		t.Errorf("a grade that was never sent is recorded: %+v", c.Card)
	}
	step("grade with key 1", chromedp.KeyEvent("1"), until("the multi_choice question", `!!document.querySelector('input[name=sel]')`),
		until("the grade to be announced", announces("「もう一度」で記録しました")))
	if c := env.card(env.alice, "single"); c.Card.State != fsrs.Learning || c.Card.Due.Sub(c.Card.LastReview) != time.Minute {
		t.Errorf("after key 1 the card is %+v, want Again (due in 1m)", c.Card)
	}

	// A partly right answer preselects Again; Enter grades with it.
	step("answer partly", chromedp.Click(chromedp.CSS(`input[name=sel][value="0"]`)),
		chromedp.Click(chromedp.CSS(`form.study-answer button[type=submit]`)),
		until("Again to have focus", focused(`button[name=rating][value="1"][data-preselected]`)))
	// Enter on the user menu opens it and grades nothing; the page is
	// marked as one where the study keys work.
	step("Enter on the user menu", chromedp.Focus(chromedp.CSS(`nav details.dropdown > summary`)), chromedp.KeyEvent("\r"),
		until("the menu to open", `document.querySelector('nav details.dropdown').open`), chromedp.Sleep(300*time.Millisecond),
		until("the grade form, still waiting", `!!document.querySelector('#study form.study-grade') && document.documentElement.classList.contains('js')`),
		chromedp.KeyEvent("\r"), until("the menu to close", `!document.querySelector('nav details.dropdown').open`),
		chromedp.Focus(chromedp.CSS(`button[name=rating][data-preselected]`)))
	if c := env.card(env.alice, "multi"); !c.IsNew {
		t.Errorf("Enter on the user menu graded the card: %+v", c.Card)
	}
	step("grade with Enter", chromedp.KeyEvent("\r"), until("the true_false question", `!!document.querySelector('input[name=tf]')`))
	if c := env.card(env.alice, "multi"); c.IsNew || c.Card.Due.Sub(c.Card.LastReview) != time.Minute {
		t.Errorf("after Enter the multi card is %+v, want Again", c.Card)
	}

	// Digits typed into a text field are text, not grades.
	step("true_false", chromedp.Click(chromedp.CSS(`input[name=tf][value="false"]`)), chromedp.KeyEvent("\r"),
		until("the grade form", focused(`button[name=rating]`)), chromedp.KeyEvent("4"),
		until("the cloze question", focused(`input[name=gap]`)))
	step("cloze", chromedp.KeyEvent("ImageVolume 1"), chromedp.KeyEvent("\r"), until("the cloze feedback", shows("不正解")+" && "+focused(`button[name=rating][value=\"1\"]`)),
		chromedp.KeyEvent("2"), until("the typed question", focused(`input[name=text]`)))
	step("typed", chromedp.KeyEvent("tiered reservation\r"), until("the typed feedback", focused(`button[name=rating][value=\"3\"]`)),
		chromedp.KeyEvent("3"), until("the order question", `!!document.querySelector('select[name="pos-0"]')`))
	step("order", chromedp.SetValue(chromedp.CSS(`select[name="pos-0"]`), "1"), chromedp.SetValue(chromedp.CSS(`select[name="pos-1"]`), "2"),
		chromedp.SetValue(chromedp.CSS(`select[name="pos-2"]`), "3"), chromedp.SetValue(chromedp.CSS(`select[name="pos-3"]`), "4"),
		chromedp.Click(chromedp.CSS(`form.study-answer button[type=submit]`)), until("the order feedback", focused(`button[name=rating][value=\"3\"]`)),
		chromedp.KeyEvent("3"), until("the flashcard", focused(`button[data-reveal]`)))
	// Space reveals the flashcard (the reveal button has focus; the key
	// handler leaves a focused button to the browser) and 3 grades Good.
	// The queue is then empty but for the cards graded Again, due a
	// minute after their grade: the page waits for the first.
	step("flashcard", chromedp.KeyEvent(" "), until("the back of the card", focused(`button[name=rating][value="3"]`)),
		chromedp.KeyEvent("3"), until("the page waiting for the next card", shows("次のカードを待っています")))

	want := map[string]fsrs.Rating{"truefalse": fsrs.Easy, "cloze": fsrs.Hard, "typed": fsrs.Good, "order": fsrs.Good, "flash": fsrs.Good}
	for ext, r := range want {
		c := env.card(env.alice, ext)
		if c.IsNew || c.Card.Reps != 1 {
			t.Errorf("%s: card %+v, want one review (%v)", ext, c.Card, r)
		}
	}
	if c := env.card(env.alice, "truefalse"); c.Card.State != fsrs.Review {
		t.Errorf("true_false graded Easy is in %v, want Review", c.Card.State)
	}
	errs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.kqErrors`))
	if err != nil || len(errs) > 0 {
		t.Errorf("script errors: %v %v", errs, err)
	}
}

// loadPage runs actions that make the browser load a page, waits for its
// response, checks that it is a 200 and returns its path and query.
func loadPage(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) string {
	t.Helper()
	resp, err := chromedp.RunResponse(ctx, steps...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("%s: status %d at %s", what, resp.Status, resp.URL)
	}
	at, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return at
}

// shows waits up to 5 s for a script condition to hold on the page, looking
// again every 100 ms: unlike a poll inside the page, it carries on across
// navigations, including those served from the browser's cache.
func shows(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			at, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + ': ' + document.body.innerText.slice(0, 300)`))
			t.Fatalf("waiting for %s: %v; the browser shows %s", what, err, at)
		}
	}
}

// TestStudyWithoutScriptInBrowser answers and grades one card in headless
// Chromium with JavaScript off, through the plain forms, then goes Back:
// the browser shows the feedback again, without asking to send a form a
// second time, and grading it again records nothing more.
func TestStudyWithoutScriptInBrowser(t *testing.T) {
	env := newStudyEnv(t)
	ctx, srvURL := studyBrowser(t, env)
	step := browserStep(t, ctx)
	// load checks the path only: the answer page's address holds the form.
	load := func(what, wantPath string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if got, _, _ := strings.Cut(loadPage(t, ctx, what, steps...), "?"); got != wantPath {
			t.Fatalf("%s: the browser is at %q, want %q", what, got, wantPath)
		}
	}
	has := func(what, sel string) {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('`+sel+`')`))
		if err != nil || !ok {
			t.Fatalf("%s: no %s (%v)", what, sel, err)
		}
	}

	step("turn script off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	load("open the deck's study page", "/study/v1-36-sig-node", chromedp.Navigate(srvURL+"/study/v1-36-sig-node"))
	if htmx, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof htmx !== 'undefined'`)); err != nil || htmx {
		t.Fatalf("htmx loaded with script off (%v)", err)
	}
	load("answer right", "/study/answer",
		chromedp.Click(chromedp.CSS(`input[name=choice][value="2"]`)),
		chromedp.Click(chromedp.CSS(`form.study-answer button[type=submit]`)))
	has("the feedback page", `#study article.feedback.right`)
	load("grade Good", "/study/v1-36-sig-node", chromedp.Click(chromedp.CSS(`form.study-grade button[name=rating][value="3"]`)))
	has("the next card", `input[name=sel]`)
	first := env.card(env.alice, "single")
	if first.IsNew || first.Card.Reps != 1 {
		t.Fatalf("after grading Good the card is %+v, want one review", first.Card)
	}

	// Back may be served from the browser's cache, with no response or load
	// event to wait for: look at the page until it is the feedback.
	step("go back", chromedp.Evaluate[chromedp.Void](`history.back()`))
	shows(t, ctx, "the feedback page again, not a prompt to send the form again",
		`location.pathname === '/study/answer' && !!document.querySelector('#study article.feedback.right')`)
	// chromedp's own element lookup loses a page restored from the cache;
	// the click is dispatched from the page instead (with script off, only
	// DevTools runs script there).
	step("grade the same card again", chromedp.Evaluate[chromedp.Void](`document.querySelector('form.study-grade button[name=rating][value="4"]').click()`))
	// The page tells that the first grade, Good, was kept, not Easy.
	shows(t, ctx, "the next card, under the notice of the first grade",
		`location.pathname === '/study/v1-36-sig-node' && !!document.querySelector('input[name=sel]') &&
			document.body.textContent.includes('この回答は記録済みです (「正解」)')`)
	if again := env.card(env.alice, "single"); again.Card != first.Card {
		t.Errorf("grading the same presentation again changed the card: %+v, was %+v", again.Card, first.Card)
	}
}

// TestHeaderFitsPhoneInBrowser shows the decks page at phone width to
// learners with long display names: the header must neither widen the
// page nor break its links over lines.
func TestHeaderFitsPhoneInBrowser(t *testing.T) {
	env := newStudyEnv(t)
	ctx, srvURL := studyBrowser(t, env)
	names := []struct{ what, name string }{
		{"short", "alice"},
		{"50 ASCII letters, no place to break", strings.Repeat("Aleksandrovna", 3) + "Ivanovskaya"},
		{"50 Japanese characters, the longest allowed", strings.Repeat("長い表示名", 10)},
		{"a name with a team", "山田太郎（インフラチーム）"},
	}
	for _, width := range []int64{320, 390} {
		browserStep(t, ctx)("phone screen", chromedp.EmulateViewport(width, 700, chromedp.EmulateMobile))
		for _, tt := range names {
			t.Run(fmt.Sprintf("%dpx, %s", width, tt.what), func(t *testing.T) {
				if err := env.ts.db.SetDisplayName(context.Background(), env.alice.user.ID, tt.name); err != nil {
					t.Fatal(err)
				}
				browserStep(t, ctx)("the decks page", chromedp.Navigate(srvURL+"/decks"),
					untilSettled("the header to show the name", `document.querySelector('header nav summary').textContent.trim() === `+jsString(tt.name), 5*time.Second),
					untilSettled("the page to fit the screen", fitsScreen, 5*time.Second))
			})
		}
	}
}

// longFeedbackYAML is a deck of one question whose feedback is taller than
// a phone's screen.
var longFeedbackYAML = `deck:
  slug: v1-36-long
  title: "v1.36 long"
  release: "1.36"
  sig: SIG-Node
  language: ja
questions:
  - id: long
    type: single_choice
    prompt: ImageVolume が GA になったのはどのリリース?
    choices: ["1.34", "1.35", "1.36", "1.37"]
    answer: "1.36"
    explanation: "` + strings.Repeat("ImageVolume は 1.31 で alpha として入り、1.33 で beta、1.35 でデフォルト有効になり、1.36 で GA になった。", 8) + `"
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
`

// TestGradeButtonsInSight: on a phone and on a desktop screen, after an
// answer whose feedback is taller than the screen, the verdict and the
// focused, preselected grade button are both in sight without scrolling;
// a link of the feedback reached with the keyboard is not hidden under the
// buttons; scrolled to its end, the feedback is not hidden under them.
func TestGradeButtonsInSight(t *testing.T) {
	env := newStudyEnv(t)
	importYAML(t, env.ts, "long.yaml", longFeedbackYAML, false)
	ctx, srvURL := studyBrowser(t, env)
	inSight := func(sel string) string {
		return `(() => { const e = document.querySelector('` + sel + `'); if (!e) return false;
			const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })()`
	}
	// onTop holds when the focused element is what a click at its middle
	// would hit: nothing covers it.
	const onTop = `(() => { const e = document.activeElement, r = e.getBoundingClientRect();
		const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return r.top >= 0 && r.bottom <= window.innerHeight && !!hit && e.contains(hit); })()`
	for _, screen := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"phone", 375, 667, true}, {"desktop", 1280, 800, false}} {
		t.Run(screen.name, func(t *testing.T) {
			step := browserStep(t, ctx)
			emulate := chromedp.EmulateViewport(screen.width, screen.height)
			if screen.mobile {
				emulate = chromedp.EmulateViewport(screen.width, screen.height, chromedp.EmulateMobile)
			}
			step("open the deck", emulate,
				chromedp.Navigate(srvURL+"/study/v1-36-long"),
				untilSettled("the question", `!!document.querySelector('input[name=choice][value="2"]')`, 5*time.Second),
				chromedp.Click(chromedp.CSS(`input[name=choice][value="2"]`)),
				chromedp.Click(chromedp.CSS(`form.study-answer button[type=submit]`)),
				untilSettled("Good to have focus", `document.activeElement && document.activeElement.matches('button[name=rating][value="3"][data-preselected]')`, 5*time.Second))
			if tall := journeyEval[bool](t, ctx, `document.querySelector('#study').getBoundingClientRect().bottom > window.innerHeight`); !tall {
				t.Fatal("the feedback fits the screen: the test shows nothing")
			}
			for _, sel := range []string{`#study .feedback header`, `button[data-preselected]`} {
				if !journeyEval[bool](t, ctx, inSight(sel)) {
					t.Errorf("%s is out of sight after the answer: %v", sel, journeyEval[string](t, ctx,
						`JSON.stringify(document.querySelector('`+sel+`').getBoundingClientRect()) + ' in ' + window.innerHeight`))
				}
			}
			// The last link of the feedback, reached with Shift+Tab from the
			// first grade button, is scrolled clear of the buttons.
			step("Shift+Tab to the last link", chromedp.Evaluate[chromedp.Void](`document.querySelector('button[name=rating][value="1"]').focus({preventScroll: true})`),
				chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(kb.ModifierShift)), chromedp.Sleep(100*time.Millisecond))
			if !journeyEval[bool](t, ctx, `document.activeElement.matches('#study .feedback a')`) {
				t.Fatalf("Shift+Tab from Again focused %s, not a link of the feedback", journeyEval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))
			}
			if !journeyEval[bool](t, ctx, onTop) {
				t.Errorf("the focused link is hidden: %v", journeyEval[string](t, ctx,
					`JSON.stringify(document.activeElement.getBoundingClientRect()) + ' in ' + window.innerHeight`))
			}
			// At the end of the page, the source line is above the buttons.
			step("scroll to the end", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.documentElement.scrollHeight)`), chromedp.Sleep(100*time.Millisecond))
			if !journeyEval[bool](t, ctx, `document.querySelector('#study .feedback footer').getBoundingClientRect().bottom <= document.querySelector('form.study-grade').getBoundingClientRect().top + 1`) {
				t.Error("scrolled to its end, the feedback's source line is under the grade buttons")
			}
		})
	}
}

// contrastJS defines kqContrast(a, b), the WCAG contrast ratio of two CSS
// colours, the first laid over the second when it is translucent.
const contrastJS = `window.kqContrast = (a, b) => {
	const rgba = c => { const e = document.createElement('i'); e.style.color = c; document.body.appendChild(e);
		const m = getComputedStyle(e).color.match(/[\d.]+/g).map(Number); e.remove(); return m.length === 3 ? [...m, 1] : m; };
	const [fr, fg, fb, fa] = rgba(a), [br, bg, bb] = rgba(b);
	const mix = [fr * fa + br * (1 - fa), fg * fa + bg * (1 - fa), fb * fa + bb * (1 - fa)];
	const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
	const [l1, l2] = [lum(mix), lum([br, bg, bb])].sort((x, y) => y - x);
	return (l1 + 0.05) / (l2 + 0.05);
}`

// TestFocusContrast: in the light and the dark scheme, the focus ring
// stands out from the page at 3:1 or more, and the focused, preselected
// grade button keeps its text at 4.5:1 or more.
func TestFocusContrast(t *testing.T) {
	env := newStudyEnv(t)
	importYAML(t, env.ts, "long.yaml", longFeedbackYAML, false)
	ctx, srvURL := studyBrowser(t, env)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			step := browserStep(t, ctx)
			step("the "+scheme+" scheme", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
				return err
			}),
				chromedp.Navigate(srvURL+"/study/v1-36-long"),
				untilSettled("the question", `!!document.querySelector('input[name=choice][value="2"]')`, 5*time.Second))
			if got := journeyEval[bool](t, ctx, `matchMedia('(prefers-color-scheme: `+scheme+`)').matches`); !got {
				t.Fatalf("the page is not in the %s scheme", scheme)
			}
			step("answer", chromedp.Click(chromedp.CSS(`input[name=choice][value="2"]`)),
				chromedp.Click(chromedp.CSS(`form.study-answer button[type=submit]`)),
				untilSettled("a grade button to have focus", `document.activeElement && document.activeElement.matches('button[data-preselected]')`, 5*time.Second),
				chromedp.Sleep(400*time.Millisecond), // Pico's colour transitions
				chromedp.Evaluate[chromedp.Void](contrastJS))
			page := `getComputedStyle(document.body).backgroundColor`
			ring := journeyEval[float64](t, ctx, `kqContrast(getComputedStyle(document.documentElement).getPropertyValue('--pico-primary-focus').trim(), `+page+`)`)
			if ring < 3 {
				t.Errorf("focus ring against the page: %.2f:1, want 3:1", ring)
			}
			text := journeyEval[float64](t, ctx, `(() => { const s = getComputedStyle(document.activeElement); return kqContrast(s.color, s.backgroundColor); })()`)
			if text < 4.5 {
				t.Errorf("the focused grade button's text: %.2f:1, want 4.5:1 (%s)", text, journeyEval[string](t, ctx,
					`(() => { const s = getComputedStyle(document.activeElement); return s.color + ' on ' + s.backgroundColor; })()`))
			}
		})
	}
}

// TestDecksPageFreshAfterBack: Back to the decks page after studying shows
// the counts as they are now. Browsers may show a page again from their
// back-forward cache even when it was sent with no-store; app.js then
// loads it afresh.
func TestDecksPageFreshAfterBack(t *testing.T) {
	env := newStudyEnv(t)
	ctx, srvURL := studyBrowser(t, env)
	step := browserStep(t, ctx)
	newCount := func() string {
		return `(document.querySelector('#deck-v1-36-sig-node') || {textContent: ''}).textContent.replace(/\s+/g, ' ')`
	}
	step("open the decks page", chromedp.Navigate(srvURL+"/decks"),
		chromedp.Evaluate[chromedp.Void](`window.kqMarker = true`))
	before := journeyEval[string](t, ctx, newCount())
	step("go to the account page", chromedp.Navigate(srvURL+"/account"))
	if _, err := env.ts.db.RecordReview(context.Background(), store.Review{UserID: env.alice.user.ID, QuestionID: env.q["single"],
		RequestID: newPresentationID(time.Now()), Rating: fsrs.Good, Response: quiz.Response{Choice: 2},
		Scope: store.Scope{Deck: "v1-36-sig-node"}, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	step("go back", chromedp.Evaluate[chromedp.Void](`history.back()`))
	// The page is restored, then loaded again: a poll does not survive
	// that, so ask until the answer comes from the page loaded afresh.
	fresh := `document.readyState === 'complete' && !!document.querySelector('#deck-v1-36-sig-node') && !window.kqMarker`
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fresh)); err == nil && ok {
			if got := journeyEval[string](t, ctx, newCount()); got == before {
				t.Errorf("the decks page loaded after Back shows the counts from before the review: %q", got)
			}
			return
		}
	}
	t.Errorf("after Back the decks page was not loaded afresh: it shows %q, as before the review, and kept its own state: %v",
		journeyEval[string](t, ctx, newCount()), journeyEval[bool](t, ctx, `!!window.kqMarker`))
}
