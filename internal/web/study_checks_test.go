package web

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

var gradeIntervalRe = regexp.MustCompile(`(?s)<button[^>]*name="rating"[^>]*value="(\d)"[^>]*>.*?<small>([^<]*)</small>`)

// TestGradeLabelsUnfuzzed: the grade buttons show the intervals before
// fuzz. Fuzz is seeded from the review time, which the label cannot know,
// so a fuzzed label would promise what the grade then does not record.
func TestGradeLabelsUnfuzzed(t *testing.T) {
	env := newStudyEnv(t)
	ctx := context.Background()
	qid := env.q["single"]
	// A card in review, well overdue: its next intervals are long enough
	// for fuzz to move them.
	if _, err := env.ts.db.RecordReview(ctx, store.Review{UserID: env.alice.user.ID, QuestionID: qid,
		RequestID: newPresentationID(time.Now()), Rating: fsrs.Easy, Response: quiz.Response{Choice: 2},
		Scope: store.Scope{Deck: "v1-36-sig-node"}, At: time.Now().Add(-30 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	card := env.card(env.alice, "single").Card
	if card.State != fsrs.Review {
		t.Fatalf("card state %v, want Review", card.State)
	}

	now := time.Now()
	body := env.alice.post("/study/answer", env.answerForm(qid, newPresentationID(time.Now()), url.Values{"choice": {"2"}}), true).Body.String()
	got := map[string]string{}
	for _, m := range gradeIntervalRe.FindAllStringSubmatch(body, -1) {
		got[m[1]] = m[2]
	}
	if len(got) != 4 {
		t.Fatalf("found %d grade buttons, want 4: %.1500s", len(got), body)
	}

	params := fsrs.DefaultParams()
	params.Fuzz = false
	plain, err := fsrs.NewScheduler(params)
	if err != nil {
		t.Fatal(err)
	}
	fuzzed, err := fsrs.NewScheduler(fsrs.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.Preview(card, now)
	if err != nil {
		t.Fatal(err)
	}
	for r := fsrs.Again; r <= fsrs.Easy; r++ {
		if w := buttonInterval(want.For(r).Due.Sub(now)); got[strconv.Itoa(int(r))] != w {
			t.Errorf("%s label %q, want %q (the interval before fuzz)", r, got[strconv.Itoa(int(r))], w)
		}
	}
	// The test means something only if fuzz moves an interval of this card
	// at some review time.
	moved := false
	for i := 0; i < 200 && !moved; i++ {
		at := now.Add(time.Duration(i) * time.Second)
		f, err := fuzzed.Preview(card, at)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := plain.Preview(card, at)
		for r := fsrs.Hard; r <= fsrs.Easy; r++ {
			moved = moved || !f.For(r).Due.Equal(p.For(r).Due)
		}
	}
	if !moved {
		t.Fatal("fuzz never moved this card's intervals: the test card is too young")
	}
}

// TestGradeDurationClamped: a huge duration is cut to the cap before it is
// turned into a time.Duration, which would overflow.
func TestGradeDurationClamped(t *testing.T) {
	env := newStudyEnv(t)
	tests := []struct {
		ms   string
		want time.Duration
	}{
		{strconv.FormatInt(math.MaxInt64, 10), maxDuration},
		{strconv.FormatInt(math.MaxInt64/1000, 10), maxDuration},
		{"-5", 0},
		{"1500", 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.ms, func(t *testing.T) {
			form := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"choice":2}`}, "rating": {"3"}, "ms": {tt.ms}})
			req := httptest.NewRequest(http.MethodPost, "/study/grade", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			g, err := bindGradeForm(env.ts.echo.NewContext(req, httptest.NewRecorder()))
			if err != nil {
				t.Fatal(err)
			}
			if g.review.Duration != tt.want {
				t.Errorf("duration %v, want %v", g.review.Duration, tt.want)
			}
		})
	}
	// And through the router, the grade is recorded.
	form := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"choice":2}`}, "rating": {"3"},
		"ms": {strconv.FormatInt(math.MaxInt64, 10)}})
	if rec := env.alice.post("/study/grade", form, true); rec.Code != http.StatusOK {
		t.Errorf("grade with a huge duration = %d, want 200", rec.Code)
	}
}

// TestGradeAnswerStrict: the answer carried by the grade form must be one
// normal response to the question; anything else is a 422 and records
// nothing.
func TestGradeAnswerStrict(t *testing.T) {
	env := newStudyEnv(t)
	tests := []struct {
		name, ext, answer string
	}{
		{"trailing object", "single", `{"choice":2} {"choice":1}`},
		{"trailing garbage", "single", `{"choice":2}x`},
		{"null", "single", `null`},
		{"array", "single", `[2]`},
		{"unknown field", "single", `{"choice":2,"correct":true}`},
		{"choice out of range", "single", `{"choice":4}`},
		{"negative choice", "single", `{"choice":-2}`},
		{"field of another type", "single", `{"choice":2,"texts":["x"]}`},
		{"choice on a multi-choice question", "multi", `{"choice":0,"selected":[0,1]}`},
		{"selected out of range", "multi", `{"choice":-1,"selected":[0,9]}`},
		{"selected twice", "multi", `{"choice":-1,"selected":[1,1]}`},
		{"selected unsorted", "multi", `{"choice":-1,"selected":[1,0]}`},
		{"order not a permutation", "order", `{"choice":-1,"order":[0,0,1,2]}`},
		{"order too short", "order", `{"choice":-1,"order":[0,1]}`},
		{"two cloze texts for one gap", "cloze", `{"choice":-1,"texts":["a","b"]}`},
		{"typed without text", "typed", `{"choice":-1}`},
		{"text too long", "typed", `{"choice":-1,"texts":["` + strings.Repeat("x", maxAnswerRunes+1) + `"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := env.answerForm(env.q[tt.ext], newPresentationID(time.Now()), url.Values{"answer": {tt.answer}, "rating": {"3"}, "ms": {"1000"}})
			if rec := env.alice.post("/study/grade", form, true); rec.Code != http.StatusUnprocessableEntity {
				t.Errorf("grade = %d, want 422", rec.Code)
			}
			if !env.card(env.alice, tt.ext).IsNew {
				t.Error("a refused grade made a card")
			}
		})
	}
	// The answers the feedback page carries are accepted.
	for ext, answer := range map[string]string{
		"single": `{"choice":2}`, "multi": `{"choice":-1,"selected":[0,1]}`, "order": `{"choice":-1,"order":[0,1,2,3]}`,
		"cloze": `{"choice":-1,"texts":["ImageVolume"]}`, "typed": `{"choice":-1,"texts":[""]}`,
		"truefalse": `{"choice":-1}`, "flash": `{"choice":-1,"revealed":true}`,
	} {
		form := env.answerForm(env.q[ext], newPresentationID(time.Now()), url.Values{"answer": {answer}, "rating": {"3"}, "ms": {"1000"}})
		if rec := env.alice.post("/study/grade", form, true); rec.Code != http.StatusOK {
			t.Errorf("%s: grade of %s = %d, want 200", ext, answer, rec.Code)
		}
	}
}

// TestStudyFormUnknownDeck: a deck in the study form that is not the
// question's is a 404 before anything is recorded.
func TestStudyFormUnknownDeck(t *testing.T) {
	env := newStudyEnv(t)
	for _, deck := range []string{"no-such-deck", "v1-35-sig-node"} {
		answer := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"choice": {"2"}, "d": {deck}})
		if rec := env.alice.post("/study/answer", answer, true); rec.Code != http.StatusNotFound {
			t.Errorf("answer with deck %q = %d, want 404", deck, rec.Code)
		}
		grade := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"choice":2}`}, "rating": {"3"}, "ms": {"1000"}, "d": {deck}})
		if rec := env.alice.post("/study/grade", grade, true); rec.Code != http.StatusNotFound {
			t.Errorf("grade with deck %q = %d, want 404", deck, rec.Code)
		}
		if !env.card(env.alice, "single").IsNew {
			t.Fatalf("a grade with deck %q was recorded", deck)
		}
	}
	// From the page of every subscribed deck, only once subscribed.
	grade := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"choice":2}`}, "rating": {"3"}, "ms": {"1000"}, "d": {""}})
	if rec := env.alice.post("/study/grade", grade, true); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), msgNotSubscribed) || !env.card(env.alice, "single").IsNew {
		t.Errorf("grade from every subscribed deck, not subscribed = %d, want the notice and nothing recorded", rec.Code)
	}
	if rec := env.alice.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, true); rec.Code != http.StatusOK {
		t.Fatalf("subscribe = %d", rec.Code)
	}
	// All decks ("") and the question's own deck work.
	for _, deck := range []string{"", "v1-36-sig-node"} {
		grade := env.answerForm(env.q["single"], newPresentationID(time.Now()), url.Values{"answer": {`{"choice":2}`}, "rating": {"3"}, "ms": {"1000"}, "d": {deck}})
		if rec := env.alice.post("/study/grade", grade, true); rec.Code != http.StatusOK {
			t.Errorf("grade with deck %q = %d, want 200", deck, rec.Code)
		}
	}
}

// TestPresentationIDsGrowWithTime checks that presentation ids are valid,
// distinct, and sort in the order they were made a millisecond apart (so
// that review_log's unique index grows at its end).
func TestPresentationIDsGrowWithTime(t *testing.T) {
	prev := newPresentationID(time.Now())
	seen := map[string]bool{prev: true}
	for range 5 {
		time.Sleep(2 * time.Millisecond)
		id := newPresentationID(time.Now())
		if !validPresentationID(id) {
			t.Fatalf("%q is not a valid presentation id", id)
		}
		if seen[id] || id <= prev {
			t.Fatalf("id %q made after %q does not sort after it", id, prev)
		}
		seen[id], prev = true, id
	}
	// Made in the same millisecond, ids still differ in their random part.
	a, b := newPresentationID(time.Now()), newPresentationID(time.Now())
	if a == b || a[2*presentationClockBytes:] == b[2*presentationClockBytes:] {
		t.Fatalf("ids %q and %q share their random part", a, b)
	}
}

// TestReturnPath checks where signing in leads back to: the page asked
// for, or the page a signed-out form was sent from, on this server only.
func TestReturnPath(t *testing.T) {
	tests := []struct {
		name, method, target string
		headers              map[string]string
		want                 string
	}{
		{"a page", http.MethodGet, "/study/v1-36-sig-node?x=1", nil, "/study/v1-36-sig-node?x=1"},
		{"htmx answer", http.MethodPost, "/study/answer", map[string]string{"HX-Current-URL": "http://example.com/study/v1-36-sig-node"}, "/study/v1-36-sig-node"},
		{"plain form", http.MethodPost, "/study/grade", map[string]string{"Referer": "https://example.com/study"}, "/study"},
		{"htmx before Referer", http.MethodPost, "/study/grade", map[string]string{"HX-Current-URL": "http://example.com/decks", "Referer": "http://example.com/study"}, "/decks"},
		{"another site", http.MethodPost, "/study/grade", map[string]string{"HX-Current-URL": "http://evil.example/study", "Referer": "http://evil.example/"}, "/"},
		{"not a web address", http.MethodPost, "/study/grade", map[string]string{"Referer": "javascript://example.com/%0aalert(1)"}, "/"},
		{"nothing to go by", http.MethodPost, "/study/grade", nil, "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.target, nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			if got := returnPath(r); got != tt.want {
				t.Errorf("returnPath = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStudyErrorFragment: an error in place of the study area comes as an
// alert and empties the page's live region, which would otherwise still
// hold the last verdict; errors for other targets leave it alone.
func TestStudyErrorFragment(t *testing.T) {
	env := newStudyEnv(t)
	for _, tt := range []struct {
		target    string
		wantClear bool
	}{{"study", true}, {"", false}, {"deck-v1-36-sig-node", false}} {
		req := httptest.NewRequest(http.MethodPost, "/study/answer", strings.NewReader(
			env.answerForm(999999, newPresentationID(time.Now()), url.Values{"choice": {"0"}, csrfFormField: {env.alice.csrf()}}).Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tt.target != "" {
			req.Header.Set("HX-Target", tt.target)
		}
		rec := env.alice.send(req, true)
		body := rec.Body.String()
		if rec.Code != http.StatusNotFound || !strings.HasPrefix(body, `<section class="error-page" role="alert">`) {
			t.Errorf("target %q: %d %.300s, want a 404 alert", tt.target, rec.Code, body)
		}
		if cleared := strings.HasSuffix(body, `</section>`+studyStatus("")); cleared != tt.wantClear || strings.Contains(body, "hx-swap-oob") != tt.wantClear {
			t.Errorf("target %q: live region emptied %v, want %v: %.500s", tt.target, cleared, tt.wantClear, body)
		}
	}
}

// TestEmptyQueueLimits: what the empty queue says of the daily limits. A
// limit above 0 lets the held-back cards in at the next 04:00, said unless
// a scheduled card comes first; a limit of 0 lifts on no day.
func TestEmptyQueueLimits(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, tokyo)
	dayEnds := time.Date(2026, 12, 2, 4, 0, 0, 0, tokyo)
	limits := quiz.User{NewPerDay: 20, ReviewsPerDay: 200}
	tests := []struct {
		name    string
		next    store.StudyNext
		user    quiz.User
		want    string // what the live region says, after the notice
		wantNot string
	}{
		{"nothing held back, nothing scheduled", store.StudyNext{DayEnds: dayEnds}, limits,
			"今は学習するカードがありません。予定されているカードはありません。", "から続き"},
		{"new cards held back", store.StudyNext{DayEnds: dayEnds, NewLimitReached: true}, limits,
			"今は学習するカードがありません。今日の新しいカードの上限に達しました。12月2日 04:00 から続きを学習できます。", "予定されている"},
		{"held back, a card due before the day ends", store.StudyNext{DayEnds: dayEnds, NewLimitReached: true, NextDue: now.Add(10 * time.Minute)}, limits,
			"今は学習するカードがありません。今日の新しいカードの上限に達しました。次のカード: 12月1日 20:10 (あと 10分)。", "から続き"},
		{"held back, the next card after the day ends", store.StudyNext{DayEnds: dayEnds, ReviewLimitReached: true, NextDue: now.Add(72 * time.Hour)}, limits,
			"今は学習するカードがありません。今日の復習の上限に達しました。次のカード: 12月4日 20:00 (あと 3日)。12月2日 04:00 から続きを学習できます。", ""},
		{"a limit of 0", store.StudyNext{DayEnds: dayEnds, NewLimitReached: true}, quiz.User{NewPerDay: 0, ReviewsPerDay: 200},
			"今は学習するカードがありません。新しいカードは 1 日 0 枚に設定されています。予定されているカードはありません。", "上限に達しました"},
		{"both limits 0", store.StudyNext{DayEnds: dayEnds, NewLimitReached: true, ReviewLimitReached: true}, quiz.User{},
			"今は学習するカードがありません。新しいカードは 1 日 0 枚に設定されています。復習は 1 日 0 枚に設定されています。予定されているカードはありません。", "から続き"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := emptyQueue(tt.next, tt.user, views.StudyScope{Slug: "d"}, studyNote{}, now)
			if got := v.Announcement(); got != tt.want {
				t.Errorf("announcement %q, want %q", got, tt.want)
			}
			var b strings.Builder
			if err := views.StudyEmpty(v).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			if tt.wantNot != "" && strings.Contains(b.String(), tt.wantNot) {
				t.Errorf("the page says %q: %s", tt.wantNot, b.String())
			}
		})
	}
}

// TestGivenText: the feedback's "your answer" line, with each gap of a
// cloze of several numbered as the form numbered it.
func TestGivenText(t *testing.T) {
	two := quiz.Question{Type: quiz.Cloze, Prompt: "{{ImageVolume}} は v{{1.36}} で GA"}
	one := quiz.Question{Type: quiz.Cloze, Prompt: "{{ImageVolume}} は GA"}
	order := quiz.Question{Type: quiz.Order, Items: []string{"alpha", "beta", "GA"}}
	tests := []struct {
		name string
		q    quiz.Question
		r    quiz.Response
		want string
	}{
		{"two gaps, the first empty", two, quiz.Response{Texts: []string{"", "１．２５"}}, "空欄 1: " + notAnswered + " / 空欄 2: １．２５"},
		{"two gaps", two, quiz.Response{Texts: []string{"ImageVolume", "1.36"}}, "空欄 1: ImageVolume / 空欄 2: 1.36"},
		{"two gaps, none answered", two, quiz.Response{Texts: []string{" ", ""}}, notAnswered},
		{"one gap", one, quiz.Response{Texts: []string{"ImageVolume"}}, "ImageVolume"},
		{"one gap, empty", one, quiz.Response{Texts: []string{""}}, notAnswered},
		{"order", order, quiz.Response{Order: []int{1, 0, 2}}, "beta → alpha → GA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := givenText(tt.q, tt.r); got != tt.want {
				t.Errorf("givenText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParseRating: a grade form's rating is exactly "1" to "4", as the
// grade buttons send it; anything else is refused, numbers that name a
// rating in another form or wrap into one included.
func TestParseRating(t *testing.T) {
	for in, want := range map[string]fsrs.Rating{"1": fsrs.Again, "2": fsrs.Hard, "3": fsrs.Good, "4": fsrs.Easy} {
		if got, err := parseRating(in); got != want || err != nil {
			t.Errorf("parseRating(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "5", "-1", "3.0", " 3", "3 ", "Good", "x", "03", "04", "+3", "259", "-253", "1e0", "0x3", "３", "33"} {
		if got, err := parseRating(in); err == nil {
			t.Errorf("parseRating(%q) = %v, want an error", in, got)
		}
	}
}

// TestReviewID: a review's id is the learner's own, of the same shape as a
// presentation id, and starts with the presentation's time.
func TestReviewID(t *testing.T) {
	p := newPresentationID(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	q := newPresentationID(time.Date(2026, 3, 10, 12, 0, 0, 1e6, time.UTC))
	tests := []struct {
		name   string
		a, b   string
		differ bool
	}{
		{"the same learner and presentation", reviewID(1, p), reviewID(1, p), false},
		{"another learner", reviewID(1, p), reviewID(2, p), true},
		{"another presentation", reviewID(1, p), reviewID(1, q), true},
		{"a learner whose id ends like another's", reviewID(1, p), reviewID(11, p), true},
	}
	for _, tt := range tests {
		if (tt.a != tt.b) != tt.differ {
			t.Errorf("%s: %s and %s, want them to differ: %v", tt.name, tt.a, tt.b, tt.differ)
		}
		for _, id := range []string{tt.a, tt.b} {
			if !validPresentationID(id) || id[:2*presentationClockBytes] != p[:2*presentationClockBytes] && id[:2*presentationClockBytes] != q[:2*presentationClockBytes] {
				t.Errorf("%s: %s is not a presentation id's shape with its time", tt.name, id)
			}
		}
	}
	if reviewID(1, p) == p {
		t.Error("the review id is the presentation id")
	}
}
