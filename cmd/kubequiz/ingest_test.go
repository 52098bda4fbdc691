package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
)

// ingestArticle is a short made-up article about one release and SIG.
const ingestArticle = `Kubernetes 1.36: SIG-Node の変更内容

Feature

  • FooBarVolume を GA に昇格させた。 (#900001、@alice) [sig/node]
    • :pencil: 1.34 で alpha 導入、1.35 で beta になった機能です。
  • kubelet に bazQuota 設定を追加した。 (#900002、@bob) [sig/node]

Bug or Regression

  • kubelet の再起動時にまれに起こる panic を修正した。 (#900003、@carol) [sig/node]
`

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func dbChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sums, err := db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// TestIngestRefusesBadInput stores one article, then feeds the command each
// kind of bad file, alone and after a good one: every run must fail with one
// line naming the file, exit 1 (not a usage error), and leave every table as
// it was.
func TestIngestRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kubequiz.db")
	good := writeFile(t, dir, "good.txt", []byte(ingestArticle))
	if err := run(ctx, []string{"ingest", "-db", dbPath, good}, env(), nil, io.Discard, io.Discard); err != nil {
		t.Fatalf("ingesting the good article: %v", err)
	}
	// The same file edited, so that ingesting it would change the database.
	edited := writeFile(t, dir, "edited.txt", []byte(strings.Replace(ingestArticle, "bazQuota", "quxQuota", 1)))
	before := dbChecksums(t, dbPath)

	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty.md", nil, changelog.ErrEmpty},
		{"blank.md", []byte(" \n\t\n"), changelog.ErrEmpty},
		{"binary.md", []byte("# v1.36.0\n\x00\x01\x02 ELF"), changelog.ErrBinary},
		{"latin1.txt", []byte("Kubernetes 1.36: SIG-Node \xe9t\xe9\n"), changelog.ErrNotUTF8},
		{"prose.txt", []byte("Just a note about the weather, with no changelog in it.\n"), changelog.ErrUnknownFormat},
		{"huge.md", bytes.Repeat([]byte("- padding line for a changelog that is far too long\n"), (changelog.MaxDocumentSize/52)+2), changelog.ErrTooLarge},
		{"no-entries.md", []byte("# v1.36.0\n\n## Changes by Kind\n\n### Feature\n\nSee [#1](https://github.com/kubernetes/kubernetes/pull/1)\n"), changelog.ErrNoEntries},
	}
	for _, tc := range tests {
		bad := writeFile(t, dir, tc.name, tc.data)
		for _, args := range [][]string{{bad}, {edited, bad}} {
			t.Run(tc.name+"/"+map[int]string{1: "alone", 2: "after-a-good-file"}[len(args)], func(t *testing.T) {
				var stdout bytes.Buffer
				err := run(ctx, append([]string{"ingest", "-db", dbPath}, args...), env(), nil, &stdout, io.Discard)
				var ue usageError
				switch {
				case err == nil:
					t.Fatalf("ingest succeeded; stdout %s", stdout.String())
				case errors.As(err, &ue):
					t.Fatalf("err = usage error %v, want exit status 1", err)
				case !errors.Is(err, tc.want):
					t.Errorf("err = %v, want %v", err, tc.want)
				}
				msg := err.Error()
				if !strings.Contains(msg, bad) || strings.Contains(msg, "\n") {
					t.Errorf("message %q does not name %s on one line", msg, bad)
				}
				if got := dbChecksums(t, dbPath); !maps.Equal(before, got) {
					t.Errorf("a refused ingest changed the database")
				}
			})
		}
	}

	// Bad flags are usage errors (exit 2).
	for _, args := range [][]string{{"-format", "pdf", good}, {"-lang", "fr", good}, {}} {
		err := run(ctx, append([]string{"ingest", "-db", dbPath}, args...), env(), nil, io.Discard, io.Discard)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("ingest %v: err = %v, want a usage error", args, err)
		}
	}
	// A release the document does not state must be given.
	undated := writeFile(t, dir, "undated.txt", []byte(strings.Replace(ingestArticle, "Kubernetes 1.36: ", "", 1)))
	err := run(ctx, []string{"ingest", "-db", dbPath, undated}, env(), nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-release") {
		t.Errorf("undated article: err = %v, want a hint to give -release", err)
	}
	if got := dbChecksums(t, dbPath); !maps.Equal(before, got) {
		t.Errorf("refused ingests changed the database")
	}
}

func TestIngestDryRunJSONAndReingest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kubequiz.db")
	article := writeFile(t, dir, "node.txt", []byte(ingestArticle))
	if err := run(ctx, []string{"ingest", "-db", dbPath, "-dry-run", article}, env(), nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	before := dbChecksums(t, dbPath)

	var out bytes.Buffer
	if err := run(ctx, []string{"ingest", "-db", dbPath, "-dry-run", article}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1.36/node", "deck v1-36-sig-node", "feature 2", "bug_or_regression 1", "stage changes     3", "dry run, nothing written"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry-run output lacks %q:\n%s", want, out.String())
		}
	}
	if got := dbChecksums(t, dbPath); !maps.Equal(before, got) {
		t.Errorf("dry run changed the database")
	}

	out.Reset()
	if err := run(ctx, []string{"ingest", "-db", dbPath, "-dry-run", "-json", article}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var got struct {
		DryRun    bool `json:"dry_run"`
		Documents []struct {
			Document            changelog.Document  `json:"document"`
			StageChanges        []json.RawMessage   `json:"stage_changes"`
			EarlierStageChanges []json.RawMessage   `json:"earlier_stage_changes"`
			Questions           []quizgen.Generated `json:"questions"`
			Result              store.IngestResult  `json:"result"`
		} `json:"documents"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("-json output: %v\n%.300s", err, out.String())
	}
	if !got.DryRun || len(got.Documents) != 1 {
		t.Fatalf("-json: %+v", got)
	}
	d := got.Documents[0]
	// FooBarVolume's GA is 1.36's change; its alpha and beta, in the
	// note, are earlier ones.
	if len(d.Document.Entries) != 3 || d.Document.Entries[0].Text == "" || len(d.StageChanges) != 1 || len(d.EarlierStageChanges) != 2 || d.Result.Deck.Slug != "v1-36-sig-node" {
		t.Errorf("-json document: %d entries, %d stage changes and %d earlier ones, deck %q",
			len(d.Document.Entries), len(d.StageChanges), len(d.EarlierStageChanges), d.Result.Deck.Slug)
	}

	// Stored, then stored again: the second run reports the document unchanged.
	out.Reset()
	if err := run(ctx, []string{"ingest", "-db", dbPath, article}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "document added") || !strings.Contains(out.String(), "stored as drafts") {
		t.Errorf("first ingest output:\n%s", out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"ingest", "-db", dbPath, article}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "document unchanged") {
		t.Errorf("second ingest output:\n%s", out.String())
	}
	// On an empty database the bundled question bank came first, so the
	// article's questions share its deck.
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	decks, _ := db.ListDecks(ctx)
	if len(decks) < 2 {
		t.Errorf("decks after ingest = %d, want the bundled decks", len(decks))
	}
}

// TestIngestEndToEnd runs the real generators over the upstream 1.36
// CHANGELOG and a SIG-Node article: questions are stored as drafts, none is
// published, and a second run changes nothing.
func TestIngestEndToEnd(t *testing.T) {
	upstream := testshared.Path(t, "changelogs", "CHANGELOG-1.36.0.md")
	src, err := os.ReadFile(upstream)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := changelog.Parse(src, changelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := changelog.NewTimeline(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(quizgen.Generate(doc, tl, quizgen.Options{})) == 0 {
		t.Skip("quizgen.Generate returns no questions yet; this test runs once the generators are in")
	}
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kubequiz.db")
	article := writeFile(t, dir, "node.txt", []byte(ingestArticle))
	var out bytes.Buffer
	if err := run(ctx, []string{"ingest", "-db", dbPath, upstream, article}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	drafts, err := db.ListDrafts(ctx, store.DraftFilter{Document: doc.Key})
	if err != nil || len(drafts) == 0 {
		t.Fatalf("drafts of %s = %d, %v", doc.Key, len(drafts), err)
	}
	for _, d := range drafts[:min(len(drafts), 50)] {
		if d.Provenance.Generator == "" || d.Provenance.Document != doc.Key || d.Question.Validate() != nil {
			t.Errorf("draft %s: provenance %+v, validate %v", d.Question.ExtID, d.Provenance, d.Question.Validate())
		}
	}
	if pub, _ := db.DeckQuestions(ctx, "v1-36-changelog", true); len(pub) != 0 {
		t.Errorf("%d generated questions published without an admin", len(pub))
	}
	before, _ := db.TableChecksums(ctx)
	db.Close()

	out.Reset()
	if err := run(ctx, []string{"ingest", "-db", dbPath, upstream, article}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	after := dbChecksums(t, dbPath)
	delete(before, "import_runs")
	delete(after, "import_runs")
	if !maps.Equal(before, after) {
		t.Errorf("re-ingesting the same files changed the database:\n%s", out.String())
	}
}

// ingestUpstream is a short made-up upstream CHANGELOG with entries of two
// SIGs and one without a label.
const ingestUpstream = "## Changelog since v1.35.0\n\n## Changes by Kind\n\n### Feature\n\n" +
	"- Added widget routing to kube-proxy. ([#910001](https://github.com/kubernetes/kubernetes/pull/910001), [@dev](https://github.com/dev)) [SIG Network]\n" +
	"- The kubelet caches widgets. ([#910002](https://github.com/kubernetes/kubernetes/pull/910002), [@dev](https://github.com/dev)) [SIG Node]\n" +
	"- Widgets are faster. ([#910003](https://github.com/kubernetes/kubernetes/pull/910003), [@dev](https://github.com/dev))\n"

// TestIngestUpstreamForOneSIG: -sig leaves out an upstream CHANGELOG's
// entries of other SIGs only, keeps those without a label, and counts both.
func TestIngestUpstreamForOneSIG(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	up := writeFile(t, dir, "CHANGELOG-1.36.md", []byte(ingestUpstream))
	var out bytes.Buffer
	if err := run(ctx, []string{"ingest", "-db", filepath.Join(dir, "kubequiz.db"), "-dry-run", "-sig", "network", up}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1.36/network", "deck v1-36-sig-network", "entries           2: feature 2",
		"left out          1: labelled with other SIGs than Network only", "unlabelled        1: kept among the entries"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
