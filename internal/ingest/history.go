package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
)

// This file ties a batch to what is stored, after its questions are
// generated:
//
//   - The same notes twice. The CHANGELOG (either layout) and the
//     release-notes JSON of one release print the same notes. An entry of
//     a new document that a stored document of the same notes and release
//     holds, or an earlier document of the batch, is shared
//     (store.SharedEntry): matched by a PR number in common, or, for an
//     entry without a PR, by its text with case, spacing and punctuation
//     left out. It is not stored again, and the timeline and the
//     generators read the document without it, as it is stored and as it
//     is read back when generated again; the document is named among the
//     sources of the questions on the entry that holds the note. An
//     article is its author's own document and shares nothing.
//   - History across releases. The timeline spans every stored document
//     and the batch. Where the batch changes a feature's history (the
//     stages it reached, in which release, by which PR), each stored
//     document that mentions the feature, in an entry or a question, has
//     its questions generated again (Batch.Regenerated): drafts follow the
//     new generation, published questions get a proposal beside them.
//   - One question per fact. Documents are taken in the order they were
//     first stored, then the batch's new ones in order. The first to ask a
//     fact (quizgen.FactKey) keeps its question, in its deck; a later one
//     generates none for it and is listed among the question's sources
//     (store.FactSource); so is a second question of one document on a
//     fact it already asks (a note the CHANGELOG lists under two kinds).

// connect finds the stored documents to generate again and which deck asks
// each fact, once the batch's shared entries are set (shareNotes) and its
// questions generated; tl is the timeline of the stored documents and the
// batch.
func (p *Pipeline) connect(ctx context.Context, b *Batch, stored []*changelog.Document, tl *changelog.Timeline) error {
	replaced := map[string]bool{}
	for _, in := range b.Inputs {
		replaced[in.Document.Key] = true
	}
	facts, err := p.db.GeneratedFacts(ctx)
	if err != nil {
		return err
	}
	factsOf := map[string][]store.GeneratedFact{}
	for _, f := range facts {
		factsOf[f.Document] = append(factsOf[f.Document], f)
	}
	changed, err := changedFeatures(stored, replaced, b.Inputs, tl)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		decks, err := p.db.DocumentDecks(ctx)
		if err != nil {
			return err
		}
		shared, err := p.db.SharedEntries(ctx)
		if err != nil {
			return err
		}
		for _, d := range stored {
			if replaced[d.Key] || !mentions(d, factsOf[d.Key], changed) {
				continue
			}
			dd, ok := decks[d.Key]
			if !ok {
				return fmt.Errorf("regenerate %s: the document's deck is not stored", d.Key)
			}
			gen, err := p.generate(ctx, d, tl, quizgen.Options{Language: dd.Deck.Language})
			if err != nil {
				return fmt.Errorf("regenerate %s: %w", d.Key, err)
			}
			b.Regenerated = append(b.Regenerated, store.ChangelogInput{
				File: dd.File, Document: d, Deck: dd.Deck, Regenerated: true, Shared: shared[d.Key], Generated: gen,
			})
		}
	}
	assignFacts(b, stored, factsOf)
	return nil
}

// noteRef is an entry of a document.
type noteRef struct{ doc, entry string }

// noteIndex finds the entries of one release's upstream notes by PR and by
// text.
type noteIndex struct {
	byPR   map[int]noteRef
	byText map[string]noteRef
}

func (x *noteIndex) add(doc string, e *changelog.Entry) {
	if len(e.PRs) == 0 {
		if k := noteText(e); k != "" {
			if _, ok := x.byText[k]; !ok {
				x.byText[k] = noteRef{doc, e.Key}
			}
		}
		return
	}
	for _, pr := range e.PRs {
		if _, ok := x.byPR[pr]; !ok && pr > 0 {
			x.byPR[pr] = noteRef{doc, e.Key}
		}
	}
}

func (x *noteIndex) find(e *changelog.Entry) (noteRef, bool) {
	if len(e.PRs) == 0 {
		r, ok := x.byText[noteText(e)]
		return r, ok
	}
	for _, pr := range e.PRs {
		if r, ok := x.byPR[pr]; ok {
			return r, true
		}
	}
	return noteRef{}, false
}

// noteText is the letters and digits of an entry's title and text,
// lower-cased, hashed: what two printings of one note without a PR have in
// common.
func noteText(e *changelog.Entry) string {
	var b strings.Builder
	for _, r := range strings.ToLower(e.Title + "\n" + e.Text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// shareNotes sets the Shared entries of each input: those of its release's
// notes that a stored document (not one the batch replaces) or an earlier
// input holds. It returns each input's document as it will be stored:
// without its shared entries.
func shareNotes(inputs []store.ChangelogInput, stored []*changelog.Document) []Parsed {
	replaced := map[string]bool{}
	for _, in := range inputs {
		replaced[in.Document.Key] = true
	}
	markShared(inputs, stored, replaced)
	own := make([]Parsed, len(inputs))
	for i, in := range inputs {
		own[i] = Parsed{File: in.File, Document: withoutShared(in.Document, in.Shared)}
	}
	return own
}

// withoutShared is d without the shared entries: d itself when there are
// none, else a copy.
func withoutShared(d *changelog.Document, shared []store.SharedEntry) *changelog.Document {
	if len(shared) == 0 {
		return d
	}
	skip := make(map[string]bool, len(shared))
	for _, sh := range shared {
		skip[sh.Entry] = true
	}
	c := *d
	c.Entries = make([]changelog.Entry, 0, len(d.Entries)-len(shared))
	for _, e := range d.Entries {
		if !skip[e.Key] {
			c.Entries = append(c.Entries, e)
		}
	}
	return &c
}

// markShared sets the Shared entries of each input.
func markShared(inputs []store.ChangelogInput, stored []*changelog.Document, replaced map[string]bool) {
	indexes := map[string]*noteIndex{}
	index := func(d *changelog.Document) *noteIndex {
		rel, err := changelog.NormalizeRelease(d.Release)
		if err != nil || d.Format == changelog.FormatArticle {
			return nil
		}
		x := indexes[rel]
		if x == nil {
			x = &noteIndex{byPR: map[int]noteRef{}, byText: map[string]noteRef{}}
			indexes[rel] = x
		}
		return x
	}
	for _, d := range stored {
		if replaced[d.Key] {
			continue
		}
		if x := index(d); x != nil {
			for i := range d.Entries {
				x.add(d.Key, &d.Entries[i])
			}
		}
	}
	for i := range inputs {
		in := &inputs[i]
		in.Shared = nil
		x := index(in.Document)
		if x == nil {
			continue
		}
		var own []*changelog.Entry
		for j := range in.Document.Entries {
			e := &in.Document.Entries[j]
			if r, ok := x.find(e); ok && r.doc != in.Document.Key {
				in.Shared = append(in.Shared, store.SharedEntry{Entry: e.Key, Document: r.doc, Same: r.entry, PRs: e.PRs})
				continue
			}
			own = append(own, e)
		}
		for _, e := range own {
			x.add(in.Document.Key, e)
		}
	}
}

// changedFeatures returns the features, by changelog.FeatureKey, whose
// history the batch changes: their per-release stages, reverts or PRs
// differ between the stored documents alone and tl.
func changedFeatures(stored []*changelog.Document, replaced map[string]bool, inputs []store.ChangelogInput, tl *changelog.Timeline) (map[string]bool, error) {
	before, err := changelog.NewTimeline(stored...)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	candidates := map[string]string{}
	addFeatures := func(d *changelog.Document) {
		for _, e := range d.Entries {
			for _, sc := range e.Stages {
				candidates[changelog.FeatureKey(sc.Feature)] = sc.Feature
			}
		}
	}
	for _, d := range stored {
		if replaced[d.Key] {
			addFeatures(d)
		}
	}
	for _, in := range inputs {
		addFeatures(in.Document)
	}
	changed := map[string]bool{}
	for k, name := range candidates {
		if !sameEvents(before.Events(name), tl.Events(name)) {
			changed[k] = true
		}
	}
	return changed, nil
}

func sameEvents(a, b []changelog.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Release != b[i].Release || a[i].Stage != b[i].Stage || a[i].Revert != b[i].Revert || a[i].PR != b[i].PR {
			return false
		}
	}
	return true
}

// mentions reports whether a stored document, in its entries or in its
// questions, names a feature of changed.
func mentions(d *changelog.Document, facts []store.GeneratedFact, changed map[string]bool) bool {
	for _, e := range d.Entries {
		if e.Focus != "" && changed[changelog.FeatureKey(e.Focus)] {
			return true
		}
		for _, sc := range e.Stages {
			if changed[changelog.FeatureKey(sc.Feature)] {
				return true
			}
		}
		for _, m := range e.Mentions {
			if changed[changelog.FeatureKey(m.Name)] {
				return true
			}
		}
	}
	for _, f := range facts {
		if f.Provenance.Feature != "" && changed[changelog.FeatureKey(f.Provenance.Feature)] {
			return true
		}
	}
	return false
}

// assignFacts gives each fact to the first document, in stored order, that
// asks it, drops the other documents' questions on it and the questions
// built on shared entries, and records every document's sources.
func assignFacts(b *Batch, stored []*changelog.Document, factsOf map[string][]store.GeneratedFact) {
	generated := map[string]*store.ChangelogInput{}
	for i := range b.Inputs {
		generated[b.Inputs[i].Document.Key] = &b.Inputs[i]
	}
	for i := range b.Regenerated {
		generated[b.Regenerated[i].Document.Key] = &b.Regenerated[i]
	}
	// Questions of documents no longer stored come first: they were there
	// before any stored now.
	var order []string
	seen := map[string]bool{}
	storedKeys := map[string]bool{}
	for _, d := range stored {
		storedKeys[d.Key] = true
	}
	for doc := range factsOf {
		if !storedKeys[doc] && generated[doc] == nil {
			order = append(order, doc)
			seen[doc] = true
		}
	}
	slices.Sort(order)
	for _, d := range stored {
		order = append(order, d.Key)
		seen[d.Key] = true
	}
	for _, in := range b.Inputs {
		if !seen[in.Document.Key] {
			order = append(order, in.Document.Key)
			seen[in.Document.Key] = true
		}
	}

	type owner struct{ doc, extID string }
	owners := map[string]owner{}
	sources := sourceAdder{}
	for _, doc := range order {
		in := generated[doc]
		if in == nil {
			for _, f := range factsOf[doc] {
				if k := quizgen.FactKey(f.Provenance, f.Release); k != "" {
					if _, ok := owners[k]; !ok {
						owners[k] = owner{doc, f.ExtID}
					}
				}
			}
			continue
		}
		shared := map[string]bool{}
		for _, sh := range in.Shared {
			shared[sh.Entry] = true
		}
		in.Sources = nil
		kept := make([]quizgen.Generated, 0, len(in.Generated))
		for _, g := range in.Generated {
			p := g.Provenance
			src := store.FactSource{Entry: p.Entry, PRs: p.PRs, URL: sourceURL(p.PRs)}
			k := quizgen.FactKey(p, g.Question.Source.Release)
			if o, ok := owners[k]; ok && k != "" {
				src.Document, src.ExtID = o.doc, o.extID
				sources.add(in, src)
				continue
			}
			if p.Entry != "" && shared[p.Entry] {
				continue // the note is another document's, and so are its questions
			}
			if k != "" {
				owners[k] = owner{doc, g.Question.ExtID}
				src.Document, src.ExtID = doc, g.Question.ExtID
				sources.add(in, src)
			}
			kept = append(kept, g)
		}
		in.Generated = kept
	}

	// A document that shares a note states the facts of the questions on
	// the entry that holds it.
	onEntry := map[noteRef][]owner{}
	for _, doc := range order {
		if in := generated[doc]; in != nil {
			for _, g := range in.Generated {
				r := noteRef{doc, g.Provenance.Entry}
				onEntry[r] = append(onEntry[r], owner{doc, g.Question.ExtID})
			}
			continue
		}
		for _, f := range factsOf[doc] {
			r := noteRef{doc, f.Provenance.Entry}
			onEntry[r] = append(onEntry[r], owner{doc, f.ExtID})
		}
	}
	for _, in := range generated {
		for _, sh := range in.Shared {
			for _, o := range onEntry[noteRef{sh.Document, sh.Same}] {
				sources.add(in, store.FactSource{Document: o.doc, ExtID: o.extID, Entry: sh.Entry, PRs: sh.PRs, URL: sourceURL(sh.PRs)})
			}
		}
	}
}

// sourceAdder adds sources to inputs, remembering each input's: a source
// is added unless the input already has the same question's fact stated
// in the same entry.
type sourceAdder map[*store.ChangelogInput]map[sourceKey]bool

// sourceKey is what tells two sources of an input apart.
type sourceKey struct{ document, extID, entry string }

func (a sourceAdder) add(in *store.ChangelogInput, src store.FactSource) {
	have := a[in]
	if have == nil {
		have = make(map[sourceKey]bool, len(in.Sources)+1)
		for _, s := range in.Sources {
			have[sourceKey{s.Document, s.ExtID, s.Entry}] = true
		}
		a[in] = have
	}
	k := sourceKey{src.Document, src.ExtID, src.Entry}
	if have[k] {
		return
	}
	have[k] = true
	in.Sources = append(in.Sources, src)
}

// sourceURL is where to read a source: its first PR.
func sourceURL(prs []int) string {
	for _, pr := range prs {
		if pr > 0 {
			return quiz.PRURL(pr)
		}
	}
	return ""
}
