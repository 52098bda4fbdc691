package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/ingest"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
)

// ingestCmd is `kubequiz ingest [flags] FILE...`: parse changelog documents,
// generate draft questions and store both in one transaction.
func ingestCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ingest", stderr)
	var dbPath string
	stringVar(fs, &dbPath, settingDB, getenv)
	release := fs.String("release", "", "the documents' release, e.g. 1.36 (default: detected)")
	sig := fs.String("sig", "", "the documents' SIG, e.g. Node (default: detected); an upstream CHANGELOG then leaves out the entries labelled with other SIGs only")
	format := fs.String("format", "", "layout: "+formatNames()+" (default: detected)")
	lang := fs.String("lang", "ja", "language of the question templates: ja or en")
	dryRun := fs.Bool("dry-run", false, "show what would be stored; write nothing")
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kubequiz ingest [-release X] [-sig Y] [-format F] [-lang ja|en] [-dry-run] [-json] [-db FILE] FILE...\n\n"+
			"FILE is an upstream CHANGELOG markdown file, the JSON of the release-notes tool (relnotes.k8s.io;\n"+
			"give -release when its notes carry no release_version) or a plain-text article about one release and SIG.\n"+
			"Questions are stored as drafts; an admin publishes them at /admin/ingest.")
		fs.PrintDefaults()
	}
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		fs.Usage()
		return usageError{"ingest: no file given"}
	}
	opts := ingest.Options{Format: changelog.Format(*format), Release: *release, SIG: *sig, Lang: *lang}
	if opts.Format != "" && !opts.Format.Valid() {
		return usageError{fmt.Sprintf("-format %q: want %s", *format, formatNames())}
	}
	if *lang != quizgen.LangJapanese && *lang != quizgen.LangEnglish {
		return usageError{fmt.Sprintf("-lang %q: want ja or en", *lang)}
	}

	// Every file is read and parsed before the database is opened: a bad
	// file stops the command with nothing touched.
	docs := make([]ingest.Parsed, 0, len(names))
	for _, name := range names {
		doc, err := parseChangelogFile(ctx, name, opts)
		if err != nil {
			return err
		}
		docs = append(docs, ingest.Parsed{File: name, Document: doc})
	}

	// As serve does on first start, the bundled question bank is loaded
	// into a database without decks: the generated questions of a release
	// and SIG share the bundled deck, which must be there first.
	db, closeDB, err := openCommandDB(ctx, dbPath, writing(*dryRun), stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	p := ingest.New(db, quizgen.GenerateContext)
	batch, err := p.Generate(ctx, docs, opts.Lang, nil)
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	saved, err := p.SaveAll(ctx, batch, ingest.SaveOptions{Actor: "cli", DryRun: *dryRun, Now: time.Now()})
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if *asJSON {
		return printIngestJSON(stdout, batch, saved, *dryRun)
	}
	printIngest(stdout, batch.Inputs, saved.Results, *dryRun)
	printRegenerated(stdout, batch.Regenerated, saved.Regenerated)
	return nil
}

// formatNames lists the names -format accepts: "a, b or c".
func formatNames() string {
	fs := changelog.Formats()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// parseChangelogFile reads and parses one document. A file over the size
// limit is refused before it is read whole. Errors are one line that names
// the file.
func parseChangelogFile(ctx context.Context, name string, opts ingest.Options) (*changelog.Document, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("ingest: %s: is a folder, not a changelog file", name)
	}
	if fi.Size() > changelog.MaxDocumentSize {
		return nil, fmt.Errorf("ingest: %s: %d bytes, over the limit of %d: %w", name, fi.Size(), changelog.MaxDocumentSize, changelog.ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, changelog.MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("ingest: read %s: %w", name, err)
	}
	doc, err := ingest.Parse(ctx, ingest.Source{Name: name, Data: b}, opts)
	if errors.Is(err, changelog.ErrNoRelease) {
		return nil, fmt.Errorf("ingest: %s: %v; give it with -release", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("ingest: %s: %w", name, err)
	}
	return doc, nil
}

func printIngest(out io.Writer, inputs []store.ChangelogInput, results []store.IngestResult, dryRun bool) {
	total := 0
	for i, r := range results {
		doc := inputs[i].Document
		deck := r.Deck.Slug
		if r.DeckCreated {
			deck += " (new deck)"
		}
		title := doc.Title
		if title == "" {
			title = string(doc.Format)
		}
		fmt.Fprintf(out, "%s: %s %q, document %s, deck %s\n", r.File, doc.Key, title, r.Document, deck)
		kinds := make([]string, 0, len(r.EntriesByKind))
		for k := range r.EntriesByKind {
			kinds = append(kinds, string(k))
		}
		sort.Slice(kinds, func(a, b int) bool {
			ka, kb := changelog.Kind(kinds[a]), changelog.Kind(kinds[b])
			if r.EntriesByKind[ka] != r.EntriesByKind[kb] {
				return r.EntriesByKind[ka] > r.EntriesByKind[kb]
			}
			return kinds[a] < kinds[b]
		})
		parts := make([]string, len(kinds))
		for j, k := range kinds {
			parts[j] = fmt.Sprintf("%s %d", k, r.EntriesByKind[changelog.Kind(k)])
		}
		fmt.Fprintf(out, "  entries        %4d: %s\n", r.Entries, strings.Join(parts, ", "))
		if doc.OtherSIGs > 0 {
			fmt.Fprintf(out, "  left out       %4d: labelled with other SIGs than %s only\n", doc.OtherSIGs, doc.SIG)
		}
		if doc.Unlabelled > 0 {
			fmt.Fprintf(out, "  unlabelled     %4d: kept among the entries, as they may be %s's\n", doc.Unlabelled, doc.SIG)
		}
		for _, k := range sortedKeys(r.SharedEntries) {
			fmt.Fprintf(out, "  already stored %4d: the same notes, stored from %s\n", r.SharedEntries[k], k)
		}
		fmt.Fprintf(out, "  stage changes  %4d\n", r.StageChanges)
		n := len(inputs[i].Generated)
		total += n
		fmt.Fprintf(out, "  questions      %4d\n", n)
		printCounts(out, r)
		for _, k := range sortedKeys(r.AskedElsewhere) {
			fmt.Fprintf(out, "  already asked  %4d: facts whose question is in the deck of %s\n", r.AskedElsewhere[k], k)
		}
	}
	verb := "stored as drafts"
	if dryRun {
		verb = "dry run, nothing written"
	}
	fmt.Fprintf(out, "%d document(s), %d question(s) (%s)\n", len(results), total, verb)
}

// printCounts prints what the ingest did to each generator's questions.
func printCounts(out io.Writer, r store.IngestResult) {
	for _, g := range sortedKeys(r.Generators) {
		c := r.Generators[g]
		fmt.Fprintf(out, "    %-26s %4d added, %d updated, %d unchanged, %d kept edits, %d proposed, %d retired\n",
			g, c.Added, c.Updated, c.Unchanged, c.KeptEdits, c.Proposed, c.Retired)
	}
}

// printRegenerated tells which stored documents had their questions
// generated again, as the batch changed the history of their features.
func printRegenerated(out io.Writer, inputs []store.ChangelogInput, results []store.IngestResult) {
	for i, r := range results {
		t := r.Total()
		if t.Added+t.Updated+t.Proposed+t.Retired == 0 {
			continue
		}
		fmt.Fprintf(out, "%s: %s, generated again with the new history: %d question(s), deck %s\n",
			r.File, r.DocumentKey, len(inputs[i].Generated), r.Deck.Slug)
		printCounts(out, r)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ingestJSON is what -json prints for one document. StageChanges are the
// changes of the document's release, each (PR, stage, feature) once, in
// the order the entries state them; EarlierStageChanges those of earlier
// releases the document recalls ("alpha in 1.31"), which the timeline
// uses. The entries keep every statement, each where it was read.
type ingestJSON struct {
	File                string              `json:"file"`
	Document            *changelog.Document `json:"document"`
	StageChanges        []stageChangeJSON   `json:"stage_changes"`
	EarlierStageChanges []stageChangeJSON   `json:"earlier_stage_changes"`
	Questions           []quizgen.Generated `json:"questions"`
	Result              store.IngestResult  `json:"result"`
}

type stageChangeJSON struct {
	Entry string `json:"entry"`
	changelog.StageChange
}

// sameFact reports whether two stage changes state one fact again (in a
// note, under another kind, in a highlight): the same stage by the same
// PR, of features spelt alike, or, stated by two entries, one with a
// longer name ("DRA Device Binding Conditions" in a highlight and "Device
// Binding Conditions" in its entry). One entry may change two gates whose
// names contain one another (CSIMigration and CSIMigrationGCE).
func sameFact(a, b changelog.StageChange, twoEntries bool) bool {
	if a.Stage != b.Stage || a.PR != b.PR {
		return false
	}
	if changelog.FeatureKey(a.Feature) == changelog.FeatureKey(b.Feature) {
		return true
	}
	return twoEntries && a.PR > 0 && (wordsWithin(a.Feature, b.Feature) || wordsWithin(b.Feature, a.Feature))
}

// wordsWithin reports whether the words of short are words of long in a
// row, in any case and number, "/" and "&" read as "and" ("Immutable
// Secrets/ConfigMaps" within "Immutable Secrets and ConfigMaps").
func wordsWithin(short, long string) bool {
	s, l := factWords(short), factWords(long)
	for i := 0; i+len(s) <= len(l); i++ {
		if slices.Equal(l[i:i+len(s)], s) {
			return true
		}
	}
	return false
}

var andSpelling = strings.NewReplacer("/", " and ", "&", " and ")

func factWords(name string) []string {
	ws := strings.Fields(strings.ToLower(andSpelling.Replace(name)))
	for i, w := range ws {
		if len(w) > 3 {
			ws[i] = strings.TrimSuffix(w, "s")
		}
	}
	return ws
}

// regeneratedJSON is what -json prints for a stored document whose
// questions were generated again.
type regeneratedJSON struct {
	File      string              `json:"file"`
	Document  string              `json:"document"`
	Questions []quizgen.Generated `json:"questions"`
	Result    store.IngestResult  `json:"result"`
}

func printIngestJSON(out io.Writer, batch ingest.Batch, saved ingest.Saved, dryRun bool) error {
	inputs, results := batch.Inputs, saved.Results
	docs := make([]ingestJSON, len(inputs))
	for i, in := range inputs {
		d := ingestJSON{File: in.File, Document: in.Document, StageChanges: []stageChangeJSON{}, EarlierStageChanges: []stageChangeJSON{},
			Questions: in.Generated, Result: results[i]}
		if d.Questions == nil {
			d.Questions = []quizgen.Generated{}
		}
		for _, e := range in.Document.Entries {
			for _, sc := range e.Stages {
				if changelog.CompareReleases(sc.Release, in.Document.Release) != 0 {
					d.EarlierStageChanges = append(d.EarlierStageChanges, stageChangeJSON{Entry: e.Key, StageChange: sc})
					continue
				}
				if !slices.ContainsFunc(d.StageChanges, func(o stageChangeJSON) bool { return sameFact(o.StageChange, sc, o.Entry != e.Key) }) {
					d.StageChanges = append(d.StageChanges, stageChangeJSON{Entry: e.Key, StageChange: sc})
				}
			}
		}
		docs[i] = d
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	regen := make([]regeneratedJSON, len(batch.Regenerated))
	for i, in := range batch.Regenerated {
		regen[i] = regeneratedJSON{File: in.File, Document: in.Document.Key, Questions: in.Generated, Result: saved.Regenerated[i]}
		if regen[i].Questions == nil {
			regen[i].Questions = []quizgen.Generated{}
		}
	}
	if err := enc.Encode(struct {
		DryRun      bool              `json:"dry_run"`
		Documents   []ingestJSON      `json:"documents"`
		Regenerated []regeneratedJSON `json:"regenerated"`
	}{dryRun, docs, regen}); err != nil {
		return fmt.Errorf("ingest: write json: %w", err)
	}
	return nil
}
