package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
)

// This file holds what ties documents together across releases: entries
// two documents of the same notes share, the documents that state the fact
// a question asks, the timeline of a feature over every stored document,
// and what the pipeline reads to decide which document's deck asks what.

// SharedEntry is an entry of a document that another stored document of
// the same notes holds: the release-notes JSON and the CHANGELOG of one
// release print the same notes, and whichever is stored second keeps a
// reference instead of a second copy.
type SharedEntry struct {
	Entry    string `json:"entry"`    // the entry's key in this document
	Document string `json:"document"` // key of the document that stores the note
	Same     string `json:"same"`     // the note's entry key there
	// PRs are the entry's PRs. Stored, they are the document's entry's,
	// whatever this says.
	PRs []int `json:"prs,omitempty"`
}

// FactSource says that a document states the fact a generated question
// asks. The question is named by its document and id: one of the same
// ingest's generated questions, or a stored one.
type FactSource struct {
	Document string `json:"document"` // key of the question's document
	ExtID    string `json:"ext_id"`
	// Entry and PRs are where the stating document says it ("" and none
	// for a feature's whole timeline); URL is where to read it.
	Entry string `json:"entry,omitempty"`
	PRs   []int  `json:"prs,omitempty"`
	URL   string `json:"url,omitempty"`
}

// insertShared records the document's shared entries.
func insertShared(ctx context.Context, tx *sql.Tx, docID int64, doc *changelog.Document, shared []SharedEntry) error {
	if len(shared) == 0 {
		return nil
	}
	byKey := make(map[string]*changelog.Entry, len(doc.Entries))
	for i := range doc.Entries {
		byKey[doc.Entries[i].Key] = &doc.Entries[i]
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO changelog_shared_entries (document_id, entry_key, kind, prs, same_document, same_entry)
		VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("add shared entries: %w", err)
	}
	defer st.Close()
	for _, sh := range shared {
		e := byKey[sh.Entry]
		if e == nil {
			return fmt.Errorf("shared entry %s is not an entry of %s: %w", sh.Entry, doc.Key, quiz.ErrInvalid)
		}
		cols, err := jsonColumns(e.PRs)
		if err != nil {
			return fmt.Errorf("shared entry %s: %w", sh.Entry, err)
		}
		if _, err := st.ExecContext(ctx, docID, sh.Entry, e.Kind, cols[0], sh.Document, sh.Same); err != nil {
			return fmt.Errorf("add shared entry %s: %w", sh.Entry, translate(err))
		}
	}
	return nil
}

// SharedEntries returns the shared entries of every stored document, by
// document key, in entry order.
func (db *DB) SharedEntries(ctx context.Context) (map[string][]SharedEntry, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT c.doc_key, s.entry_key, s.same_document, s.same_entry, s.prs
		FROM changelog_shared_entries s JOIN changelog_documents c ON c.id = s.document_id ORDER BY c.id, s.entry_key`)
	if err != nil {
		return nil, fmt.Errorf("store: shared entries: %w", err)
	}
	defer rows.Close()
	out := map[string][]SharedEntry{}
	for rows.Next() {
		var (
			doc, prs string
			sh       SharedEntry
		)
		if err := rows.Scan(&doc, &sh.Entry, &sh.Document, &sh.Same, &prs); err != nil {
			return nil, fmt.Errorf("store: shared entries: %w", err)
		}
		if err := json.Unmarshal([]byte(prs), &sh.PRs); err != nil {
			return nil, fmt.Errorf("store: shared entries: %s %s: %w", doc, sh.Entry, err)
		}
		if len(sh.PRs) == 0 {
			sh.PRs = nil
		}
		out[doc] = append(out[doc], sh)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: shared entries: %w", err)
	}
	return out, nil
}

// sourceQuestionQuery finds the generated question of document ?1 with
// the external id ?2, by the index of migration 0020: a document's
// sources look up each of its questions.
const sourceQuestionQuery = `SELECT id FROM questions
	WHERE source_document = ?1 AND ext_id = ?2 AND origin = 'generated' ORDER BY id LIMIT 1`

// writeSources replaces the facts an input's document states with its
// Sources, each tied to the question that asks it.
func writeSources(ctx context.Context, tx *sql.Tx, in ChangelogInput) error {
	key := in.Document.Key
	if _, err := tx.ExecContext(ctx, `DELETE FROM question_sources WHERE document = ?`, key); err != nil {
		return fmt.Errorf("replace sources of %s: %w", key, err)
	}
	if len(in.Sources) == 0 {
		return nil
	}
	find, err := tx.PrepareContext(ctx, sourceQuestionQuery)
	if err != nil {
		return fmt.Errorf("sources of %s: %w", key, err)
	}
	defer find.Close()
	add, err := tx.PrepareContext(ctx, `INSERT INTO question_sources (question_id, document, entry, prs, url) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (question_id, document, entry) DO UPDATE SET prs = excluded.prs, url = excluded.url`)
	if err != nil {
		return fmt.Errorf("sources of %s: %w", key, err)
	}
	defer add.Close()
	for _, src := range in.Sources {
		var id int64
		err := find.QueryRowContext(ctx, src.Document, src.ExtID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("source of question %s of document %s: no such question: %w", src.ExtID, src.Document, quiz.ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("source of question %s: %w", src.ExtID, err)
		}
		cols, err := jsonColumns(positive(src.PRs))
		if err != nil {
			return err
		}
		if _, err := add.ExecContext(ctx, id, key, src.Entry, cols[0], src.URL); err != nil {
			return fmt.Errorf("source of question %s: %w", src.ExtID, err)
		}
	}
	return nil
}

func positive(xs []int) []int {
	var out []int
	for _, x := range xs {
		if x > 0 && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// storedDocumentDeck returns the row and deck of a stored document.
func storedDocumentDeck(ctx context.Context, tx *sql.Tx, key string) (int64, int64, quiz.Deck, error) {
	var (
		id, deckID int64
		d          quiz.Deck
	)
	err := tx.QueryRowContext(ctx, `SELECT c.id, d.id, d.slug, d.title, d.release, d.sig, d.language, d.description
		FROM changelog_documents c JOIN decks d ON d.id = c.deck_id WHERE c.doc_key = ?`, key).
		Scan(&id, &deckID, &d.Slug, &d.Title, &d.Release, &d.SIG, &d.Language, &d.Description)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, d, fmt.Errorf("document %s to generate again is not stored: %w", key, quiz.ErrConflict)
	}
	if err != nil {
		return 0, 0, d, fmt.Errorf("document %s: %w", key, err)
	}
	return id, deckID, d, nil
}

// DocumentDeck is a stored document's file and deck.
type DocumentDeck struct {
	File string
	Deck quiz.Deck
}

// DocumentDecks returns the file and deck of every stored document, by
// document key: the pipeline generates a stored document's questions again
// for the deck, and in the language, they are in.
func (db *DB) DocumentDecks(ctx context.Context) (map[string]DocumentDeck, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT c.doc_key, c.file_name, d.slug, d.title, d.release, d.sig, d.language, d.description
		FROM changelog_documents c JOIN decks d ON d.id = c.deck_id`)
	if err != nil {
		return nil, fmt.Errorf("store: document decks: %w", err)
	}
	defer rows.Close()
	out := map[string]DocumentDeck{}
	for rows.Next() {
		var (
			key string
			dd  DocumentDeck
			d   = &dd.Deck
		)
		if err := rows.Scan(&key, &dd.File, &d.Slug, &d.Title, &d.Release, &d.SIG, &d.Language, &d.Description); err != nil {
			return nil, fmt.Errorf("store: document decks: %w", err)
		}
		out[key] = dd
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: document decks: %w", err)
	}
	return out, nil
}

// GeneratedFact is a generated question that learners see or may see (a
// draft or a published one), with what it rests on.
type GeneratedFact struct {
	Document   string // key of the document it was generated from
	ExtID      string
	Release    string // the question's release
	Status     quiz.Status
	Provenance quizgen.Provenance
}

// GeneratedFacts returns every draft and published generated question
// with its provenance, in the order of their documents' first ingest,
// then of their decks' order.
func (db *DB) GeneratedFacts(ctx context.Context) ([]GeneratedFact, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT q.source_document, q.ext_id, q.release, q.status, q.provenance
		FROM questions q LEFT JOIN changelog_documents c ON c.doc_key = q.source_document
		WHERE q.origin = 'generated' AND q.status IN ('draft', 'published')
		ORDER BY coalesce(c.id, 0), q.position, q.id`)
	if err != nil {
		return nil, fmt.Errorf("store: generated facts: %w", err)
	}
	defer rows.Close()
	var out []GeneratedFact
	for rows.Next() {
		var (
			f            GeneratedFact
			status, prov string
		)
		if err := rows.Scan(&f.Document, &f.ExtID, &f.Release, &status, &prov); err != nil {
			return nil, fmt.Errorf("store: generated facts: %w", err)
		}
		f.Status = quiz.Status(status)
		if err := json.Unmarshal([]byte(prov), &f.Provenance); err != nil {
			return nil, fmt.Errorf("store: generated facts: question %s provenance: %w", f.ExtID, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: generated facts: %w", err)
	}
	return out, nil
}

// QuestionSource is a document that states the fact a question asks.
type QuestionSource struct {
	Document string           `json:"document"` // document key
	File     string           `json:"file"`     // its file's name, "" when it is no longer stored
	Format   changelog.Format `json:"format,omitempty"`
	Entry    string           `json:"entry,omitempty"`
	PRs      []int            `json:"prs,omitempty"`
	URL      string           `json:"url,omitempty"`
}

// QuestionSources returns every document that states the fact a generated
// question asks, in the order the documents were first stored: the
// question's own document first when it still states it.
func (db *DB) QuestionSources(ctx context.Context, questionID int64) ([]QuestionSource, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT s.document, coalesce(c.file_name, ''), coalesce(c.format, ''), s.entry, s.prs, s.url
		FROM question_sources s LEFT JOIN changelog_documents c ON c.doc_key = s.document
		WHERE s.question_id = ? ORDER BY coalesce(c.id, 0), s.entry`, questionID)
	if err != nil {
		return nil, fmt.Errorf("store: sources of question %d: %w", questionID, err)
	}
	defer rows.Close()
	var out []QuestionSource
	for rows.Next() {
		var (
			s   QuestionSource
			prs string
		)
		if err := rows.Scan(&s.Document, &s.File, &s.Format, &s.Entry, &prs, &s.URL); err != nil {
			return nil, fmt.Errorf("store: sources of question %d: %w", questionID, err)
		}
		if err := json.Unmarshal([]byte(prs), &s.PRs); err != nil {
			return nil, fmt.Errorf("store: sources of question %d: %w", questionID, err)
		}
		if len(s.PRs) == 0 {
			s.PRs = nil
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sources of question %d: %w", questionID, err)
	}
	return out, nil
}

// FeatureTimeline is the history of one feature over every stored
// document, of any release and format.
type FeatureTimeline struct {
	// Feature is the name as the documents write it: the spelling without
	// spaces (a gate's) when there is one, else the commonest.
	Feature string `json:"feature"`
	// Stages are ordered by release, then from alpha to removed.
	Stages []FeatureStage `json:"stages"`
}

// FeatureStage is one stage a feature reached in one release, as the
// stored documents state it.
type FeatureStage struct {
	Release string          `json:"release"`
	Stage   changelog.Stage `json:"stage"`
	// PRs made the change (none when no document names one).
	PRs []int `json:"prs,omitempty"`
	// Revert is set when a statement says the change undid another.
	Revert bool `json:"revert,omitempty"`
	// Sources are the documents that state it, first stored first.
	Sources []StageSource `json:"sources"`
}

// StageSource is a document stating a stage, and where it does.
type StageSource struct {
	Document string           `json:"document"` // document key
	File     string           `json:"file"`
	Format   changelog.Format `json:"format"`
	Entry    string           `json:"entry"`
	// Evidence is the sentence the stage was read from; "" for a document
	// that holds the same note as another (SharedEntry).
	Evidence string `json:"evidence,omitempty"`
}

// FeatureTimeline returns each stage of a feature, matched by name ignoring
// case and spaces (changelog.FeatureKey), with its release, PRs and the
// documents that state it; a document that shares the stating entry with
// another (the release-notes JSON beside its CHANGELOG) is named too. A
// feature no stored document gives a stage is quiz.ErrNotFound.
func (db *DB) FeatureTimeline(ctx context.Context, name string) (FeatureTimeline, error) {
	key := changelog.FeatureKey(strings.TrimSpace(name))
	if key == "" {
		return FeatureTimeline{}, fmt.Errorf("store: feature timeline: no name: %w", quiz.ErrInvalid)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT f.feature, f.release, f.stage, f.pr, f.revert, f.source,
			e.entry_key, e.stages, c.doc_key, c.file_name, c.format, c.id
		FROM feature_stages f JOIN changelog_entries e ON e.id = f.entry_id
		JOIN changelog_documents c ON c.id = e.document_id
		WHERE f.feature_key = ? ORDER BY c.id, e.position, f.id`, key)
	if err != nil {
		return FeatureTimeline{}, fmt.Errorf("store: feature timeline %s: %w", name, err)
	}
	type row struct {
		feature, release, source, entry string
		stage                           changelog.Stage
		pr                              int
		revert                          bool
		doc                             StageSource
	}
	var found []row
	for rows.Next() {
		var (
			r      row
			stages string
			docID  int64
		)
		if err := rows.Scan(&r.feature, &r.release, &r.stage, &r.pr, &r.revert, &r.source, &r.entry, &stages,
			&r.doc.Document, &r.doc.File, &r.doc.Format, &docID); err != nil {
			rows.Close()
			return FeatureTimeline{}, fmt.Errorf("store: feature timeline %s: %w", name, err)
		}
		if changelog.FeatureKey(r.feature) != key {
			continue // a name the migration's lower() folded otherwise
		}
		r.doc.Entry = r.entry
		var scs []changelog.StageChange
		if err := json.Unmarshal([]byte(stages), &scs); err != nil {
			rows.Close()
			return FeatureTimeline{}, fmt.Errorf("store: feature timeline %s: entry %s: %w", name, r.entry, err)
		}
		for _, sc := range scs {
			if sc.Feature == r.feature && sc.Stage == r.stage && sc.Release == r.release && sc.Source == r.source {
				r.doc.Evidence = sc.Evidence
				break
			}
		}
		found = append(found, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return FeatureTimeline{}, fmt.Errorf("store: feature timeline %s: %w", name, err)
	}
	if len(found) == 0 {
		return FeatureTimeline{}, fmt.Errorf("store: feature timeline %s: %w", name, quiz.ErrNotFound)
	}
	shared, err := db.sharedHolders(ctx)
	if err != nil {
		return FeatureTimeline{}, err
	}

	tl := FeatureTimeline{}
	spellings := map[string]int{}
	var order []string
	index := map[string]int{}
	for _, r := range found {
		if spellings[r.feature] == 0 {
			order = append(order, r.feature)
		}
		spellings[r.feature]++
		rel, err := changelog.NormalizeRelease(r.release)
		if err != nil {
			rel = r.release
		}
		k := rel + "\x00" + string(r.stage)
		i, ok := index[k]
		if !ok {
			i = len(tl.Stages)
			index[k] = i
			tl.Stages = append(tl.Stages, FeatureStage{Release: rel, Stage: r.stage})
		}
		st := &tl.Stages[i]
		if r.pr > 0 && !slices.Contains(st.PRs, r.pr) {
			st.PRs = append(st.PRs, r.pr)
		}
		st.Revert = st.Revert || r.revert
		st.Sources = addStageSource(st.Sources, r.doc)
		for _, other := range shared[r.doc.Document+"\x00"+r.entry] {
			st.Sources = addStageSource(st.Sources, other)
		}
	}
	tl.Feature = order[0]
	best := -1
	for _, n := range order {
		score := spellings[n]
		if !strings.Contains(n, " ") {
			score += 1 << 20
		}
		if score > best {
			tl.Feature, best = n, score
		}
	}
	for i := range tl.Stages {
		slices.Sort(tl.Stages[i].PRs)
	}
	slices.SortStableFunc(tl.Stages, func(a, b FeatureStage) int {
		if c := changelog.CompareReleases(a.Release, b.Release); c != 0 {
			return c
		}
		return stageRank(a.Stage) - stageRank(b.Stage)
	})
	return tl, nil
}

// addStageSource adds a document to a stage's sources once.
func addStageSource(srcs []StageSource, s StageSource) []StageSource {
	for _, o := range srcs {
		if o.Document == s.Document {
			return srcs
		}
	}
	return append(srcs, s)
}

// stageRank orders the stages of one release from the first step to the last.
func stageRank(s changelog.Stage) int {
	for i, o := range []changelog.Stage{changelog.StageAlpha, changelog.StageBeta, changelog.StageBetaDefaultOn,
		changelog.StageDefaultOn, changelog.StageDefaultOff, changelog.StageGA, changelog.StageDeprecated,
		changelog.StageRemoved, changelog.StageReverted} {
		if o == s {
			return i
		}
	}
	return 99
}

// sharedHolders returns, for each stored entry (document key and entry key
// joined by a NUL), the other documents that share it.
func (db *DB) sharedHolders(ctx context.Context) (map[string][]StageSource, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT s.same_document, s.same_entry, c.doc_key, c.file_name, c.format, s.entry_key
		FROM changelog_shared_entries s JOIN changelog_documents c ON c.id = s.document_id ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("store: shared entries: %w", err)
	}
	defer rows.Close()
	out := map[string][]StageSource{}
	for rows.Next() {
		var (
			doc, entry string
			s          StageSource
		)
		if err := rows.Scan(&doc, &entry, &s.Document, &s.File, &s.Format, &s.Entry); err != nil {
			return nil, fmt.Errorf("store: shared entries: %w", err)
		}
		out[doc+"\x00"+entry] = append(out[doc+"\x00"+entry], s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: shared entries: %w", err)
	}
	return out, nil
}
