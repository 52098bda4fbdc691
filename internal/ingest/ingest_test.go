package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

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

// olderArticle is the 1.35 article of the same SIG: FooBarVolume's beta.
const olderArticle = `Kubernetes 1.35: SIG-Node の変更内容

Feature

  • FooBarVolume を beta に昇格させた。 (#800001、@alice) [sig/node]
`

func newTestDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "kubequiz.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// flashcards stands in for quizgen.Generate: one flashcard per entry.
func flashcards(doc *changelog.Document, _ *changelog.Timeline, _ quizgen.Options) []quizgen.Generated {
	var out []quizgen.Generated
	for _, e := range doc.Entries {
		id := strings.NewReplacer("/", "-", ".", "-").Replace(e.Key)
		out = append(out, quizgen.Generated{Question: quiz.Question{
			ExtID: "card-" + id, Type: quiz.Flashcard, Prompt: "この変更の内容は?", Answer: e.Text, Explanation: "出典: " + e.Text,
			Source: quiz.Source{Release: doc.Release, SIG: "SIG-Node", Kind: string(e.Kind), PRs: e.PRs},
		}, Provenance: quizgen.Provenance{Document: doc.Key, Entry: e.Key, PRs: e.PRs, SourceText: e.Text, Generator: quizgen.GenTrueFalse}})
	}
	return out
}

// save prepares and stores the sources with p, as the command does.
func save(t *testing.T, p *Pipeline, srcs ...Source) []store.IngestResult {
	t.Helper()
	ctx := context.Background()
	b, problems, err := p.Prepare(ctx, srcs, Options{}, nil)
	if err != nil || len(problems) > 0 {
		t.Fatalf("prepare: %v, problems %v", err, problems)
	}
	res, err := p.Save(ctx, b, SaveOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	return res
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTimelineWithStoredDocuments(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	save(t, New(db, Plain(flashcards)), Source{Name: "node-1.35.txt", Data: []byte(olderArticle)})
	older, err := Parse(context.Background(), Source{Data: []byte(olderArticle)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := db.StoredDocuments(ctx)
	if err != nil || len(stored) != 1 {
		t.Fatalf("stored documents = %d, %v", len(stored), err)
	}
	if a, b := mustJSON(t, older), mustJSON(t, stored[0]); a != b {
		t.Errorf("stored document differs from the parsed one:\n%s\n%s", a, b)
	}

	// The generators see the timeline of the stored documents and the new one.
	var tl *changelog.Timeline
	p := New(db, Plain(func(doc *changelog.Document, got *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		tl = got
		return nil
	}))
	if _, _, err := p.Prepare(ctx, []Source{{Name: "node-1.36.txt", Data: []byte(nodeArticle)}}, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if rel, ok := tl.ReleaseOf("FooBarVolume", changelog.StageGA); !ok || rel != "1.36" {
		t.Errorf("GA release = %q, %v; want 1.36 from the new document", rel, ok)
	}
	if ev, ok := tl.StageIn("FooBarVolume", "1.35"); !ok || ev.Stage != changelog.StageBeta {
		t.Errorf("1.35 stage = %+v, %v; want beta", ev, ok)
	}
	// A new version of a stored document takes its place in the timeline.
	fixed := strings.Replace(olderArticle, "beta に昇格させた", "alpha として追加した", 1)
	if _, _, err := p.Prepare(ctx, []Source{{Name: "node-1.35.txt", Data: []byte(fixed)}}, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if h := tl.History("FooBarVolume"); len(h) != 1 || h[0].Stage != changelog.StageAlpha {
		t.Errorf("history with the fixed 1.35 document = %+v, want only its alpha", h)
	}
}

// TestPrepare: every source that cannot be ingested is reported, in order,
// and nothing is generated; otherwise each document gets its deck and its
// questions, and progress is told of every step.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	generated := 0
	p := New(db, Plain(func(doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		generated++
		return flashcards(doc, tl, opt)
	}))
	var steps []string
	progress := func(step Step, file string, i, n int) {
		steps = append(steps, fmt.Sprintf("%d %s %d/%d", step, file, i, n))
	}

	undated := strings.Replace(nodeArticle, "Kubernetes 1.36: ", "", 1)
	b, problems, err := p.Prepare(ctx, []Source{{"empty.md", nil}, {"node.txt", []byte(nodeArticle)}, {"undated.txt", []byte(undated)}}, Options{}, progress)
	if err != nil || len(b.Inputs) != 0 || generated != 0 {
		t.Fatalf("prepare with bad sources = %d inputs, %v; %d generated", len(b.Inputs), err, generated)
	}
	if len(problems) != 2 || problems[0].File != "empty.md" || !errors.Is(problems[0].Err, changelog.ErrEmpty) ||
		problems[1].File != "undated.txt" || !errors.Is(problems[1].Err, changelog.ErrNoRelease) {
		t.Errorf("problems = %+v, want empty.md (empty) and undated.txt (no release)", problems)
	}
	steps = nil
	b, problems, err = p.Prepare(ctx, []Source{{"node.txt", []byte(nodeArticle)}, {"older.txt", []byte(olderArticle)}}, Options{}, progress)
	if err != nil || len(problems) > 0 || len(b.Inputs) != 2 {
		t.Fatalf("prepare = %d inputs, %v, %v", len(b.Inputs), problems, err)
	}
	want := []string{"0 node.txt 0/2", "0 older.txt 1/2", "1 node.txt 0/2", "1 older.txt 1/2"}
	if !slices.Equal(steps, want) {
		t.Errorf("progress = %q, want %q", steps, want)
	}
	if in := b.Inputs[1]; in.File != "older.txt" || in.Deck.Slug != "v1-35-sig-node" || in.Deck.Language != "ja" || len(in.Generated) != 1 {
		t.Errorf("input = %s, deck %+v, %d questions", in.File, in.Deck, len(in.Generated))
	}
	if b.Questions() != 4 {
		t.Errorf("questions = %d, want 4", b.Questions())
	}
	// The release and SIG given, the undated article is read; the language
	// names the deck's.
	b, problems, err = p.Prepare(ctx, []Source{{"undated.txt", []byte(undated)}}, Options{Release: "1.35", SIG: "Node", Lang: quizgen.LangEnglish}, nil)
	if err != nil || len(problems) > 0 || len(b.Inputs) != 1 {
		t.Fatalf("prepare with a release = %d inputs, %v, %v", len(b.Inputs), problems, err)
	}
	if in := b.Inputs[0]; in.Document.Release != "1.35" || in.Deck.Slug != "v1-35-sig-node" || in.Deck.Language != "en" {
		t.Errorf("undated article: release %s, deck %+v", in.Document.Release, in.Deck)
	}
}

// TestSave: a dry run reports what a save stores and stores nothing; the
// digest of the same sources is the same until the stored timeline moves.
func TestSave(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	p := New(db, Plain(func(doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		out := flashcards(doc, tl, opt)
		for i := range out {
			out[i].Question.Explanation += fmt.Sprintf(" (%d events)", len(tl.History("FooBarVolume")))
		}
		return out
	}))
	srcs := []Source{{Name: "node-1.36.txt", Data: []byte(nodeArticle)}}
	prepare := func() (Batch, string) {
		t.Helper()
		b, problems, err := p.Prepare(ctx, srcs, Options{}, nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("prepare: %v, %v", problems, err)
		}
		digest, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return b, digest
	}
	b, digest := prepare()
	dry, err := p.Save(ctx, b, SaveOptions{Actor: "preview", Now: t0, DryRun: true})
	if err != nil || len(dry) != 1 || dry[0].Document != store.Added || dry[0].Total().Added != 3 {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if docs, _ := db.ChangelogDocuments(ctx); len(docs) != 0 {
		t.Errorf("a dry run stored %d documents", len(docs))
	}
	if _, again := prepare(); again != digest {
		t.Error("the same sources have another digest")
	}
	save(t, p, Source{Name: "node-1.35.txt", Data: []byte(olderArticle)})
	b, moved := prepare()
	if moved == digest {
		t.Error("the digest stayed when the stored timeline moved")
	}
	res, err := p.Save(ctx, b, SaveOptions{Actor: "test", Now: t0})
	if err != nil || len(res) != 1 || res[0].Deck.Slug != "v1-36-sig-node" || !res[0].DeckCreated {
		t.Fatalf("save = %+v, %v", res, err)
	}
	// The 1.36 article adds to FooBarVolume's history, which the stored
	// 1.35 article tells: its questions were generated again, and that is
	// recorded too.
	if runs, err := db.ImportRuns(ctx, 10); err != nil || len(runs) != 3 || runs[0].FileName != "node-1.35.txt" || runs[0].Updated != 1 {
		t.Errorf("import runs = %+v, %v; want 3, the newest the 1.35 article's questions generated again", runs, err)
	}
}

// TestCurrent: a batch kept from a preview is current until another
// ingest changes the stored documents its timeline was built from; a dry
// run changes nothing.
func TestCurrent(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	p := New(db, Plain(flashcards))
	b, problems, err := p.Prepare(ctx, []Source{{Name: "node-1.36.txt", Data: []byte(nodeArticle)}}, Options{}, nil)
	if err != nil || len(problems) > 0 {
		t.Fatalf("prepare: %v, %v", problems, err)
	}
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"as prepared", func() {}, true},
		{"after a dry run", func() {
			if _, err := p.Save(ctx, b, SaveOptions{Actor: "preview", Now: t0, DryRun: true}); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"after another document is stored", func() { save(t, p, Source{Name: "node-1.35.txt", Data: []byte(olderArticle)}) }, false},
	}
	for _, st := range steps {
		st.do()
		if got, err := p.Current(ctx, b); err != nil || got != st.want {
			t.Errorf("%s: Current = %v, %v; want %v", st.name, got, err, st.want)
		}
	}
}

// TestPrepareStops: a done context stops the parse and the generation, and
// the error says so.
func TestPrepareStops(t *testing.T) {
	db := newTestDB(t)
	srcs := []Source{{Name: "node-1.36.txt", Data: []byte(nodeArticle)}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	generated := 0
	gen := Plain(func(doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		generated++
		return flashcards(doc, tl, opt)
	})
	// The parse has its context; a generation whose own context is done
	// stops too.
	stopsInGenerate := func(ctx context.Context, doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) ([]quizgen.Generated, error) {
		return gen(cancelled, doc, tl, opt)
	}
	tests := []struct {
		name string
		ctx  context.Context
		gen  Generator
	}{
		{"in the parse", cancelled, gen},
		{"in the generation", context.Background(), stopsInGenerate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, problems, err := New(db, tt.gen).Prepare(tt.ctx, srcs, Options{}, nil)
			if !errors.Is(err, context.Canceled) || len(problems) > 0 || len(b.Inputs) > 0 {
				t.Errorf("Prepare = %d inputs, problems %v, %v; want context.Canceled", len(b.Inputs), problems, err)
			}
		})
	}
	if generated != 0 {
		t.Errorf("generated %d times after the context was done", generated)
	}
}

// BenchmarkTimeline generates from the upstream 1.36 CHANGELOG, which is
// stored, with a generator that does nothing: the stored documents read
// back, the timeline built and each deck named
// (go test -run XXX -bench Timeline ./internal/ingest).
func BenchmarkTimeline(b *testing.B) {
	src, err := os.ReadFile(testshared.Path(b, "changelogs", "CHANGELOG-1.36.0.md"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	p := New(newTestDB(b), Plain(func(*changelog.Document, *changelog.Timeline, quizgen.Options) []quizgen.Generated { return nil }))
	batch, problems, err := p.Prepare(ctx, []Source{{Name: "CHANGELOG-1.36.0.md", Data: src}}, Options{}, nil)
	if err != nil || len(problems) > 0 {
		b.Fatal(problems, err)
	}
	if _, err := p.Save(ctx, batch, SaveOptions{Actor: "bench", Now: t0}); err != nil {
		b.Fatal(err)
	}
	docs := []Parsed{{File: "CHANGELOG-1.36.0.md", Document: batch.Inputs[0].Document}}
	for b.Loop() {
		if _, err := p.Generate(ctx, docs, "", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIngestLarge ingests the 2 MiB synthetic CHANGELOG
// (testshared.SyntheticChangelog: 14,108 entries, 28,216 drafts) with the
// real generator into a fresh database file each time, as the preview
// job (prepare, then a dry-run save: preview) and `kubequiz ingest` or an
// applied preview (prepare, then a save in one transaction: save) do.
// peak-MB is the most heap in use while it ran, sampled every millisecond
// (go test -run XXX -bench IngestLarge -benchtime 3x ./internal/ingest).
func BenchmarkIngestLarge(b *testing.B) {
	ctx := context.Background()
	src := []Source{{Name: "CHANGELOG-1.99.md", Data: testshared.SyntheticChangelog(changelog.MaxDocumentSize)}}
	for _, dryRun := range []bool{true, false} {
		name := "save"
		if dryRun {
			name = "preview"
		}
		b.Run(name, func(b *testing.B) {
			drafts := 0
			peak := testshared.WatchHeap()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, err := store.Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("large-%d.db", i)))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				p := New(db, quizgen.GenerateContext)
				batch, problems, err := p.Prepare(ctx, src, Options{}, nil)
				if err != nil || len(problems) > 0 {
					b.Fatal(problems, err)
				}
				if _, err := p.Save(ctx, batch, SaveOptions{Actor: "bench", DryRun: dryRun, Now: t0}); err != nil {
					b.Fatal(err)
				}
				drafts = batch.Questions()
				b.StopTimer()
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(drafts), "drafts")
			b.ReportMetric(float64(peak())/(1<<20), "peak-MB")
		})
	}
}
