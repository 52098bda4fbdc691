package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/testshared"
)

// nodeArticle is a short made-up SIG-Node write-up in the article layout:
// two features (one with a stage history in its note) and a bug fix.
const nodeArticle = `Kubernetes 1.36: SIG-Node の変更内容

Feature

  • FooBarVolume を GA に昇格させた。 (#900001、@alice) [sig/node]
    • :pencil: 1.34 で alpha 導入、1.35 で beta になった機能です。
  • kubelet に bazQuota 設定を追加した。 (#900002、@bob) [sig/node]

Bug or Regression

  • kubelet の再起動時にまれに起こる panic を修正した。 (#900003、@carol) [sig/node]
`

func parseArticle(t testing.TB, src string) *changelog.Document {
	t.Helper()
	doc, err := changelog.Parse([]byte(src), changelog.Options{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc
}

// testGenerate stands in for quizgen.Generate: one flashcard per entry and,
// for entries that change a stage, one single-choice question. Ids derive
// from the entry key, so they are stable across edits of other entries.
func testGenerate(doc *changelog.Document) []quizgen.Generated {
	var out []quizgen.Generated
	for _, e := range doc.Entries {
		id := strings.NewReplacer("/", "-", ".", "-").Replace(e.Key)
		src := quiz.Source{Release: doc.Release, SIG: "SIG-Node", Kind: string(e.Kind), PRs: e.PRs}
		prov := quizgen.Provenance{Document: doc.Key, Entry: e.Key, PRs: e.PRs, SourceText: e.Text}
		p := prov
		p.Generator = quizgen.GenTrueFalse
		out = append(out, quizgen.Generated{Question: quiz.Question{
			ExtID: "tf-" + id, Type: quiz.Flashcard, Prompt: "この変更の内容は?",
			Answer: e.Text, Explanation: strings.Join(append([]string{"出典: " + e.Text}, e.Notes...), "\n"), Source: src,
		}, Provenance: p})
		if len(e.Stages) == 0 {
			continue
		}
		p = prov
		p.Generator = quizgen.GenStageInRelease
		sc := e.Stages[0]
		var evidence []string
		for _, s := range e.Stages {
			evidence = append(evidence, s.Evidence)
		}
		out = append(out, quizgen.Generated{Question: quiz.Question{
			ExtID: "stage-" + id, Type: quiz.SingleChoice,
			Prompt:      fmt.Sprintf("v%s で %s はどの段階になった?", doc.Release, sc.Feature),
			Choices:     []string{"alpha", "beta", "beta_default_on", "default_on", "default_off", "ga", "deprecated", "removed", "reverted"},
			Answer:      string(sc.Stage),
			Explanation: strings.Join(evidence, "\n"), Source: src,
		}, Provenance: p})
	}
	return out
}

// input is doc with its deck and gen, the way the ingest pipeline hands
// them over.
func input(file string, doc *changelog.Document, gen []quizgen.Generated) ChangelogInput {
	return ChangelogInput{File: file, Document: doc, Deck: quizgen.Deck(doc, ""), Generated: gen}
}

func ingest(t *testing.T, db *DB, doc *changelog.Document, opt IngestOptions) IngestResult {
	t.Helper()
	if opt.Now.IsZero() {
		opt.Now = t0
	}
	if opt.Actor == "" {
		opt.Actor = "test"
	}
	res, err := db.IngestChangelog(context.Background(), input(doc.Key, doc, testGenerate(doc)), opt)
	if err != nil {
		t.Fatalf("ingest %s: %v", doc.Key, err)
	}
	return res
}

func checksums(t *testing.T, db *DB) map[string]string {
	t.Helper()
	sums, err := db.TableChecksums(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// changedTables names the tables whose checksums differ.
func changedTables(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if before[k] != v {
			out = append(out, k)
		}
	}
	return out
}

func TestIngestChangelogTwiceIsUnchanged(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc := parseArticle(t, nodeArticle)
	before := checksums(t, db)

	// A dry run reports everything and writes nothing.
	dry := ingest(t, db, doc, IngestOptions{DryRun: true})
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Fatalf("dry run changed %v", got)
	}
	first := ingest(t, db, doc, IngestOptions{})
	dry.DocumentID, first.DocumentID = 0, 0
	for i := range dry.Questions {
		dry.Questions[i].ID, first.Questions[i].ID = 0, 0
	}
	if a, b := mustJSON(t, dry), mustJSON(t, first); a != b {
		t.Errorf("dry run and ingest differ:\n%s\n%s", a, b)
	}
	if first.Document != Added || !first.DeckCreated || first.Deck.Slug != "v1-36-sig-node" || first.Deck.Title != "v1.36 SIG-Node" {
		t.Errorf("first ingest: document %s, deck %+v created %v", first.Document, first.Deck, first.DeckCreated)
	}
	if first.Entries != 3 || first.EntriesByKind[changelog.KindFeature] != 2 || first.EntriesByKind[changelog.KindBugOrRegression] != 1 {
		t.Errorf("entries = %d %v, want 3: 2 features, 1 bug", first.Entries, first.EntriesByKind)
	}
	if first.StageChanges != 3 {
		t.Errorf("stage changes = %d, want 3 (GA in the text, alpha and beta in the note)", first.StageChanges)
	}
	want := map[string]GeneratorCounts{quizgen.GenTrueFalse: {Added: 3}, quizgen.GenStageInRelease: {Added: 1}}
	if !maps.Equal(first.Generators, want) {
		t.Errorf("generators = %v, want %v", first.Generators, want)
	}
	drafts, err := db.ListDrafts(ctx, DraftFilter{Document: doc.Key})
	if err != nil || len(drafts) != 4 {
		t.Fatalf("drafts = %d, %v; want 4", len(drafts), err)
	}
	if p := drafts[0].Provenance; p.Document != doc.Key || p.Entry == "" || p.SourceText == "" || p.Generator == "" {
		t.Errorf("provenance not stored: %+v", p)
	}
	// Drafts never reach learners.
	if pub, _ := db.DeckQuestions(ctx, "v1-36-sig-node", true); len(pub) != 0 {
		t.Errorf("published questions after ingest = %d, want 0", len(pub))
	}
	var stages int
	db.read.QueryRow(`SELECT count(*) FROM feature_stages`).Scan(&stages)
	if stages != 3 {
		t.Errorf("feature_stages rows = %d, want 3", stages)
	}

	// The same document again: every table but the import record is as it was.
	mid := checksums(t, db)
	again := ingest(t, db, doc, IngestOptions{Now: t0.Add(time.Hour)})
	if again.Document != Unchanged || again.Total() != (GeneratorCounts{Unchanged: 4}) {
		t.Errorf("second ingest: document %s, counts %+v; want unchanged", again.Document, again.Total())
	}
	if got := changedTables(mid, checksums(t, db)); len(got) != 1 || got[0] != "import_runs" {
		t.Errorf("re-ingest changed %v, want only import_runs", got)
	}
	runs, _ := db.ImportRuns(ctx, 5)
	if len(runs) != 2 || runs[0].Kind != "changelog" || runs[0].Unchanged != 4 || runs[1].Added != 4 {
		t.Errorf("import runs = %+v", runs)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIngestChangelogEditedDocumentUpdatesInPlace(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	doc := parseArticle(t, nodeArticle)
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
	// The admin publishes two questions and rewords the stage question.
	if n, err := db.PublishQuestions(ctx, "v1-36-sig-node", []int64{ids[gaID], ids[quotaID]}, t0); err != nil || n != 2 {
		t.Fatalf("publish = %d, %v", n, err)
	}
	stage, _ := db.Question(ctx, ids[stageID])
	edit := QuestionEdit{Prompt: "FooBarVolume は v1.36 でどの段階に?", Explanation: stage.Question.Explanation,
		Choices: stage.Question.Choices, Answer: stage.Question.Answer}
	if _, err := db.UpdateQuestionWording(ctx, ids[stageID], edit, t0); err != nil {
		t.Fatal(err)
	}

	// The file is edited: the quota entry is reworded, the bug fix removed,
	// and the GA note now says alpha came in 1.33.
	edited := strings.Replace(nodeArticle, "bazQuota 設定を追加した", "bazQuota 設定 (既定値 0) を追加した", 1)
	edited = strings.Replace(edited, "1.34 で alpha", "1.33 で alpha", 1)
	edited = edited[:strings.Index(edited, "\nBug or Regression")] + "\n"
	doc2 := parseArticle(t, edited)
	second := ingest(t, db, doc2, IngestOptions{Now: t0.Add(time.Hour)})

	if second.Document != Updated || second.DocumentID != first.DocumentID || second.DeckCreated {
		t.Errorf("document %s id %d (was %d), deck created %v; want updated in place", second.Document, second.DocumentID, first.DocumentID, second.DeckCreated)
	}
	byExt := map[string]QuestionOutcome{}
	for _, q := range second.Questions {
		byExt[q.ExtID] = q
	}
	wantOutcome := map[string]struct {
		o Outcome
		s quiz.Status
	}{
		gaID:    {Proposed, quiz.Published}, // its note changed: the new text waits beside the published one
		quotaID: {Proposed, quiz.Published}, // the same
		stageID: {KeptEdits, quiz.Draft},    // the note changed, but the admin's wording stays
		bugID:   {Retired, quiz.Retired},    // no longer generated
	}
	for ext, w := range wantOutcome {
		got := byExt[ext]
		if got.Outcome != w.o || got.Status != w.s || got.ID != ids[ext] {
			t.Errorf("%s: %s/%s row %d, want %s/%s row %d", ext, got.Outcome, got.Status, got.ID, w.o, w.s, ids[ext])
		}
	}
	quota, _ := db.Question(ctx, ids[quotaID])
	if strings.Contains(quota.Question.Answer, "既定値 0") || quota.Status != quiz.Published {
		t.Errorf("published question = %q (%s), want the published text kept", quota.Question.Answer, quota.Status)
	}
	props, err := db.Proposals(ctx, doc.Key)
	if err != nil || len(props) != 2 {
		t.Fatalf("proposals = %d, %v; want 2", len(props), err)
	}
	for _, p := range props {
		if p.Current.ID == ids[quotaID] && (!strings.Contains(p.Proposed.Answer, "既定値 0") || p.Current.Question.Answer != quota.Question.Answer) {
			t.Errorf("proposal for the quota question: %q beside %q", p.Proposed.Answer, p.Current.Question.Answer)
		}
	}
	stage, _ = db.Question(ctx, ids[stageID])
	if stage.Question.Prompt != edit.Prompt {
		t.Errorf("reworded prompt overwritten: %q", stage.Question.Prompt)
	}
	var entries, stages int
	db.read.QueryRow(`SELECT count(*) FROM changelog_entries`).Scan(&entries)
	db.read.QueryRow(`SELECT count(*) FROM feature_stages WHERE release = '1.33'`).Scan(&stages)
	if entries != 2 || stages != 1 {
		t.Errorf("after the edit: %d entries, %d stage rows in 1.33; want 2 and 1", entries, stages)
	}
	pub, _ := db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if len(pub) != 2 {
		t.Errorf("published = %d, want 2", len(pub))
	}
	// The edited file again changes nothing but the import record.
	mid := checksums(t, db)
	third := ingest(t, db, doc2, IngestOptions{Now: t0.Add(2 * time.Hour)})
	if got := changedTables(mid, checksums(t, db)); len(got) != 1 {
		t.Errorf("re-ingest of the edited file changed %v (counts %+v)", got, third.Total())
	}
	if tot := third.Total(); tot.KeptEdits != 1 || tot.Unchanged != 2 || tot.Added+tot.Updated+tot.Retired+tot.Proposed != 0 {
		t.Errorf("third ingest = %+v, want 2 unchanged (their proposals waiting as they were), 1 kept edits", tot)
	}

	// The admin accepts one proposal: learners see the new text, and the
	// next ingest finds the question as generated.
	accepted, err := db.AcceptProposal(ctx, ids[quotaID], t0.Add(3*time.Hour))
	if err != nil || !strings.Contains(accepted.Question.Answer, "既定値 0") || accepted.Status != quiz.Published || accepted.ID != ids[quotaID] {
		t.Fatalf("accept = %q (%s, row %d), %v", accepted.Question.Answer, accepted.Status, accepted.ID, err)
	}
	if _, err := db.AcceptProposal(ctx, ids[quotaID], t0); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("accepting again = %v, want not found", err)
	}
	fourth := ingest(t, db, doc2, IngestOptions{Now: t0.Add(4 * time.Hour)})
	for _, q := range fourth.Questions {
		if q.ExtID == quotaID && q.Outcome != Unchanged {
			t.Errorf("after accepting: %s %s, want unchanged", q.ExtID, q.Outcome)
		}
	}
	if props, _ := db.Proposals(ctx, ""); len(props) != 1 || props[0].Current.ID != ids[gaID] {
		t.Errorf("proposals after accepting one: %d", len(props))
	}
}

func TestIngestChangelogRollsBack(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	// A hand-written deck for 1.28 SIG-Network holds the id a generated
	// question of the second document will claim.
	yaml := strings.NewReplacer("slug: deck-net", "slug: v1-28-sig-network", `release: "1.36"`, `release: "1.28"`).
		Replace(deckYAML("deck-net", 1, nil))
	if _, err := db.ImportBank(ctx, []bank.Decoded{decodeFile(t, "net.yaml", yaml)}, ImportOptions{Actor: "test", Now: t0}); err != nil {
		t.Fatal(err)
	}
	before := checksums(t, db)

	node := parseArticle(t, nodeArticle)
	net := parseArticle(t, strings.NewReplacer("1.36", "1.28", "SIG-Node", "SIG-Network", "sig/node", "sig/network").Replace(nodeArticle))
	netGen := testGenerate(net)
	netGen[len(netGen)-1].Question.ExtID = "q-00000"
	inputs := []ChangelogInput{
		input("node.txt", node, testGenerate(node)),
		input("net.txt", net, netGen),
	}
	_, err := db.IngestChangelogs(ctx, inputs, IngestOptions{Actor: "test", Now: t0})
	if !errors.Is(err, quiz.ErrConflict) || !strings.Contains(err.Error(), "net.txt") {
		t.Fatalf("ingest = %v, want a conflict naming net.txt", err)
	}
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Errorf("a failed ingest changed %v", got)
	}

	// Refused before the transaction: no release, duplicate document, an
	// invalid generated question.
	noRelease := *node
	noRelease.Release = ""
	bad := testGenerate(node)
	bad[0].Question.Prompt = ""
	for name, in := range map[string][]ChangelogInput{
		"no release": {input("a.txt", &noRelease, nil)},
		"twice":      {input("a.txt", node, nil), input("b.txt", node, nil)},
		"invalid":    {input("a.txt", node, bad)},
		"no deck":    {{File: "a.txt", Document: node}},
	} {
		if _, err := db.IngestChangelogs(ctx, in, IngestOptions{Actor: "test", Now: t0}); !errors.Is(err, quiz.ErrInvalid) {
			t.Errorf("%s: err = %v, want invalid input", name, err)
		}
	}
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Errorf("refused ingests changed %v", got)
	}
}

// TestStoredDocumentsRoundTrip stores a full upstream CHANGELOG and reads it
// back unchanged.
func TestStoredDocumentsRoundTrip(t *testing.T) {
	src, err := os.ReadFile(testshared.Path(t, "changelogs", "CHANGELOG-1.36.0.md"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := newTestDB(t)
	doc, err := changelog.Parse(src, changelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.IngestChangelog(ctx, input(doc.Key, doc, nil), IngestOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deck.Slug != "v1-36-changelog" || res.Entries != len(doc.Entries) {
		t.Errorf("deck %s, %d entries; want v1-36-changelog, %d", res.Deck.Slug, res.Entries, len(doc.Entries))
	}
	stored, err := db.StoredDocuments(ctx)
	if err != nil || len(stored) != 1 {
		t.Fatalf("stored documents = %d, %v", len(stored), err)
	}
	if a, b := mustJSON(t, doc), mustJSON(t, stored[0]); a != b {
		t.Errorf("stored CHANGELOG differs from the parsed one (%d vs %d bytes of JSON)", len(a), len(b))
	}
}

// BenchmarkIngestChangelog stores the upstream 1.36 CHANGELOG (344 entries,
// 82 stage changes) with one stand-in question per entry plus one per
// stage-changing entry, into a fresh database and again unchanged, and
// reads the stored document back, as the timeline does
// (go test -run XXX -bench IngestChangelog ./internal/store).
func BenchmarkIngestChangelog(b *testing.B) {
	src, err := os.ReadFile(testshared.Path(b, "changelogs", "CHANGELOG-1.36.0.md"))
	if err != nil {
		b.Fatal(err)
	}
	doc, err := changelog.Parse(src, changelog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	gen := testGenerate(doc)
	in := input(doc.Key, doc, gen)
	ctx := context.Background()
	opt := IngestOptions{Actor: "bench", Now: t0}
	open := func(b *testing.B) *DB {
		db, err := Open(ctx, b.TempDir()+"/kubequiz.db")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := changelog.Parse(src, changelog.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			db := open(b)
			b.StartTimer()
			if _, err := db.IngestChangelog(ctx, in, opt); err != nil {
				b.Fatal(err)
			}
		}
	})
	db := open(b)
	if _, err := db.IngestChangelog(ctx, in, opt); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.IngestChangelog(ctx, in, opt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stored", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.StoredDocuments(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(len(gen)), "questions")
}

// TestIngestChangelogKeepsTheOtherFormat: an article and an upstream
// CHANGELOG read for the same release and SIG share a document key; the
// second is refused rather than replacing the first and retiring its
// questions.
func TestIngestChangelogKeepsTheOtherFormat(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	ingest(t, db, parseArticle(t, nodeArticle), IngestOptions{})
	before := checksums(t, db)
	up, err := changelog.Parse([]byte("## Changelog since v1.35.0\n\n## Changes by Kind\n\n### Feature\n\n"+
		"- The kubelet caches widgets. ([#910002](https://github.com/kubernetes/kubernetes/pull/910002), [@dev](https://github.com/dev)) [SIG Node]\n"),
		changelog.Options{SIG: "Node"})
	if err != nil {
		t.Fatal(err)
	}
	in := []ChangelogInput{input("CHANGELOG-1.36.md", up, testGenerate(up))}
	for _, dry := range []bool{true, false} {
		_, err := db.IngestChangelogs(ctx, in, IngestOptions{Actor: "test", Now: t0, DryRun: dry})
		if !errors.Is(err, quiz.ErrConflict) || !strings.Contains(err.Error(), "1.36/node is stored from") {
			t.Errorf("dry run %v: ingest of the upstream CHANGELOG = %v, want a conflict naming the stored document", dry, err)
		}
	}
	if got := changedTables(before, checksums(t, db)); len(got) > 0 {
		t.Errorf("a refused ingest changed %v", got)
	}
	// The article itself is read again as before.
	ingest(t, db, parseArticle(t, nodeArticle), IngestOptions{})
}
