package web

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// journeyDeck is the deck of internal/bank/testdata/good/all-types.yaml.
const journeyDeck = "v1-36-sig-node"

// journeyNoticeJS reads what a grade reported: the notice above the next
// card, then the live region's words.
const journeyNoticeJS = `(document.querySelector('#study > .study-notice > p') || {textContent: ''}).textContent + ' | ' + document.getElementById('` + views.StudyStatusID + `').textContent`

// TestLearnerJourneyInBrowser follows a new learner through the real server
// in headless Chromium at phone size: sign up, subscribe to a deck, answer
// one card right and one wrong, grade both with the keyboard, see the
// deck's counts move, sign out and be refused by the study pages. Console
// errors and uncaught exceptions fail the test; on failure a screenshot of
// the page is saved.
func TestLearnerJourneyInBrowser(t *testing.T) {
	browser := chromium(t)
	bg := context.Background()

	// The server: a fresh database with an admin (registration is closed
	// without one) and the all-types deck.
	ts := withAdmin(t, newAccountServer(t, Config{}))
	data, err := os.ReadFile(filepath.Join("..", "bank", "testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	importYAML(t, ts, "all-types.yaml", string(data), false)
	stored, err := ts.db.DeckQuestions(bg, journeyDeck, true)
	if err != nil || len(stored) == 0 {
		t.Fatalf("deck questions: %d, %v", len(stored), err)
	}
	questions := map[int64]quiz.Question{}
	for _, sq := range stored {
		questions[sq.ID] = sq.Question
	}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)

	// The browser. Console errors and uncaught exceptions are collected
	// from the first event of the tab on.
	var (
		mu       sync.Mutex
		problems []string
	)
	refusal, favicon := srv.URL+"/study/grade", srv.URL+"/favicon.ico"
	listener := func(ev any) {
		// Runs in the tab's event loop: no commands, return fast.
		var p string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			p = "uncaught exception: " + exceptionText(ev.ExceptionDetails)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, remoteText(a))
				}
				p = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
			}
		case *cdplog.EventEntryAdded:
			e := ev.Entry
			// The signed-out grade below is meant to be refused; the
			// browser logs the refusal as a failed resource. The browser
			// also asks for /favicon.ico on its own, which kubequiz does
			// not serve; that is no error of the page.
			expected := e.Source == cdplog.EntrySourceNetwork &&
				(e.URL == refusal && strings.Contains(e.Text, "401") ||
					e.URL == favicon && strings.Contains(e.Text, "404"))
			if e.Level == cdplog.EntryLevelError && !expected {
				p = "browser log (" + string(e.Source) + "): " + e.Text + " " + e.URL
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	}
	profile := t.TempDir() // removed after the browser has exited (cleanups run last first)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(390, 844),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(bg, opts...)
	tab, cancelTab := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf), chromedp.WithListener(listener))
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	t.Cleanup(func() {
		if t.Failed() {
			journeyScreenshot(t, tab)
		}
	})
	// Start the browser and the tab on the long-lived context: the first
	// run ties them to its context, and the screenshot needs them after
	// the test's own context is done.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()

	step := browserStep(t, ctx)
	// Page loads are waited for with load below.
	until := func(what, cond string) chromedp.Action[chromedp.Void] {
		return untilSettled(what, cond, 10*time.Second)
	}
	// load runs actions that make the browser load a page, waits for it
	// and checks its status and path.
	load := func(what, wantPath string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if got := loadPage(t, ctx, what, steps...); got != wantPath {
			t.Fatalf("%s: the browser is at %q, want %q", what, got, wantPath)
		}
	}
	focused := func(sel string) string {
		return `!!document.activeElement && document.activeElement.matches(` + jsString(sel) + `)`
	}
	deckSel := "#deck-" + journeyDeck

	// 1. Sign up by typing into the registration form.
	const login, password = "learner1", "journey passphrase 7"
	step("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	load("open the registration page", "/register", chromedp.Navigate(srv.URL+"/register"))
	load("register", "/",
		chromedp.SendKeys(chromedp.CSS(`#login`), login),
		chromedp.SendKeys(chromedp.CSS(`#password`), password),
		chromedp.SendKeys(chromedp.CSS(`#password2`), password),
		chromedp.Click(chromedp.CSS(`form[action="/register"] button[type=submit]`)))
	if got := journeyEval[string](t, ctx, `(document.querySelector('header nav details.dropdown > summary') || {textContent: ''}).textContent.trim()`); got != login {
		t.Fatalf("after signing up the nav shows %q, want %q", got, login)
	}
	creds, err := ts.db.Credentials(bg, login)
	if err != nil || creds.User.Role != quiz.RoleMember {
		t.Fatalf("the new account: %+v, %v", creds.User, err)
	}
	user := creds.User

	// 2. The decks page: counts before, then subscribe in place (htmx).
	load("open the decks page", "/decks", chromedp.Navigate(srv.URL+"/decks"))
	countsJS := `(() => {
		const p = [...document.querySelectorAll(` + jsString(deckSel+" p") + `)].find(p => p.textContent.includes('新規'));
		return p ? [...p.querySelectorAll('strong')].map(s => Number(s.textContent)) : [];
	})()`
	before := journeyEval[[]int](t, ctx, countsJS)
	if want := []int{len(stored), 0, 0}; !slices.Equal(before, want) {
		t.Errorf("counts before subscribing (new, learning, due) = %v, want %v", before, want)
	}
	if len(before) != 3 {
		t.Fatalf("no counts on the decks page for %s", journeyDeck)
	}
	step("subscribe",
		chromedp.Evaluate[chromedp.Void](`window.kqSamePage = true`), // gone if a new page loads
		chromedp.Click(chromedp.CSS(deckSel+` button[type=submit]`)),
		until("the deck to show as subscribed", `!!document.querySelector(`+jsString(deckSel+` a[href="/study/`+journeyDeck+`"]`)+`)`))
	if !journeyEval[bool](t, ctx, `window.kqSamePage === true`) {
		t.Error("subscribing loaded a new page instead of swapping the deck in place")
	}
	subscribed := journeyEval[string](t, ctx, `document.querySelector(`+jsString(deckSel)+`).textContent`)
	for _, want := range []string{"購読中", "購読をやめる", "このデッキを学習"} {
		if !strings.Contains(subscribed, want) {
			t.Errorf("the subscribed deck lacks %q: %q", want, subscribed)
		}
	}

	// 3. Study: the first card answered right, graded Good with key 3.
	load("open the deck's study page", "/study/"+journeyDeck,
		chromedp.Click(chromedp.CSS(deckSel+` a[href="/study/`+journeyDeck+`"]`)))
	first := journeyShown(t, ctx, questions)
	actions, err := journeyAnswer(first.q, true)
	if err != nil {
		t.Fatal(err)
	}
	step("answer "+first.q.ExtID+" right", append(actions,
		chromedp.Click(chromedp.CSS(`#study form.study-answer button[type=submit]`)),
		until("Good to be preselected and focused", focused(`#study button[name=rating][value="3"][data-preselected]`)))...)
	journeyCheckFeedback(t, ctx, first.q, true)
	step("grade Good with key 3", chromedp.KeyEvent("3"),
		until("the next card", `(() => { const q = document.querySelector('#study form.study-answer input[name=q]'); return !!q && q.value !== `+jsString(strconv.FormatInt(first.id, 10))+` })()`))
	if notice := journeyEval[string](t, ctx, journeyNoticeJS); strings.Count(notice, "「正解」で記録しました") != 2 {
		t.Errorf("after key 3 the notice and the live region say %q, want 「正解」 recorded in both", notice)
	}
	if c := journeyCard(t, ts, user.ID, first.id); c.IsNew || c.Card.Reps != 1 || c.Card.State != fsrs.Learning || c.Card.Due.Sub(c.Card.LastReview) != 10*time.Minute {
		t.Errorf("%s after key 3: %+v, want one Good review (learning, due in 10m)", first.q.ExtID, c.Card)
	}

	// 4. The next card answered wrong, graded Again with key 1.
	second := journeyShown(t, ctx, questions)
	actions, err = journeyAnswer(second.q, false)
	if err != nil {
		t.Fatal(err)
	}
	step("answer "+second.q.ExtID+" wrong", append(actions,
		chromedp.Click(chromedp.CSS(`#study form.study-answer button[type=submit]`)),
		until("Again to be preselected and focused", focused(`#study button[name=rating][value="1"][data-preselected]`)))...)
	journeyCheckFeedback(t, ctx, second.q, false)
	step("grade Again with key 1", chromedp.KeyEvent("1"),
		until("the next card", `(() => { const q = document.querySelector('#study form.study-answer input[name=q]'); return !!q && q.value !== `+jsString(strconv.FormatInt(second.id, 10))+` })()`))
	if notice := journeyEval[string](t, ctx, journeyNoticeJS); strings.Count(notice, "「もう一度」で記録しました") != 2 {
		t.Errorf("after key 1 the notice and the live region say %q, want 「もう一度」 recorded in both", notice)
	}
	if c := journeyCard(t, ts, user.ID, second.id); c.IsNew || c.Card.Reps != 1 || c.Card.State != fsrs.Learning || c.Card.Due.Sub(c.Card.LastReview) != time.Minute {
		t.Errorf("%s after key 1: %+v, want one Again review (learning, due in 1m)", second.q.ExtID, c.Card)
	}

	// 5. Back on the decks page the counts have moved, as the store says.
	load("back to the decks page", "/decks", chromedp.Click(chromedp.CSS(`header nav a[href="/decks"]`)))
	after := journeyEval[[]int](t, ctx, countsJS)
	if want := []int{before[0] - 2, before[1] + 2, before[2]}; !slices.Equal(after, want) {
		t.Errorf("counts after two reviews (new, learning, due) = %v, want %v (before: %v)", after, want, before)
	}
	progress, err := ts.db.StudyDecks(bg, user.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range progress {
		if d.Slug != journeyDeck {
			continue
		}
		if got := []int{d.New, d.Learning, d.Due}; !slices.Equal(got, after) || !d.Subscribed {
			t.Errorf("the store has %v (subscribed %v), the page shows %v", got, d.Subscribed, after)
		}
	}
	reviews := journeyReviewCount(t, ts)
	if reviews != 2 {
		t.Errorf("review_log holds %d rows after two grades, want 2", reviews)
	}

	// 6. Sign out through the nav; the study pages then send to sign-in.
	step("open the account menu", chromedp.Click(chromedp.CSS(`header nav details.dropdown > summary`)),
		until("the logout button", `!!document.querySelector('header nav details.dropdown[open] form[action="/logout"] button')`))
	load("log out", "/", chromedp.Click(chromedp.CSS(`header nav form[action="/logout"] button[type=submit]`)))
	if journeyEval[bool](t, ctx, `!!document.querySelector('header nav details.dropdown') || !document.querySelector('header nav a[href="/login"]')`) {
		t.Error("after logging out the nav still shows an account menu, or no sign-in link")
	}
	for _, path := range []string{"/study", "/study/" + journeyDeck, "/decks"} {
		load("open "+path+" signed out", "/login?next="+strings.ReplaceAll(path, "/", "%2F"), chromedp.Navigate(srv.URL+path))
		if h := journeyEval[string](t, ctx, `(document.querySelector('main h1') || {textContent: ''}).textContent`); h != "ログイン" {
			t.Errorf("signed out, %s shows %q, want the sign-in page", path, h)
		}
	}
	// A grade posted by page script, with a valid CSRF token and a
	// well-formed form, is refused for want of a session: 401, not the
	// CSRF check's 403.
	form := map[string]string{
		"_csrf":  "",
		"q":      strconv.FormatInt(first.id, 10),
		"p":      newPresentationID(time.Now()),
		"d":      journeyDeck,
		"t":      strconv.FormatInt(time.Now().Add(-3*time.Second).UnixMilli(), 10),
		"k":      first.q.AnswerKey(),
		"answer": `{"Choice":0}`,
		"ms":     "3000",
		"rating": "4",
	}
	formJSON, _ := json.Marshal(form)
	for _, htmx := range []bool{false, true} {
		status := journeyEval[int](t, ctx, `(async () => {
			const f = new URLSearchParams(`+string(formJSON)+`);
			f.set('_csrf', document.querySelector('input[name=_csrf]').value);
			const headers = `+map[bool]string{false: `{}`, true: `{'HX-Request': 'true'}`}[htmx]+`;
			const r = await fetch('/study/grade', {method: 'POST', body: f, headers, redirect: 'manual'});
			return r.status;
		})()`, chromedp.EvalAwaitPromise)
		if status != http.StatusUnauthorized {
			t.Errorf("signed-out POST /study/grade (htmx %v) = %d, want 401", htmx, status)
		}
	}
	if got := journeyReviewCount(t, ts); got != reviews {
		t.Errorf("review_log holds %d rows after the refused grades, want %d", got, reviews)
	}
	if c := journeyCard(t, ts, user.ID, first.id); c.Card.Reps != 1 || c.Card.State != fsrs.Learning {
		t.Errorf("a refused grade changed the card: %+v", c.Card)
	}

	// 7. No console errors or uncaught exceptions anywhere on the way.
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}

// journeyQuestion is the card on screen.
type journeyQuestion struct {
	id int64
	q  quiz.Question
}

// journeyShown waits for a question on the study page and finds it in the
// deck by its hidden id; the prompt on screen must be its prompt.
func journeyShown(t *testing.T, ctx context.Context, questions map[int64]quiz.Question) journeyQuestion {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#study form.study-answer input[name=q]')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("waiting for a question: %v", err)
	}
	raw := journeyEval[string](t, ctx, `document.querySelector('#study form.study-answer input[name=q]').value`)
	id, err := strconv.ParseInt(raw, 10, 64)
	q, ok := questions[id]
	if err != nil || !ok {
		t.Fatalf("the study page shows question %q, not one of the deck", raw)
	}
	prompt := q.Prompt
	if q.Type == quiz.Cloze {
		// The blanks, each followed by its name for screen readers.
		parts := quiz.ClozeParts(prompt)
		prompt = parts[0]
		for i, part := range parts[1:] {
			prompt += quiz.ClozeBlank + views.ClozeGapName(i+1, len(parts)-1) + part
		}
	}
	shown := journeyEval[string](t, ctx, `document.getElementById('prompt').innerText`)
	if strings.TrimSpace(shown) != strings.TrimSpace(prompt) {
		t.Errorf("question %s: the prompt shows %q, want %q", q.ExtID, shown, prompt)
	}
	return journeyQuestion{id, q}
}

// journeyAnswer fills the answer form of q with the right answer or a
// wrong one, as a learner would: clicking choices and typing text.
func journeyAnswer(q quiz.Question, right bool) ([]chromedp.Action[chromedp.Void], error) {
	click := func(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }
	var out []chromedp.Action[chromedp.Void]
	switch q.Type {
	case quiz.SingleChoice:
		i := slices.Index(q.Choices, q.Answer)
		if !right {
			i = (i + 1) % len(q.Choices)
		}
		out = append(out, click(`#study input[name=choice][value="`+strconv.Itoa(i)+`"]`))
	case quiz.MultiChoice:
		// Wrong: only the choices that are not answers, none right.
		for i, c := range q.Choices {
			if slices.Contains(q.Answers, c) == right {
				out = append(out, click(`#study input[name=sel][value="`+strconv.Itoa(i)+`"]`))
			}
		}
	case quiz.TrueFalse:
		v := *q.Truth == right
		out = append(out, click(`#study input[name=tf][value="`+strconv.FormatBool(v)+`"]`))
	case quiz.Cloze:
		gaps, err := quiz.ParseCloze(q.Prompt)
		if err != nil {
			return nil, err
		}
		for i, g := range gaps {
			text := g.Accept[0]
			if !right {
				text = "not " + text
			}
			out = append(out, chromedp.SendKeys(chromedp.CSS(`#study form.study-answer label:nth-of-type(`+strconv.Itoa(i+1)+`) input[name=gap]`), text))
		}
	case quiz.Typed:
		text := q.Answer
		if !right {
			text = "not " + text
		}
		out = append(out, chromedp.SendKeys(chromedp.CSS(`#study input[name=text]`), text))
	case quiz.Order:
		for i := range q.Items {
			pos := i + 1
			if !right && i < 2 {
				pos = 2 - i // the first two swapped
			}
			out = append(out, chromedp.SetValue(chromedp.CSS(`#study select[name="pos-`+strconv.Itoa(i)+`"]`), strconv.Itoa(pos)))
		}
	default:
		return nil, fmt.Errorf("question %s: no right or wrong answer for %s", q.ExtID, q.Type)
	}
	return out, nil
}

// journeyCheckFeedback checks the checked answer: the verdict, the right
// answer, the explanation, the PR links and one preselected grade.
func journeyCheckFeedback(t *testing.T, ctx context.Context, q quiz.Question, right bool) {
	t.Helper()
	type feedback struct {
		Verdict, Class, Text string
		Links                []string
		Pressed              []string
	}
	fb := journeyEval[feedback](t, ctx, `(() => {
		const a = document.querySelector('#study article.feedback');
		if (!a) return {};
		return {
			Verdict: a.querySelector('header strong').textContent,
			Class: a.className,
			Text: a.innerText,
			Links: [...a.querySelectorAll('footer a[target=_blank][rel~=noopener]')].map(l => l.href),
			Pressed: [...document.querySelectorAll('#study button[name=rating][data-preselected]')].map(b => b.value),
		};
	})()`)
	verdict, class, pressed := "正解", "right", "3"
	if !right {
		verdict, class, pressed = "不正解", "wrong", "1"
	}
	if fb.Verdict != verdict || !slices.Contains(strings.Fields(fb.Class), class) {
		t.Errorf("%s: verdict %q (class %q), want %q (%s)", q.ExtID, fb.Verdict, fb.Class, verdict, class)
	}
	if !slices.Equal(fb.Pressed, []string{pressed}) {
		t.Errorf("%s: pressed grades %v, want only %s", q.ExtID, fb.Pressed, pressed)
	}
	want := []string{strings.Split(q.Explanation, "\n")[0]}
	if !right {
		want = append(want, "正解:")
		switch q.Type {
		case quiz.SingleChoice, quiz.Typed:
			want = append(want, q.Answer)
		case quiz.MultiChoice:
			want = append(want, q.Answers...)
		case quiz.TrueFalse:
			want = append(want, map[bool]string{true: "正しい", false: "誤り"}[*q.Truth])
		case quiz.Order:
			want = append(want, q.Items...)
		case quiz.Cloze:
			gaps, _ := quiz.ParseCloze(q.Prompt)
			for _, g := range gaps {
				want = append(want, g.Accept[0])
			}
		}
	}
	for _, w := range want {
		if !strings.Contains(fb.Text, w) {
			t.Errorf("%s: the feedback lacks %q:\n%s", q.ExtID, w, fb.Text)
		}
	}
	for _, pr := range q.Source.PRs {
		if !slices.Contains(fb.Links, quiz.PRURL(pr)) {
			t.Errorf("%s: no link to PR %d in %v", q.ExtID, pr, fb.Links)
		}
	}
}

// journeyEval evaluates a script expression on the page.
func journeyEval[T any](t *testing.T, ctx context.Context, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		t.Fatalf("evaluate %.80q: %v", expr, err)
	}
	return v
}

func journeyCard(t *testing.T, ts *testServer, userID, questionID int64) store.CardPreview {
	t.Helper()
	c, err := ts.db.PreviewCard(context.Background(), userID, questionID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// journeyReviewCount counts the rows of review_log on a connection of its own.
func journeyReviewCount(t *testing.T, ts *testServer) int {
	t.Helper()
	db, err := sql.Open("sqlite", store.DSN(ts.db.Path()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM review_log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// journeyScreenshot saves the whole page as a PNG named after the test, in
// $KUBEQUIZ_SCREENSHOT_DIR or the temp folder.
func journeyScreenshot(t *testing.T, tab context.Context) {
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	where, _ := chromedp.Run(ctx, chromedp.Location())
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("no screenshot of %s: %v", where, err)
		return
	}
	dir := os.Getenv("KUBEQUIZ_SCREENSHOT_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+".png")
	if err := os.WriteFile(name, png, 0o644); err != nil {
		t.Logf("saving the screenshot: %v", err)
		return
	}
	t.Logf("screenshot of %s at the failure: %s", where, name)
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return ""
	}
	s := d.Text
	if d.Exception != nil {
		s += " " + remoteText(d.Exception)
	}
	return fmt.Sprintf("%s (%s:%d)", s, d.URL, d.LineNumber+1)
}

func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Value)
}

// jsString quotes s as a script string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
