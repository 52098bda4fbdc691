// Package ingest is kubequiz's content pipeline: it turns changelog
// documents into stored documents and draft questions. `kubequiz ingest`
// and the admin's /admin/ingest both run it, in three steps:
//
//  1. Parse reads each source (internal/changelog) with the options given;
//     a document whose release is neither stated nor given is refused.
//  2. Pipeline.Generate builds the feature timeline from the stored
//     documents and the new ones, a new document taking the place of the
//     stored one with its key, and generates each new document's draft
//     questions (internal/quizgen) for the deck of its release, SIG and
//     language. It then ties the batch to what is stored (history.go):
//     entries the CHANGELOG and the release-notes JSON of a release
//     share are stored once, stored documents whose features' history
//     the batch changes have their questions generated again, and each
//     fact is asked once, in the deck of the document stored first.
//  3. Pipeline.Save stores the batch through internal/store in one
//     transaction, or computes what it would store (a dry run).
//
// Pipeline.Prepare runs the first two steps over every source, as the
// admin pages do; the command parses each file as it reads it, before it
// opens the database, and then calls Generate. Parsing and generating
// stop when their context is done. A batch kept from a preview is saved
// as it is when Pipeline.Current finds the stored documents unchanged. Apart from the database the
// package does no I/O: sources come as bytes, and the time of a save is
// given.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
)

// Source is one document to ingest: its file's name, for messages and the
// import record, and its bytes.
type Source struct {
	Name string
	Data []byte
}

// Options are an ingest's choices. An empty field is detected from each
// document.
type Options struct {
	Release string           // e.g. "1.36"
	SIG     string           // e.g. "Node": an upstream CHANGELOG then leaves out the entries labelled with other SIGs only
	Format  changelog.Format // one of changelog.Formats
	// Lang is the language of the question templates and of a deck created
	// for them: "ja" (the default) or "en".
	Lang string
}

// Parsed is a parsed document and the file it was read from.
type Parsed struct {
	File     string
	Document *changelog.Document
}

// Problem is a source that cannot be ingested, and why.
type Problem struct {
	File string
	Err  error
}

// Step is the step of the pipeline that a progress report is about.
type Step int

// Steps.
const (
	StepParse    Step = iota // a source is parsed
	StepGenerate             // a document's questions are generated
)

// Progress is told before each source is parsed and before each
// document's questions are generated: the step, the file, and how many of
// the n files of that step came before it. Nil is not told.
type Progress func(step Step, file string, i, n int)

func (p Progress) report(step Step, file string, i, n int) {
	if p != nil {
		p(step, file, i, n)
	}
}

// Generator builds a document's draft questions with the timeline, and
// stops with ctx's error when ctx is done; quizgen.GenerateContext is the
// real one.
type Generator func(ctx context.Context, doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) ([]quizgen.Generated, error)

// Plain makes a Generator of a generator that takes no context: it is not
// called once ctx is done. Tests use it for their stand-ins.
func Plain(gen func(*changelog.Document, *changelog.Timeline, quizgen.Options) []quizgen.Generated) Generator {
	return func(ctx context.Context, doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) ([]quizgen.Generated, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return gen(doc, tl, opt), nil
	}
}

// Parse parses one source, and stops with ctx's error when ctx is done. A
// document whose release is neither stated nor given in opt is refused
// with changelog.ErrNoRelease. The error is the parser's own, for the
// caller to name the file.
func Parse(ctx context.Context, src Source, opt Options) (*changelog.Document, error) {
	doc, err := changelog.ParseContext(ctx, src.Data, changelog.Options{Format: opt.Format, Release: opt.Release, SIG: opt.SIG})
	if err != nil {
		return nil, err
	}
	if doc.Release == "" {
		if doc.Format == changelog.FormatReleaseNotesJSON {
			return nil, fmt.Errorf("the release-notes JSON does not say its release (no note carries a release_version, and a file's name is not read): %w", changelog.ErrNoRelease)
		}
		return nil, fmt.Errorf("the release could not be detected: %w", changelog.ErrNoRelease)
	}
	return doc, nil
}

// ParseAll parses every source in order. A source that cannot be ingested
// is a Problem, not an error: all of them are reported. When ctx is done it
// stops with ctx's error.
func ParseAll(ctx context.Context, srcs []Source, opt Options, progress Progress) ([]Parsed, []Problem, error) {
	var (
		docs     []Parsed
		problems []Problem
	)
	for i, src := range srcs {
		progress.report(StepParse, src.Name, i, len(srcs))
		doc, err := Parse(ctx, src, opt)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, nil, fmt.Errorf("parse %s: %w", src.Name, ctxErr)
		}
		if err != nil {
			problems = append(problems, Problem{File: src.Name, Err: err})
			continue
		}
		docs = append(docs, Parsed{File: src.Name, Document: doc})
	}
	return docs, problems, nil
}

// Batch is parsed documents ready to store, each with its deck and its
// generated questions, in the order of their sources.
type Batch struct {
	Inputs []store.ChangelogInput
	// Regenerated are stored documents, in the order they were stored,
	// whose questions were generated again because the batch changes the
	// history of a feature they mention.
	Regenerated []store.ChangelogInput
	// Stored sums up the stored documents the batch's timeline was built
	// from (see storedDigest); Current compares it with the store's.
	Stored string
}

// Questions counts the batch's generated questions.
func (b Batch) Questions() int {
	n := 0
	for _, in := range b.Inputs {
		n += len(in.Generated)
	}
	return n
}

// Digest sums up what saving the batch would store: each document as
// parsed and each generated question with its provenance. A save compares
// it with its preview's: the stored timeline may have moved in between.
func (b Batch) Digest() (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, in := range b.Inputs {
		if err := enc.Encode(struct {
			File      string
			Document  *changelog.Document
			Generated []quizgen.Generated
			Shared    []store.SharedEntry
			Sources   []store.FactSource
		}{in.File, in.Document, in.Generated, in.Shared, in.Sources}); err != nil {
			return "", fmt.Errorf("digest of %s: %w", in.File, err)
		}
	}
	for _, in := range b.Regenerated {
		if err := enc.Encode(struct {
			Regenerated string
			Generated   []quizgen.Generated
			Sources     []store.FactSource
		}{in.Document.Key, in.Generated, in.Sources}); err != nil {
			return "", fmt.Errorf("digest of %s: %w", in.Document.Key, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Pipeline generates and stores documents with one database and one
// generator.
type Pipeline struct {
	db       *store.DB
	generate Generator
}

// New returns the pipeline of db. generate builds the questions; nil
// means quizgen.GenerateContext.
func New(db *store.DB, generate Generator) *Pipeline {
	if generate == nil {
		generate = quizgen.GenerateContext
	}
	return &Pipeline{db: db, generate: generate}
}

// Prepare parses every source and, when all of them parse, generates their
// questions (Generate). Sources that cannot be ingested are problems, not
// errors: all of them are reported, and nothing is generated.
func (p *Pipeline) Prepare(ctx context.Context, srcs []Source, opt Options, progress Progress) (Batch, []Problem, error) {
	docs, problems, err := ParseAll(ctx, srcs, opt, progress)
	if err != nil {
		return Batch{}, nil, err
	}
	if len(problems) > 0 {
		return Batch{}, problems, nil
	}
	b, err := p.Generate(ctx, docs, opt.Lang, progress)
	return b, nil, err
}

// Generate builds the timeline of the stored documents and docs and
// generates each document's questions in lang, for its deck. When ctx is
// done it stops with ctx's error.
func (p *Pipeline) Generate(ctx context.Context, docs []Parsed, lang string, progress Progress) (Batch, error) {
	stored, err := p.db.StoredDocuments(ctx)
	if err != nil {
		return Batch{}, err
	}
	sum, err := storedDigest(stored)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{Inputs: make([]store.ChangelogInput, len(docs)), Stored: sum}
	for i, d := range docs {
		b.Inputs[i] = store.ChangelogInput{File: d.File, Document: d.Document, Deck: quizgen.Deck(d.Document, lang)}
	}
	// The timeline and the generators read each document as it will be
	// stored: without the notes another document holds (history.go).
	own := shareNotes(b.Inputs, stored)
	tl, err := timeline(stored, own)
	if err != nil {
		return Batch{}, err
	}
	for i, d := range own {
		progress.report(StepGenerate, d.File, i, len(docs))
		gen, err := p.generate(ctx, d.Document, tl, quizgen.Options{Language: lang})
		if err != nil {
			return Batch{}, fmt.Errorf("generate %s: %w", d.File, err)
		}
		b.Inputs[i].Generated = gen
	}
	if err := p.connect(ctx, &b, stored, tl); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// Current reports whether the stored documents are still those the
// batch's timeline was built from: a batch generated earlier (a preview)
// may be saved as it is only then, since another ingest in between would
// change its questions.
func (p *Pipeline) Current(ctx context.Context, b Batch) (bool, error) {
	stored, err := p.db.StoredDocuments(ctx)
	if err != nil {
		return false, err
	}
	sum, err := storedDigest(stored)
	if err != nil {
		return false, err
	}
	return sum == b.Stored, nil
}

// storedDigest sums up the stored documents, each as the timeline reads it.
func storedDigest(stored []*changelog.Document) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, d := range stored {
		if err := enc.Encode(d); err != nil {
			return "", fmt.Errorf("digest of stored document %s: %w", d.Key, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// timeline is the cross-release timeline of the stored documents and docs,
// a document in docs taking the place of the stored one with the same key
// (an edited file replaces its earlier version). Generators need it for
// questions that span releases.
func timeline(stored []*changelog.Document, docs []Parsed) (*changelog.Timeline, error) {
	replaced := map[string]bool{}
	for _, d := range docs {
		replaced[d.Document.Key] = true
	}
	all := make([]*changelog.Document, 0, len(stored)+len(docs))
	for _, d := range stored {
		if !replaced[d.Key] {
			all = append(all, d)
		}
	}
	for _, d := range docs {
		all = append(all, d.Document)
	}
	tl, err := changelog.NewTimeline(all...)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	return tl, nil
}

// SaveOptions say who saves a batch, when, and how.
type SaveOptions struct {
	Actor  string // a user's login, "cli", or "preview" for a preview's dry run
	Now    time.Time
	DryRun bool // compute the results, store nothing
	// UploadID, when set, names the stored upload of UserID that the batch
	// was parsed from. It is dropped in the same transaction; when it is
	// already gone (saved or cancelled by a request that came first) the
	// error is quiz.ErrNotFound and nothing is stored. DryRun is then
	// ignored.
	UploadID string
	UserID   int64
}

// Save stores the batch in one transaction, or with DryRun computes what it
// would store and changes nothing, and returns the results of b.Inputs; the
// regenerated documents are saved in the same transaction (SaveAll returns
// their results too). A document whose release and SIG are stored from the
// other kind of document is a *store.FormatConflictError. The store's
// errors name the file and are returned as they are.
func (p *Pipeline) Save(ctx context.Context, b Batch, opt SaveOptions) ([]store.IngestResult, error) {
	s, err := p.SaveAll(ctx, b, opt)
	return s.Results, err
}

// Saved is what a save did: Results for the batch's inputs, in order,
// and Regenerated for its regenerated documents.
type Saved struct {
	Results     []store.IngestResult
	Regenerated []store.IngestResult
}

// SaveAll is Save, returning the regenerated documents' results as well.
func (p *Pipeline) SaveAll(ctx context.Context, b Batch, opt SaveOptions) (Saved, error) {
	so := store.IngestOptions{Actor: opt.Actor, DryRun: opt.DryRun, Now: opt.Now}
	inputs := append(append(make([]store.ChangelogInput, 0, len(b.Inputs)+len(b.Regenerated)), b.Inputs...), b.Regenerated...)
	var (
		rs  []store.IngestResult
		err error
	)
	if opt.UploadID != "" {
		rs, err = p.db.IngestUpload(ctx, opt.UploadID, opt.UserID, inputs, so)
	} else {
		rs, err = p.db.IngestChangelogs(ctx, inputs, so)
	}
	if err != nil {
		return Saved{}, err
	}
	return Saved{Results: rs[:len(b.Inputs)], Regenerated: rs[len(b.Inputs):]}, nil
}
