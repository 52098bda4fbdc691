package web

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
)

// reviewQuestions are 120 generated questions of ingestTestArticle's
// document: question i is
//
//	generator  cloze (i%3 == 0), true_false (1), stage_in_release (2)
//	type       cloze for the cloze generator, else single_choice
//	kind       feature for even i, cleanup for odd
//	sig        "SIG-Node" for i%4 < 2, else none
//
// and the prompt of every tenth says "Needle". reword changes the prompt
// of the questions it names.
func reviewQuestions(doc *changelog.Document, reword map[int]string) []quizgen.Generated {
	var gen []quizgen.Generated
	for i := range 120 {
		g := quizgen.Generated{Provenance: quizgen.Provenance{Document: doc.Key, Entry: doc.Entries[0].Key, SourceText: "元の文 " + strconv.Itoa(i)}}
		q := &g.Question
		q.ExtID, q.Explanation = fmt.Sprintf("q-%03d", i), "解説"
		q.Source = quiz.Source{Release: "1.36", Kind: "feature", PRs: []int{900001}}
		if i%2 == 1 {
			q.Source.Kind = "cleanup"
		}
		if i%4 < 2 {
			q.Source.SIG = "SIG-Node"
		}
		prompt := fmt.Sprintf("問題 %03d", i)
		if i%10 == 0 {
			prompt += " Needle"
		}
		if r, ok := reword[i]; ok {
			prompt = r
		}
		switch i % 3 {
		case 0:
			g.Provenance.Generator, q.Type, q.Prompt = quizgen.GenCloze, quiz.Cloze, prompt+" の答えは {{FooGate|foo gate}}"
		case 1:
			g.Provenance.Generator, q.Type, q.Prompt = quizgen.GenTrueFalse, quiz.SingleChoice, prompt
			q.Choices, q.Answer = []string{"alpha", "beta"}, "alpha"
		default:
			g.Provenance.Generator, q.Type, q.Prompt = quizgen.GenStageInRelease, quiz.SingleChoice, prompt
			q.Choices, q.Answer = []string{"alpha", "beta"}, "beta"
		}
		gen = append(gen, g)
	}
	return gen
}

// reviewEnv is a server with an admin, a member and one document of 120
// generated questions (reviewQuestions).
type reviewEnv struct {
	ts            *testServer
	admin, member *client
	doc           *changelog.Document
	docPage       string
	ids           []int64 // by question index
}

func newReviewEnv(t *testing.T) *reviewEnv {
	t.Helper()
	ts := withAdmin(t, newAccountServer(t, Config{}))
	doc, err := changelog.Parse([]byte(ingestTestArticle), changelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := &reviewEnv{ts: ts, doc: doc}
	res := env.ingest(t, nil)
	for _, q := range res.Questions {
		env.ids = append(env.ids, q.ID)
	}
	env.docPage = documentURL(res.DocumentID)
	env.admin = newClient(t, ts, "192.0.2.100")
	env.admin.mustLogin("root", adminPassword)
	env.member = newClient(t, ts, "192.0.2.101")
	if rec := env.member.register("mallory", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	return env
}

func (env *reviewEnv) ingest(t *testing.T, reword map[int]string) store.IngestResult {
	t.Helper()
	in := store.ChangelogInput{File: "node.txt", Document: env.doc, Deck: quizgen.Deck(env.doc, ""), Generated: reviewQuestions(env.doc, reword)}
	res, err := env.ts.db.IngestChangelog(context.Background(), in, store.IngestOptions{Actor: "test", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// statuses are the questions' statuses, by index.
func (env *reviewEnv) statuses(t *testing.T) []quiz.Status {
	t.Helper()
	out := make([]quiz.Status, len(env.ids))
	for i, id := range env.ids {
		dq, err := env.ts.db.GeneratedQuestion(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = dq.Status
	}
	return out
}

var shownIDRe = regexp.MustCompile(`name="ids" value="(\d+)"`)

// shown are the indexes of the questions a page lists, in its order.
func (env *reviewEnv) shown(body string) []int {
	var out []int
	for _, m := range shownIDRe.FindAllStringSubmatch(body, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		out = append(out, slices.Index(env.ids, id))
	}
	return out
}

func indexes(match func(i int) bool) []int {
	var out []int
	for i := range 120 {
		if match(i) {
			out = append(out, i)
		}
	}
	return out
}

func TestAdminReviewPages(t *testing.T) {
	env := newReviewEnv(t)
	if _, err := env.ts.db.PublishQuestions(context.Background(), "v1-36-sig-node", env.ids[:10], time.Now()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		query     string
		want      []int // the questions of the page
		total     int
		pager     string // "" for none
		countText string
	}{
		{"first page", "", indexes(func(i int) bool { return i < 50 }), 120, "1 / 3 ページ", "条件に合う <strong>120 問</strong>のうち 1–50 問目"},
		{"last page", "page=3", indexes(func(i int) bool { return i >= 100 }), 120, "3 / 3 ページ", "条件に合う <strong>120 問</strong>のうち 101–120 問目"},
		{"past the last page", "page=9", indexes(func(i int) bool { return i >= 100 }), 120, "3 / 3 ページ", "101–120 問目"},
		{"generator", "generator=cloze", indexes(func(i int) bool { return i%3 == 0 }), 40, "", "条件に合う <strong>40 問</strong>のうち 1–40 問目"},
		{"type and kind", "type=single_choice&kind=cleanup", indexes(func(i int) bool { return i%3 != 0 && i%2 == 1 }), 40, "", "40 問"},
		{"SIG", "sig=SIG-Node&page=2", indexes(func(i int) bool { return i%4 < 2 && i >= 100 }), 60, "2 / 2 ページ", "51–60 問目"},
		{"no SIG", "sig=-", indexes(func(i int) bool { return i%4 >= 2 && i < 100 }), 60, "1 / 2 ページ", "60 問"},
		{"status", "status=published", indexes(func(i int) bool { return i < 10 }), 10, "", "10 問"},
		{"search", "q=needle", indexes(func(i int) bool { return i%10 == 0 }), 12, "", "12 問"},
		{"search the answer of a cloze", "q=foo+GATE&status=draft", indexes(func(i int) bool { return i%3 == 0 && i >= 10 }), 36, "", "36 問"},
		{"nothing", "q=nowhere", nil, 0, "", "条件に合う問題はありません。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := env.docPage
			if tt.query != "" {
				path += "?" + tt.query
			}
			rec := env.admin.get(path)
			body := rec.Body.String()
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d: %.300s", path, rec.Code, body)
			}
			if got := env.shown(body); !slices.Equal(got, tt.want) {
				t.Errorf("shown %v, want %v", got, tt.want)
			}
			if !strings.Contains(body, tt.countText) {
				t.Errorf("no %q in the count: %s", tt.countText, between(body, `<p id="review-count">`, "</p>"))
			}
			if got := strings.Contains(body, `class="review-pager"`); got != (tt.pager != "") || tt.pager != "" && !strings.Contains(body, tt.pager) {
				t.Errorf("pager %v, want %q", got, tt.pager)
			}
			ingestCheckLabels(t, path, body)
		})
	}
	// The filter form keeps what was asked, offers each value with its
	// count, and the links to the next page keep the filter.
	body := env.admin.get(env.docPage + "?generator=true_false&q=%E5%95%8F%E9%A1%8C").Body.String()
	for _, want := range []string{
		`<option value="true_false" selected>正誤 (40)</option>`, `<option value="cloze">穴埋め (40)</option>`,
		`<option value="cleanup">整理 (60)</option>`, `<option value="-">SIG なし (60)</option>`, `<option value="SIG-Node">SIG-Node (60)</option>`,
		`<option value="draft">下書き (37)</option>`, `<option value="published">公開中 (3)</option>`,
		`<input id="filter-q" type="search" name="q" value="問題"`,
		`<form method="get" action="` + env.docPage + `" class="review-filter" aria-label="問題の絞り込み">`,
		`<input type="hidden" name="generator" value="true_false">`,
		`<a href="` + html.EscapeString(env.docPage+"/publish-all?generator=true_false&q=%E5%95%8F%E9%A1%8C") + `" role="button" class="outline" id="review-publish-all">この絞り込みの全件を公開 (37 問)</a>`,
		`この絞り込みの全件を取り下げ (40 問)`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the filtered page lacks %s", want)
		}
	}
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(env.admin.get(env.docPage + "?kind=feature").Body.String())
	if next == nil || html.UnescapeString(next[1]) != env.docPage+"?kind=feature&page=2" {
		t.Errorf("next page link = %q", next)
	}
	// A cloze shows its blank with the answer beside it.
	clozes := env.admin.get(env.docPage + "?generator=cloze").Body.String()
	if want := `<strong>問題 000 Needle の答えは ____</strong></p><p>答え:  <mark>FooGate (別解: foo gate)</mark></p>`; !strings.Contains(clozes, want) {
		t.Errorf("no cloze preview with its blank and answer %s: %s", want, between(clozes, `id="prompt-q-000"`, "</article>"))
	}
	// Values no form sends are refused.
	for _, q := range []string{"status=gone", "type=essay", "page=0", "page=x", "q=" + strings.Repeat("x", 201)} {
		if rec := env.admin.get(env.docPage + "?" + q); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("?%s = %d, want 422", q, rec.Code)
		}
	}
	// Members do not see it.
	if rec := env.member.get(env.docPage); rec.Code != http.StatusForbidden {
		t.Errorf("member = %d, want 403", rec.Code)
	}
}

// between is the part of s after start and before end.
func between(s, start, end string) string {
	_, s, _ = strings.Cut(s, start)
	s, _, _ = strings.Cut(s, end)
	return s
}

func TestAdminReviewBulk(t *testing.T) {
	env := newReviewEnv(t)
	ctx := context.Background()
	want := env.statuses(t)
	check := func(step string) {
		t.Helper()
		got := env.statuses(t)
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: q-%03d is %s, want %s", step, i, got[i], want[i])
			}
		}
	}
	unchanged := func(step string, do func()) {
		t.Helper()
		before, _ := env.ts.db.TableChecksums(ctx)
		do()
		after, _ := env.ts.db.TableChecksums(ctx)
		delete(before, "sessions")
		delete(after, "sessions")
		if !maps.Equal(before, after) {
			t.Errorf("%s changed the database", step)
		}
	}

	// The chosen questions, from a filtered page: back to that page.
	form := url.Values{"ids": {fmt.Sprint(env.ids[3]), fmt.Sprint(env.ids[6])}, "generator": {"cloze"}, "page": {"1"}}
	unchanged("a member's publish", func() {
		if rec := env.member.post(env.docPage+"/publish", form); rec.Code != http.StatusForbidden {
			t.Errorf("member publish = %d, want 403", rec.Code)
		}
	})
	unchanged("a publish without CSRF", func() {
		if rec := env.admin.postRaw(env.docPage+"/publish", form); rec.Code != http.StatusForbidden {
			t.Errorf("publish without CSRF = %d, want 403", rec.Code)
		}
	})
	rec := env.admin.post(env.docPage+"/publish", form)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != env.docPage+"?generator=cloze&published=1&n=2" {
		t.Fatalf("publish = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	want[3], want[6] = quiz.Published, quiz.Published
	check("publish two")
	if body := env.admin.get(rec.Header().Get("Location")).Body.String(); !strings.Contains(body, "2 問を公開しました。") {
		t.Error("no notice of the publish")
	}
	rec = env.admin.post(env.docPage+"/retire", url.Values{"ids": {fmt.Sprint(env.ids[6])}, "status": {"published"}, "page": {"2"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != env.docPage+"?page=2&status=published&retired=1&n=1" {
		t.Fatalf("retire = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	want[6] = quiz.Retired
	check("retire one")

	// Every draft of a filter: the count confirmed first.
	filter := "?generator=stage_in_release&kind=feature" // i%3 == 2 and even: 2, 8, 14, ...
	page := env.admin.get(env.docPage + "/publish-all" + filter)
	body := page.Body.String()
	match := indexes(func(i int) bool { return i%3 == 2 && i%2 == 0 })
	if page.Code != http.StatusOK || !strings.Contains(body, "まだ公開していない <strong>"+strconv.Itoa(len(match))+" 問</strong>を学習者に公開します") ||
		!strings.Contains(body, "<li>生成方法: リリースでの段階</li><li>エントリの種類: 機能</li>") {
		t.Fatalf("confirmation page = %d: %s", page.Code, between(body, "<main", "</main>"))
	}
	ingestCheckLabels(t, "publish-all", body)
	confirm := hiddenFields(body)
	if confirm.Get("n") != strconv.Itoa(len(match)) || confirm.Get("generator") != "stage_in_release" || confirm.Get("kind") != "feature" {
		t.Fatalf("confirmation form = %v", confirm)
	}
	confirm.Del(csrfFormField)
	unchanged("a member's publish of all", func() {
		if rec := env.member.post(env.docPage+"/publish-all", confirm); rec.Code != http.StatusForbidden {
			t.Errorf("member publish-all = %d, want 403", rec.Code)
		}
	})
	unchanged("a publish of all without CSRF", func() {
		if rec := env.admin.postRaw(env.docPage+"/publish-all", confirm); rec.Code != http.StatusForbidden {
			t.Errorf("publish-all without CSRF = %d, want 403", rec.Code)
		}
	})
	// A count that is no longer the filter's changes nothing and shows
	// the new count.
	stale := url.Values{}
	maps.Copy(stale, confirm)
	stale.Set("n", strconv.Itoa(len(match)+1))
	unchanged("a stale count", func() {
		rec := env.admin.post(env.docPage+"/publish-all", stale)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != env.docPage+"/publish-all"+filter+"&changed=1" {
			t.Errorf("stale publish-all = %d to %q", rec.Code, rec.Header().Get("Location"))
		}
		if body := env.admin.get(rec.Header().Get("Location")).Body.String(); !strings.Contains(body, "件数が変わったため、何も変えていません") {
			t.Error("the confirmation page does not say the count changed")
		}
	})
	rec = env.admin.post(env.docPage+"/publish-all", confirm)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != env.docPage+filter+"&published=1&n="+strconv.Itoa(len(match)) {
		t.Fatalf("publish-all = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	for _, i := range match {
		want[i] = quiz.Published
	}
	check("publish the filter")

	// Every published question with "Needle": retired, the one already
	// retired counted out.
	filter = "?q=Needle&status=published"
	match = indexes(func(i int) bool { return i%10 == 0 && want[i] == quiz.Published })
	body = env.admin.get(env.docPage + "/retire-all" + filter).Body.String()
	if !strings.Contains(body, "まだ退役していない <strong>"+strconv.Itoa(len(match))+" 問</strong>を取り下げます") || len(match) == 0 {
		t.Fatalf("retire-all confirmation for %v: %s", match, between(body, "<main", "</main>"))
	}
	confirm = hiddenFields(body)
	if rec := env.admin.post(env.docPage+"/retire-all", confirm); rec.Code != http.StatusSeeOther {
		t.Fatalf("retire-all = %d", rec.Code)
	}
	for _, i := range match {
		want[i] = quiz.Retired
	}
	check("retire the filter")
	// Nothing left to do: the page says so and offers no form.
	body = env.admin.get(env.docPage + "/retire-all" + filter).Body.String()
	if !strings.Contains(body, "この条件で取り下げる問題はありません") || strings.Contains(body, `id="review-confirm"`) {
		t.Errorf("an empty filter's confirmation: %s", between(body, "<main", "</main>"))
	}
	// Opened as a page, an action leads to its page.
	for path, to := range map[string]string{env.docPage + "/publish": env.docPage, env.docPage + "/proposals/1/accept": env.docPage} {
		if rec := env.admin.get(path); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != to {
			t.Errorf("GET %s = %d to %q, want %s", path, rec.Code, rec.Header().Get("Location"), to)
		}
	}
}

func TestAdminReviewProposals(t *testing.T) {
	env := newReviewEnv(t)
	ctx := context.Background()
	if _, err := env.ts.db.PublishQuestions(ctx, "v1-36-sig-node", env.ids[:3], time.Now()); err != nil {
		t.Fatal(err)
	}
	if body := env.admin.get(env.docPage).Body.String(); strings.Contains(body, `id="ingest-proposals"`) {
		t.Error("proposals shown before there are any")
	}
	// Generated again with new wording: the published questions keep
	// theirs, the new one waits.
	env.ingest(t, map[int]string{1: "新しい問題文 1", 2: "新しい問題文 2", 5: "下書きの新しい問題文"})
	body := env.admin.get(env.docPage).Body.String()
	section := between(body, `<section id="ingest-proposals"`, "</section>")
	for _, want := range []string{"文面の更新案 (2 件)", "<strong>問題 001</strong>", "<strong>新しい問題文 1</strong>", "<strong>新しい問題文 2</strong>",
		"変わる項目: 問題文", env.docPage + fmt.Sprintf("/proposals/%d/accept", env.ids[1]), env.docPage + fmt.Sprintf("/proposals/%d/dismiss", env.ids[2])} {
		if !strings.Contains(section, want) {
			t.Errorf("the proposals lack %q: %s", want, section)
		}
	}
	if strings.Contains(section, "下書きの新しい問題文") {
		t.Error("a draft's new wording is shown as a proposal")
	}
	ingestCheckLabels(t, env.docPage, body)

	accept := env.docPage + fmt.Sprintf("/proposals/%d/accept", env.ids[1])
	dismiss := env.docPage + fmt.Sprintf("/proposals/%d/dismiss", env.ids[2])
	before, _ := env.ts.db.TableChecksums(ctx)
	for name, rec := range map[string]int{
		"member":       env.member.post(accept, nil).Code,
		"without CSRF": env.admin.postRaw(accept, url.Values{}).Code,
		"other doc":    env.admin.post(documentURL(999)+fmt.Sprintf("/proposals/%d/accept", env.ids[1]), nil).Code,
	} {
		if want := map[string]int{"member": 403, "without CSRF": 403, "other doc": 404}[name]; rec != want {
			t.Errorf("accept by %s = %d, want %d", name, rec, want)
		}
	}
	after, _ := env.ts.db.TableChecksums(ctx)
	delete(before, "sessions")
	delete(after, "sessions")
	if !maps.Equal(before, after) {
		t.Error("refused accepts changed the database")
	}

	rec := env.admin.post(accept, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != env.docPage+"?proposal=accepted#ingest-proposals" {
		t.Fatalf("accept = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if q, _ := env.ts.db.GeneratedQuestion(ctx, env.ids[1]); q.Question.Prompt != "新しい問題文 1" || q.Status != quiz.Published {
		t.Errorf("after accept: %q %s", q.Question.Prompt, q.Status)
	}
	rec = env.admin.post(dismiss, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != env.docPage+"?proposal=dismissed#ingest-proposals" {
		t.Fatalf("dismiss = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if q, _ := env.ts.db.GeneratedQuestion(ctx, env.ids[2]); q.Question.Prompt != "問題 002" || q.Status != quiz.Published {
		t.Errorf("after dismiss: %q %s", q.Question.Prompt, q.Status)
	}
	if ps, _ := env.ts.db.Proposals(ctx, env.doc.Key); len(ps) != 0 {
		t.Errorf("%d proposals left", len(ps))
	}
	// Again: nothing to decide, and the page says so.
	rec = env.admin.post(accept, nil)
	if rec.Code != http.StatusSeeOther || !strings.Contains(env.admin.get(rec.Header().Get("Location")).Body.String(), "この更新案はもうありません") {
		t.Errorf("a second accept = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	if body := env.admin.get(env.docPage).Body.String(); strings.Contains(body, `id="ingest-proposals"`) {
		t.Error("proposals shown after all were decided")
	}
}
