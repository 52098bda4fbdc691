package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
)

// upstream140 is a made-up CHANGELOG of release 1.40 with two features.
const upstream140 = `## Changes by Kind

### Feature

- Promoted the ` + "`FooGate`" + ` feature gate to beta. ([#900101](https://github.com/kubernetes/kubernetes/pull/900101), [@a](https://github.com/a)) [SIG Node]
- Added the ` + "`BarGate`" + ` feature gate as alpha. ([#900102](https://github.com/kubernetes/kubernetes/pull/900102), [@b](https://github.com/b)) [SIG Node]
`

// notes140 is the release-notes JSON of the same release: one note the
// CHANGELOG has, and one it lacks.
const notes140 = `{
  "900101": {"text": "Promoted the FooGate feature gate to beta.", "markdown": "Promoted the ` + "`FooGate`" + ` feature gate to beta. ([#900101](https://github.com/kubernetes/kubernetes/pull/900101), [@a](https://github.com/a)) [SIG Node]", "pr_number": 900101, "kinds": ["feature"], "sigs": ["node"], "release_version": "1.40.0"},
  "900103": {"text": "Graduated BazGate to GA.", "markdown": "Graduated the ` + "`BazGate`" + ` feature gate to GA. ([#900103](https://github.com/kubernetes/kubernetes/pull/900103), [@c](https://github.com/c)) [SIG Node]", "pr_number": 900103, "kinds": ["feature"], "sigs": ["node"], "release_version": "1.40.0"}
}`

func parseDoc(t *testing.T, src string, opts changelog.Options) *changelog.Document {
	t.Helper()
	doc, err := changelog.Parse([]byte(src), opts)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

// selfSources names each of gen's questions as a fact its own document
// states.
func selfSources(doc *changelog.Document, gen []quizgen.Generated) []FactSource {
	out := make([]FactSource, 0, len(gen))
	for _, g := range gen {
		out = append(out, FactSource{Document: doc.Key, ExtID: g.Question.ExtID, Entry: g.Provenance.Entry, PRs: g.Provenance.PRs})
	}
	return out
}

func entryByPR(t *testing.T, doc *changelog.Document, pr int) changelog.Entry {
	t.Helper()
	for _, e := range doc.Entries {
		if slices.Contains(e.PRs, pr) {
			return e
		}
	}
	t.Fatalf("%s has no entry of #%d", doc.Key, pr)
	return changelog.Entry{}
}

func TestSharedEntriesAndSources(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	cl := parseDoc(t, upstream140, changelog.Options{Release: "1.40"})
	clGen := testGenerate(cl)
	clIn := input("CHANGELOG-1.40.md", cl, clGen)
	clIn.Sources = selfSources(cl, clGen)
	if _, err := db.IngestChangelogs(ctx, []ChangelogInput{clIn}, IngestOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}

	// The JSON of the same release: its note of #900101 is the
	// CHANGELOG's, and so is the question on it.
	rn := parseDoc(t, notes140, changelog.Options{})
	shared, own := entryByPR(t, rn, 900101), entryByPR(t, rn, 900103)
	clEntry := entryByPR(t, cl, 900101)
	var rnGen []quizgen.Generated
	for _, g := range testGenerate(rn) {
		if g.Provenance.Entry == own.Key {
			rnGen = append(rnGen, g)
		}
	}
	var clStage string
	for _, g := range clGen {
		if g.Provenance.Entry == clEntry.Key && g.Provenance.Generator == quizgen.GenStageInRelease {
			clStage = g.Question.ExtID
		}
	}
	rnIn := input("release-notes-1.40.0.json", rn, rnGen)
	rnIn.Shared = []SharedEntry{{Entry: shared.Key, Document: cl.Key, Same: clEntry.Key}}
	rnIn.Sources = append(selfSources(rn, rnGen), FactSource{Document: cl.Key, ExtID: clStage, Entry: shared.Key, PRs: []int{900101}, URL: quiz.PRURL(900101)})
	res, err := db.IngestChangelog(ctx, rnIn, IngestOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(res.SharedEntries, map[string]int{"1.40": 1}) || !maps.Equal(res.AskedElsewhere, map[string]int{"1.40": 1}) ||
		res.Entries != 2 || res.Deck.Slug != "v1-40-changelog" {
		t.Errorf("result: shared %v, asked elsewhere %v, %d entries, deck %s", res.SharedEntries, res.AskedElsewhere, res.Entries, res.Deck.Slug)
	}
	docs, err := db.ChangelogDocuments(ctx)
	if err != nil || len(docs) != 2 {
		t.Fatalf("documents = %d, %v", len(docs), err)
	}
	for _, d := range docs {
		if want := map[string]int{"1.40": 2, "1.40/release-notes": 1}[d.Key]; d.Entries != want {
			t.Errorf("%s stores %d entries, want %d", d.Key, d.Entries, want)
		}
	}
	stored, err := db.StoredDocuments(ctx)
	if err != nil || len(stored) != 2 || len(stored[1].Entries) != 1 || stored[1].Entries[0].Key != own.Key {
		t.Fatalf("stored documents = %d, %v", len(stored), err)
	}

	// The CHANGELOG's question lists both documents.
	q, err := db.GeneratedQuestion(ctx, questionID(t, db, cl.Key, clStage))
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := db.QuestionSources(ctx, q.ID)
	if err != nil || len(srcs) != 2 {
		t.Fatalf("sources = %+v, %v", srcs, err)
	}
	if srcs[0].Document != "1.40" || srcs[0].File != "CHANGELOG-1.40.md" || srcs[1].Document != "1.40/release-notes" ||
		srcs[1].Format != changelog.FormatReleaseNotesJSON || srcs[1].Entry != shared.Key || !slices.Equal(srcs[1].PRs, []int{900101}) ||
		srcs[1].URL != quiz.PRURL(900101) {
		t.Errorf("sources = %+v", srcs)
	}

	// The timeline of FooGate names the JSON beside the CHANGELOG.
	tl, err := db.FeatureTimeline(ctx, "foo gate")
	if err != nil {
		t.Fatal(err)
	}
	if tl.Feature != "FooGate" || len(tl.Stages) != 1 {
		t.Fatalf("timeline = %+v", tl)
	}
	st := tl.Stages[0]
	if st.Release != "1.40" || st.Stage != changelog.StageBeta || !slices.Equal(st.PRs, []int{900101}) || len(st.Sources) != 2 ||
		st.Sources[0].Document != "1.40" || st.Sources[0].Evidence == "" || st.Sources[1].Document != "1.40/release-notes" {
		t.Errorf("stage = %+v", st)
	}

	// The same JSON again changes nothing but the import record.
	before := checksums(t, db)
	again, err := db.IngestChangelog(ctx, rnIn, IngestOptions{Actor: "test", Now: t0.Add(time.Hour)})
	if err != nil || again.Document != Unchanged {
		t.Fatalf("again: %s, %v", again.Document, err)
	}
	if got := changedTables(before, checksums(t, db)); len(got) != 1 || got[0] != "import_runs" {
		t.Errorf("re-ingest changed %v", got)
	}

	// Refused, and nothing changes: a source naming no question, a shared
	// entry the document does not have.
	before = checksums(t, db)
	bad := rnIn
	bad.Sources = []FactSource{{Document: cl.Key, ExtID: "gen-nothing"}}
	if _, err := db.IngestChangelog(ctx, bad, IngestOptions{Actor: "test", Now: t0}); !errors.Is(err, quiz.ErrConflict) {
		t.Errorf("unknown question = %v, want a conflict", err)
	}
	bad = rnIn
	bad.Shared = []SharedEntry{{Entry: "1.40/release-notes/feature/pr-1", Document: cl.Key, Same: clEntry.Key}}
	if _, err := db.IngestChangelog(ctx, bad, IngestOptions{Actor: "test", Now: t0}); !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("unknown shared entry = %v, want invalid", err)
	}
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Errorf("refused ingests changed %v", got)
	}
}

func questionID(t *testing.T, db *DB, doc, extID string) int64 {
	t.Helper()
	var id int64
	if err := db.read.QueryRow(`SELECT id FROM questions WHERE source_document = ? AND ext_id = ?`, doc, extID).Scan(&id); err != nil {
		t.Fatalf("question %s of %s: %v", extID, doc, err)
	}
	return id
}

func TestFeatureTimeline(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	for _, c := range []struct{ release, text string }{
		{"1.40", "- Graduated the `Foo Gate` feature to GA. ([#900203](https://github.com/kubernetes/kubernetes/pull/900203), [@a](https://github.com/a)) [SIG Node]\n"},
		{"1.38", "- Added the `FooGate` feature gate as alpha. ([#900201](https://github.com/kubernetes/kubernetes/pull/900201), [@a](https://github.com/a)) [SIG Node]\n"},
		{"1.39", "- Promoted the `FooGate` feature gate to beta. ([#900202](https://github.com/kubernetes/kubernetes/pull/900202), [@a](https://github.com/a)) [SIG Node]\n"},
	} {
		doc := parseDoc(t, "## Changes by Kind\n\n### Feature\n\n"+c.text, changelog.Options{Release: c.release})
		if _, err := db.IngestChangelog(ctx, input("CHANGELOG-"+c.release+".md", doc, nil), IngestOptions{Actor: "test", Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	tl, err := db.FeatureTimeline(ctx, "FOOGATE")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tl.Stages {
		got = append(got, fmt.Sprintf("%s %s %v %s", s.Release, s.Stage, s.PRs, s.Sources[0].File))
	}
	want := []string{"1.38 alpha [900201] CHANGELOG-1.38.md", "1.39 beta [900202] CHANGELOG-1.39.md", "1.40 ga [900203] CHANGELOG-1.40.md"}
	if tl.Feature != "FooGate" || !slices.Equal(got, want) {
		t.Errorf("timeline %s = %q, want FooGate %q", tl.Feature, got, want)
	}
	for name, want := range map[string]error{"NoSuchGate": quiz.ErrNotFound, " ": quiz.ErrInvalid} {
		if _, err := db.FeatureTimeline(ctx, name); !errors.Is(err, want) {
			t.Errorf("timeline of %q = %v, want %v", name, err, want)
		}
	}
}

// TestRegeneratedQuestions generates a stored document's questions again:
// drafts follow, a published question keeps its wording with the new one
// proposed beside it, and one no longer generated is retired with its
// review history.
func TestRegeneratedQuestions(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc := parseArticle(t, nodeArticle)
	gen := testGenerate(doc)
	first := ingest(t, db, doc, IngestOptions{})
	ids := map[string]int64{}
	for _, q := range first.Questions {
		ids[q.ExtID] = q.ID
	}
	const (
		gaID    = "tf-1-36-node-feature-pr-900001"
		quotaID = "tf-1-36-node-feature-pr-900002"
		bugID   = "tf-1-36-node-bug_or_regression-pr-900003"
		stageID = "stage-1-36-node-feature-pr-900001"
	)
	if _, err := db.PublishQuestions(ctx, "v1-36-sig-node", []int64{ids[gaID], ids[bugID]}, t0); err != nil {
		t.Fatal(err)
	}
	// A learner has reviewed the bug question.
	res, err := db.write.Exec(`INSERT INTO users (login, password_hash, timezone, created_at, password_changed_at) VALUES ('kim', 'x', 'Asia/Tokyo', 0, 0)`)
	if err != nil {
		t.Fatal(err)
	}
	user, _ := res.LastInsertId()
	if _, err := db.write.Exec(`INSERT INTO review_log (request_id, user_id, question_id, rating, correct, reviewed_at, state_before, due_before,
		stability_before, difficulty_before, elapsed_days, retrievability, state_after, due_after, stability_after, difficulty_after, scheduled_days)
		VALUES ('r1', ?, ?, 3, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 5, 1)`, user, ids[bugID]); err != nil {
		t.Fatal(err)
	}

	// Generation now words the GA and stage questions otherwise, no longer
	// asks about the bug fix, and asks one more question.
	byID := func(gs []quizgen.Generated, id string) *quizgen.Generated {
		for i := range gs {
			if gs[i].Question.ExtID == id {
				return &gs[i]
			}
		}
		t.Fatalf("no question %s", id)
		return nil
	}
	regen := func(gs []quizgen.Generated) ChangelogInput {
		in := input("node.txt", doc, gs)
		in.Regenerated = true
		return in
	}
	next := slices.Clone(gen)
	byID(next, gaID).Question.Explanation += " (改訂)"
	byID(next, stageID).Question.Explanation += " (改訂)"
	next = slices.DeleteFunc(next, func(g quizgen.Generated) bool { return g.Question.ExtID == bugID })
	extra := gen[0]
	extra.Question.ExtID, extra.Question.Prompt = "tf-extra", "もう一問"
	next = append(next, extra)

	docTables := []string{"changelog_documents", "changelog_entries", "feature_stages"}
	before := checksums(t, db)
	r, err := db.IngestChangelog(ctx, regen(next), IngestOptions{Actor: "test", Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	after := checksums(t, db)
	for _, tab := range docTables {
		if before[tab] != after[tab] {
			t.Errorf("generating again changed %s", tab)
		}
	}
	outcomes := map[string]Outcome{}
	for _, q := range r.Questions {
		outcomes[q.ExtID] = q.Outcome
	}
	want := map[string]Outcome{gaID: Proposed, stageID: Updated, quotaID: Unchanged, bugID: Retired, "tf-extra": Added}
	if !r.Regenerated || r.Document != Unchanged || r.DocumentID != first.DocumentID || !maps.Equal(outcomes, want) {
		t.Errorf("regenerated %v, document %s row %d; outcomes %v, want %v", r.Regenerated, r.Document, r.DocumentID, outcomes, want)
	}
	ga, _ := db.Question(ctx, ids[gaID])
	if strings.Contains(ga.Question.Explanation, "改訂") || ga.Status != quiz.Published {
		t.Errorf("published question reworded: %q (%s)", ga.Question.Explanation, ga.Status)
	}
	stage, _ := db.Question(ctx, ids[stageID])
	if !strings.Contains(stage.Question.Explanation, "改訂") || stage.Status != quiz.Draft {
		t.Errorf("draft not updated: %q (%s)", stage.Question.Explanation, stage.Status)
	}
	bug, _ := db.Question(ctx, ids[bugID])
	if bug.Status != quiz.Retired || countRows(t, db, `SELECT count(*) FROM review_log WHERE question_id = ?`, ids[bugID]) != 1 {
		t.Errorf("question with review history: %s, reviews kept %d", bug.Status, countRows(t, db, `SELECT count(*) FROM review_log WHERE question_id = ?`, ids[bugID]))
	}
	props, err := db.Proposals(ctx, doc.Key)
	if err != nil || len(props) != 1 || props[0].Current.ID != ids[gaID] || !strings.Contains(props[0].Proposed.Explanation, "改訂") ||
		strings.Contains(props[0].Current.Question.Explanation, "改訂") || !props[0].ProposedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("proposals = %+v, %v", props, err)
	}

	// The same generation again: the proposal waits as it was, and with
	// nothing changed, nothing is recorded.
	before = checksums(t, db)
	r, err = db.IngestChangelog(ctx, regen(next), IngestOptions{Actor: "test", Now: t0.Add(2 * time.Hour)})
	if err != nil || r.Total().Proposed != 0 || r.Total().Unchanged != 4 {
		t.Errorf("again: %+v, %v", r.Total(), err)
	}
	if got := changedTables(before, checksums(t, db)); len(got) != 0 {
		t.Errorf("the same generation again changed %v", got)
	}

	// Generation back at the published wording: nothing left to propose.
	back := slices.Clone(next)
	*byID(back, gaID) = *byID(gen, gaID)
	if _, err := db.IngestChangelog(ctx, regen(back), IngestOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	if props, _ := db.Proposals(ctx, ""); len(props) != 0 {
		t.Errorf("proposals after generation came back: %d", len(props))
	}

	// Proposed once more, then dismissed: the admin keeps the wording, and
	// a later change is kept_edits rather than a proposal.
	if r, err = db.IngestChangelog(ctx, regen(next), IngestOptions{Actor: "test", Now: t0}); err != nil || r.Total().Proposed != 1 {
		t.Fatalf("proposed again: %+v, %v", r.Total(), err)
	}
	if err := db.DismissProposal(ctx, ids[gaID], t0); err != nil {
		t.Fatal(err)
	}
	if err := db.DismissProposal(ctx, ids[gaID], t0); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("dismissing again = %v, want not found", err)
	}
	later := slices.Clone(next)
	byID(later, gaID).Question.Explanation += " (1.35 で beta)"
	r, err = db.IngestChangelog(ctx, regen(later), IngestOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range r.Questions {
		if q.ExtID == gaID && q.Outcome != KeptEdits {
			t.Errorf("after dismissing: %s", q.Outcome)
		}
	}

	// A document that is not stored cannot be generated again.
	other := parseArticle(t, strings.ReplaceAll(nodeArticle, "1.36", "1.37"))
	in := input("other.txt", other, nil)
	in.Regenerated = true
	if _, err := db.IngestChangelog(ctx, in, IngestOptions{Actor: "test", Now: t0}); !errors.Is(err, quiz.ErrConflict) {
		t.Errorf("regenerating an unknown document = %v, want a conflict", err)
	}
}

func TestGeneratedFactsAndDocumentDecks(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc := parseArticle(t, nodeArticle)
	first := ingest(t, db, doc, IngestOptions{})
	if _, err := db.RetireQuestions(ctx, "v1-36-sig-node", []int64{first.Questions[0].ID}, t0); err != nil {
		t.Fatal(err)
	}
	facts, err := db.GeneratedFacts(ctx)
	if err != nil || len(facts) != len(first.Questions)-1 {
		t.Fatalf("facts = %d, %v; want every question but the retired one", len(facts), err)
	}
	for _, f := range facts {
		if f.Document != doc.Key || f.Release != "1.36" || f.Status != quiz.Draft || f.Provenance.Generator == "" || f.ExtID == first.Questions[0].ExtID {
			t.Errorf("fact %+v", f)
		}
	}
	decks, err := db.DocumentDecks(ctx)
	if err != nil || len(decks) != 1 || decks[doc.Key].File != doc.Key || decks[doc.Key].Deck.Slug != "v1-36-sig-node" || decks[doc.Key].Deck.Language != "ja" {
		t.Errorf("decks = %+v, %v", decks, err)
	}
}

// TestSourceQuestionPlan: recording a document's sources finds each of
// its questions by one index lookup, not by reading every question of
// the document (which made the ingest of a document of 14,000 entries
// quadratic).
func TestSourceQuestionPlan(t *testing.T) {
	db := newTestDB(t)
	text := queryPlan(t, db, sourceQuestionQuery, "CHANGELOG-1.99.md", "q-1")
	if want := "questions_source_ext (source_document=? AND ext_id=?)"; !strings.Contains(text, want) {
		t.Errorf("plan lacks %q:\n%s", want, text)
	}
}
