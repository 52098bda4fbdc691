package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
)

// TestFeatureAndReviewPagesInBrowser opens a feature's page and a
// document's review page in headless Chromium at phone width: nothing
// wider than the screen, the timeline drawn large enough to read, the
// review's filter, bulk buttons and proposals laid out. Each page is
// saved as a PNG in $KUBEQUIZ_SCREENSHOT_DIR (or the temp folder).
func TestFeatureAndReviewPagesInBrowser(t *testing.T) {
	browser := chromium(t)
	testshared.Dir(t)
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	ingestShared(t, ts.db, serviceIPHistory...)
	// A document with proposals for two published questions.
	doc, err := changelog.Parse([]byte(ingestTestArticle), changelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var res store.IngestResult
	for _, reword := range []map[int]string{nil, {0: "新しい問題文 0 Needle", 1: "FooBarVolume はどの段階になった? (更新案)"}} {
		in := store.ChangelogInput{File: "node.txt", Document: doc, Deck: quizgen.Deck(doc, ""), Generated: reviewQuestions(doc, reword)}
		if res, err = ts.db.IngestChangelog(ctx, in, store.IngestOptions{Actor: "test", Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if reword == nil {
			if _, err := ts.db.PublishQuestions(ctx, res.Deck.Slug, []int64{res.Questions[0].ID, res.Questions[1].ID}, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The admin's session, added to every request.
	admin, err := ts.db.Credentials(ctx, "root")
	if err != nil {
		t.Fatal(err)
	}
	tok, hash, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.db.CreateSession(ctx, admin.User.ID, store.NewSession{TokenHash: hash, ExpiresAt: time.Now().Add(time.Hour)}, time.Now(), idleTimeout); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		ts.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(390, 844))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelBrowser)
	tab, cancel := context.WithTimeout(bctx, time.Minute)
	t.Cleanup(cancel)
	step := browserStep(t, tab)
	step("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))

	dir := os.Getenv("KUBEQUIZ_SCREENSHOT_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	// shoot saves the whole page, or for a long one the screen scrolled
	// to the element sel.
	shoot := func(name, sel string) {
		t.Helper()
		shot := chromedp.FullScreenshot(100)
		if sel != "" {
			if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(document.querySelector(`+jsString(sel)+`).scrollIntoView(), true)`)); err != nil {
				t.Fatalf("scroll to %s: %v", sel, err)
			}
			shot = chromedp.CaptureScreenshot()
		}
		png, err := chromedp.Run(tab, shot)
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(dir, "kubequiz-"+name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
	eval := func(expr string) float64 {
		t.Helper()
		v, err := chromedp.Run(tab, chromedp.Evaluate[float64](expr))
		if err != nil {
			t.Fatalf("evaluate %.80q: %v", expr, err)
		}
		return v
	}
	fits := func(page string) {
		t.Helper()
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](fitsScreen))
		if err != nil || !ok {
			wide, _ := chromedp.Run(tab, chromedp.Evaluate[string](`[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > screen.width + 1).slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ')`))
			t.Errorf("%s is wider than the phone's screen (%v): %s", page, err, wide)
		}
	}

	// The feature's page: the drawing spans the phone's width, its text
	// at a readable size, a marker and a label for each stage.
	if at := loadPage(t, tab, "open the feature page", chromedp.Navigate(srv.URL+"/features/ServiceIPStaticSubrange")); at != "/features/ServiceIPStaticSubrange" {
		t.Fatalf("the browser is at %s", at)
	}
	fits("the feature page")
	if w := eval(`document.querySelector('svg.feature-timeline').getBoundingClientRect().width`); w < 300 {
		t.Errorf("the timeline is %.0f px wide on a 390 px screen", w)
	}
	if h := eval(`Math.min(...[...document.querySelectorAll('svg.feature-timeline text')].map(e => e.getBoundingClientRect().height))`); h < 12 {
		t.Errorf("the timeline's smallest text is %.1f px high", h)
	}
	stages := eval(`document.querySelectorAll('.feature-stages > li').length`)
	if marks := eval(`document.querySelectorAll('svg.feature-timeline .tl-mark').length`); marks != stages || stages < 3 {
		t.Errorf("%v markers for %v stages", marks, stages)
	}
	if n := eval(`document.querySelectorAll('svg.feature-timeline .tl-label').length`); n != stages {
		t.Errorf("%v labels for %v stages", n, stages)
	}
	// Labels do not run into one another or off the drawing.
	if overlap := eval(`(() => {
		const r = [...document.querySelectorAll('svg.feature-timeline text')].map(e => e.getBoundingClientRect());
		const box = document.querySelector('svg.feature-timeline').getBoundingClientRect();
		let n = 0;
		r.forEach((a, i) => {
			if (a.right > box.right + 1 || a.left < box.left - 1) n++;
			r.slice(i + 1).forEach(b => { if (a.left < b.right && b.left < a.right && a.top < b.bottom - 1 && b.top < a.bottom - 1) n++; });
		});
		return n;
	})()`); overlap != 0 {
		t.Errorf("%v texts of the timeline overlap or leave it", overlap)
	}
	shoot("feature-phone", "")

	// The real document of 1.28, its clozes.
	docs, err := ts.db.ChangelogDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var page128 string
	for _, d := range docs {
		if d.Key == "1.28" {
			page128 = documentURL(d.ID)
		}
	}
	if at := loadPage(t, tab, "open the 1.28 document", chromedp.Navigate(srv.URL+page128+"?generator=cloze")); at != page128+"?generator=cloze" {
		t.Fatalf("the browser is at %s", at)
	}
	fits("the 1.28 document's clozes")
	if n := eval(`document.querySelectorAll('.ingest-question').length`); n == 0 || n > reviewPageSize {
		t.Errorf("%v questions on a page", n)
	}
	shoot("document-clozes-top-phone", "main")
	shoot("document-clozes-list-phone", "#review-count")
	if eval(`document.querySelectorAll('.review-pager').length`) > 0 {
		shoot("document-clozes-pager-phone", ".review-pager:last-of-type")
	}

	// The document with proposals: the two wordings one above the other,
	// the buttons in reach.
	if at := loadPage(t, tab, "open the document with proposals", chromedp.Navigate(srv.URL+documentURL(res.DocumentID))); at != documentURL(res.DocumentID) {
		t.Fatalf("the browser is at %s", at)
	}
	fits("the document with proposals")
	if n := eval(`document.querySelectorAll('#ingest-proposals article.proposal').length`); n != 2 {
		t.Errorf("%v proposals shown, want 2", n)
	}
	shoot("document-proposals-phone", "#ingest-proposals")
	shoot("document-proposals-second-phone", "#ingest-proposals article.proposal:last-of-type")
	// The filter, applied from the form.
	at := loadPage(t, tab, "filter",
		chromedp.SetValue(chromedp.CSS(`#filter-generator`), quizgen.GenStageInRelease),
		chromedp.SendKeys(chromedp.CSS(`#filter-q`), "needle"),
		chromedp.Click(chromedp.CSS(`#filter-apply`)))
	if !strings.Contains(at, "generator=stage_in_release") || !strings.Contains(at, "q=needle") {
		t.Errorf("the filter led to %s", at)
	}
	if n := eval(`document.querySelectorAll('.ingest-question').length`); n != 4 { // 20, 50, 80, 110
		t.Errorf("%v questions of the filter, want 4", n)
	}
	fits("the filtered document")
	// Publishing the whole filter: the confirmation page.
	loadPage(t, tab, "confirm", chromedp.Click(chromedp.CSS(`#review-publish-all`)))
	fits("the confirmation page")
	shoot("confirm-phone", "")
	loadPage(t, tab, "publish", chromedp.Click(chromedp.CSS(`#review-confirm`)))
	pub, err := ts.db.ReviewQuestions(ctx, store.ReviewFilter{Document: doc.Key, Status: quiz.Published}, 0, 0)
	if err != nil || pub.Total != 2+4 {
		t.Errorf("published after the confirmation: %d, %v; want 6", pub.Total, err)
	}
}
