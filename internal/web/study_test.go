package web

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kubequiz/internal/account"
	"kubequiz/internal/bank"
	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// studyDeckYAML has one question of each type, in position order.
const studyDeckYAML = `deck:
  slug: v1-36-sig-node
  title: "v1.36 SIG-Node"
  release: "1.36"
  sig: SIG-Node
  language: ja
questions:
  - id: single
    type: single_choice
    prompt: ImageVolume が GA になったのはどのリリース?
    choices: ["1.34", "1.35", "1.36", "1.37"]
    answer: "1.36"
    explanation: 1.31 で alpha、1.36 で GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
  - id: multi
    type: multi_choice
    prompt: 1.36 で GA になった機能をすべて選べ
    choices: [ImageVolume, KubeletPSI, MemoryQoS, PLEGOnDemandRelist]
    answers: [ImageVolume, KubeletPSI]
    explanation: ImageVolume と KubeletPSI が GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711, 136548]}
  - id: truefalse
    type: true_false
    prompt: MemoryQoS は 1.36 で GA になった。
    answer: false
    explanation: MemoryQoS は 1.36 でも GA ではない。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [137584]}
  - id: cloze
    type: cloze
    prompt: "{{ImageVolume|image volume}} フィーチャーゲートが 1.36 で GA になった"
    explanation: ImageVolume は 1.36 で GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
  - id: typed
    type: typed
    prompt: Guaranteed Pod に memory.min を設定させる MemoryReservationPolicy の値は?
    answer: TieredReservation
    accept: [Tiered Reservation]
    explanation: TieredReservation を指定する。
    source: {release: "1.36", sig: SIG-Node, kind: api-change, prs: [137584]}
  - id: order
    type: order
    prompt: ImageVolume の段階を古い順に並べよ
    items: ["alpha (1.31)", "beta (1.33)", "デフォルト有効 (1.35)", "GA (1.36)"]
    explanation: 1.31 で alpha、1.33 で beta、1.35 でデフォルト有効、1.36 で GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
  - id: flash
    type: flashcard
    prompt: cgroup v2 の memory.low とは?
    answer: ソフトな保護。
    explanation: memory.min はハードな保護、memory.low はソフトな保護。
    source: {release: "1.36", sig: SIG-Node, kind: concept, prs: [137584]}
`

// otherDeckYAML is a second deck; importing it again without "gone" (and
// pruning) retires that question.
const otherDeckYAML = `deck:
  slug: v1-35-sig-node
  title: "v1.35 SIG-Node"
  release: "1.35"
  sig: SIG-Node
  language: ja
questions:
  - id: kept
    type: typed
    prompt: kept?
    answer: kept
    explanation: e
    source: {release: "1.35", prs: [1]}
`

const goneQuestionYAML = `  - id: gone
    type: typed
    prompt: gone?
    answer: gone
    explanation: e
    source: {release: "1.35", prs: [2]}
`

// studyCSRF is the CSRF token of a study client that is not signed in.
const studyCSRF = "study-test-csrf-token"

// csrf is the client's CSRF token: its session's, or studyCSRF.
func (cl studyClient) csrf() string {
	if cl.session != "" {
		return sessionCSRF(cl.session)
	}
	return studyCSRF
}

// studyEnv is a server with the decks above and two signed-in learners.
type studyEnv struct {
	t          *testing.T
	ts         *testServer
	alice, bob studyClient
	q          map[string]int64 // ext id -> question row id
	retired    int64
	// unreachable makes the browser tests' server drop every connection
	// unanswered, as a server that is down or a lost connection does.
	unreachable atomic.Bool
	// stalled makes it hold every connection a second unanswered, then
	// drop it, as a server that hangs does.
	stalled atomic.Bool
}

// studyClient sends requests with a real session cookie and the CSRF
// double-submit token, as a browser does.
type studyClient struct {
	t       *testing.T
	ts      *testServer
	user    quiz.User
	session string
}

func importYAML(t *testing.T, ts *testServer, name, data string, prune bool) {
	t.Helper()
	files, err := bank.DecodeAll([]bank.Input{{Name: name, Data: []byte(data)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.db.ImportBank(context.Background(), files, store.ImportOptions{Actor: "test", Prune: prune, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

func newStudyEnv(t *testing.T) *studyEnv {
	t.Helper()
	ts := newTestServer(t)
	ctx := context.Background()
	importYAML(t, ts, "node.yaml", studyDeckYAML, false)
	importYAML(t, ts, "other.yaml", otherDeckYAML+goneQuestionYAML, false)
	env := &studyEnv{t: t, ts: ts, q: map[string]int64{}}
	other, err := ts.db.DeckQuestions(ctx, "v1-35-sig-node", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, sq := range other {
		if sq.Question.ExtID == "gone" {
			env.retired = sq.ID
		}
	}
	importYAML(t, ts, "other.yaml", otherDeckYAML, true)
	qs, err := ts.db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, sq := range qs {
		env.q[sq.Question.ExtID] = sq.ID
	}
	env.alice = newStudyClient(t, ts, "alice")
	env.bob = newStudyClient(t, ts, "bob")
	return env
}

func newStudyClient(t *testing.T, ts *testServer, login string) studyClient {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	u, err := ts.db.CreateUser(ctx, store.NewUser{Login: login, PasswordHash: "unused", Role: quiz.RoleMember}, now)
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

func (cl studyClient) send(req *http.Request, htmx bool) *httptest.ResponseRecorder {
	if cl.session != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cl.session})
	}
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: cl.csrf()})
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	return cl.ts.do(req)
}

func (cl studyClient) get(path string, htmx bool) *httptest.ResponseRecorder {
	return cl.send(httptest.NewRequest(http.MethodGet, path, nil), htmx)
}

func (cl studyClient) post(path string, form url.Values, htmx bool) *httptest.ResponseRecorder {
	form.Set(csrfFormField, cl.csrf())
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return cl.send(req, htmx)
}

// studyStatus is the out-of-band update of the study page's live region
// that ends every htmx study response.
func studyStatus(text string) string {
	return `<p id="study-status" hx-swap-oob="innerHTML">` + text + `</p>`
}

// card reads a learner's card back through the store.
func (env *studyEnv) card(cl studyClient, ext string) store.CardPreview {
	env.t.Helper()
	p, err := env.ts.db.PreviewCard(context.Background(), cl.user.ID, env.q[ext], time.Now())
	if err != nil {
		env.t.Fatal(err)
	}
	return p
}

// answerForm is the hidden part of an answer or grade form, with the
// answer key of the question as stored now (any key for one that does not
// exist).
func (env *studyEnv) answerForm(qid int64, presentation string, extra url.Values) url.Values {
	env.t.Helper()
	key := strings.Repeat("0", 2*quiz.AnswerKeyBytes)
	sq, err := env.ts.db.Question(context.Background(), qid)
	switch {
	case err == nil:
		key = sq.Question.AnswerKey()
	case !errors.Is(err, quiz.ErrNotFound):
		env.t.Fatal(err)
	}
	f := url.Values{
		"q": {strconv.FormatInt(qid, 10)},
		"p": {presentation},
		"d": {"v1-36-sig-node"},
		"t": {strconv.FormatInt(time.Now().Add(-3*time.Second).UnixMilli(), 10)},
		"k": {key},
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

var (
	ratingButtonRe = regexp.MustCompile(`<button[^>]*name="rating"[^>]*>`)
	valueRe        = regexp.MustCompile(`value="(\d)"`)
	hiddenRe       = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)"`)
)

// preselected returns the rating of the button marked preselected, which
// must be the one with focus and be described by the hint naming it.
func preselected(t *testing.T, body string) string {
	t.Helper()
	var got []string
	for _, b := range ratingButtonRe.FindAllString(body, -1) {
		if strings.Contains(b, "aria-pressed") {
			t.Errorf("grade button marked as a toggle: %s", b)
		}
		if strings.Contains(b, "data-preselected") {
			if !strings.Contains(b, "autofocus") || !strings.Contains(b, `aria-describedby="grade-hint"`) {
				t.Errorf("preselected button without autofocus or the hint: %s", b)
			}
			got = append(got, valueRe.FindStringSubmatch(b)[1])
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d preselected buttons, want 1:\n%s", len(got), body)
	}
	return got[0]
}

// hiddenFields reads the hidden inputs of the last form in body.
func hiddenFields(body string) url.Values {
	if i := strings.LastIndex(body, "<form"); i >= 0 {
		body = body[i:]
	}
	f := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		f.Set(m[1], strings.ReplaceAll(strings.ReplaceAll(m[2], "&#34;", `"`), "&amp;", "&"))
	}
	return f
}

func TestStudyAnswerEachType(t *testing.T) {
	env := newStudyEnv(t)
	tests := []struct {
		name        string
		ext         string
		answer      url.Values
		wantVerdict string
		wantPressed string
		wantGiven   string
	}{
		{"single right", "single", url.Values{"choice": {"2"}}, "正解", "3", "1.36"},
		{"single wrong", "single", url.Values{"choice": {"0"}}, "不正解", "1", "1.34"},
		{"single none", "single", url.Values{}, "不正解", "1", "(未回答)"},
		{"single out of range", "single", url.Values{"choice": {"9"}}, "不正解", "1", "(未回答)"},
		{"multi right", "multi", url.Values{"sel": {"1", "0"}}, "正解", "3", `<li><strong>KubeletPSI</strong> <span class="mark right"><span aria-hidden="true">✓</span> 正しい</span></li>`},
		{"multi partial", "multi", url.Values{"sel": {"0"}}, "部分正解 (1/2)", "1", `<ul class="picks"><li><strong>ImageVolume</strong> <span class="mark right"><span aria-hidden="true">✓</span> 正しい</span></li></ul>`},
		{"multi with a wrong pick", "multi", url.Values{"sel": {"0", "2"}}, "部分正解 (1/2)", "1", `<li><strong>MemoryQoS</strong> <span class="mark wrong"><span aria-hidden="true">✗</span> 誤り</span></li>`},
		{"multi none", "multi", url.Values{}, "不正解", "1", `<p><strong>(未回答)</strong></p>`},
		{"true_false right", "truefalse", url.Values{"tf": {"false"}}, "正解", "3", "誤り"},
		{"true_false wrong", "truefalse", url.Values{"tf": {"true"}}, "不正解", "1", "正しい"},
		{"cloze right, normalised", "cloze", url.Values{"gap": {"ｉｍａｇｅ　Volume"}}, "正解", "3", "ｉｍａｇｅ　Volume"},
		{"cloze wrong", "cloze", url.Values{"gap": {"MemoryQoS"}}, "不正解", "1", "MemoryQoS"},
		{"typed right", "typed", url.Values{"text": {"  tiered reservation "}}, "正解", "3", "tiered reservation"},
		{"typed wrong", "typed", url.Values{"text": {"Tiered"}}, "不正解", "1", "Tiered"},
		{"order right", "order", url.Values{"pos-0": {"1"}, "pos-1": {"2"}, "pos-2": {"3"}, "pos-3": {"4"}}, "正解", "3",
			"alpha (1.31) → beta (1.33) → デフォルト有効 (1.35) → GA (1.36)"},
		{"order wrong", "order", url.Values{"pos-0": {"2"}, "pos-1": {"1"}, "pos-2": {"3"}, "pos-3": {"4"}}, "不正解", "1",
			"beta (1.33) → alpha (1.31)"},
		{"flashcard revealed", "flash", url.Values{"revealed": {"1"}}, "答え", "3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.alice.post("/study/answer", env.answerForm(env.q[tt.ext], newPresentationID(time.Now()), tt.answer), true)
			body := rec.Body.String()
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %.500s", rec.Code, body)
			}
			if !strings.Contains(body, `<header><strong>`+tt.wantVerdict+"</strong></header>") {
				t.Errorf("verdict is not %q: %.2000s", tt.wantVerdict, body)
			}
			// The page's live region, outside the swapped area, says it, and
			// unless the answer was right the right one (a flashcard has no
			// verdict: its answer instead).
			announce := tt.wantVerdict
			switch m := regexp.MustCompile(`<p>正解: <strong>([^<]*)</strong></p>`).FindStringSubmatch(body); {
			case tt.ext == "flash":
				announce = "答え: ソフトな保護。"
			case tt.wantVerdict == "正解":
			case tt.ext == "multi":
				// The right choices as listed, in the order shown.
				_, list, _ := strings.Cut(body, `<p>正解:</p><ul class="picks">`)
				list, _, _ = strings.Cut(list, "</ul>")
				var answers []string
				for _, m := range regexp.MustCompile(`<li><strong>([^<]*)</strong></li>`).FindAllStringSubmatch(list, -1) {
					answers = append(answers, m[1])
				}
				if len(answers) != 2 {
					t.Errorf("the right choices are not listed: %.2000s", body)
				}
				announce += "。正解: " + strings.Join(answers, "、")
			case m == nil:
				t.Errorf("no right answer shown: %.2000s", body)
			default:
				announce += "。正解: " + m[1]
			}
			if !strings.HasSuffix(body, `</section>`+studyStatus(announce)) {
				t.Errorf("the live region is not told %q: %.2000s", announce, body)
			}
			if got := preselected(t, body); got != tt.wantPressed {
				t.Errorf("preselected rating %s, want %s", got, tt.wantPressed)
			}
			if hint := "おすすめは「" + quiz.RatingLabel(fsrs.Rating(tt.wantPressed[0]-'0')) + "」。"; !strings.Contains(body, hint) {
				t.Errorf("grade hint lacks %q", hint)
			}
			if !strings.Contains(body, tt.wantGiven) {
				t.Errorf("answer %q not shown", tt.wantGiven)
			}
			// A cloze's feedback shows the sentence with its gap filled by the
			// right word, marked, right or wrong.
			if tt.ext == "cloze" {
				if fill := `<mark class="gap-fill">ImageVolume</mark>`; !strings.Contains(body, fill) {
					t.Errorf("cloze feedback lacks the filled gap %s: %.2000s", fill, body)
				}
				if strings.Contains(body, "____") {
					t.Errorf("cloze feedback still shows the blank: %.2000s", body)
				}
			}
			for _, want := range []string{"https://github.com/kubernetes/kubernetes/pull/", "v1.36", "SIG-Node",
				"もう一度 <small>1分</small>", "正解 <small>10分</small>", `name="answer"`} {
				if !strings.Contains(body, want) {
					t.Errorf("feedback lacks %q", want)
				}
			}
			if strings.Contains(body, "<!doctype html>") {
				t.Error("htmx request got a whole page")
			}
		})
	}
	// Answering records nothing.
	if c := env.card(env.alice, "single"); !c.IsNew {
		t.Errorf("answering created a card: %+v", c.Card)
	}
}

// TestStudyLoop studies the deck through the pages as a browser without
// script would: each answer page is a whole page, each grade redirects.
func TestStudyLoop(t *testing.T) {
	env := newStudyEnv(t)
	cl := env.alice
	rec := cl.get("/study/v1-36-sig-node", false)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "<!doctype html>") || !strings.Contains(body, `id="study"`) {
		t.Fatalf("GET /study/v1-36-sig-node = %d: %.500s", rec.Code, body)
	}
	// A whole page holds the live region, empty, outside #study; the
	// updates for it come only with htmx's fragments.
	if region := `<p id="study-status" class="visually-hidden" role="status"></p><section id="study">`; strings.Count(body, `id="study-status"`) != 1 ||
		!strings.Contains(body, region) || strings.Contains(body, "hx-swap-oob") {
		t.Errorf("study page: want one empty live region before #study (%s) and no out-of-band swap: %.3000s", region, body)
	}
	for _, want := range []string{`<form method="get" action="/study/answer" hx-post="/study/answer" hx-target="#study"`,
		`name="_csrf" value="` + cl.csrf() + `"`, "ImageVolume が GA", `<h1>v1.36 SIG-Node</h1>`} {
		if !strings.Contains(body, want) {
			t.Errorf("study page lacks %q", want)
		}
	}
	// The choices carry their own indices, shuffled; every one is labelled
	// and required, so that Enter before a choice asks for one instead of
	// sending an empty answer.
	for i := range 4 {
		if !strings.Contains(body, `name="choice" value="`+strconv.Itoa(i)+`" required`) {
			t.Errorf("choice %d missing, or not required", i)
		}
	}
	checkLabelsAndCSRF(t, "/study/v1-36-sig-node", body)

	// Without script the answer form is sent as a GET, which Back can load
	// again; a plain POST (a client of its own) gets the same page.
	fields := hiddenFields(body)
	fields.Set("choice", "2")
	rec = cl.get("/study/answer?"+fields.Encode(), false)
	body = rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "<!doctype html>") || !strings.Contains(body, `action="/study/grade"`) {
		t.Fatalf("plain GET /study/answer = %d, want a whole page: %.500s", rec.Code, body)
	}
	checkLabelsAndCSRF(t, "/study/answer", body)
	posted := cl.post("/study/answer", fields, false)
	if pg, gg := hiddenFields(posted.Body.String()), hiddenFields(body); posted.Code != http.StatusOK ||
		pg.Get("answer") != gg.Get("answer") || pg.Get("p") != gg.Get("p") || pg.Get("answer") == "" {
		t.Errorf("plain POST /study/answer = %d with grade fields %v, want the GET's %v", posted.Code, pg, gg)
	}
	grade := hiddenFields(body)
	if grade.Get("p") != fields.Get("p") || grade.Get("answer") == "" {
		t.Fatalf("grade form fields = %v", grade)
	}
	grade.Set("rating", "3")
	rec = cl.post("/study/grade", grade, false)
	graded := "/study/v1-36-sig-node?graded=" + grade.Get("p")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != graded {
		t.Fatalf("plain POST /study/grade = %d to %q, want 303 to %s", rec.Code, rec.Header().Get("Location"), graded)
	}
	c := env.card(cl, "single")
	if c.IsNew || c.Card.State != fsrs.Learning || c.Card.Reps != 1 {
		t.Errorf("card after grading Good = %+v", c.Card)
	}
	// The next card is the next question in deck order, under the notice of
	// what the grade did, as after htmx's swap.
	body = cl.get(graded, false).Body.String()
	if !strings.Contains(body, "1.36 で GA になった機能をすべて選べ") {
		t.Errorf("next card is not the multi_choice question: %.800s", body)
	}
	notice := "「正解」で記録しました。次の復習は 10分後です。"
	if !strings.Contains(body, notice) {
		t.Errorf("the page after a plain grade lacks %q: %.800s", notice, body)
	}
	// The same form sent again (Back, then another grade) records nothing,
	// and the next page says the first grade was kept.
	grade.Set("rating", "4")
	rec = cl.post("/study/grade", grade, false)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != graded+"&again=1" {
		t.Fatalf("plain POST /study/grade again = %d to %q, want 303 to %s&again=1", rec.Code, rec.Header().Get("Location"), graded)
	}
	if again := env.card(cl, "single"); again.Card != c.Card {
		t.Errorf("the second grade changed the card: %+v, was %+v", again.Card, c.Card)
	}
	if body := cl.get(graded+"&again=1", false).Body.String(); !strings.Contains(body, "この回答は記録済みです (「正解」)。") {
		t.Errorf("the page after a repeated plain grade does not say the first grade was kept: %.800s", body)
	}
	// Someone else's review id, or a made-up one, shows no notice.
	for _, cl := range []studyClient{env.bob, cl} {
		for _, id := range []string{grade.Get("p"), "made-up", strings.Repeat("x", 500)} {
			if cl == env.alice && id == grade.Get("p") {
				continue
			}
			rec := cl.get("/study/v1-36-sig-node?again=1&graded="+url.QueryEscape(id), false)
			if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "記録し") || strings.Contains(rec.Body.String(), "記録済み") {
				t.Errorf("graded=%.20s as another learner or made up: %d, notice shown", id, rec.Code)
			}
		}
	}
}

func checkLabelsAndCSRF(t *testing.T, name, body string) {
	t.Helper()
	ctlRe := regexp.MustCompile(`<(?:input|select|textarea|button)\b[^>]*>`)
	for _, loc := range ctlRe.FindAllStringIndex(body, -1) {
		ctl := body[loc[0]:loc[1]]
		if strings.Contains(ctl, `type="hidden"`) || strings.HasPrefix(ctl, "<button") {
			continue
		}
		before := body[:loc[0]]
		if strings.LastIndex(before, "<label") <= strings.LastIndex(before, "</label>") {
			t.Errorf("%s: control outside a label: %s", name, ctl)
		}
	}
	// Every form that posts carries the token; a GET form (the answer form,
	// which changes nothing) must not put it in the address.
	formRe := regexp.MustCompile(`(?s)<form\b([^>]*)>(.*?)</form>`)
	for _, m := range formRe.FindAllStringSubmatch(body, -1) {
		get := strings.Contains(m[1], `method="get"`)
		if has := strings.Contains(m[2], `name="_csrf"`); has == get {
			t.Errorf("%s: form %s: CSRF field %v, want %v", name, m[1], has, !get)
		}
	}
}

func TestStudyGradeHTMXAndDoubleSubmit(t *testing.T) {
	env := newStudyEnv(t)
	p := newPresentationID(time.Now())
	body := env.alice.post("/study/answer", env.answerForm(env.q["single"], p, url.Values{"choice": {"0"}}), true).Body.String()
	grade := hiddenFields(body)
	grade.Set("rating", "1")
	first := env.alice.post("/study/grade", grade, true)
	if first.Code != http.StatusOK || strings.Contains(first.Body.String(), "<!doctype html>") {
		t.Fatalf("htmx grade = %d: %.300s", first.Code, first.Body.String())
	}
	notice := "「もう一度」で記録しました。次の復習は 1分後です。"
	if !strings.Contains(first.Body.String(), `<p class="muted">`+notice+`</p>`) ||
		!strings.HasSuffix(first.Body.String(), `</section>`+studyStatus(notice)) {
		t.Errorf("no notice of the grade, on the card and for the live region: %.600s", first.Body.String())
	}
	after := env.card(env.alice, "single")

	// The same presentation again, even with another rating: nothing more is recorded.
	grade.Set("rating", "4")
	second := env.alice.post("/study/grade", grade, true)
	if second.Code != http.StatusOK || !strings.Contains(second.Body.String(), "この回答は記録済みです (「もう一度」)") {
		t.Errorf("second submit = %d: %.600s", second.Code, second.Body.String())
	}
	if again := env.card(env.alice, "single"); again.Card != after.Card || again.Card.Reps != 1 || again.Card.State != fsrs.Learning {
		t.Errorf("card after double submit = %+v, want %+v with one rep", again.Card, after.Card)
	}
}

// TestStudyOwnership: cards are always the signed-in user's; guessed or
// hidden question ids give 404 and never touch another learner's card.
func TestStudyOwnership(t *testing.T) {
	env := newStudyEnv(t)
	// Bob studies the single-choice question.
	bobP := newPresentationID(time.Now())
	grade := env.answerForm(env.q["single"], bobP, url.Values{"answer": {`{"Choice":2}`}, "rating": {"3"}, "ms": {"1000"}})
	if rec := env.bob.post("/study/grade", grade, true); rec.Code != http.StatusOK {
		t.Fatalf("bob grades: %d %.300s", rec.Code, rec.Body.String())
	}
	bobCard := env.card(env.bob, "single")
	if bobCard.IsNew {
		t.Fatal("bob has no card")
	}

	tests := []struct {
		name       string
		path       string
		form       url.Values
		wantStatus int
	}{
		{"answer an unknown question", "/study/answer", env.answerForm(99999, newPresentationID(time.Now()), nil), 404},
		{"grade an unknown question", "/study/grade", env.answerForm(99999, newPresentationID(time.Now()),
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"3"}, "ms": {"0"}}), 404},
		{"answer a retired question", "/study/answer", env.answerForm(env.retired, newPresentationID(time.Now()), url.Values{"text": {"gone"}}), 404},
		{"grade a retired question", "/study/grade", env.answerForm(env.retired, newPresentationID(time.Now()),
			url.Values{"answer": {`{"Texts":["gone"]}`}, "rating": {"3"}, "ms": {"0"}}), 404},
		{"bad presentation id", "/study/grade", env.answerForm(env.q["single"], "not-hex",
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"1"}, "ms": {"0"}}), 400},
		{"bad answer key", "/study/grade", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"1"}, "ms": {"0"}, "k": {"C8420F4DF273B40D"}}), 400},
		{"no answer key", "/study/answer", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"choice": {"0"}, "k": {""}}), 400},
		{"bad rating", "/study/grade", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"7"}, "ms": {"0"}}), 400},
		{"rating with a leading zero", "/study/grade", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"03"}, "ms": {"0"}}), 400},
		{"rating with a sign", "/study/grade", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"+3"}, "ms": {"0"}}), 400},
		{"rating that wraps to Good", "/study/grade", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"answer": {`{"Choice":0}`}, "rating": {"259"}, "ms": {"0"}}), 400},
		{"answer with unknown fields", "/study/grade", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"answer": {`{"Correct":true}`}, "rating": {"3"}, "ms": {"0"}}), 422},
		{"unknown deck", "/decks/nope/subscription", url.Values{"subscribed": {"1"}}, 404},
		{"answer on its deck's page a card of a deck not subscribed", "/study/answer", env.answerForm(env.q["single"], newPresentationID(time.Now()),
			url.Values{"choice": {"0"}}), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rec := env.alice.post(tt.path, tt.form, true); rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d: %.300s", rec.Code, tt.wantStatus, rec.Body.String())
			}
		})
	}
	if rec := env.alice.get("/study/no-such-deck", false); rec.Code != http.StatusNotFound {
		t.Errorf("GET /study/no-such-deck = %d, want 404", rec.Code)
	}
	// The page of every subscribed deck shows no card of a deck alice does
	// not subscribe to (she may study it on its own page, subscribed or
	// not): an answer or a grade of one from there (her page from before
	// she unsubscribed in another tab) records nothing and moves on.
	for name, post := range map[string]struct {
		path string
		form url.Values
	}{
		"answer": {"/study/answer", env.answerForm(env.q["multi"], newPresentationID(time.Now()), url.Values{"d": {""}, "sel": {"0"}})},
		"grade":  {"/study/grade", env.answerForm(env.q["multi"], newPresentationID(time.Now()), url.Values{"d": {""}, "answer": {`{"selected":[0]}`}, "rating": {"3"}, "ms": {"0"}})},
	} {
		rec := env.alice.post(post.path, post.form, true)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), msgNotSubscribed) || strings.Contains(rec.Body.String(), "feedback") {
			t.Errorf("%s from all decks, not subscribed = %d: %.500s", name, rec.Code, rec.Body.String())
		}
		if !env.card(env.alice, "multi").IsNew {
			t.Fatalf("%s from all decks, not subscribed, recorded a review", name)
		}
	}
	// Subscribed, she may answer it from the page of every deck.
	if rec := env.alice.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, true); rec.Code != http.StatusOK {
		t.Fatalf("alice subscribes: %d", rec.Code)
	}
	if rec := env.alice.post("/study/answer", env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"d": {""}, "choice": {"0"}}), true); rec.Code != http.StatusOK {
		t.Errorf("subscribed, answer from all decks = %d, want 200", rec.Code)
	}

	// Alice grading the same question, with bob's id in a form field, makes
	// her own card; bob's is read back unchanged.
	grade = env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"Choice":0}`}, "rating": {"1"}, "ms": {"0"},
		"user_id": {strconv.FormatInt(env.bob.user.ID, 10)}, "u": {strconv.FormatInt(env.bob.user.ID, 10)}})
	if rec := env.alice.post("/study/grade", grade, true); rec.Code != http.StatusOK {
		t.Fatalf("alice grades: %d", rec.Code)
	}
	if got := env.card(env.bob, "single"); got.Card != bobCard.Card {
		t.Errorf("bob's card changed: %+v, was %+v", got.Card, bobCard.Card)
	}
	if got := env.card(env.alice, "single"); got.IsNew || got.Card.State != fsrs.Learning {
		t.Errorf("alice's card = %+v", got.Card)
	}

	// Signed out, nothing is served.
	anon := studyClient{t: t, ts: env.ts}
	if rec := anon.get("/study", false); rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login") {
		t.Errorf("signed-out GET /study = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := anon.post("/study/grade", grade, true); rec.Code != http.StatusUnauthorized {
		t.Errorf("signed-out grade = %d, want 401", rec.Code)
	}
	// A plain form sent after the session ended: its page says so and
	// leads to the sign-in page, and from there back to the study page.
	req := httptest.NewRequest(http.MethodPost, "/study/grade", strings.NewReader(grade.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", "http://example.com/study/v1-36-sig-node")
	rec := anon.send(req, false)
	if body := rec.Body.String(); rec.Code != http.StatusUnauthorized || !strings.Contains(body, "送った内容は保存されていません") ||
		!strings.Contains(body, `<a href="/login?next=%2Fstudy%2Fv1-36-sig-node">ログインする</a>`) {
		t.Errorf("signed-out plain grade = %d: %.3000s", rec.Code, body)
	}
}

// TestStudyAnotherLearnersPresentation: grading with the presentation id
// of another learner's review answers exactly as grading with an id never
// used: the review is recorded as the learner's own, and nothing tells
// that the id was taken. Alice sends bob's id, carol a new one; their
// answers are compared, apart from ids, tokens, times and names.
func TestStudyAnotherLearnersPresentation(t *testing.T) {
	env := newStudyEnv(t)
	carol := newStudyClient(t, env.ts, "carol")
	hexID := regexp.MustCompile(`[0-9a-f]{32}`)
	millis := regexp.MustCompile(`\b1[0-9]{12}\b`)
	// The next card's choices come in the order of its new presentation
	// id, and the first has the focus, each with the key of its place:
	// sorted, and without either.
	choices, choice := regexp.MustCompile(`(?:<label><input [^>]*> [^<]*</label>)+`), regexp.MustCompile(`<label>.*?</label>`)
	keys := regexp.MustCompile(`<kbd class="keys" aria-hidden="true">\d</kbd>`)
	same := func(cl studyClient, login, s string) string {
		s = keys.ReplaceAllString(s, "")
		s = strings.ReplaceAll(s, cl.csrf(), "CSRF")
		s = strings.ReplaceAll(s, login, "LOGIN")
		s = choices.ReplaceAllStringFunc(s, func(list string) string {
			all := choice.FindAllString(strings.ReplaceAll(list, " autofocus", ""), -1)
			slices.Sort(all)
			return strings.Join(all, "")
		})
		return millis.ReplaceAllString(hexID.ReplaceAllString(s, "ID"), "MS")
	}
	for _, tt := range []struct {
		ext, answer string
		htmx        bool
	}{
		{"single", `{"Choice":2}`, true},
		{"multi", `{"Selected":[0,1]}`, false},
	} {
		bobs := newPresentationID(time.Now())
		grade := func(cl studyClient, p string) *httptest.ResponseRecorder {
			return cl.post("/study/grade", env.answerForm(env.q[tt.ext], p, url.Values{"answer": {tt.answer}, "rating": {"3"}, "ms": {"1000"}}), tt.htmx)
		}
		if rec := grade(env.bob, bobs); rec.Code != http.StatusOK && rec.Code != http.StatusSeeOther {
			t.Fatalf("bob grades %s: %d", tt.ext, rec.Code)
		}
		bobCard := env.card(env.bob, tt.ext)
		taken, unused := grade(env.alice, bobs), grade(carol, newPresentationID(time.Now()))
		answers := [][2]string{
			{strconv.Itoa(taken.Code), strconv.Itoa(unused.Code)},
			{same(env.alice, "alice", taken.Header().Get("Location")), same(carol, "carol", unused.Header().Get("Location"))},
			{same(env.alice, "alice", taken.Body.String()), same(carol, "carol", unused.Body.String())},
		}
		if !tt.htmx && taken.Code == http.StatusSeeOther && unused.Code == http.StatusSeeOther {
			// The page the plain form's redirect leads to, which tells
			// what the grade did.
			after := [2]string{same(env.alice, "alice", env.alice.get(taken.Header().Get("Location"), false).Body.String()),
				same(carol, "carol", carol.get(unused.Header().Get("Location"), false).Body.String())}
			if !strings.Contains(after[0], "「正解」で記録しました。") {
				t.Errorf("%s: the page after alice's grade lacks its notice: %.1000s", tt.ext, after[0])
			}
			answers = append(answers, after)
		}
		for i, a := range answers {
			if a[0] != a[1] {
				t.Errorf("%s (htmx %v): answer part %d to another learner's presentation id:\n%.3000s\nto an unused one:\n%.3000s", tt.ext, tt.htmx, i, a[0], a[1])
			}
		}
		if got := env.card(env.bob, tt.ext); got.Card != bobCard.Card {
			t.Errorf("%s: bob's card changed: %+v, was %+v", tt.ext, got.Card, bobCard.Card)
		}
		if got := env.card(env.alice, tt.ext); got.IsNew || got.Card.Reps != 1 {
			t.Errorf("%s: alice's card = %+v, want her review recorded", tt.ext, got.Card)
		}
	}
}

func TestDecksPage(t *testing.T) {
	env := newStudyEnv(t)
	cl := env.alice
	rec := cl.get("/decks", false)
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /decks = %d", rec.Code)
	}
	for _, want := range []string{"v1.36 SIG-Node", "v1.35 SIG-Node", "新規 <strong>7</strong>", "全 7 問", "全 1 問",
		`hx-post="/decks/v1-36-sig-node/subscription"`, `action="/decks/v1-36-sig-node/subscription"`, `hx-target="closest article"`} {
		if !strings.Contains(body, want) {
			t.Errorf("decks page lacks %q", want)
		}
	}
	checkLabelsAndCSRF(t, "/decks", body)
	// A title that names the release and SIG is not followed by them again.
	if strings.Contains(body, `<p class="muted">v1.36 · SIG-Node</p>`) {
		t.Error("the v1.36 SIG-Node card repeats its release and SIG under the title")
	}
	if strings.Contains(body, "autofocus") {
		t.Error("the decks page puts autofocus on a control; only a toggled card should")
	}

	// Without script: a plain post, then back to the deck's card in the list.
	rec = cl.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, false)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/decks#deck-v1-36-sig-node" {
		t.Fatalf("plain subscribe = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	// With htmx: the deck's card comes back, in its new state.
	rec = cl.post("/decks/v1-35-sig-node/subscription", url.Values{"subscribed": {"1"}}, true)
	body = rec.Body.String()
	if rec.Code != http.StatusOK || strings.Contains(body, "<!doctype html>") || !strings.HasPrefix(body, `<article id="deck-v1-35-sig-node">`) ||
		!strings.Contains(body, "購読をやめる") || !strings.Contains(body, `name="_csrf"`) {
		t.Fatalf("htmx subscribe = %d: %.500s", rec.Code, body)
	}
	if !strings.Contains(body, `autofocus>購読をやめる</button>`) {
		t.Errorf("the toggled card does not give its toggle focus: %.800s", body)
	}
	if rec := cl.post("/decks/v1-35-sig-node/subscription", url.Values{"subscribed": {"maybe"}}, true); rec.Code != http.StatusBadRequest {
		t.Errorf("subscribed=maybe = %d, want 400", rec.Code)
	}

	// Study one card, then the counts move.
	grade := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"Choice":2}`}, "rating": {"3"}, "ms": {"0"}})
	cl.post("/study/grade", grade, true)
	body = cl.get("/decks", false).Body.String()
	for _, want := range []string{"新規 <strong>6</strong>", "学習中 <strong>1</strong>", "購読中"} {
		if !strings.Contains(body, want) {
			t.Errorf("decks page after one review lacks %q", want)
		}
	}
	// Bob's page is his own.
	if body := env.bob.get("/decks", false).Body.String(); strings.Contains(body, "購読中") || !strings.Contains(body, "新規 <strong>7</strong>") {
		t.Errorf("bob sees alice's progress")
	}
}

func TestStudyEmptyQueue(t *testing.T) {
	env := newStudyEnv(t)
	// Study at midday in the learner's zone, so that a card due in minutes
	// is due before the day rolls over at 04:00 whenever the test runs.
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	y, m, d := start.In(tokyo).Date()
	base := time.Date(y, m, d, 12, 0, 0, 0, tokyo) // the sessions were made by the real clock: stay near it
	env.ts.cfg.Now = func() time.Time { return base.Add(time.Since(start)) }
	cl := env.alice
	if body := cl.get("/study", false).Body.String(); !strings.Contains(body, "購読しているデッキがありません") {
		t.Errorf("no subscriptions: %.500s", body)
	}
	cl.post("/decks/v1-35-sig-node/subscription", url.Values{"subscribed": {"1"}}, false)
	body := cl.get("/study", true).Body.String()
	if !strings.Contains(body, "kept?") {
		t.Fatalf("the one question of the subscribed deck is not served: %.500s", body)
	}
	grade := hiddenFields(body)
	grade.Set("answer", `{"Texts":["kept"]}`)
	grade.Set("ms", "100")
	grade.Set("rating", "2") // Hard: comes back in a few minutes
	body = cl.post("/study/grade", grade, true).Body.String()
	for _, want := range []string{"今は学習するカードがありません", "次のカード:", "(あと ", "に出てくるカード: 1 枚"} {
		if !strings.Contains(body, want) {
			t.Errorf("empty queue lacks %q: %.800s", want, body)
		}
	}
	// The live region tells the grade, that nothing is left and when the
	// next card comes; focus goes to the link that looks again, as the
	// grade buttons that had it are gone.
	announce := regexp.MustCompile(`</section><p id="study-status" hx-swap-oob="innerHTML">「難しい」で記録しました。[^<]* 今は学習するカードがありません。次のカード: [^<]*\(あと [^<]*</p>$`)
	if !announce.MatchString(body) {
		t.Errorf("the live region is not told the grade and the empty queue: %.1500s", body)
	}
	if !strings.Contains(body, `role="button" class="secondary" autofocus>もう一度確認する</a>`) {
		t.Errorf("the empty queue's link does not take focus: %.1500s", body)
	}
}

func TestShuffle(t *testing.T) {
	p := newPresentationID(time.Now())
	a, b := shuffle(p, 6, false), shuffle(p, 6, false)
	if !slices.Equal(a, b) {
		t.Errorf("same presentation, different orders: %v %v", a, b)
	}
	for range 200 {
		perm := shuffle(newPresentationID(time.Now()), 2, true)
		if perm[0] == 0 {
			t.Fatalf("order question shown already in order: %v", perm)
		}
	}
}

// TestHomeNextStep checks that the home page leads somewhere: signed in
// without a deck to the decks, and to the study groups and the statistics;
// signed out to sign-in and registration, and each deck to its card on the
// decks page.
func TestHomeNextStep(t *testing.T) {
	env := newStudyEnv(t)
	tests := []struct {
		name string
		cl   studyClient
		want []string
	}{
		{"signed in", env.alice, []string{`<a href="/decks" role="button">`, "購読しているデッキがありません",
			`<a href="/groups" role="button"`, `<a href="/stats" role="button"`}},
		{"signed out", studyClient{t: t, ts: env.ts}, []string{`<a href="/login" role="button">`, `<a href="/register" role="button"`, `<a href="/decks#deck-v1-36-sig-node">`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.cl.get("/", false)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET / = %d", rec.Code)
			}
			for _, want := range tt.want {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("home page lacks %s", want)
				}
			}
			// Each sees the other's way on only in the header.
			if guest := tt.cl.session == ""; strings.Contains(rec.Body.String(), `<a href="/groups" role="button"`) == guest ||
				strings.Contains(rec.Body.String(), `<a href="/login" role="button">`) != guest {
				t.Error("home page shows another's next step")
			}
			// The deck's title already names its release and SIG.
			if strings.Contains(rec.Body.String(), "v1.36 · SIG-Node") {
				t.Error("home page repeats the deck's release and SIG under its title")
			}
		})
	}
}

// TestStudyLimitsForm: a learner sets their daily limits on the account
// page; a bad value is refused with the field named, and stores nothing;
// a limit of 0 new cards holds the queue's new cards back, and the empty
// queue says where to change it.
func TestStudyLimitsForm(t *testing.T) {
	env := newStudyEnv(t)
	cl := env.alice
	limits := func() (int, int) {
		t.Helper()
		c, err := env.ts.db.Credentials(context.Background(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		return c.User.NewPerDay, c.User.ReviewsPerDay
	}
	if page := cl.get("/account", false).Body.String(); !strings.Contains(page, `name="new_per_day" type="number"`) ||
		!strings.Contains(page, `value="20"`) || !strings.Contains(page, `value="200"`) {
		t.Fatalf("the account page lacks the limits form with the defaults 20 and 200: %.3000s", page)
	}
	tests := []struct {
		name, newPerDay, reviews string
		want                     int
		wantNew, wantReviews     int
		wantMsg                  string
	}{
		{"both set", "5", "50", http.StatusSeeOther, 5, 50, ""},
		{"full-width digits", "１０", " 100 ", http.StatusSeeOther, 10, 100, ""},
		{"negative", "-1", "50", http.StatusUnprocessableEntity, 10, 100, "新しいカードの上限は 0 から 1000 までの整数"},
		{"too many reviews", "5", "10001", http.StatusUnprocessableEntity, 10, 100, "復習の上限は 0 から 10000 までの整数"},
		{"not a number", "二十", "50", http.StatusUnprocessableEntity, 10, 100, "新しいカードの上限"},
		{"fraction", "2.5", "50", http.StatusUnprocessableEntity, 10, 100, "新しいカードの上限"},
		{"missing", "", "50", http.StatusUnprocessableEntity, 10, 100, "新しいカードの上限"},
		{"both wrong", "-1", "-1", http.StatusUnprocessableEntity, 10, 100, "新しいカードの上限は 0 から 1000 までの整数で入力してください。 復習の上限は"},
		{"none new", "0", "200", http.StatusSeeOther, 0, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := cl.post("/account/limits", url.Values{"new_per_day": {tt.newPerDay}, "reviews_per_day": {tt.reviews}}, false)
			if rec.Code != tt.want {
				t.Fatalf("POST /account/limits = %d, want %d: %.500s", rec.Code, tt.want, rec.Body.String())
			}
			if n, r := limits(); n != tt.wantNew || r != tt.wantReviews {
				t.Errorf("limits = %d new, %d reviews; want %d, %d", n, r, tt.wantNew, tt.wantReviews)
			}
			if tt.wantMsg != "" {
				body := rec.Body.String()
				// The refused values stay in the form, escaped, to be corrected.
				if !strings.Contains(body, tt.wantMsg) || !strings.Contains(body, `value="`+html.EscapeString(strings.TrimSpace(tt.newPerDay))+`"`) {
					t.Errorf("refusal lacks %q or the value sent: %.3000s", tt.wantMsg, body)
				}
				// The refused fields, and only they, are marked and point at the message.
				for field, bad := range map[string]bool{"new_per_day": strings.Contains(tt.wantMsg, "新しいカード"), "reviews_per_day": strings.Contains(tt.wantMsg, "復習")} {
					input := regexp.MustCompile(`<input id="` + field + `"[^>]*>`).FindString(body)
					if marked := strings.Contains(input, `aria-invalid="true"`) && strings.Contains(input, `aria-describedby="limits-error limits-hint"`); marked != bad {
						t.Errorf("%s marked invalid %v, want %v: %s", field, marked, bad, input)
					}
				}
			} else if loc := rec.Header().Get("Location"); loc != "/account?done=limits" {
				t.Errorf("redirect to %q", loc)
			}
		})
	}
	if page := cl.get("/account?done=limits", false).Body.String(); !strings.Contains(page, "1 日の学習量を保存しました。") {
		t.Error("no notice after saving the limits")
	}
	// With no new card a day, the deck's new cards wait.
	body := cl.get("/study/v1-36-sig-node", false).Body.String()
	// A limit of 0 is no limit reached, and no day lifts it.
	if !strings.Contains(body, "新しいカードは 1 日 0 枚に設定されています。") || !strings.Contains(body, `<a href="/account#limits" role="button"`) ||
		strings.Contains(body, "から続きを学習できます") || strings.Contains(body, "上限に達しました") {
		t.Errorf("the queue with no new card allowed: %.3000s", body)
	}
	// The live region says so too.
	fragment := cl.get("/study/v1-36-sig-node", true).Body.String()
	if !strings.HasSuffix(fragment, studyStatus("今は学習するカードがありません。新しいカードは 1 日 0 枚に設定されています。予定されているカードはありません。")) {
		t.Errorf("the live region is not told of the limit: %.3000s", fragment)
	}
}

// TestOrderRepeatedPosition: two items of an order question given the same
// place is a slip, not a wrong answer: the same presentation comes back
// with the learner's places and a message, with script and without.
func TestOrderRepeatedPosition(t *testing.T) {
	env := newStudyEnv(t)
	selectRe := regexp.MustCompile(`(?s)<select name="pos-(\d)"[^>]*>(.*?)</select>`)
	tests := []struct {
		name   string
		answer url.Values
		want   map[string]string // item index -> the position selected
	}{
		{"two items first", url.Values{"pos-0": {"1"}, "pos-1": {"1"}, "pos-2": {"3"}, "pos-3": {"4"}}, map[string]string{"0": "1", "1": "1", "2": "3", "3": "4"}},
		{"a place missing", url.Values{"pos-0": {"2"}, "pos-1": {"1"}, "pos-2": {"3"}}, map[string]string{"0": "2", "1": "1", "2": "3"}},
		{"a place out of range", url.Values{"pos-0": {"2"}, "pos-1": {"1"}, "pos-2": {"3"}, "pos-3": {"9"}}, map[string]string{"0": "2", "1": "1", "2": "3"}},
	}
	for _, tt := range tests {
		for _, htmx := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, htmx %v", tt.name, htmx), func(t *testing.T) {
				p := newPresentationID(time.Now())
				rec := env.alice.post("/study/answer", env.answerForm(env.q["order"], p, tt.answer), htmx)
				body := rec.Body.String()
				if rec.Code != http.StatusOK || !strings.Contains(body, msgRepeatedPosition) ||
					!strings.Contains(body, `class="study-answer"`) || strings.Contains(body, "study-grade") {
					t.Fatalf("= %d, want the question again with %q: %.2000s", rec.Code, msgRepeatedPosition, body)
				}
				if hiddenFields(body).Get("p") != p {
					t.Errorf("presentation id %q, want the same %q", hiddenFields(body).Get("p"), p)
				}
				// The message describes the places, and htmx's live region says it.
				if !strings.Contains(body, `<fieldset aria-describedby="prompt answer-error">`) || !strings.Contains(body, `id="answer-error"`) {
					t.Errorf("the places are not described by the message: %.2000s", body)
				}
				if htmx && !strings.HasSuffix(body, studyStatus(msgRepeatedPosition)) {
					t.Errorf("the live region is not told: %.300s", body[max(len(body)-300, 0):])
				}
				for _, m := range selectRe.FindAllStringSubmatch(body, -1) {
					sel := regexp.MustCompile(`<option value="(\d)" selected>`).FindAllStringSubmatch(m[2], -1)
					if len(sel) != 1 {
						t.Errorf("item %s: %d options selected", m[1], len(sel))
						continue
					}
					if want, ok := tt.want[m[1]]; ok && sel[0][1] != want {
						t.Errorf("item %s shows place %s, want the learner's %s", m[1], sel[0][1], want)
					}
				}
				checkLabelsAndCSRF(t, "order asked again", body)
			})
		}
	}
	if n := journeyReviewCount(t, env.ts); n != 0 {
		t.Errorf("%d reviews recorded, want none", n)
	}
}

// TestStudyQuestionChanged: a question edited (by an import) after it was
// put to the learner is not graded on its new choices: answering or
// grading the old version puts the new one, and records nothing. A retry
// of a grade recorded before the edit still gets its review back, and an
// edit that changes no answer (the explanation) is not noticed.
func TestStudyQuestionChanged(t *testing.T) {
	const oldChoices, newChoices = `["1.34", "1.35", "1.36", "1.37"]`, `["1.36", "1.34", "1.35", "1.37"]`
	// "1.36", the right answer, is choice 2 of the old version and 0 of the new.
	for _, htmx := range []bool{true, false} {
		for _, path := range []string{"/study/answer", "/study/grade"} {
			t.Run(fmt.Sprintf("%s, htmx %v", path, htmx), func(t *testing.T) {
				env := newStudyEnv(t)
				qid := env.q["single"]
				p := newPresentationID(time.Now())
				old := env.answerForm(qid, p, url.Values{"choice": {"2"}, "answer": {`{"choice":2}`}, "rating": {"3"}, "ms": {"1000"}})
				importYAML(t, env.ts, "node.yaml", strings.Replace(studyDeckYAML, oldChoices, newChoices, 1), false)

				rec := env.alice.post(path, old, htmx)
				body := rec.Body.String()
				if rec.Code != http.StatusOK || !strings.Contains(body, msgQuestionChanged) ||
					!strings.Contains(body, `class="study-answer"`) || strings.Contains(body, "study-grade") {
					t.Fatalf("= %d, want the question again with %q: %.2000s", rec.Code, msgQuestionChanged, body)
				}
				shown := hiddenFields(body)
				if shown.Get("q") != fmt.Sprint(qid) || shown.Get("p") == p || shown.Get("k") == old.Get("k") || shown.Get("k") != env.answerForm(qid, p, nil).Get("k") {
					t.Errorf("the question is put again as %v; want question %d, a new presentation and the new answer key", shown, qid)
				}
				if !regexp.MustCompile(`name="choice" value="0"[^>]*>(<kbd [^>]*>\d</kbd>)? 1\.36</label>`).MatchString(body) {
					t.Errorf("the new version's choices are not shown: %.2000s", body)
				}
				if htmx && !strings.HasSuffix(body, studyStatus(msgQuestionChanged)) {
					t.Errorf("the live region is not told: %.300s", body[max(len(body)-300, 0):])
				}
				if c := env.card(env.alice, "single"); !c.IsNew {
					t.Errorf("a review was recorded for the old version: %+v", c.Card)
				}

				// The new presentation, answered and graded, is recorded right.
				fresh := env.answerForm(qid, shown.Get("p"), url.Values{"answer": {`{"choice":0}`}, "rating": {"3"}, "ms": {"1000"}})
				if rec := env.alice.post("/study/grade", fresh, true); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "「正解」で記録しました") {
					t.Fatalf("grade of the new version = %d: %.1000s", rec.Code, rec.Body.String())
				}
				if c := env.card(env.alice, "single"); c.IsNew || c.Card.Reps != 1 {
					t.Errorf("the new version's grade was not recorded: %+v", c.Card)
				}
				// Edited again after that grade: its retry is the review
				// recorded, not the new version.
				importYAML(t, env.ts, "node.yaml", studyDeckYAML, false)
				if rec := env.alice.post("/study/grade", fresh, true); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "この回答は記録済みです") {
					t.Errorf("retry after an edit = %d: %.1000s", rec.Code, rec.Body.String())
				}
				if c := env.card(env.alice, "single"); c.Card.Reps != 1 {
					t.Errorf("the retry recorded again: reps %d", c.Card.Reps)
				}
			})
		}
	}
	t.Run("explanation edited", func(t *testing.T) {
		env := newStudyEnv(t)
		form := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"choice": {"2"}})
		importYAML(t, env.ts, "node.yaml", strings.Replace(studyDeckYAML, "1.31 で alpha、1.36 で GA。", "1.31 で alpha になり、1.36 で GA になった。", 1), false)
		if k := env.answerForm(env.q["single"], "", nil).Get("k"); k != form.Get("k") {
			t.Fatalf("an explanation edit changed the answer key from %s to %s", form.Get("k"), k)
		}
		body := env.alice.post("/study/answer", form, true).Body.String()
		if !strings.Contains(body, "study-grade") || !strings.Contains(body, "1.31 で alpha になり、1.36 で GA になった。") {
			t.Errorf("want the feedback with the new explanation: %.2000s", body)
		}
	})
}

// TestStudyTwoPagesOfOneCard: a card open on two pages (two tabs, or a
// page reached again with the Back button) is graded once. Once it has
// been graded from one, answering or grading it on the page shown before
// that moves on to the next card and records nothing.
func TestStudyTwoPagesOfOneCard(t *testing.T) {
	for _, htmx := range []bool{true, false} {
		for _, path := range []string{"/study/answer", "/study/grade"} {
			t.Run(fmt.Sprintf("%s, htmx %v", path, htmx), func(t *testing.T) {
				env := newStudyEnv(t)
				page := func() url.Values {
					t.Helper()
					rec := env.alice.get("/study/v1-36-sig-node", false)
					if rec.Code != http.StatusOK {
						t.Fatalf("study page = %d", rec.Code)
					}
					return hiddenFields(rec.Body.String())
				}
				older, newer := page(), page()
				if older.Get("q") != newer.Get("q") || older.Get("p") == newer.Get("p") {
					t.Fatalf("two pages = %v and %v; want two presentations of one card", older, newer)
				}
				shown, _ := strconv.ParseInt(older.Get("t"), 10, 64)
				older.Set("t", strconv.FormatInt(shown-1000, 10)) // shown a second before the other
				ext := ""
				for e, id := range env.q {
					if fmt.Sprint(id) == older.Get("q") {
						ext = e
					}
				}
				// The newer page is answered and graded.
				answer := url.Values{"answer": {`{"choice":-1}`}, "rating": {"3"}, "ms": {"1000"}} // the first card is a single choice
				grade := func(f url.Values) *httptest.ResponseRecorder {
					for k, v := range answer {
						f[k] = v
					}
					return env.alice.post("/study/grade", f, htmx)
				}
				if rec := grade(newer); rec.Code != http.StatusOK && rec.Code != http.StatusSeeOther {
					t.Fatalf("grade of the newer page = %d: %.500s", rec.Code, rec.Body.String())
				}
				if c := env.card(env.alice, ext); c.Card.Reps != 1 {
					t.Fatalf("after one grade, reps = %d", c.Card.Reps)
				}
				// Then the older one.
				var rec *httptest.ResponseRecorder
				if path == "/study/answer" {
					rec = env.alice.post(path, older, htmx)
				} else {
					rec = grade(older)
				}
				body := rec.Body.String()
				if rec.Code != http.StatusOK || !strings.Contains(body, msgCardReviewed) || strings.Contains(body, "study-grade") {
					t.Fatalf("= %d, want the next card with %q: %.2000s", rec.Code, msgCardReviewed, body)
				}
				if next := hiddenFields(body); next.Get("q") == older.Get("q") {
					t.Errorf("the card graded is put again: %v", next)
				}
				if htmx && !strings.HasSuffix(body, studyStatus(msgCardReviewed)) {
					t.Errorf("the live region is not told: %.300s", body[max(len(body)-300, 0):])
				}
				if c := env.card(env.alice, ext); c.Card.Reps != 1 {
					t.Errorf("the older page's %s recorded a review: reps %d", path, c.Card.Reps)
				}
			})
		}
	}
}

// TestTimezoneForm: a learner sets the zone whose 04:00 starts their
// study days; a name that does not load is refused, named in the form, and
// stores nothing. (How the study day follows a new zone is the store's
// TestDailyReviewCounts.)
func TestTimezoneForm(t *testing.T) {
	env := newStudyEnv(t)
	cl := env.alice
	zone := func() string {
		t.Helper()
		c, err := env.ts.db.Credentials(context.Background(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		return c.User.Timezone
	}
	if page := cl.get("/account", false).Body.String(); !strings.Contains(page, `name="timezone"`) || !strings.Contains(page, `value="Asia/Tokyo"`) {
		t.Fatalf("the account page lacks the time zone form with the default: %.3000s", page)
	}
	tests := []struct {
		name, sent string
		want       int
		wantZone   string
	}{
		{"a zone", "Europe/Berlin", http.StatusSeeOther, "Europe/Berlin"},
		{"spaces and full-width letters", " Ａｍｅｒｉｃａ/Ｎｅｗ_Ｙｏｒｋ ", http.StatusSeeOther, "America/New_York"},
		{"unknown", "Mars/Olympus_Mons", http.StatusUnprocessableEntity, "America/New_York"},
		{"the server's own", "Local", http.StatusUnprocessableEntity, "America/New_York"},
		{"empty", "", http.StatusUnprocessableEntity, "America/New_York"},
		{"a path", "../../../etc/passwd", http.StatusUnprocessableEntity, "America/New_York"},
		{"markup", `<b>Asia/Tokyo</b>`, http.StatusUnprocessableEntity, "America/New_York"},
		// The server's own zone by another name, zoneinfo files that are no
		// zones of their own, and names not in their clean form.
		{"localtime", "localtime", http.StatusUnprocessableEntity, "America/New_York"},
		{"posixrules", "posixrules", http.StatusUnprocessableEntity, "America/New_York"},
		{"a posix copy", "posix/Asia/Tokyo", http.StatusUnprocessableEntity, "America/New_York"},
		{"a right copy", "right/Asia/Tokyo", http.StatusUnprocessableEntity, "America/New_York"},
		{"a double slash", "Asia//Tokyo", http.StatusUnprocessableEntity, "America/New_York"},
		{"a dot", "./Asia/Tokyo", http.StatusUnprocessableEntity, "America/New_York"},
		{"a dot inside", "Asia/./Tokyo", http.StatusUnprocessableEntity, "America/New_York"},
		{"an absolute path", "/usr/share/zoneinfo/Asia/Tokyo", http.StatusUnprocessableEntity, "America/New_York"},
		{"a zone west of Greenwich", "Etc/GMT+9", http.StatusSeeOther, "Etc/GMT+9"},
		{"UTC", "UTC", http.StatusSeeOther, "UTC"},
		// Case does not matter; the zone's own spelling is stored.
		{"lower case", "america/los_angeles", http.StatusSeeOther, "America/Los_Angeles"},
		{"capitals", "ASIA/TOKYO", http.StatusSeeOther, "Asia/Tokyo"},
		{"three parts", "america/argentina/buenos_aires", http.StatusSeeOther, "America/Argentina/Buenos_Aires"},
		{"an abbreviation in a part", "etc/gmt+9", http.StatusSeeOther, "Etc/GMT+9"},
		{"utc", "utc", http.StatusSeeOther, "UTC"},
		{"the server's own in lower case", "local", http.StatusUnprocessableEntity, "UTC"},
		{"localtime in capitals", "LOCALTIME", http.StatusUnprocessableEntity, "UTC"},
		{"a posix copy in lower case", "posix/asia/tokyo", http.StatusUnprocessableEntity, "UTC"},
		{"unknown in lower case", "mars/olympus_mons", http.StatusUnprocessableEntity, "UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := cl.post("/account/timezone", url.Values{"timezone": {tt.sent}}, false)
			if rec.Code != tt.want {
				t.Fatalf("POST /account/timezone = %d, want %d: %.500s", rec.Code, tt.want, rec.Body.String())
			}
			if got := zone(); got != tt.wantZone {
				t.Errorf("time zone = %q, want %q", got, tt.wantZone)
			}
			if tt.want == http.StatusSeeOther {
				if loc := rec.Header().Get("Location"); loc != "/account?done=timezone" {
					t.Errorf("redirect to %q", loc)
				}
				return
			}
			body := rec.Body.String()
			input := regexp.MustCompile(`<input id="timezone-name"[^>]*>`).FindString(body)
			if !strings.Contains(body, account.Problem{Code: account.TimezoneUnknown}.Error()) || !strings.Contains(input, `aria-invalid="true"`) || !strings.Contains(input, "autofocus") ||
				!strings.Contains(input, `value="`+html.EscapeString(strings.TrimSpace(tt.sent))+`"`) {
				t.Errorf("refusal lacks the message, the marked field or the value sent: %s", input)
			}
		})
	}
	if page := cl.get("/account?done=timezone", false).Body.String(); !strings.Contains(page, "タイムゾーンを保存しました。") {
		t.Error("no notice after saving the time zone")
	}
}
