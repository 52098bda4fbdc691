package ingest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
)

// sharedSource reads a file of the shared reference folder.
func sharedSource(t *testing.T, elem ...string) Source {
	t.Helper()
	b, err := os.ReadFile(testshared.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return Source{Name: elem[len(elem)-1], Data: b}
}

// releaseNotes is the shared release-notes file of minor release 1.minor,
// with the release to give where the file does not state it.
func releaseNotes(t *testing.T, minor int) (Source, Options) {
	t.Helper()
	return sharedSource(t, "release-notes", fmt.Sprintf("release-notes-1.%d.0.json", minor)), Options{Release: fmt.Sprintf("1.%d", minor)}
}

// ingestAll prepares and saves srcs with opt, as the command does.
func ingestAll(t *testing.T, p *Pipeline, opt Options, srcs ...Source) (Batch, Saved) {
	t.Helper()
	ctx := context.Background()
	b, problems, err := p.Prepare(ctx, srcs, opt, nil)
	if err != nil || len(problems) > 0 {
		t.Fatalf("prepare: %v, problems %v", err, problems)
	}
	s, err := p.SaveAll(ctx, b, SaveOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	return b, s
}

// activeFacts returns, for each fact key of the draft and published
// questions, the documents whose decks ask it.
func activeFacts(t *testing.T, db *store.DB) map[string][]string {
	t.Helper()
	facts, err := db.GeneratedFacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range facts {
		if k := quizgen.FactKey(f.Provenance, f.Release); k != "" {
			out[k] = append(out[k], f.Document+" "+f.ExtID)
		}
	}
	return out
}

// checkOneQuestionPerFact fails for a fact asked by two questions.
func checkOneQuestionPerFact(t *testing.T, db *store.DB) {
	t.Helper()
	for k, qs := range activeFacts(t, db) {
		if len(qs) > 1 {
			t.Errorf("fact %q asked %d times: %v", strings.ReplaceAll(k, "\x00", " | "), len(qs), qs)
		}
	}
}

// checkOneDocumentPerPR fails for a PR whose note two documents store.
func checkOneDocumentPerPR(t *testing.T, db *store.DB) map[int]string {
	t.Helper()
	docs, err := db.StoredDocuments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	holder := map[int]string{}
	for _, d := range docs {
		if d.Format == changelog.FormatArticle {
			continue
		}
		for _, e := range d.Entries {
			for _, pr := range e.PRs {
				if h, ok := holder[pr]; ok && h != d.Key {
					t.Errorf("#%d stored by %s and %s", pr, h, d.Key)
				}
				holder[pr] = d.Key
			}
		}
	}
	return holder
}

func counts(gs []quizgen.Generated) string {
	c := quizgen.Count(gs)
	parts := make([]string, 0, len(c))
	for _, g := range quizgen.Generators() {
		if c[g] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", g, c[g]))
		}
	}
	return strings.Join(parts, ", ")
}

func stageChanges(d *changelog.Document) int {
	n := 0
	for _, e := range d.Entries {
		n += len(e.Stages)
	}
	return n
}

// TestReleaseNotesHistory ingests the eleven release-notes files of 1.17
// to 1.27 one after the other, as releases come out: the timeline of a
// feature spans them, each fact is asked once, and ingesting them all again
// changes nothing.
func TestReleaseNotesHistory(t *testing.T) {
	testshared.Dir(t)
	ctx := context.Background()
	db := newTestDB(t)
	p := New(db, quizgen.GenerateContext)
	var all []Source
	for minor := 17; minor <= 27; minor++ {
		src, opt := releaseNotes(t, minor)
		all = append(all, src)

		// Alone, as a dry run into an empty database, for the figures.
		alone, problems, err := New(newTestDB(t), quizgen.GenerateContext).Prepare(ctx, []Source{src}, opt, nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s alone: %v %v", src.Name, problems, err)
		}
		in := alone.Inputs[0]
		t.Logf("%s alone: %d entries, %d stage changes, %d drafts: %s", src.Name, len(in.Document.Entries),
			stageChanges(in.Document), len(in.Generated), counts(in.Generated))

		b, s := ingestAll(t, p, opt, src)
		r := s.Results[0]
		if r.Document != store.Added || len(b.Inputs[0].Generated) == 0 {
			t.Errorf("%s: %s, %d drafts", src.Name, r.Document, len(b.Inputs[0].Generated))
		}
		var regen []string
		for i, rr := range s.Regenerated {
			tot := rr.Total()
			regen = append(regen, fmt.Sprintf("%s (%d added, %d updated, %d retired)", b.Regenerated[i].Document.Key, tot.Added, tot.Updated, tot.Retired))
		}
		t.Logf("%s in turn: %d drafts: %s; asked by earlier decks %v; generated again: %s", src.Name, len(b.Inputs[0].Generated),
			counts(b.Inputs[0].Generated), r.AskedElsewhere, strings.Join(regen, ", "))
	}
	checkOneQuestionPerFact(t, db)

	// Timelines that span releases, each step checked by hand in the
	// files: release, stage and PR.
	for feature, steps := range map[string][]string{
		"ServiceIPStaticSubrange":      {"1.24 alpha 106792", "1.25 beta 110419", "1.25 default_on 110703", "1.26 ga 112163"},
		"MixedProtocolLBService":       {"1.20 alpha 94028", "1.24 beta 109213", "1.26 ga 112895"},
		"WindowsEndpointSliceProxying": {"1.19 alpha 92736", "1.21 beta_default_on 99794", "1.22 ga 103451"},
		"SetHostnameAsFQDN":            {"1.20 beta_default_on 95267", "1.22 ga 101294", "1.24 removed 108038"},
		"TopologyAwareHints":           {"1.21 alpha 99522", "1.23 beta 106433", "1.24 default_on 108747"},
		"DownwardAPIHugePages":         {"1.21 beta 99610", "1.23 default_on 106271", "1.27 ga 115721"},
	} {
		tl, err := db.FeatureTimeline(ctx, feature)
		if err != nil {
			t.Errorf("%s: %v", feature, err)
			continue
		}
		var got []string
		for _, st := range tl.Stages {
			for _, pr := range st.PRs {
				got = append(got, fmt.Sprintf("%s %s %d", st.Release, st.Stage, pr))
			}
			want := "1." + strings.TrimPrefix(st.Release, "1.") + "/release-notes"
			if len(st.Sources) == 0 || st.Sources[0].Document != want || st.Sources[0].Format != changelog.FormatReleaseNotesJSON {
				t.Errorf("%s %s %s: sources %+v, want %s", feature, st.Release, st.Stage, st.Sources, want)
			}
		}
		// "beta and on by default" is stored as two facts of one PR: the
		// step the timeline folds them into.
		for j := 0; j+1 < len(got); j++ {
			a, b := strings.Fields(got[j]), strings.Fields(got[j+1])
			if a[0] == b[0] && a[2] == b[2] && a[1] == "beta" && b[1] == "default_on" {
				got[j] = a[0] + " beta_default_on " + a[2]
				got = append(got[:j+1], got[j+2:]...)
			}
		}
		i := 0
		for _, g := range got {
			if i < len(steps) && g == steps[i] {
				i++
			}
		}
		if tl.Feature != feature || i != len(steps) {
			t.Errorf("%s: timeline %s %q, want the steps %q in order", feature, tl.Feature, got, steps)
		}
	}

	// All eleven again, in one batch: nothing changes.
	before, err := db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, problems, err := p.Prepare(ctx, all, Options{}, nil)
	if len(problems) == 0 || err != nil {
		t.Fatalf("without -release: problems %v, %v; want the files that name no release refused", problems, err)
	}
	for _, pr := range problems {
		if !strings.Contains(pr.Err.Error(), "release_version") {
			t.Errorf("%s: %v, want the reason", pr.File, pr.Err)
		}
	}
	var docs []Parsed
	for minor, src := range all {
		doc, err := Parse(ctx, src, Options{Release: fmt.Sprintf("1.%d", minor+17)})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, Parsed{File: src.Name, Document: doc})
	}
	if b, err = p.Generate(ctx, docs, "", nil); err != nil {
		t.Fatal(err)
	}
	s, err := p.SaveAll(ctx, b, SaveOptions{Actor: "test", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Regenerated) != 0 {
		t.Errorf("%d documents generated again by the same documents", len(s.Regenerated))
	}
	for _, r := range s.Results {
		if tot := r.Total(); r.Document != store.Unchanged || tot.Unchanged != len(r.Questions) {
			t.Errorf("%s again: %s, %+v", r.File, r.Document, tot)
		}
	}
	after, err := db.TableChecksums(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for tab, sum := range after {
		if before[tab] != sum && tab != "import_runs" {
			t.Errorf("ingesting the same files again changed %s", tab)
		}
	}
}

// TestSameNotesBothOrders stores the release-notes JSON and the CHANGELOG of
// one release, in both orders: each note is stored once and each fact asked
// once. The 1.21 files print the same notes word for word, and the two
// orders end with the same notes and facts; the 1.17 CHANGELOG was edited
// after the tool wrote the notes, and the first stored printing gives its
// wording to the questions.
func TestSameNotesBothOrders(t *testing.T) {
	testshared.Dir(t)
	for _, c := range []struct {
		minor     int
		changelog string
		verbatim  bool
	}{
		{21, "CHANGELOG-1.21.0.md", true},
		{17, "CHANGELOG-1.17.0.md", false},
	} {
		t.Run(c.changelog, func(t *testing.T) {
			notes, opt := releaseNotes(t, c.minor)
			cl := sharedSource(t, "changelogs", c.changelog)
			type outcome struct {
				prs   map[int]string
				facts []string
			}
			var outcomes []outcome
			for _, order := range [][]Source{{notes, cl}, {cl, notes}} {
				db := newTestDB(t)
				p := New(db, quizgen.GenerateContext)
				ingestAll(t, p, opt, order[0])
				b, s := ingestAll(t, p, opt, order[1])
				second := s.Results[0]
				shared := 0
				for _, n := range second.SharedEntries {
					shared += n
				}
				if want := b.Inputs[0].Document.Key; second.DocumentKey != want || shared < 200 || second.SharedEntries[documentKeyOf(t, db, order[0].Name)] != shared {
					t.Errorf("%s second: %d entries shared %v", order[1].Name, shared, second.SharedEntries)
				}
				t.Logf("%s after %s: %d entries, %d already stored, %d drafts (%s), asked elsewhere %v", order[1].Name, order[0].Name,
					second.Entries, shared, len(b.Inputs[0].Generated), counts(b.Inputs[0].Generated), second.AskedElsewhere)
				checkOneQuestionPerFact(t, db)
				holders := checkOneDocumentPerPR(t, db)

				// The first document's questions name the second among
				// their sources.
				firstKey := documentKeyOf(t, db, order[0].Name)
				drafts, err := db.ListDrafts(context.Background(), store.DraftFilter{Document: firstKey})
				if err != nil {
					t.Fatal(err)
				}
				both := 0
				for _, d := range drafts {
					srcs, err := db.QuestionSources(context.Background(), d.ID)
					if err != nil {
						t.Fatal(err)
					}
					if len(srcs) == 2 && srcs[0].Document == firstKey && srcs[1].Document == second.DocumentKey {
						both++
					}
				}
				if both < len(drafts)/2 {
					t.Errorf("%d of %s's %d questions name both documents as sources", both, firstKey, len(drafts))
				}

				// Again: the second document changes nothing.
				_, again := ingestAll(t, p, opt, order[1])
				if tot := again.Results[0].Total(); again.Results[0].Document != store.Unchanged || tot.Added+tot.Updated+tot.Retired+tot.Proposed != 0 {
					t.Errorf("%s again: %s %+v", order[1].Name, again.Results[0].Document, tot)
				}
				facts := slices.Collect(maps.Keys(activeFacts(t, db)))
				sort.Strings(facts)
				outcomes = append(outcomes, outcome{holders, facts})
			}
			a, b := outcomes[0], outcomes[1]
			if !slices.Equal(slices.Sorted(maps.Keys(a.prs)), slices.Sorted(maps.Keys(b.prs))) {
				t.Errorf("the orders store notes of %d and %d PRs", len(a.prs), len(b.prs))
			}
			onlyA, onlyB := difference(a.facts, b.facts), difference(b.facts, a.facts)
			// The generators weigh each document as a whole (a feature the
			// CHANGELOG's highlight calls beta and its entry beta and on by
			// default is stated two ways there, and asked in neither), so
			// a few facts depend on which printing comes first.
			t.Logf("facts asked in one order only: %q, %q", onlyA, onlyB)
			if c.verbatim && len(onlyA)+len(onlyB) > (len(a.facts)+len(b.facts))/25 {
				t.Errorf("facts asked in one order only: %d of %d and %d of %d: %q, %q", len(onlyA), len(a.facts), len(onlyB), len(b.facts), onlyA, onlyB)
			}
		})
	}
}

func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, strings.ReplaceAll(x, "\x00", " | "))
		}
	}
	return out
}

func documentKeyOf(t *testing.T, db *store.DB, file string) string {
	t.Helper()
	docs, err := db.ChangelogDocuments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.FileName == file {
			return d.Key
		}
	}
	t.Fatalf("no document from %s", file)
	return ""
}

// TestPublishedWordingKept publishes the questions of the 1.20 notes and
// then stores the later releases: the history they add is proposed for the
// published questions, whose wording stays until an admin accepts it.
func TestPublishedWordingKept(t *testing.T) {
	testshared.Dir(t)
	ctx := context.Background()
	db := newTestDB(t)
	p := New(db, quizgen.GenerateContext)
	src, opt := releaseNotes(t, 20)
	ingestAll(t, p, opt, src)
	drafts, err := db.ListDrafts(ctx, store.DraftFilter{Document: "1.20/release-notes"})
	if err != nil || len(drafts) == 0 {
		t.Fatalf("drafts = %d, %v", len(drafts), err)
	}
	ids := make([]int64, len(drafts))
	published := map[int64]quiz.Question{}
	for i, d := range drafts {
		ids[i] = d.ID
		published[d.ID] = d.Question
	}
	if _, err := db.PublishQuestions(ctx, "v1-20-changelog", ids, t0); err != nil {
		t.Fatal(err)
	}
	// Drafts the history adds to 1.20 after its publication may be
	// updated by later history; the published questions never are (their
	// wording is checked below).
	proposed, added := 0, 0
	for minor := 21; minor <= 24; minor++ {
		src, opt := releaseNotes(t, minor)
		b, s := ingestAll(t, p, opt, src)
		for i, r := range s.Regenerated {
			if b.Regenerated[i].Document.Key == "1.20/release-notes" {
				proposed += r.Total().Proposed
				if r.Total().Updated > added {
					t.Errorf("1.20's published questions updated in place: %+v, after %d drafts added", r.Total(), added)
				}
				added += r.Total().Added
			}
		}
	}
	if proposed == 0 {
		t.Fatal("no proposal for 1.20's published questions")
	}
	now, err := db.ListDrafts(ctx, store.DraftFilter{Document: "1.20/release-notes", Statuses: []quiz.Status{quiz.Published, quiz.Retired}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range now {
		if was, ok := published[d.ID]; ok && d.Question.ContentHash() != was.ContentHash() {
			t.Errorf("published question %s reworded by an ingest", d.Question.ExtID)
		}
	}
	props, err := db.Proposals(ctx, "1.20/release-notes")
	if err != nil || len(props) == 0 {
		t.Fatalf("proposals = %d, %v", len(props), err)
	}
	t.Logf("%d proposals for 1.20's published questions, e.g. %s:\n  %s\n  → %s", len(props), props[0].Current.Question.ExtID,
		props[0].Current.Question.Explanation, props[0].Proposed.Explanation)
	sq, err := db.AcceptProposal(ctx, props[0].Current.ID, t0)
	if err != nil || sq.Question.ContentHash() != props[0].Proposed.ContentHash() || sq.Status != quiz.Published {
		t.Errorf("accepted = %+v, %v", sq.Question, err)
	}
}

// TestRegeneratedQuestionRetired: a question that generation no longer
// gives an earlier document, once a later one adds to the history, is
// retired, never deleted, and its fact's question is the later document's.
func TestRegeneratedQuestionRetired(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	// Like timeline_order, a question on FooBarVolume belongs to the
	// document of its newest change.
	gen := func(doc *changelog.Document, tl *changelog.Timeline, opt quizgen.Options) []quizgen.Generated {
		out := flashcards(doc, tl, opt)
		ev := tl.Events("FooBarVolume")
		if len(ev) > 0 && ev[len(ev)-1].Release == doc.Release {
			out = append(out, quizgen.Generated{Question: quiz.Question{
				ExtID: "order-" + strings.ReplaceAll(doc.Release, ".", "-"), Type: quiz.Flashcard, Prompt: "FooBarVolume の歩みは?",
				Answer: fmt.Sprint(len(ev), " 段階"), Explanation: "タイムライン", Source: quiz.Source{Release: doc.Release},
			}, Provenance: quizgen.Provenance{Document: doc.Key, Generator: quizgen.GenTimelineOrder, Feature: "FooBarVolume", Release: doc.Release}})
		}
		return out
	}
	p := New(db, Plain(gen))
	ingestAll(t, p, Options{}, Source{Name: "node-1.35.txt", Data: []byte(olderArticle)})
	drafts, err := db.ListDrafts(ctx, store.DraftFilter{Document: "1.35/node"})
	if err != nil {
		t.Fatal(err)
	}
	var order int64
	for _, d := range drafts {
		if d.Question.ExtID == "order-1-35" {
			order = d.ID
		}
	}
	if order == 0 {
		t.Fatal("no timeline question for 1.35")
	}
	if _, err := db.PublishQuestions(ctx, "v1-35-sig-node", []int64{order}, t0); err != nil {
		t.Fatal(err)
	}

	b, s := ingestAll(t, p, Options{}, Source{Name: "node-1.36.txt", Data: []byte(nodeArticle)})
	if len(s.Regenerated) != 1 || b.Regenerated[0].Document.Key != "1.35/node" || s.Regenerated[0].Total().Retired != 1 {
		t.Fatalf("regenerated = %+v", s.Regenerated)
	}
	q, err := db.GeneratedQuestion(ctx, order)
	if err != nil || q.Status != quiz.Retired {
		t.Errorf("1.35's timeline question: %s, %v; want retired, kept", q.Status, err)
	}
	if !slices.ContainsFunc(b.Inputs[0].Generated, func(g quizgen.Generated) bool { return g.Question.ExtID == "order-1-36" }) {
		t.Error("1.36 does not ask the timeline")
	}
}
