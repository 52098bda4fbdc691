package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
)

// reviewFixture stores nodeArticle with 120 generated questions of three
// generators, two types, two kinds and three SIG lists: question i is
//
//	generator  cloze (i%3 == 0), true_false (1), stage_in_release (2)
//	type       cloze for the cloze generator, else single_choice
//	kind       feature for even i, cleanup for odd
//	sig        "SIG-Node" (i%4 == 0), "SIG-API-Machinery, SIG-Node" (1), "" (2, 3)
//
// and the prompt of every tenth says "Needle", the answer of i == 7
// "needle-answer". It returns the document's key and the row ids in deck
// order.
func reviewFixture(t *testing.T, db *DB) (string, []int64) {
	t.Helper()
	doc := parseArticle(t, nodeArticle)
	var gen []quizgen.Generated
	for i := range 120 {
		g := quizgen.Generated{Provenance: quizgen.Provenance{Document: doc.Key, Entry: doc.Entries[0].Key, SourceText: "s"}}
		q := &g.Question
		q.ExtID, q.Explanation = fmt.Sprintf("q-%03d", i), "解説"
		q.Source = quiz.Source{Release: "1.36", Kind: "feature", PRs: []int{900001}}
		if i%2 == 1 {
			q.Source.Kind = "cleanup"
		}
		q.Source.SIG = []string{"SIG-Node", "SIG-API-Machinery, SIG-Node", "", ""}[i%4]
		prompt := fmt.Sprintf("問題 %d", i)
		if i%10 == 0 {
			prompt += " Needle"
		}
		switch i % 3 {
		case 0:
			g.Provenance.Generator, q.Type, q.Prompt = quizgen.GenCloze, quiz.Cloze, prompt+" の {{答え}}"
		case 1:
			g.Provenance.Generator, q.Type, q.Prompt = quizgen.GenTrueFalse, quiz.SingleChoice, prompt
			q.Choices, q.Answer = []string{"a", "b"}, "a"
		default:
			g.Provenance.Generator, q.Type, q.Prompt = quizgen.GenStageInRelease, quiz.SingleChoice, prompt
			q.Choices, q.Answer = []string{"a", "b"}, "b"
		}
		if i == 7 {
			q.Choices, q.Answer = []string{"needle-answer", "b"}, "needle-answer"
		}
		gen = append(gen, g)
	}
	res, err := db.IngestChangelog(context.Background(), input("node.txt", doc, gen), IngestOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(res.Questions))
	for i, q := range res.Questions {
		ids[i] = q.ID
	}
	return doc.Key, ids
}

func TestReviewQuestions(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc, ids := reviewFixture(t, db)
	// Questions 0-9 published, 10-14 retired.
	if _, err := db.PublishQuestions(ctx, "v1-36-sig-node", ids[:10], t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RetireQuestions(ctx, "v1-36-sig-node", ids[10:15], t0); err != nil {
		t.Fatal(err)
	}
	// which lists the fixture's indexes that match a rule.
	which := func(match func(i int) bool) []int {
		var out []int
		for i := range 120 {
			if match(i) {
				out = append(out, i)
			}
		}
		return out
	}
	status := func(i int) quiz.Status {
		switch {
		case i < 10:
			return quiz.Published
		case i < 15:
			return quiz.Retired
		}
		return quiz.Draft
	}
	all := func(int) bool { return true }
	tests := []struct {
		name   string
		f      ReviewFilter
		offset int
		limit  int
		match  func(i int) bool // the questions the filter selects, whatever their status
	}{
		{"all, first page", ReviewFilter{}, 0, 50, all},
		{"all, last page", ReviewFilter{}, 100, 50, all},
		{"past the end", ReviewFilter{}, 200, 50, all},
		{"generator", ReviewFilter{Generator: quizgen.GenCloze}, 0, 50, func(i int) bool { return i%3 == 0 }},
		{"type", ReviewFilter{Type: quiz.SingleChoice}, 0, 50, func(i int) bool { return i%3 != 0 }},
		{"kind", ReviewFilter{Kind: "cleanup"}, 0, 50, func(i int) bool { return i%2 == 1 }},
		{"one SIG of a list", ReviewFilter{SIG: "SIG-Node"}, 0, 50, func(i int) bool { return i%4 < 2 }},
		{"the second SIG of a list", ReviewFilter{SIG: "SIG-API-Machinery"}, 0, 50, func(i int) bool { return i%4 == 1 }},
		{"a SIG's prefix is not a SIG", ReviewFilter{SIG: "SIG-API"}, 0, 50, func(int) bool { return false }},
		{"no SIG", ReviewFilter{SIG: NoSIG}, 0, 50, func(i int) bool { return i%4 >= 2 }},
		{"status", ReviewFilter{Status: quiz.Retired}, 0, 50, all},
		{"text in the prompt or the answer, any case", ReviewFilter{Text: " nEEDLE "}, 0, 50, func(i int) bool { return i%10 == 0 || i == 7 }},
		{"text in the answer", ReviewFilter{Text: "needle-ans"}, 0, 50, func(i int) bool { return i == 7 }},
		{"text in the explanation", ReviewFilter{Text: "解説", Generator: quizgen.GenTrueFalse, Kind: "feature"}, 0, 50,
			func(i int) bool { return i%3 == 1 && i%2 == 0 }},
		{"text as text, not a pattern", ReviewFilter{Text: "%"}, 0, 50, func(int) bool { return false }},
		{"all together", ReviewFilter{Generator: quizgen.GenStageInRelease, Kind: "feature", SIG: "SIG-Node", Status: quiz.Draft}, 0, 5,
			func(i int) bool { return i%3 == 2 && i%2 == 0 && i%4 < 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.Document = doc
			page, err := db.ReviewQuestions(ctx, tt.f, tt.offset, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			want := which(func(i int) bool { return tt.match(i) && (tt.f.Status == "" || status(i) == tt.f.Status) })
			if page.Total != len(want) {
				t.Errorf("total = %d, want %d", page.Total, len(want))
			}
			var got []int
			for _, dq := range page.Questions {
				got = append(got, slices.Index(ids, dq.ID))
			}
			var wantPage []int
			if tt.offset < len(want) {
				wantPage = want[tt.offset:min(len(want), tt.offset+tt.limit)]
			}
			if !slices.Equal(got, wantPage) {
				t.Errorf("page = %v, want %v", got, wantPage)
			}
			// The counts by status leave the filter's status out.
			byStatus := map[quiz.Status]int{}
			for _, i := range which(tt.match) {
				byStatus[status(i)]++
			}
			if !maps.Equal(page.ByStatus, byStatus) {
				t.Errorf("by status = %v, want %v", page.ByStatus, byStatus)
			}
		})
	}
	if _, err := db.ReviewQuestions(ctx, ReviewFilter{}, 0, 50); !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("no document: %v, want invalid", err)
	}
	// Another document's questions are not this one's.
	if page, err := db.ReviewQuestions(ctx, ReviewFilter{Document: "1.99/node"}, 0, 50); err != nil || page.Total != 0 {
		t.Errorf("another document: %d questions, %v", page.Total, err)
	}
}

func TestReviewFacets(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc, _ := reviewFixture(t, db)
	got, err := db.ReviewFacets(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := ReviewFacets{
		Generators: []ReviewFacet{{quizgen.GenCloze, 40}, {quizgen.GenStageInRelease, 40}, {quizgen.GenTrueFalse, 40}},
		Types:      []ReviewFacet{{string(quiz.Cloze), 40}, {string(quiz.SingleChoice), 80}},
		Kinds:      []ReviewFacet{{"cleanup", 60}, {"feature", 60}},
		SIGs:       []ReviewFacet{{NoSIG, 60}, {"SIG-API-Machinery", 30}, {"SIG-Node", 60}},
	}
	for name, pair := range map[string][2][]ReviewFacet{
		"generators": {got.Generators, want.Generators}, "types": {got.Types, want.Types},
		"kinds": {got.Kinds, want.Kinds}, "SIGs": {got.SIGs, want.SIGs},
	} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s = %v, want %v", name, pair[0], pair[1])
		}
	}
	if got, err := db.ReviewFacets(ctx, "1.99/node"); err != nil || len(got.Generators)+len(got.SIGs) != 0 {
		t.Errorf("facets of another document = %+v, %v", got, err)
	}
}

func TestSetFilteredStatus(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc, ids := reviewFixture(t, db)
	const deck = "v1-36-sig-node"
	clozes := ReviewFilter{Document: doc, Generator: quizgen.GenCloze}
	if _, err := db.PublishQuestions(ctx, deck, ids[:3], t0); err != nil { // q-000 is a cloze
		t.Fatal(err)
	}
	statuses := func() map[int]quiz.Status {
		out := map[int]quiz.Status{}
		for i, id := range ids {
			sq, err := db.Question(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = sq.Status
		}
		return out
	}

	// A count that is not the filter's changes nothing; nor does a bad
	// status, another deck or no document.
	before := checksums(t, db)
	var cc *CountChangedError
	if _, err := db.SetFilteredStatus(ctx, deck, clozes, quiz.Published, 40, t0); !errors.As(err, &cc) || !errors.Is(err, quiz.ErrConflict) || cc.Got != 39 {
		t.Errorf("publish with the count before q-000 was published: %v, want a conflict of 39", err)
	}
	for name, call := range map[string]func() error{
		"draft status": func() error {
			_, err := db.SetFilteredStatus(ctx, deck, clozes, quiz.Draft, 39, t0)
			return err
		},
		"another deck": func() error {
			_, err := db.SetFilteredStatus(ctx, "v1-35-sig-node", clozes, quiz.Published, 39, t0)
			return err
		},
		"no document": func() error {
			_, err := db.SetFilteredStatus(ctx, deck, ReviewFilter{Generator: quizgen.GenCloze}, quiz.Published, 39, t0)
			return err
		},
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Fatalf("refused calls changed %v", got)
	}

	// The 39 cloze drafts, and nothing else.
	if n, err := db.SetFilteredStatus(ctx, deck, clozes, quiz.Published, 39, t0); n != 39 || err != nil {
		t.Fatalf("publish the clozes = %d, %v; want 39", n, err)
	}
	got := statuses()
	for i := range ids {
		want := quiz.Draft
		if i%3 == 0 || i < 3 {
			want = quiz.Published
		}
		if got[i] != want {
			t.Errorf("q-%03d is %s, want %s", i, got[i], want)
		}
	}
	// Retire the published clozes with "Needle" in the prompt: 0, 30, 60, 90.
	needles := clozes
	needles.Text, needles.Status = "needle", quiz.Published
	if n, err := db.SetFilteredStatus(ctx, deck, needles, quiz.Retired, 4, t0); n != 4 || err != nil {
		t.Fatalf("retire = %d, %v; want 4", n, err)
	}
	got = statuses()
	for i := range ids {
		if retired := got[i] == quiz.Retired; retired != (i%30 == 0) {
			t.Errorf("q-%03d is %s", i, got[i])
		}
	}
	// Nothing left to change is no error.
	if n, err := db.SetFilteredStatus(ctx, deck, needles, quiz.Retired, 0, t0); n != 0 || err != nil {
		t.Errorf("retire again = %d, %v; want 0 and no error", n, err)
	}
}

func TestFeaturesWithHistory(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc := parseDoc(t, upstream140, changelog.Options{Release: "1.40"})
	if _, err := db.IngestChangelog(ctx, input("CHANGELOG-1.40.md", doc, nil), IngestOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		names, want []string
	}{
		{nil, nil},
		{[]string{"FooGate", "kubeadm", "stage_in_release"}, []string{"FooGate"}},
		{[]string{"bar gate", "foogate", "FooGate", " "}, []string{"bar gate", "foogate"}},
		{[]string{"NoSuchGate"}, nil},
	}
	for _, tt := range tests {
		got, err := db.FeaturesWithHistory(ctx, 0, tt.names)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("FeaturesWithHistory(%q) = %q, %v; want %q", tt.names, got, err, tt.want)
		}
	}
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf("Gate%d", i)
	}
	if got, err := db.FeaturesWithHistory(ctx, 0, append(many, "FooGate")); err != nil || len(got) != 0 {
		t.Errorf("a name after the first %d = %q, %v; want it not looked up", maxFeatureNames, got, err)
	}
}

// TestFeaturesWithHistoryVersion: an answer found at one version of the
// history serves that version only (in order: the table's rows share one
// list's entry); storing a document, or removing its
// stages, moves the version on, and the card's read carries it.
func TestFeaturesWithHistoryVersion(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	version := func() HistoryVersion {
		t.Helper()
		var v HistoryVersion
		if err := db.read.QueryRowContext(ctx, `SELECT version FROM history_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	names := []string{"FooGate"}
	v1 := version()
	if got, err := db.FeaturesWithHistory(ctx, v1, names); err != nil || len(got) != 0 {
		t.Fatalf("before any document = %q, %v; want none", got, err)
	}
	doc := parseDoc(t, upstream140, changelog.Options{Release: "1.40"})
	if _, err := db.IngestChangelog(ctx, input("CHANGELOG-1.40.md", doc, nil), IngestOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	v2 := version()
	if v2 == v1 {
		t.Fatalf("version %d unchanged by storing a document", v2)
	}
	tests := []struct {
		name string
		asOf HistoryVersion
		want []string
	}{
		{"the old version, as kept", v1, nil},
		{"the new version", v2, names},
		{"no version", 0, names},
	}
	for _, tt := range tests {
		if got, err := db.FeaturesWithHistory(ctx, tt.asOf, names); err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := db.write.ExecContext(ctx, `DELETE FROM feature_stages WHERE feature_key = 'foogate'`); err != nil {
		t.Fatal(err)
	}
	v3 := version()
	if v3 == v2 {
		t.Fatalf("version %d unchanged by deleting stages", v3)
	}
	if got, err := db.FeaturesWithHistory(ctx, v3, names); err != nil || len(got) != 0 {
		t.Errorf("after the stages went = %q, %v; want none", got, err)
	}
	// A card's read carries the version.
	user := addStudyUser(t, db, "u", studyUserOpts{})
	deck := addStudyDeck(t, db, "d", "1.40")
	q := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q"))
	card, err := db.PreviewCard(ctx, user, q, t0)
	if err != nil || card.History != v3 {
		t.Errorf("PreviewCard: history %d, %v; want %d", card.History, err, v3)
	}
}
