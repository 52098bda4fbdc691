package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"time"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
)

// This file stores what an ingest brings: changelog documents, their
// entries and stage changes, and the questions generated from them, as
// drafts. Reviewing the drafts is drafts.go's.

// generatedPosition is where generated questions start in their deck's
// order, after any hand-written ones.
const generatedPosition = 100000

// IngestOptions says who ingests and how.
type IngestOptions struct {
	Actor  string // a user's login or "cli"
	DryRun bool   // compute the result, change nothing
	Now    time.Time
	// uploadID is the admin page's upload being applied (IngestUpload),
	// recorded with each document's run.
	uploadID string
}

// ChangelogInput is one parsed document, the deck its questions belong in
// and the questions generated from it.
type ChangelogInput struct {
	File     string // the file's name, for the import record and messages
	Document *changelog.Document
	// Deck is created from these values when no deck has its slug; an
	// existing deck is left as it is.
	Deck      quiz.Deck
	Generated []quizgen.Generated
	// Regenerated marks a stored document whose questions were generated
	// again because the timeline changed: its row, entries and stage
	// changes are left as they are, and only its questions are saved.
	Regenerated bool
	// Shared lists the document's entries that another stored document
	// of the same notes holds: they are not stored a second time.
	Shared []SharedEntry
	// Sources lists every fact the document states that a question asks,
	// with that question: one of Generated, or one of another document's
	// deck, which then names this document among its sources. The
	// document's sources are replaced whole.
	Sources []FactSource
}

// Outcome is what an ingest did to a document or a question.
type Outcome string

// Outcomes. KeptEdits is a question an admin reworded whose generated
// version has changed since: the admin's wording stays. Proposed is a
// published question whose generated wording changed: learners keep the
// published wording, and the new one waits beside it for an admin
// (Proposals, AcceptProposal).
const (
	Added     Outcome = "added"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	KeptEdits Outcome = "kept_edits"
	Proposed  Outcome = "proposed"
	Retired   Outcome = "retired"
)

// GeneratorCounts counts what an ingest did to one generator's questions.
type GeneratorCounts struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	KeptEdits int `json:"kept_edits"`
	Proposed  int `json:"proposed"`
	Retired   int `json:"retired"`
}

func (c *GeneratorCounts) add(o Outcome) {
	switch o {
	case Added:
		c.Added++
	case Updated:
		c.Updated++
	case Unchanged:
		c.Unchanged++
	case KeptEdits:
		c.KeptEdits++
	case Proposed:
		c.Proposed++
	case Retired:
		c.Retired++
	}
}

// QuestionOutcome is what an ingest did to one generated question.
type QuestionOutcome struct {
	ID        int64       `json:"id,omitempty"` // row id; meaningless after a dry run
	ExtID     string      `json:"ext_id"`
	Generator string      `json:"generator"`
	Outcome   Outcome     `json:"outcome"`
	Status    quiz.Status `json:"status"` // after the ingest
}

// IngestResult is what an ingest did, or would do, for one document.
type IngestResult struct {
	File          string                 `json:"file"`
	DocumentID    int64                  `json:"document_id,omitempty"`
	DocumentKey   string                 `json:"document_key"`
	Document      Outcome                `json:"document"` // added, updated or unchanged
	Deck          quiz.Deck              `json:"deck"`
	DeckCreated   bool                   `json:"deck_created"`
	Entries       int                    `json:"entries"`
	EntriesByKind map[changelog.Kind]int `json:"entries_by_kind"`
	StageChanges  int                    `json:"stage_changes"`
	// Generators counts questions by generator name.
	Generators map[string]GeneratorCounts `json:"generators"`
	// Questions lists every generated question, then every retired one.
	Questions []QuestionOutcome `json:"questions"`
	// Regenerated is set for a stored document whose questions were
	// generated again (ChangelogInput.Regenerated).
	Regenerated bool `json:"regenerated,omitempty"`
	// SharedEntries counts, per document key, the entries not stored
	// because that document of the same notes holds them.
	SharedEntries map[string]int `json:"shared_entries,omitempty"`
	// AskedElsewhere counts, per document key, the facts the document
	// states whose question is in that document's deck: no second
	// question asks them.
	AskedElsewhere map[string]int `json:"asked_elsewhere,omitempty"`
}

// Total sums the counts of every generator.
func (r IngestResult) Total() GeneratorCounts {
	var t GeneratorCounts
	for _, c := range r.Generators {
		t.Added += c.Added
		t.Updated += c.Updated
		t.Unchanged += c.Unchanged
		t.KeptEdits += c.KeptEdits
		t.Proposed += c.Proposed
		t.Retired += c.Retired
	}
	return t
}

var deckSlugRe = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// IngestChangelogs stores parsed documents, their entries and stage changes,
// and the questions generated from them, all in one transaction: any error
// and nothing changes. A dry run computes the same result and rolls back.
//
// A document is matched by its key: an edited file updates its row in place
// and replaces its entries and stage changes; the same file again changes
// nothing but the import record. Questions go to the input's deck
// (created when missing) and are matched by ext id, so
// re-ingesting updates rather than duplicates and review history stays
// attached:
//
//   - a new question is added as a draft;
//   - a question whose generated content is unchanged is left alone, whatever
//     its status and whether an admin reworded it;
//   - a draft (or retired) question whose generated content changed gets
//     the new content and keeps its status; it is reported as updated;
//   - a published question whose generated content changed keeps the
//     wording learners study, and the new content is stored beside it as a
//     proposal for an admin to accept (AcceptProposal) or dismiss; it is
//     reported as proposed, once for each new proposal;
//   - a question an admin reworded (UpdateQuestionWording) keeps the admin's
//     wording even when its generated content changed; it is reported as
//     kept_edits so that the admin can look at it;
//   - a question of the document that is no longer generated is retired,
//     never deleted; a retired question stays retired when it is generated
//     again, until an admin publishes it.
//
// An input marked Regenerated is a stored document whose questions the
// pipeline generated again with a changed timeline: only its questions are
// saved. An input's Shared entries are left out of its stored entries, and
// its Sources replace the facts it stated before (question_sources).
func (db *DB) IngestChangelogs(ctx context.Context, inputs []ChangelogInput, opt IngestOptions) ([]IngestResult, error) {
	if err := checkChangelogInputs(inputs); err != nil {
		return nil, fmt.Errorf("store: ingest: %w", err)
	}
	var results []IngestResult
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if results, err = ingestDocuments(ctx, tx, inputs, opt); err != nil {
			return err
		}
		if opt.DryRun {
			return errDryRun
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDryRun) {
		return nil, fmt.Errorf("store: ingest: %w", err)
	}
	return results, nil
}

// IngestUpload stores inputs, parsed from the changelog upload id of
// userID, as IngestChangelogs does, and drops the upload, in one
// transaction. The upload is dropped first: when it is already gone
// (applied or cancelled by a request that came first) the result is
// quiz.ErrNotFound and nothing is stored, so that a repeated submit
// ingests once. opt.DryRun is ignored.
func (db *DB) IngestUpload(ctx context.Context, id string, userID int64, inputs []ChangelogInput, opt IngestOptions) ([]IngestResult, error) {
	opt.DryRun, opt.uploadID = false, id
	if err := checkChangelogInputs(inputs); err != nil {
		return nil, fmt.Errorf("store: ingest upload %s: %w", id, err)
	}
	var results []IngestResult
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := takeUpload(ctx, tx, id, userID, "changelog"); err != nil {
			return err
		}
		var err error
		results, err = ingestDocuments(ctx, tx, inputs, opt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: ingest upload %s: %w", id, err)
	}
	return results, nil
}

// ingestDocuments stores each input in tx.
func ingestDocuments(ctx context.Context, tx *sql.Tx, inputs []ChangelogInput, opt IngestOptions) ([]IngestResult, error) {
	results := make([]IngestResult, 0, len(inputs))
	for _, in := range inputs {
		r, err := ingestDocument(ctx, tx, in, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.File, err)
		}
		results = append(results, r)
	}
	// A source may name a question of a document later in the batch.
	for _, in := range inputs {
		if err := writeSources(ctx, tx, in); err != nil {
			return nil, fmt.Errorf("%s: %w", in.File, err)
		}
	}
	return results, nil
}

// checkChangelogInputs refuses what must not reach the database.
func checkChangelogInputs(inputs []ChangelogInput) error {
	keys := map[string]string{}
	for _, in := range inputs {
		doc := in.Document
		if doc == nil {
			return fmt.Errorf("%s: no document: %w", in.File, quiz.ErrInvalid)
		}
		if _, _, ok := changelog.ParseRelease(doc.Release); !ok || doc.Key == "" {
			return fmt.Errorf("%s: the document's release is unknown (give it explicitly): %w", in.File, quiz.ErrInvalid)
		}
		if prev, dup := keys[doc.Key]; dup {
			return fmt.Errorf("document %s is in both %s and %s: %w", doc.Key, prev, in.File, quiz.ErrInvalid)
		}
		keys[doc.Key] = in.File
		if slug := in.Deck.Slug; !deckSlugRe.MatchString(slug) {
			return fmt.Errorf("%s: deck slug %q is not lower-case letters, digits and dashes (check the SIG): %w", in.File, slug, quiz.ErrInvalid)
		}
		if lang := in.Deck.Language; lang != "ja" && lang != "en" {
			return fmt.Errorf("%s: deck language %q: want ja or en: %w", in.File, lang, quiz.ErrInvalid)
		}
		ids := map[string]bool{}
		for _, g := range in.Generated {
			q := g.Question
			if err := q.Validate(); err != nil {
				return fmt.Errorf("%s: generated question %s: %w", in.File, q.ExtID, err)
			}
			if g.Provenance.Generator == "" {
				return fmt.Errorf("%s: generated question %s names no generator: %w", in.File, q.ExtID, quiz.ErrInvalid)
			}
			if ids[q.ExtID] {
				return fmt.Errorf("%s: generated question id %s appears twice: %w", in.File, q.ExtID, quiz.ErrInvalid)
			}
			ids[q.ExtID] = true
		}
	}
	return nil
}

func ingestDocument(ctx context.Context, tx *sql.Tx, in ChangelogInput, opt IngestOptions) (IngestResult, error) {
	doc := in.Document
	now := ms(opt.Now)
	res := IngestResult{
		File: in.File, DocumentKey: doc.Key, Entries: len(doc.Entries),
		EntriesByKind: map[changelog.Kind]int{}, Generators: map[string]GeneratorCounts{},
		Regenerated: in.Regenerated,
	}
	for _, e := range doc.Entries {
		res.EntriesByKind[e.Kind]++
		res.StageChanges += len(e.Stages)
	}
	for _, sh := range in.Shared {
		if res.SharedEntries == nil {
			res.SharedEntries = map[string]int{}
		}
		res.SharedEntries[sh.Document]++
	}
	for _, src := range in.Sources {
		if src.Document != doc.Key {
			if res.AskedElsewhere == nil {
				res.AskedElsewhere = map[string]int{}
			}
			res.AskedElsewhere[src.Document]++
		}
	}
	var (
		deckID int64
		err    error
	)
	if in.Regenerated {
		if res.DocumentID, deckID, res.Deck, err = storedDocumentDeck(ctx, tx, doc.Key); err != nil {
			return res, err
		}
		res.Document = Unchanged
	} else {
		var deck quiz.Deck
		var created bool
		if deckID, deck, created, err = ensureDeck(ctx, tx, in.Deck, now); err != nil {
			return res, err
		}
		res.Deck, res.DeckCreated = deck, created
		if res.DocumentID, res.Document, err = upsertDocument(ctx, tx, in, deckID, now); err != nil {
			return res, err
		}
	}
	if err := upsertGenerated(ctx, tx, deckID, doc.Key, in.Generated, now, &res); err != nil {
		return res, err
	}
	t := res.Total()
	if in.Regenerated && t.Added+t.Updated+t.Proposed+t.Retired == 0 {
		return res, nil // generated again to no change: nothing to record
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO import_runs (actor, kind, file_name, sha256, added, updated, unchanged, retired, at, upload_id)
		VALUES (?, 'changelog', ?, ?, ?, ?, ?, ?, ?, ?)`, opt.Actor, in.File, doc.SHA256,
		t.Added, t.Updated, t.Unchanged+t.KeptEdits+t.Proposed, t.Retired, now, nullString(opt.uploadID)); err != nil {
		return res, fmt.Errorf("record import: %w", err)
	}
	return res, nil
}

// ensureDeck returns the deck with d's slug, creating it from d when it is
// missing. An existing deck is left as it is: its title and description
// belong to whoever made it (the bundled question bank, say).
func ensureDeck(ctx context.Context, tx *sql.Tx, d quiz.Deck, now int64) (int64, quiz.Deck, bool, error) {
	var id int64
	got := quiz.Deck{Slug: d.Slug}
	err := tx.QueryRowContext(ctx, `SELECT id, title, release, sig, language, description FROM decks WHERE slug = ?`, d.Slug).
		Scan(&id, &got.Title, &got.Release, &got.SIG, &got.Language, &got.Description)
	if err == nil {
		return id, got, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, d, false, fmt.Errorf("deck %s: %w", d.Slug, err)
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO decks (slug, title, release, sig, language, description, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, d.Slug, d.Title, d.Release, d.SIG, d.Language, d.Description, now, now).Scan(&id)
	if err != nil {
		return 0, d, false, fmt.Errorf("create deck %s: %w", d.Slug, err)
	}
	return id, d, true, nil
}

// upsertDocument stores the document row and, when its parsed content is
// new or changed, its entries and stage changes.
func upsertDocument(ctx context.Context, tx *sql.Tx, in ChangelogInput, deckID, now int64) (int64, Outcome, error) {
	doc := in.Document
	parsed, err := json.Marshal(doc)
	if err != nil {
		return 0, "", fmt.Errorf("encode document: %w", err)
	}
	if len(in.Shared) > 0 {
		shared, err := json.Marshal(in.Shared)
		if err != nil {
			return 0, "", fmt.Errorf("encode shared entries: %w", err)
		}
		parsed = append(append(parsed, 0), shared...)
	}
	sum := sha256.Sum256(parsed)
	hash := hex.EncodeToString(sum[:])
	shared := map[string]bool{}
	for _, sh := range in.Shared {
		shared[sh.Entry] = true
	}
	stored := len(doc.Entries) - len(shared)
	introCol, err := jsonColumns(doc.Intro)
	if err != nil {
		return 0, "", fmt.Errorf("encode document: %w", err)
	}
	intro := introCol[0]

	var (
		id           int64
		storedHash   string
		storedDeck   int64
		storedFormat changelog.Format
		storedFile   string
	)
	err = tx.QueryRowContext(ctx, `SELECT id, parsed_hash, deck_id, format, file_name FROM changelog_documents WHERE doc_key = ?`, doc.Key).
		Scan(&id, &storedHash, &storedDeck, &storedFormat, &storedFile)
	if err == nil && (storedFormat == changelog.FormatArticle) != (doc.Format == changelog.FormatArticle) {
		// An article and an upstream CHANGELOG read for the same SIG share
		// the key; one would replace the other and retire its questions.
		return 0, "", &FormatConflictError{Key: doc.Key, StoredFile: storedFile, StoredFormat: storedFormat, Format: doc.Format}
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = tx.QueryRowContext(ctx, `INSERT INTO changelog_documents (doc_key, release, sig, format, title, intro, sha256,
			parsed_hash, file_name, deck_id, entry_count, ingested_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			doc.Key, doc.Release, doc.SIG, doc.Format, doc.Title, intro, doc.SHA256, hash, in.File, deckID, stored, now, now).Scan(&id)
		if err != nil {
			return 0, "", fmt.Errorf("add document %s: %w", doc.Key, err)
		}
		if err := insertEntries(ctx, tx, id, doc, shared); err != nil {
			return 0, "", err
		}
		if err := insertShared(ctx, tx, id, doc, in.Shared); err != nil {
			return 0, "", err
		}
		return id, Added, nil
	case err != nil:
		return 0, "", fmt.Errorf("document %s: %w", doc.Key, err)
	case storedHash == hash && storedDeck == deckID:
		return id, Unchanged, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE changelog_documents SET release = ?, sig = ?, format = ?, title = ?, intro = ?,
		sha256 = ?, parsed_hash = ?, file_name = ?, deck_id = ?, entry_count = ?, updated_at = ? WHERE id = ?`,
		doc.Release, doc.SIG, doc.Format, doc.Title, intro, doc.SHA256, hash, in.File, deckID, stored, now, id); err != nil {
		return 0, "", fmt.Errorf("update document %s: %w", doc.Key, err)
	}
	// Entries, stage changes and shared entries are replaced whole
	// (feature_stages cascades).
	for _, q := range []string{`DELETE FROM changelog_entries WHERE document_id = ?`, `DELETE FROM changelog_shared_entries WHERE document_id = ?`} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return 0, "", fmt.Errorf("replace entries of %s: %w", doc.Key, err)
		}
	}
	if err := insertEntries(ctx, tx, id, doc, shared); err != nil {
		return 0, "", err
	}
	if err := insertShared(ctx, tx, id, doc, in.Shared); err != nil {
		return 0, "", err
	}
	return id, Updated, nil
}

// insertEntries stores the document's entries but those another document
// holds (shared, by entry key), with their stage changes.
func insertEntries(ctx context.Context, tx *sql.Tx, docID int64, doc *changelog.Document, shared map[string]bool) error {
	entry, err := tx.PrepareContext(ctx, `INSERT INTO changelog_entries (document_id, entry_key, position, kind, section, title, text,
		notes, prs, authors, sigs, action_required, mentions, stages, focus, line, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	if err != nil {
		return fmt.Errorf("add entries: %w", err)
	}
	defer entry.Close()
	stage, err := tx.PrepareContext(ctx, `INSERT INTO feature_stages (feature, feature_key, release, stage, pr, revert, source, entry_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("add stage changes: %w", err)
	}
	defer stage.Close()
	for i, e := range doc.Entries {
		if shared[e.Key] {
			continue
		}
		cols, err := jsonColumns(e.Notes, e.PRs, e.Authors, e.SIGs, e.Mentions, e.Stages)
		if err != nil {
			return fmt.Errorf("entry %s: %w", e.Key, err)
		}
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("entry %s: %w", e.Key, err)
		}
		var id int64
		if err := entry.QueryRowContext(ctx, docID, e.Key, i, e.Kind, e.Section, e.Title, e.Text,
			cols[0], cols[1], cols[2], cols[3], e.ActionRequired, cols[4], cols[5], e.Focus, e.Line, string(data)).Scan(&id); err != nil {
			return fmt.Errorf("add entry %s: %w", e.Key, translate(err))
		}
		for _, sc := range e.Stages {
			if _, err := stage.ExecContext(ctx, sc.Feature, changelog.FeatureKey(sc.Feature), sc.Release, sc.Stage, sc.PR, sc.Revert, sc.Source, id); err != nil {
				return fmt.Errorf("add stage change of %s: %w", e.Key, err)
			}
		}
	}
	return nil
}

// jsonColumns encodes slices as JSON arrays, nil as [].
func jsonColumns(vals ...any) ([]string, error) {
	out := make([]string, len(vals))
	for i, v := range vals {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if string(b) == "null" {
			b = []byte("[]")
		}
		out[i] = string(b)
	}
	return out, nil
}

// storedGenerated is what an ingest needs of a question row of the deck.
type storedGenerated struct {
	id                         int64
	extID, origin, generator   string
	status                     quiz.Status
	contentHash, generatedHash string
	provenance, sourceDocument string
	position                   int
}

func upsertGenerated(ctx context.Context, tx *sql.Tx, deckID int64, docKey string, gen []quizgen.Generated, now int64, res *IngestResult) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, ext_id, origin, generator, status, content_hash, generated_hash, provenance,
		source_document, position FROM questions WHERE deck_id = ? ORDER BY position, id`, deckID)
	if err != nil {
		return fmt.Errorf("load questions: %w", err)
	}
	var order []*storedGenerated
	byExt := map[string]*storedGenerated{}
	for rows.Next() {
		var s storedGenerated
		var status string
		if err := rows.Scan(&s.id, &s.extID, &s.origin, &s.generator, &status, &s.contentHash, &s.generatedHash,
			&s.provenance, &s.sourceDocument, &s.position); err != nil {
			rows.Close()
			return fmt.Errorf("load questions: %w", err)
		}
		s.status = quiz.Status(status)
		order = append(order, &s)
		byExt[s.extID] = &s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load questions: %w", err)
	}

	insert, err := tx.PrepareContext(ctx, insertGeneratedSQL)
	if err != nil {
		return fmt.Errorf("add questions: %w", err)
	}
	defer insert.Close()
	count := func(generator string, o QuestionOutcome) {
		c := res.Generators[generator]
		c.add(o.Outcome)
		res.Generators[generator] = c
		res.Questions = append(res.Questions, o)
	}
	seen := map[string]bool{}
	for i, g := range gen {
		q := g.Question
		seen[q.ExtID] = true
		name := g.Provenance.Generator
		prov, err := json.Marshal(g.Provenance)
		if err != nil {
			return fmt.Errorf("question %s provenance: %w", q.ExtID, err)
		}
		hash, pos := q.ContentHash(), generatedPosition+i
		s, ok := byExt[q.ExtID]
		if !ok {
			id, err := insertGenerated(ctx, insert, deckID, docKey, pos, g, string(prov), hash, now)
			if err != nil {
				return err
			}
			count(name, QuestionOutcome{ID: id, ExtID: q.ExtID, Generator: name, Outcome: Added, Status: quiz.Draft})
			continue
		}
		if s.origin != string(quiz.FromGenerator) {
			return fmt.Errorf("generated question %s: deck already has a hand-written question with that id: %w", q.ExtID, quiz.ErrConflict)
		}
		if s.sourceDocument != docKey {
			return fmt.Errorf("generated question %s: already generated from document %s: %w", q.ExtID, s.sourceDocument, quiz.ErrConflict)
		}
		out := QuestionOutcome{ID: s.id, ExtID: q.ExtID, Generator: name, Status: s.status}
		provChanged := string(prov) != s.provenance || name != s.generator
		switch {
		case hash == s.generatedHash && !provChanged:
			out.Outcome = Unchanged
			if s.position != pos {
				if _, err := tx.ExecContext(ctx, `UPDATE questions SET position = ? WHERE id = ?`, pos, s.id); err != nil {
					return fmt.Errorf("reorder question %s: %w", q.ExtID, err)
				}
			}
			// Generation is back at the question's wording: an earlier
			// proposal has nothing left to propose.
			if err := dropProposal(ctx, tx, s.id); err != nil {
				return fmt.Errorf("question %s: %w", q.ExtID, err)
			}
		case hash == s.generatedHash || s.contentHash != s.generatedHash:
			// Only the provenance changed, or an admin's wording stays.
			out.Outcome = Updated
			if hash != s.generatedHash {
				out.Outcome = KeptEdits
			}
			if provChanged {
				if _, err := tx.ExecContext(ctx, `UPDATE questions SET provenance = ?, generator = ?, position = ?, updated_at = ? WHERE id = ?`,
					string(prov), name, pos, now, s.id); err != nil {
					return fmt.Errorf("update question %s: %w", q.ExtID, err)
				}
			} else if s.position != pos {
				if _, err := tx.ExecContext(ctx, `UPDATE questions SET position = ? WHERE id = ?`, pos, s.id); err != nil {
					return fmt.Errorf("reorder question %s: %w", q.ExtID, err)
				}
			}
		case s.status == quiz.Published:
			// Learners keep the wording they study; the new one waits
			// beside it for an admin.
			if out.Outcome, err = propose(ctx, tx, s.id, g, hash, now); err != nil {
				return fmt.Errorf("question %s: %w", q.ExtID, err)
			}
			if s.position != pos {
				if _, err := tx.ExecContext(ctx, `UPDATE questions SET position = ? WHERE id = ?`, pos, s.id); err != nil {
					return fmt.Errorf("reorder question %s: %w", q.ExtID, err)
				}
			}
		default:
			out.Outcome = Updated
			if err := updateGenerated(ctx, tx, s.id, pos, g, string(prov), hash, now); err != nil {
				return err
			}
		}
		count(name, out)
	}
	for _, s := range order {
		if s.origin != string(quiz.FromGenerator) || s.sourceDocument != docKey || seen[s.extID] {
			continue
		}
		if s.status == quiz.Retired {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE questions SET status = 'retired', updated_at = ? WHERE id = ?`, now, s.id); err != nil {
			return fmt.Errorf("retire question %s: %w", s.extID, err)
		}
		count(s.generator, QuestionOutcome{ID: s.id, ExtID: s.extID, Generator: s.generator, Outcome: Retired, Status: quiz.Retired})
	}
	return nil
}

// insertGeneratedSQL adds a generated question as a draft.
const insertGeneratedSQL = `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation,
	release, sig, kind, pr_numbers, source_url, tags, origin, generator, status, content_hash, generated_hash,
	provenance, source_document, created_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'generated', ?, 'draft', ?, ?, ?, ?, ?, ?) RETURNING id`

func insertGenerated(ctx context.Context, insert *sql.Stmt, deckID int64, docKey string, pos int, g quizgen.Generated, prov, hash string, now int64) (int64, error) {
	q := g.Question
	payload, prs, tags, err := encodeQuestion(q)
	if err != nil {
		return 0, fmt.Errorf("question %s: %w", q.ExtID, err)
	}
	var id int64
	err = insert.QueryRowContext(ctx, deckID, q.ExtID, pos, q.Type, q.Prompt, payload, q.Explanation,
		q.Source.Release, q.Source.SIG, q.Source.Kind, prs, q.Source.URL, tags, g.Provenance.Generator,
		hash, hash, prov, docKey, now, now).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add question %s: %w", q.ExtID, translate(err))
	}
	return id, nil
}

func updateGenerated(ctx context.Context, tx *sql.Tx, id int64, pos int, g quizgen.Generated, prov, hash string, now int64) error {
	q := g.Question
	payload, prs, tags, err := encodeQuestion(q)
	if err != nil {
		return fmt.Errorf("question %s: %w", q.ExtID, err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE questions SET position = ?, type = ?, prompt = ?, payload = ?, explanation = ?,
		release = ?, sig = ?, kind = ?, pr_numbers = ?, source_url = ?, tags = ?, generator = ?, content_hash = ?,
		generated_hash = ?, provenance = ?, updated_at = ? WHERE id = ?`,
		pos, q.Type, q.Prompt, payload, q.Explanation, q.Source.Release, q.Source.SIG, q.Source.Kind, prs, q.Source.URL,
		tags, g.Provenance.Generator, hash, hash, prov, now, id)
	if err != nil {
		return fmt.Errorf("update question %s: %w", q.ExtID, err)
	}
	return nil
}

// StoredDocuments returns every ingested document as it was parsed,
// rebuilt from the stored JSON of its entries. The ingest pipeline builds
// its feature timeline from them.
func (db *DB) StoredDocuments(ctx context.Context) ([]*changelog.Document, error) {
	// One statement, so that documents and entries come from one snapshot.
	rows, err := db.read.QueryContext(ctx, `SELECT d.id, d.doc_key, d.release, d.sig, d.format, d.title, d.intro, d.sha256, e.data
		FROM changelog_documents d LEFT JOIN changelog_entries e ON e.document_id = d.id
		ORDER BY d.id, e.position`)
	if err != nil {
		return nil, fmt.Errorf("store: stored documents: %w", err)
	}
	defer rows.Close()
	var (
		out   []*changelog.Document
		curID int64
	)
	for rows.Next() {
		var (
			id    int64
			d     changelog.Document
			intro string
			data  sql.NullString
		)
		if err := rows.Scan(&id, &d.Key, &d.Release, &d.SIG, &d.Format, &d.Title, &intro, &d.SHA256, &data); err != nil {
			return nil, fmt.Errorf("store: stored documents: %w", err)
		}
		if len(out) == 0 || id != curID {
			if err := json.Unmarshal([]byte(intro), &d.Intro); err != nil {
				return nil, fmt.Errorf("store: stored documents: %s intro: %w", d.Key, err)
			}
			if len(d.Intro) == 0 {
				d.Intro = nil
			}
			out, curID = append(out, &d), id
		}
		if !data.Valid {
			continue
		}
		cur := out[len(out)-1]
		var e changelog.Entry
		if err := json.Unmarshal([]byte(data.String), &e); err != nil {
			return nil, fmt.Errorf("store: stored documents: %s entry: %w", cur.Key, err)
		}
		cur.Entries = append(cur.Entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: stored documents: %w", err)
	}
	return out, nil
}

// ChangelogDocument is an ingested document with the state of its questions.
type ChangelogDocument struct {
	ID                         int64
	Key, Release, SIG          string
	Format                     changelog.Format
	Title, SHA256, FileName    string
	DeckSlug, DeckTitle        string
	Entries, StageChanges      int
	Drafts, Published, Retired int
	IngestedAt, UpdatedAt      time.Time
}

const documentColumns = `c.id, c.doc_key, c.release, c.sig, c.format, c.title, c.sha256, c.file_name, d.slug, d.title,
	c.entry_count,
	(SELECT count(*) FROM feature_stages f JOIN changelog_entries e ON e.id = f.entry_id WHERE e.document_id = c.id),
	(SELECT count(*) FROM questions q WHERE q.source_document = c.doc_key AND q.status = 'draft'),
	(SELECT count(*) FROM questions q WHERE q.source_document = c.doc_key AND q.status = 'published'),
	(SELECT count(*) FROM questions q WHERE q.source_document = c.doc_key AND q.status = 'retired'),
	c.ingested_at, c.updated_at`

func scanDocument(row scanner) (ChangelogDocument, error) {
	var (
		d       ChangelogDocument
		ing, up int64
	)
	err := row.Scan(&d.ID, &d.Key, &d.Release, &d.SIG, &d.Format, &d.Title, &d.SHA256, &d.FileName, &d.DeckSlug, &d.DeckTitle,
		&d.Entries, &d.StageChanges, &d.Drafts, &d.Published, &d.Retired, &ing, &up)
	d.IngestedAt, d.UpdatedAt = fromMS(ing), fromMS(up)
	return d, err
}

// ChangelogDocuments returns every ingested document, newest release first.
func (db *DB) ChangelogDocuments(ctx context.Context) ([]ChangelogDocument, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+documentColumns+`
		FROM changelog_documents c JOIN decks d ON d.id = c.deck_id ORDER BY c.doc_key`)
	if err != nil {
		return nil, fmt.Errorf("store: changelog documents: %w", err)
	}
	defer rows.Close()
	var out []ChangelogDocument
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("store: changelog documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: changelog documents: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return quiz.CompareReleases(out[i].Release, out[j].Release) > 0 })
	return out, nil
}

// ChangelogDocumentByID returns one ingested document.
func (db *DB) ChangelogDocumentByID(ctx context.Context, id int64) (ChangelogDocument, error) {
	d, err := scanDocument(db.read.QueryRowContext(ctx, `SELECT `+documentColumns+`
		FROM changelog_documents c JOIN decks d ON d.id = c.deck_id WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("store: changelog document %d: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("store: changelog document %d: %w", id, err)
	}
	return d, nil
}

// FormatConflictError refuses a document whose release and SIG are stored
// from a document of the other kind (an article against an upstream
// CHANGELOG read for one SIG): both have the same key, and one would
// replace the other and retire its questions. It is a quiz.ErrConflict.
type FormatConflictError struct {
	Key          string
	StoredFile   string
	StoredFormat changelog.Format
	Format       changelog.Format
}

func (e *FormatConflictError) Error() string {
	return fmt.Sprintf("document %s is stored from %s (%s); this %s of the same release and SIG would replace it: %v",
		e.Key, e.StoredFile, e.StoredFormat, e.Format, quiz.ErrConflict)
}

func (e *FormatConflictError) Unwrap() error { return quiz.ErrConflict }
