package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/ingest"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
)

// sharedDoc is a document of the shared reference folder and the release
// to give it (the release-notes JSON of some releases does not say it).
type sharedDoc struct {
	path    []string
	release string
}

// ingestShared stores shared documents as the admin's ingest does, with
// the real generator, one at a time in the order given.
func ingestShared(t testing.TB, db *store.DB, docs ...sharedDoc) {
	t.Helper()
	ctx := context.Background()
	p := ingest.New(db, nil)
	for _, d := range docs {
		data, err := os.ReadFile(testshared.Path(t, d.path...))
		if err != nil {
			t.Fatal(err)
		}
		name := d.path[len(d.path)-1]
		batch, problems, err := p.Prepare(ctx, []ingest.Source{{Name: name, Data: data}}, ingest.Options{Release: d.release}, nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("prepare %s: %v %v", name, problems, err)
		}
		if _, err := p.Save(ctx, batch, ingest.SaveOptions{Actor: "test", Now: time.Now()}); err != nil {
			t.Fatalf("save %s: %v", name, err)
		}
	}
}

// serviceIPHistory is where the history of ServiceIPStaticSubrange lies in
// the shared documents: beta in 1.25, GA in 1.26 (release-notes JSON),
// its gate removed in 1.28 (the upstream CHANGELOG).
var serviceIPHistory = []sharedDoc{
	{[]string{"release-notes", "release-notes-1.25.0.json"}, "1.25"},
	{[]string{"release-notes", "release-notes-1.26.0.json"}, "1.26"},
	{[]string{"changelogs", "CHANGELOG-1.28.0.md"}, ""},
}

func TestFeaturePage(t *testing.T) {
	testshared.Dir(t)
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ingestShared(t, ts.db, serviceIPHistory...)
	ctx := context.Background()
	tl, err := ts.db.FeatureTimeline(ctx, "ServiceIPStaticSubrange")
	if err != nil {
		t.Fatal(err)
	}
	member := newClient(t, ts, "192.0.2.80")
	if rec := member.register("alice", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}

	rec := member.get("/features/ServiceIPStaticSubrange")
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("feature page = %d: %.500s", rec.Code, body)
	}
	// The facts the documents state, each with its release, its PR linked
	// and the document that states it.
	for _, want := range []string{
		"<h1 class=\"feature-name\">ServiceIPStaticSubrange</h1>",
		"<h3>v1.26: GA</h3>", `<a href="https://github.com/kubernetes/kubernetes/pull/112163" rel="noopener noreferrer">#112163</a>`,
		"<h3>v1.28: 削除</h3>", `<a href="https://github.com/kubernetes/kubernetes/pull/117237" rel="noopener noreferrer">#117237</a>`,
		"1.26/release-notes <small class=\"muted\">(リリースノート JSON (relnotes.k8s.io) · release-notes-1.26.0.json)</small>",
		"1.28 <small class=\"muted\">(upstream CHANGELOG · CHANGELOG-1.28.0.md)</small>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("feature page lacks %q", want)
		}
	}
	// Every stage the store has, in its order, on the page and in the
	// drawing's text alternative; each drawn with its label.
	svg := regexp.MustCompile(`(?s)<svg class="feature-timeline".*?</svg>`).FindString(body)
	if svg == "" || !strings.Contains(svg, `role="img" aria-labelledby="timeline-title timeline-desc"`) ||
		!strings.Contains(svg, `<title id="timeline-title">ServiceIPStaticSubrange の段階の変化</title>`) {
		t.Fatalf("no titled timeline image: %.1000s", svg)
	}
	desc := regexp.MustCompile(`<desc id="timeline-desc">([^<]*)</desc>`).FindStringSubmatch(svg)
	var wantDesc, heads []string
	last := -1
	for _, st := range tl.Stages {
		label := stageText(st)
		wantDesc = append(wantDesc, "v"+st.Release+": "+label)
		head := "<h3>v" + st.Release + ": " + label + "</h3>"
		heads = append(heads, head)
		i := strings.Index(body, head)
		if i < last {
			t.Errorf("%s out of order", head)
		}
		last = i
		if !strings.Contains(svg, ">"+html.EscapeString(label)+"</text>") {
			t.Errorf("the drawing has no label %q", label)
		}
		for _, src := range st.Sources {
			if !strings.Contains(body, src.Document+` <small class="muted">`) {
				t.Errorf("%s: source %s not shown", head, src.Document)
			}
		}
	}
	if desc == nil || desc[1] != strings.Join(wantDesc, "、") {
		t.Errorf("timeline description = %q, want %q", desc, strings.Join(wantDesc, "、"))
	}
	if len(tl.Stages) < 3 || strings.Count(body, "<h3>") != len(tl.Stages) {
		t.Errorf("%d stages on the page, %d in the store (want 3 or more): %q", strings.Count(body, "<h3>"), len(tl.Stages), heads)
	}
	for _, r := range []string{">v1.25</text>", ">v1.26</text>", ">v1.28</text>", "(間に 1 リリース)"} {
		if !strings.Contains(svg, r) {
			t.Errorf("the drawing lacks %q", r)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, " style=") {
		t.Error("the feature page has inline script or style")
	}

	// Found ignoring case and spaces, and escaped in the path.
	for _, path := range []string{"/features/serviceipstaticsubrange", "/features/Service%20IP%20Static%20Subrange"} {
		if rec := member.get(path); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "<h1 class=\"feature-name\">ServiceIPStaticSubrange</h1>") {
			t.Errorf("GET %s = %d", path, rec.Code)
		}
	}
	// Unknown names are a 404; the page is for members.
	for _, path := range []string{"/features/NoSuchGate", "/features/%20", "/features/" + strings.Repeat("a", 201), "/features/a%2Fb", "/features/%FF"} {
		if rec := member.get(path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, rec.Code)
		}
	}
	if rec := newClient(t, ts, "192.0.2.81").get("/features/ServiceIPStaticSubrange"); rec.Code != http.StatusSeeOther ||
		!strings.HasPrefix(rec.Header().Get("Location"), "/login") {
		t.Errorf("signed out = %d to %q, want a 303 to the sign-in page", rec.Code, rec.Header().Get("Location"))
	}
}

// stageText is a stage's label on the feature page.
func stageText(st store.FeatureStage) string {
	label := map[string]string{"alpha": "alpha", "beta": "beta", "beta_default_on": "beta (デフォルト有効)", "default_on": "デフォルト有効",
		"default_off": "デフォルト無効", "ga": "GA", "deprecated": "非推奨", "removed": "削除", "reverted": "取り消し"}[string(st.Stage)]
	if st.Revert {
		label += " (取り消し)"
	}
	return label
}

// TestFeedbackLinksFeatures: the feedback of a question links the page of
// each feature it is about that has a stored history: a generated
// question's feature, a hand-written question's tag that names one.
func TestFeedbackLinksFeatures(t *testing.T) {
	testshared.Dir(t)
	env := newStudyEnv(t)
	ctx := context.Background()
	ingestShared(t, env.ts.db, serviceIPHistory...)
	importYAML(t, env.ts, "network.yaml", `deck:
  slug: v1-26-sig-network
  title: "v1.26 SIG-Network"
  release: "1.26"
  sig: SIG-Network
  language: ja
  description: "SIG Network の 1.26"
questions:
  - id: subrange
    type: flashcard
    prompt: "ServiceIPStaticSubrange は何のため?"
    answer: "Service の ClusterIP の範囲を、静的な割り当てと動的な割り当てに分ける。"
    explanation: "1.26 で GA。"
    source: {release: "1.26", prs: [112163]}
    tags: [ServiceIPStaticSubrange, concept, NoSuchGate]
  - id: untagged
    type: flashcard
    prompt: "タグのない問題"
    answer: "a"
    explanation: "e"
    source: {release: "1.26", prs: [1]}
`, false)
	hand, err := env.ts.db.DeckQuestions(ctx, "v1-26-sig-network", true)
	if err != nil || len(hand) != 2 {
		t.Fatalf("deck questions: %d, %v", len(hand), err)
	}
	// A generated question about the feature, published.
	var gen store.DraftQuestion
	drafts, err := env.ts.db.ListDrafts(ctx, store.DraftFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dq := range drafts {
		if dq.Provenance.Feature == "ServiceIPStaticSubrange" && dq.Question.Type != quiz.Cloze {
			gen = dq
			break
		}
	}
	if gen.ID == 0 {
		t.Fatal("no generated question about ServiceIPStaticSubrange")
	}
	if _, err := env.ts.db.PublishQuestions(ctx, gen.DeckSlug, []int64{gen.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	link := `<a href="/features/ServiceIPStaticSubrange" target="_blank">ServiceIPStaticSubrange<span class="visually-hidden">(新しいタブで開きます)</span></a>`
	tests := []struct {
		name     string
		q        store.StoredQuestion
		wantLink bool
	}{
		{"hand-written, tagged", hand[0], true},
		{"hand-written, no tags", hand[1], false},
		{"generated", gen.StoredQuestion, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := env.ts.db.SetSubscription(ctx, env.alice.user.ID, tt.q.DeckSlug, true, time.Now()); err != nil {
				t.Fatal(err)
			}
			form := url.Values{
				"q": {strconv.FormatInt(tt.q.ID, 10)}, "p": {newPresentationID(time.Now())}, "d": {tt.q.DeckSlug},
				"t": {strconv.FormatInt(time.Now().Add(-3*time.Second).UnixMilli(), 10)}, "k": {tt.q.Question.AnswerKey()},
				"revealed": {"1"}, "choice": {"0"}, "tf": {"true"},
			}
			rec := env.alice.post("/study/answer", form, true)
			body := rec.Body.String()
			if rec.Code != http.StatusOK || !strings.Contains(body, `<header><strong>`) {
				t.Fatalf("answer = %d: %.500s", rec.Code, body)
			}
			if got := strings.Contains(body, link); got != tt.wantLink {
				t.Errorf("feature link shown: %v, want %v: %s", got, tt.wantLink, footer(body))
			}
			if strings.Contains(body, "/features/concept") || strings.Contains(body, "/features/NoSuchGate") {
				t.Errorf("a tag without a history is linked: %s", footer(body))
			}
			if tt.wantLink {
				if rec := env.alice.get("/features/ServiceIPStaticSubrange", false); rec.Code != http.StatusOK {
					t.Errorf("the linked page = %d", rec.Code)
				}
			}
		})
	}
}

// footer is the feedback's footer, for messages.
func footer(body string) string {
	_, f, _ := strings.Cut(body, "<footer>")
	f, _, _ = strings.Cut(f, "</footer>")
	return fmt.Sprintf("%.600s", f)
}
