package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"kubequiz/internal/fsrs"
)

// yearOfStudy adds decks of five more SIGs over three releases, which
// alice subscribes to, and gives her a year of study: on two days of
// three, a few cards of any deck. (Reviews are recorded oldest first: one
// recorded before a card's last review would count at that review's time.)
func (env *statsEnv) yearOfStudy() {
	env.t.Helper()
	ctx := context.Background()
	var cards []string // "slug/ext"
	for key := range env.q {
		cards = append(cards, key)
	}
	slices.Sort(cards)
	for i, sig := range []string{"SIG-API-Machinery", "SIG-Auth", "SIG-Network", "SIG-Scheduling", "SIG-Storage"} {
		for _, rel := range []string{"1.34", "1.35", "1.36"}[i%2:] {
			slug := "v" + strings.ReplaceAll(rel, ".", "-") + "-" + strings.ToLower(sig)
			importYAML(env.t, env.ts, slug+".yaml", flashDeckYAML(slug, "v"+rel+" "+sig, rel, sig, 4), false)
			qs, err := env.ts.db.DeckQuestions(ctx, slug, true)
			if err != nil {
				env.t.Fatal(err)
			}
			for _, sq := range qs {
				env.q[slug+"/"+sq.Question.ExtID] = sq.ID
				cards = append(cards, slug+"/"+sq.Question.ExtID)
			}
			if _, err := env.ts.db.SetSubscription(ctx, env.alice.user.ID, slug, true, env.now); err != nil {
				env.t.Fatal(err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for day := 364; day >= 0; day-- {
		if rng.IntN(3) == 0 {
			continue
		}
		rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
		for _, c := range cards[:1+rng.IntN(8)] {
			slug, ext, _ := strings.Cut(c, "/")
			rating := fsrs.Good
			switch p := rng.IntN(10); {
			case p == 0:
				rating = fsrs.Again
			case p == 1:
				rating = fsrs.Hard
			case p >= 7:
				rating = fsrs.Easy
			}
			env.review(env.alice, slug, ext, day, rating)
		}
	}
}

// statsBrowser starts headless Chromium signed in as env's alice and
// returns the browser's context, which ends with the test, and the
// server's address.
func statsBrowser(t *testing.T, env *statsEnv) (context.Context, string) {
	t.Helper()
	browser := chromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: env.alice.session})
		env.ts.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelBrowser)
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	t.Cleanup(cancel)
	return ctx, srv.URL
}

// statsLayoutJS lists what is wrong with the statistics page's layout: a
// page wider than the screen, an element reaching past its right edge
// outside a box that scrolls, a chart or a chart's shape with no size.
const statsLayoutJS = `(() => {
	const bad = [], html = document.documentElement, vw = html.clientWidth;
	if (html.scrollWidth > vw) bad.push('the page is ' + html.scrollWidth + 'px wide, its viewport ' + vw + 'px');
	for (const e of document.querySelectorAll('body *')) {
		const box = e.parentElement && e.parentElement.closest('.overflow-auto');
		if (box) continue;
		const r = e.getBoundingClientRect();
		if (r.width > 0 && r.right > vw + 0.5) bad.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + e.className + ' ends at ' + r.right + 'px');
	}
	const charts = document.querySelectorAll('svg.chart-svg');
	if (charts.length !== 3) bad.push(charts.length + ' charts');
	for (const s of charts) {
		const r = s.getBoundingClientRect(), shape = s.querySelector('rect');
		if (!(r.width > 50 && r.height > 50)) bad.push('chart ' + s.id + ' is ' + r.width + 'x' + r.height);
		if (!shape) { bad.push('chart ' + s.id + ' draws nothing'); continue; }
		const b = shape.getBBox();
		if (!(b.width > 0 && b.height > 0)) bad.push('chart ' + s.id + ': a shape of ' + b.width + 'x' + b.height);
	}
	return bad;
})()`

// statsContrastJS returns the lowest contrast of a map cell's text on its
// cell, and of the forecast's bars on the page.
const statsContrastJS = `(() => {
	let text = 99;
	const map = document.getElementById('mastery-map');
	const cells = map.querySelectorAll('rect.cell'), texts = map.querySelectorAll('text.cell-text');
	texts.forEach((t, i) => { text = Math.min(text, kqContrast(getComputedStyle(t).fill, getComputedStyle(cells[i]).fill)); });
	const page = getComputedStyle(document.body).backgroundColor;
	let bars = 99;
	document.querySelectorAll('#forecast-chart rect.bar').forEach(b => { bars = Math.min(bars, kqContrast(getComputedStyle(b).fill, page)); });
	return [texts.length, text, bars];
})()`

// TestStatsPageInBrowser opens alice's statistics after a year of study at
// phone and desktop widths, in the light and the dark scheme: the page
// never scrolls sideways (only the calendar's and the map's boxes do, the
// calendar's starting at today's end), every chart is drawn, and the
// map's percentages and the forecast's bars keep their contrast. With
// KUBEQUIZ_SCREENSHOT_DIR set, it saves a screenshot of each.
func TestStatsPageInBrowser(t *testing.T) {
	env := newStatsEnv(t)
	env.yearOfStudy()
	ctx, srvURL := statsBrowser(t, env)
	screens := []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"phone", 375, 667, true},
		{"desktop", 1280, 800, false},
	}
	for _, sc := range screens {
		for _, scheme := range []string{"light", "dark"} {
			t.Run(sc.name+" "+scheme, func(t *testing.T) {
				step := browserStep(t, ctx)
				var vp []chromedp.EmulateViewportOption
				if sc.mobile {
					vp = append(vp, chromedp.EmulateMobile)
				}
				step("the screen", chromedp.EmulateViewport(sc.width, sc.height, vp...),
					chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
						_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
							Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
						return err
					}))
				loadPage(t, ctx, "open /stats", chromedp.Navigate(srvURL+"/stats"))
				step("the charts", untilSettled("the charts", `document.querySelectorAll('svg.chart-svg').length === 3`, 5*time.Second),
					chromedp.Evaluate[chromedp.Void](contrastJS))
				if bad := journeyEval[[]string](t, ctx, statsLayoutJS); len(bad) > 0 {
					t.Errorf("layout at %dpx:\n%s", sc.width, strings.Join(bad, "\n"))
				}
				// A phone's browser widens its layout to fit what overflows.
				if sc.mobile && !journeyEval[bool](t, ctx, `window.innerWidth <= screen.width && document.documentElement.scrollWidth <= screen.width`) {
					t.Errorf("the page is wider than the phone's screen")
				}
				scrolled := journeyEval[bool](t, ctx, `(() => { const b = document.querySelector('[data-scroll-end]');
					return b.scrollWidth <= b.clientWidth || b.scrollLeft + b.clientWidth >= b.scrollWidth - 2; })()`)
				if !scrolled {
					t.Error("the calendar's box does not start at today's end")
				}
				if sc.mobile && !journeyEval[bool](t, ctx, `(() => { const b = document.querySelector('[data-scroll-end]'); return b.scrollWidth > b.clientWidth; })()`) {
					t.Error("on a phone the calendar does not scroll in its box (is it squeezed?)")
				}
				c := journeyEval[[]float64](t, ctx, statsContrastJS)
				if c[0] == 0 || c[1] < 4.5 || c[2] < 3 {
					t.Errorf("%v map cells, their text at %.2f:1 (want 4.5:1), the bars at %.2f:1 on the page (want 3:1)", c[0], c[1], c[2])
				}
				if dir := os.Getenv("KUBEQUIZ_SCREENSHOT_DIR"); dir != "" {
					png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					name := filepath.Join(dir, fmt.Sprintf("stats-%s-%s.png", sc.name, scheme))
					if err := os.WriteFile(name, png, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("screenshot: %s", name)
				}
			})
		}
	}
}
