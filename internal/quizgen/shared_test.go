package quizgen

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/testshared"
)

// sharedFiles are the eight reference documents: four upstream CHANGELOGs
// and four seed articles (000 = 1.21 Node, 001 = 1.36 Node, 002 = 1.17
// Cluster Lifecycle, 004 = 1.28 Network).
var sharedFiles = []struct {
	name string
	path []string
	seed bool
}{
	{"up17", []string{"changelogs", "CHANGELOG-1.17.0.md"}, false},
	{"up21", []string{"changelogs", "CHANGELOG-1.21.0.md"}, false},
	{"up28", []string{"changelogs", "CHANGELOG-1.28.0.md"}, false},
	{"up36", []string{"changelogs", "CHANGELOG-1.36.0.md"}, false},
	{"seed21", []string{"seeds", "000_aec933f24ac22a84.txt"}, true},
	{"seed36", []string{"seeds", "001_c234237cc75ea20a.txt"}, true},
	{"seed17", []string{"seeds", "002_d94e65080418002e.txt"}, true},
	{"seed28", []string{"seeds", "004_5718a512479919c9.txt"}, true},
}

type sharedDoc struct {
	name string
	seed bool
	doc  *changelog.Document
}

// loadShared parses the eight documents and builds their timeline.
func loadShared(t testing.TB) ([]sharedDoc, *changelog.Timeline) {
	t.Helper()
	var docs []sharedDoc
	var all []*changelog.Document
	for _, f := range sharedFiles {
		b, err := os.ReadFile(testshared.Path(t, f.path...))
		if err != nil {
			t.Fatalf("read %s: %v", f.name, err)
		}
		d, err := changelog.Parse(b, changelog.Options{})
		if err != nil {
			t.Fatalf("parse %s: %v", f.name, err)
		}
		docs = append(docs, sharedDoc{f.name, f.seed, d})
		all = append(all, d)
	}
	tl, err := changelog.NewTimeline(all...)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	return docs, tl
}

// bankKinds is the question bank's source.kind vocabulary.
var bankKinds = []string{
	"urgent-upgrade-note", "deprecation", "api-change", "feature", "documentation", "failing-test", "bug",
	"cleanup", "uncategorized", "dependency", "highlight", "concept",
}

func TestSharedDocuments(t *testing.T) {
	docs, tl := loadShared(t)
	seedCounts := map[string]int{}
	for _, lang := range []string{LangJapanese, LangEnglish} {
		for _, sd := range docs {
			t.Run(lang+"/"+sd.name, func(t *testing.T) {
				opt := Options{Language: lang}
				rep := GenerateReport(sd.doc, tl, opt)
				for _, d := range rep.Dropped {
					t.Errorf("dropped %s (%s, entry %s): %s", d.ExtID, d.Provenance.Generator, d.Provenance.Entry, d.Reason)
				}
				if len(rep.Questions) == 0 {
					t.Fatalf("no questions")
				}
				c := checker{t: t, doc: sd.doc, tl: tl, lex: lexiconFor(lang), concepts: sd.doc.Concepts()}
				ids := map[string]bool{}
				described := map[string]bool{}
				for _, g := range rep.Questions {
					if g.Provenance.Generator == GenFeatureFromDescription {
						k := changelog.FeatureKey(g.Provenance.Feature)
						if described[k] {
							t.Errorf("%s: a second description question about %s", g.Question.ExtID, g.Provenance.Feature)
						}
						described[k] = true
					}
					if ids[g.Question.ExtID] {
						t.Errorf("id %s repeats", g.Question.ExtID)
					}
					// A flashcard's back says what its term is: not what goes
					// wrong with it (a known issue), nor what it was built from.
					if g.Question.Type == quiz.Flashcard {
						if e := c.entry(g.Provenance.Entry); e != nil && e.Kind == changelog.KindKnownIssue {
							t.Errorf("%s: a flashcard from a known issue: %q", g.Question.ExtID, g.Question.Answer)
						}
						if reVersionBump.MatchString(g.Question.Answer) {
							t.Errorf("%s: a flashcard whose back is a version bump: %q", g.Question.ExtID, g.Question.Answer)
						}
						// Nor why something happened, and it reads as a
						// text of its own: no list marker, no list
						// introduction without its list, no credit.
						if back := g.Question.Answer; reReason.MatchString(back) || reListMarker.MatchString(back) ||
							strings.HasSuffix(back, ":") || strings.HasSuffix(back, "：") || strings.Contains(strings.ToLower(back), "author:") {
							t.Errorf("%s: a flashcard's back is a reason or a fragment: %q", g.Question.ExtID, back)
						}
					}
					// The 1.17 article calls this release note a lie under it.
					if strings.HasSuffix(g.Provenance.Entry, "/pr-83454") && sd.seed {
						t.Errorf("%s: a question from an entry its own note calls untrue", g.Question.ExtID)
					}
					ids[g.Question.ExtID] = true
					c.check(g)
				}
				again := Generate(sd.doc, tl, opt)
				if got, want := mustJSON(t, again), mustJSON(t, rep.Questions); got != want {
					t.Errorf("second run differs from the first")
				}
				counts := rep.Counts()
				t.Logf("%s %s: %d questions %v", lang, sd.doc.Key, len(rep.Questions), counts)
				if sd.seed && lang == LangJapanese {
					for g, n := range counts {
						seedCounts[g] += n
					}
				}
			})
		}
	}
	for _, g := range Generators() {
		if seedCounts[g] == 0 {
			t.Errorf("generator %s made no question from the seeds", g)
		}
	}
}

// TestSharedTimelineOrderIndependent checks that the output does not
// depend on the order the documents were added to the timeline.
func TestSharedTimelineOrderIndependent(t *testing.T) {
	docs, tl := loadShared(t)
	var rev []*changelog.Document
	for i := len(docs) - 1; i >= 0; i-- {
		rev = append(rev, docs[i].doc)
	}
	tl2, err := changelog.NewTimeline(rev...)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	for _, sd := range docs {
		got := mustJSON(t, Generate(sd.doc, tl2, Options{}))
		want := mustJSON(t, Generate(sd.doc, tl, Options{}))
		if got != want {
			t.Errorf("%s: output depends on the order documents were added to the timeline", sd.name)
		}
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// checker asserts the properties every generated question must have.
type checker struct {
	t        *testing.T
	doc      *changelog.Document
	tl       *changelog.Timeline
	lex      *lexicon
	concepts []changelog.Concept
}

// entry is the document's entry of key, or nil.
func (c checker) entry(key string) *changelog.Entry {
	var e *changelog.Entry
	for i := range c.doc.Entries {
		if c.doc.Entries[i].Key == key {
			e = &c.doc.Entries[i]
		}
	}
	return e
}

func (c checker) check(g Generated) {
	t := c.t
	t.Helper()
	q, p := g.Question, g.Provenance
	where := q.ExtID + " (" + p.Generator + ")"
	if err := q.Validate(); err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if !strings.HasPrefix(q.ExtID, "gen-") {
		t.Errorf("%s: id does not start with gen-", where)
	}
	if p.Document != c.doc.Key || !slices.Contains(Generators(), p.Generator) {
		t.Errorf("%s: provenance %+v, want document %s and a known generator", where, p, c.doc.Key)
	}
	if !slices.Contains(q.Tags, p.Generator) {
		t.Errorf("%s: tags %q lack the generator", where, q.Tags)
	}
	if q.Source.Release != c.doc.Release || !slices.Contains(bankKinds, q.Source.Kind) {
		t.Errorf("%s: source %+v: want release %s and a bank kind", where, q.Source, c.doc.Release)
	}
	for _, s := range []string{q.Prompt, q.Explanation, q.Answer} {
		if strings.ContainsRune(s, '\r') {
			t.Errorf("%s: carriage return in %q", where, s)
		}
	}
	if q.Type == quiz.SingleChoice {
		n := 0
		seen := map[string]bool{}
		for _, ch := range q.Choices {
			if ch == q.Answer {
				n++
			}
			if seen[quiz.Normalize(ch)] {
				t.Errorf("%s: choice %q repeats", where, ch)
			}
			seen[quiz.Normalize(ch)] = true
		}
		if n != 1 {
			t.Errorf("%s: answer %q is among the choices %d times, want once", where, q.Answer, n)
		}
	}
	e := c.entry(p.Entry)
	if p.Entry != "" && e == nil {
		t.Errorf("%s: entry %q not in the document", where, p.Entry)
		return
	}
	switch p.Generator {
	case GenStageInRelease:
		c.checkStageInRelease(where, q, p, e)
	case GenReleaseOfStage:
		c.checkReleaseOfStage(where, q, p, e)
	case GenTimelineOrder:
		c.checkTimelineOrder(where, q, p)
	case GenFeatureFromDescription:
		c.checkDescription(where, q, p, e)
	case GenCloze:
		c.checkCloze(where, q, e)
	case GenTrueFalse:
		c.checkTrueFalse(where, q, p, e)
	case GenFlashcard:
		c.checkFlashcard(where, q, p)
	}
}

// statesChange reports whether the entry states the change, a level and
// the default stated with it read as one (mergedStages); an empty stage is
// any.
func statesChange(e *changelog.Entry, feature string, stage changelog.Stage, release string) bool {
	if e == nil {
		return false
	}
	for _, sc := range mergedStages(e.Stages) {
		rel, _ := changelog.NormalizeRelease(sc.Release)
		if changelog.FeatureKey(sc.Feature) == changelog.FeatureKey(feature) && (sc.Stage == stage || stage == "") && rel == release {
			return true
		}
	}
	return false
}

// stageOf maps a label back to its stage.
func (c checker) stageOf(label string) (changelog.Stage, bool) {
	for s, l := range c.lex.label {
		if l == label {
			return s, true
		}
	}
	return "", false
}

func (c checker) checkStageInRelease(where string, q quiz.Question, p Provenance, e *changelog.Entry) {
	t := c.t
	t.Helper()
	if q.Type != quiz.SingleChoice || !statesChange(e, p.Feature, p.Stage, p.Release) || p.Release != c.doc.Release {
		t.Errorf("%s: %s in %s is not a change its entry states in the document's release", where, p.Stage, p.Release)
	}
	want := p.Stage
	if want == changelog.StageBetaDefaultOn {
		want = changelog.StageBeta // asked as beta, which it is too
	}
	if q.Answer != c.lex.label[want] {
		t.Errorf("%s: answer %q, want %q", where, q.Answer, c.lex.label[want])
	}
	// A gate is named as one whatever the answer, or the wording would
	// give a removal away.
	asked := p.Feature
	if gate := strings.Contains(q.Prompt, c.lex.gateName(p.Feature)); gate != c.calledGate(p.Feature) {
		t.Errorf("%s: prompt %q names %s as a gate: %v, the document calls it one: %v", where, q.Prompt, p.Feature, gate, c.calledGate(p.Feature))
	} else if gate {
		asked = c.lex.gateName(p.Feature)
	}
	// Nor does the rest of the prompt change with the answer: a change
	// and a stage the feature only stayed at are asked alike.
	wording := "In v%s, which stage was X at?"
	if c.lex.ja() {
		wording = "v%s の時点で X はどの段階だった?"
	}
	if got, want := strings.Replace(strings.Replace(q.Prompt, asked, "X", 1), "Xは", "X は", 1), fmt.Sprintf(wording, p.Release); got != want {
		t.Errorf("%s: prompt %q, want it worded %q", where, q.Prompt, want)
	}
	ev, ok := c.tl.StageIn(p.Feature, p.Release)
	if !ok || ev.Revert {
		t.Errorf("%s: timeline has no clean state for %s in %s", where, p.Feature, p.Release)
	}
	for _, ch := range q.Choices {
		d, ok := c.stageOf(ch)
		if !ok {
			t.Errorf("%s: choice %q is no stage label", where, ch)
			continue
		}
		if ch == q.Answer {
			continue
		}
		if ev.Stage.Matches(d) || d.Matches(p.Stage) || p.Stage.Matches(d) {
			t.Errorf("%s: choice %q is also true (answer %s, timeline %s)", where, ch, p.Stage, ev.Stage)
		}
	}
}

func (c checker) checkReleaseOfStage(where string, q quiz.Question, p Provenance, e *changelog.Entry) {
	t := c.t
	t.Helper()
	// The answer is never the deck's release; the fact is the entry's or,
	// for a feature the entry changes in the deck's release, the
	// timeline's.
	if q.Answer == c.doc.Release {
		t.Errorf("%s: the answer %q is the deck's release", where, q.Answer)
	}
	if !statesChange(e, p.Feature, p.Stage, p.Release) && !statesChange(e, p.Feature, "", c.doc.Release) {
		t.Errorf("%s: entry states neither %s %s in %s nor a change of it in %s", where, p.Feature, p.Stage, p.Release, c.doc.Release)
	}
	if got, ok := c.tl.ReleaseOf(p.Feature, p.Stage); !ok || got != q.Answer {
		t.Errorf("%s: answer %q, timeline ReleaseOf = %q, %v", where, q.Answer, got, ok)
	}
	for _, ch := range q.Choices {
		if ch == q.Answer {
			continue
		}
		if ev, ok := c.tl.StageIn(p.Feature, ch); ok && ev.Stage.Matches(p.Stage) {
			t.Errorf("%s: %s also reached %s in %s", where, p.Feature, p.Stage, ch)
		}
	}
}

func (c checker) checkTimelineOrder(where string, q quiz.Question, p Provenance) {
	t := c.t
	t.Helper()
	events := c.tl.Events(p.Feature)
	var want []string
	for _, ev := range events {
		if ev.Revert {
			t.Errorf("%s: ordered a reverted change", where)
		}
		label := c.lex.label[ev.Stage]
		if ev.Stage == changelog.StageRemoved && c.calledGate(p.Feature) {
			label = c.lex.gateRemoved // the gate went, the feature stays
		}
		want = append(want, label)
	}
	if len(events) < 3 || !slices.Equal(q.Items, want) {
		t.Errorf("%s: items %q, want the timeline's %q", where, q.Items, want)
	}
}

// conceptText is every text a description or flashcard of term may come
// from: the entry's text, notes and title, and the document's concepts.
func (c checker) conceptText(term string, e *changelog.Entry) string {
	var b strings.Builder
	if e != nil {
		b.WriteString(e.Title + "\n" + e.Text + "\n" + strings.Join(e.Notes, "\n") + "\n")
	}
	for _, cc := range c.concepts {
		if changelog.FeatureKey(cc.Term) == changelog.FeatureKey(term) {
			b.WriteString(cc.Term + "\n" + cc.Description + "\n")
		}
	}
	return b.String()
}

func (c checker) checkDescription(where string, q quiz.Question, p Provenance, e *changelog.Entry) {
	t := c.t
	t.Helper()
	if q.Answer != p.Feature || !strings.Contains(squash(c.conceptText(p.Feature, e)), squash(p.Feature)) {
		t.Errorf("%s: answer %q does not come from its source", where, q.Answer)
	}
	if givesAway(q.Prompt, q.Answer) {
		t.Errorf("%s: prompt still names %q", where, q.Answer)
	}
	// The name without the common words it starts with ("adminaccess" of
	// DRAAdminAccess) names it as well.
	toks := nameTokens(q.Answer)
	for len(toks) > 0 && commonWords[squash(toks[0])] {
		toks = toks[1:]
	}
	if rest := squash(strings.Join(toks, "")); len(toks) >= 2 && strings.Contains(squash(q.Prompt), rest) {
		t.Errorf("%s: prompt still names %q as %q", where, q.Answer, rest)
	}
	if m := reMaskInWord.FindString(q.Prompt); m != "" {
		t.Errorf("%s: the mask cuts a word: %q", where, m)
	}
	if len(q.Choices) != 4 && !(len(q.Choices) == 3 && c.definedInList(p.Feature, e)) {
		t.Errorf("%s: %d choices, want 4 (3 for a term of a list)", where, len(q.Choices))
	}
	for _, ch := range q.Choices {
		if ch == q.Answer {
			continue
		}
		if strings.Contains(squash(p.SourceText), squash(ch)) || related(ch, q.Answer) {
			t.Errorf("%s: choice %q is named in the description or related to the answer %q", where, ch, q.Answer)
		}
	}
}

// reMaskInWord finds a mask that takes part of a word: a letter or digit
// before it, or after it other than a plural "s".
var reMaskInWord = regexp.MustCompile(`[A-Za-z0-9]` + maskToken + `|` + maskToken + `(?:[A-Za-rt-z0-9]|s[A-Za-z0-9])`)

func (c checker) checkCloze(where string, q quiz.Question, e *changelog.Entry) {
	t := c.t
	t.Helper()
	gaps, err := quiz.ParseCloze(q.Prompt)
	if err != nil || len(gaps) == 0 || e == nil {
		t.Errorf("%s: gaps %v, err %v", where, gaps, err)
		return
	}
	for _, g := range gaps {
		if !strings.Contains(e.Text, g.Accept[0]) {
			t.Errorf("%s: gap %q is not in the entry text", where, g.Accept[0])
		}
		if squash(g.Accept[0]) != squash(e.Focus) && !strings.EqualFold(g.Accept[0], e.Focus) && !slices.ContainsFunc(g.Accept, func(a string) bool { return quiz.Normalize(a) == quiz.Normalize(e.Focus) }) {
			t.Errorf("%s: gap %q does not accept the focus %q", where, g.Accept[0], e.Focus)
		}
	}
	if givesAway(quiz.ClozeText(q.Prompt), e.Focus) {
		t.Errorf("%s: blanked prompt still names %q", where, e.Focus)
	}
	clozeGradesRight(t, where, q, gaps)
}

// clozeGradesRight checks that every accepted spelling of each gap, with
// the other gaps answered with their first, is graded right, and that no
// answer holds a brace of the text around it.
func clozeGradesRight(t *testing.T, where string, q quiz.Question, gaps []quiz.Gap) {
	t.Helper()
	for i, g := range gaps {
		for _, a := range g.Accept {
			if strings.ContainsAny(a, "{}") {
				t.Errorf("%s: gap %d accepts %q, with a brace of the text", where, i+1, a)
			}
			// A code token is spelt only as the text writes it:
			// "managed-fields" of a flag is not managedFields.
			if codeToken(g.Accept[0]) && quiz.Normalize(a) != quiz.Normalize(g.Accept[0]) {
				t.Errorf("%s: gap %d %q also accepts %q", where, i+1, g.Accept[0], a)
			}
			texts := make([]string, len(gaps))
			for j := range gaps {
				texts[j] = gaps[j].Accept[0]
			}
			texts[i] = a
			if !q.Grade(quiz.Response{Texts: texts}).Correct {
				t.Errorf("%s: answer %q for gap %d is graded wrong", where, a, i+1)
			}
		}
	}
	if blank := quiz.ClozeText(q.Prompt); strings.Contains(blank, "{"+quiz.ClozeBlank) || strings.Contains(blank, quiz.ClozeBlank+"}") {
		t.Errorf("%s: blanked prompt %q shows a brace beside a gap", where, blank)
	}
}

// definedInList reports whether term is defined in a list of entry e with
// other terms, whose questions offer those terms alone.
func (c checker) definedInList(term string, e *changelog.Entry) bool {
	n := 0
	for _, co := range c.concepts {
		if e != nil && co.Entry == e.Key && co.Source == "definition" {
			n++
		}
	}
	return n >= 3
}

// calledGate reports whether the document calls feature a feature gate,
// by the generator's own test: the checker checks that every generator
// words a gate the same way, not that test.
func (c checker) calledGate(feature string) bool { return callsGate(c.doc, feature) }

func (c checker) checkTrueFalse(where string, q quiz.Question, p Provenance, e *changelog.Entry) {
	t := c.t
	t.Helper()
	if !statesChange(e, p.Feature, p.Stage, p.Release) {
		t.Errorf("%s: entry does not state %s %s in %s", where, p.Feature, p.Stage, p.Release)
	}
	statement := func(rel string, s changelog.Stage, intro bool) string {
		name := p.Feature
		if s == changelog.StageRemoved && c.calledGate(name) {
			name = c.lex.gateName(name) // a gate's removal is the gate's
		}
		return c.lex.sentence(c.lex.fact(rel, name, s, intro), nil)
	}
	// says is the statement's wording of the true stage: an introduction
	// only when the entry says the feature is new.
	_, held := c.lex.held[p.Stage]
	intro := !held || reIntroduced.MatchString(entryText(e)+"\n"+e.Title)
	if *q.Truth {
		if q.Prompt != statement(p.Release, p.Stage, intro) && (intro || q.Prompt != statement(p.Release, p.Stage, true)) {
			t.Errorf("%s: true statement %q does not state %s in %s", where, q.Prompt, p.Stage, p.Release)
		}
		if !intro && q.Prompt == statement(p.Release, p.Stage, true) {
			t.Errorf("%s: %q calls %s new, which the entry does not", where, q.Prompt, p.Feature)
		}
		return
	}
	ev, _ := c.tl.StageIn(p.Feature, p.Release)
	for _, s := range stageOrder {
		for minor := 0; minor <= 45; minor++ {
			rel := "1." + strconv.Itoa(minor)
			introClaim := statement(rel, s, true) == q.Prompt
			if !introClaim && statement(rel, s, false) != q.Prompt {
				continue
			}
			if rel != p.Release && s == p.Stage && !(introClaim && intro) {
				// "X was alpha in v1.35" may well be true of a feature
				// alpha in v1.36.
				t.Errorf("%s: false statement %q may be true", where, q.Prompt)
			}
			if rel == p.Release {
				if ev.Stage.Matches(s) || s.Matches(p.Stage) || p.Stage.Matches(s) {
					t.Errorf("%s: false statement %q is true", where, q.Prompt)
				}
			} else if got, ok := c.tl.StageIn(p.Feature, rel); ok && got.Stage.Matches(s) {
				t.Errorf("%s: false statement %q is true", where, q.Prompt)
			}
			return
		}
	}
	t.Errorf("%s: false statement %q is no stage statement", where, q.Prompt)
}

func (c checker) checkFlashcard(where string, q quiz.Question, p Provenance) {
	t := c.t
	t.Helper()
	for _, cc := range c.concepts {
		if changelog.FeatureKey(cc.Term) == changelog.FeatureKey(p.Feature) && strings.Contains(squash(cc.Description), squash(q.Answer)) {
			return
		}
	}
	t.Errorf("%s: back of %q is not a description of it in the document", where, p.Feature)
}

// TestSharedImageVolume follows ImageVolume, whose history the 1.36 seed
// gives in a note: alpha 1.31, beta 1.33, on by default 1.35, GA 1.36.
func TestSharedImageVolume(t *testing.T) {
	docs, all := loadShared(t)
	var seed *changelog.Document
	for _, sd := range docs {
		if sd.name == "seed36" {
			seed = sd.doc
		}
	}
	alone, err := changelog.NewTimeline(seed)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	tests := []struct {
		name      string
		tl        *changelog.Timeline
		lang      string
		wantItems []string
	}{
		{"seed alone", alone, LangJapanese, []string{"alpha", "beta", "デフォルト有効", "GA"}},
		{"all documents", all, LangJapanese, []string{"alpha", "beta", "デフォルト有効", "GA"}},
		{"english", all, LangEnglish, []string{"alpha", "beta", "on by default", "GA"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotRelease, gotOrder *Generated
			for _, g := range Generate(seed, tt.tl, Options{Language: tt.lang}) {
				if g.Provenance.Feature != "ImageVolume" {
					continue
				}
				switch {
				case g.Provenance.Generator == GenReleaseOfStage && g.Provenance.Stage == changelog.StageBeta:
					gotRelease = &g
				case g.Provenance.Generator == GenTimelineOrder:
					gotOrder = &g
				}
			}
			// Its GA is the deck's release: the release question asks of
			// an earlier stage, with the GA in the prompt.
			if gotRelease == nil {
				t.Fatalf("no release_of_stage question for ImageVolume's beta")
			}
			if q := gotRelease.Question; q.Answer != "1.33" || len(q.Choices) != 4 || !strings.Contains(q.Prompt, "1.36") ||
				slices.ContainsFunc(q.Choices, func(c string) bool { return changelog.CompareReleases(c, "1.36") >= 0 }) {
				t.Errorf("release_of_stage: %q, answer %q, choices %q; want 1.33 among 4 before 1.36", q.Prompt, q.Answer, q.Choices)
			}
			if gotOrder == nil {
				t.Fatalf("no timeline_order question for ImageVolume")
			}
			q := gotOrder.Question
			if !slices.Equal(q.Items, tt.wantItems) {
				t.Errorf("timeline_order items %q, want %q", q.Items, tt.wantItems)
			}
			last := -1
			for _, rel := range []string{"1.31", "1.33", "1.35", "1.36"} {
				i := strings.Index(q.Explanation, rel)
				if i <= last {
					t.Errorf("explanation %q: %s missing or out of order", q.Explanation, rel)
				}
				last = i
			}
		})
	}
}

// TestSharedConcepts checks that concept facts of the seeds' notes turn up
// as flashcards or description questions.
func TestSharedConcepts(t *testing.T) {
	docs, tl := loadShared(t)
	found := map[string][]string{} // term -> generators
	for _, sd := range docs {
		if !sd.seed {
			continue
		}
		for _, g := range Generate(sd.doc, tl, Options{}) {
			if g.Provenance.Generator == GenFlashcard || g.Provenance.Generator == GenFeatureFromDescription {
				k := squash(g.Provenance.Feature)
				found[k] = append(found[k], g.Provenance.Generator)
			}
		}
	}
	for _, term := range []string{
		"memory.min", "memory.low", "PSI", "ServiceNodePortStaticSubrange", "Immutable Secrets",
		"TieredReservation", "PLEGOnDemandRelist", "IPTablesOwnershipCleanup",
		"CRI List Streaming", "GetAllocatableResources", "MemoryQoS", "ImageVolume",
	} {
		ok := false
		for k := range found {
			if strings.HasPrefix(k, squash(term)) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("concept %q: no flashcard or description question", term)
		}
	}
}

// TestSharedEnglish checks that English templates give English prompts,
// and that quoting generators keep their source's language.
func TestSharedEnglish(t *testing.T) {
	docs, tl := loadShared(t)
	for _, sd := range docs {
		if !sd.seed {
			continue
		}
		t.Run(sd.name, func(t *testing.T) {
			for _, g := range Generate(sd.doc, tl, Options{Language: LangEnglish}) {
				q := g.Question
				switch g.Provenance.Generator {
				case GenStageInRelease, GenReleaseOfStage, GenTimelineOrder, GenTrueFalse, GenFlashcard:
					if hasJapanese(q.Prompt) || hasJapanese(strings.Join(q.Choices, " ")+strings.Join(q.Items, " ")) {
						t.Errorf("%s: prompt %q is not English", q.ExtID, q.Prompt)
					}
				case GenCloze, GenFeatureFromDescription:
					if hasJapanese(g.Provenance.SourceText) != hasJapanese(q.Prompt+q.Explanation) {
						t.Errorf("%s: prompt %q does not keep the language of its source", q.ExtID, q.Prompt)
					}
				}
			}
		})
	}
}

// TestSharedNoFalseStageFacts checks statements of the reference documents
// that are no stage change of their release: gates locked on that were GA
// (or deprecated) before, a bug fix read as a removal, and histories that
// contradict themselves. A gate that "can no longer be specified" is
// removed in that release, and only that is asked of it.
func TestSharedNoFalseStageFacts(t *testing.T) {
	docs, tl := loadShared(t)
	byName := map[string][]Generated{}
	for _, sd := range docs {
		byName[sd.name] = Generate(sd.doc, tl, Options{})
	}
	facts := []struct {
		doc, feature, release string
		removed               bool // the release removed the gate: questions of that are true
	}{
		{"up21", "CSINodeInfo", "1.21", true},
		{"up21", "VolumePVCDataSource", "1.21", true},
		{"up21", "EvenPodsSpread", "1.21", true},
		{"up21", "CSIDriverRegistry", "1.21", true},
		{"up21", "BlockVolume", "1.21", true},
		{"up21", "CSIBlockVolume", "1.21", true},
		{"seed21", "EvenPodsSpread", "1.21", true},
		{"up17", "GCERegionalPersistentDisk", "1.17", true},
		{"up17", "EnableAggregatedDiscoveryTimeout", "1.17", true},
		{"up17", "PersistentLocalVolumes", "1.17", true},
		{"up21", "CSI topology", "1.21", false},
		{"up28", "CSIMigrationGCE", "1.28", false},
		{"up28", "CSIMigrationGCE", "1.25", false}, // "is graduated to GA and were unconditionally enabled have been removed in v1.25"
		{"seed36", "MemoryQoS", "1.36", false},     // "Alpha: MemoryQoS" over "1.35 以前は MemoryQoS feature gate を…"
	}
	for _, f := range facts {
		asked := 0
		for _, g := range stageQuestionsAbout(byName[f.doc], f.feature, f.release) {
			if f.removed && g.Provenance.Stage == changelog.StageRemoved {
				asked++
				continue
			}
			t.Errorf("%s: %s %q rests on %s %s in %s, which is no change of that release", f.doc, g.Provenance.Generator, g.Question.Prompt, f.feature, g.Provenance.Stage, f.release)
		}
		if f.removed && asked == 0 {
			t.Errorf("%s: no question asks of %s removed in %s", f.doc, f.feature, f.release)
		}
	}
	for _, note := range []string{
		"EndpointSlice の経緯: 1.17 beta (#85365) → 1.21 削除", // #99870 promotes the controllers
		"1.25 削除 → 1.28 GA",                               // CSIMigrationGCE
		"azureFile の経緯",                                   // a revert of a bug
		"CSINodeInfo の経緯: 1.17 非推奨 (#83474) → 1.21 GA",    // GA since 1.17
		"1.21 削除 (#97823)",                                // CSI topology, a bug fix
	} {
		for name, gs := range byName {
			for _, g := range gs {
				if strings.Contains(strings.ToLower(g.Question.Explanation), strings.ToLower(note)) {
					t.Errorf("%s %s: explanation %q quotes a history that contradicts itself", name, g.Question.ExtID, g.Question.Explanation)
				}
			}
		}
	}
}

// TestSharedStageSubjects checks names of the reference documents that
// hold no stage of their own: a program, a product or a field before the
// noun phrase that changed, and a path placeholder.
func TestSharedStageSubjects(t *testing.T) {
	docs, tl := loadShared(t)
	byName := map[string][]Generated{}
	for _, sd := range docs {
		byName[sd.name] = Generate(sd.doc, tl, Options{})
	}
	for _, f := range []struct{ doc, feature, release string }{
		{"up36", "etcd", "1.36"},             // #135701, the etcd flags
		{"up21", "OpenStack", "1.21"},        // #98538, OpenStack Cinder CSI migration
		{"up21", "vSphere", "1.21"},          // #98546, the vSphere volume plugin's parameter
		{"up21", "vCenter", "1.21"},          // #98546, multi vCenter support
		{"up17", "kubelet_root_dir", "1.17"}, // #84533, {kubelet_root_dir}/plugins
	} {
		for _, g := range stageQuestionsAbout(byName[f.doc], f.feature, f.release) {
			t.Errorf("%s: %s %q asks about %s, which holds no stage", f.doc, g.Provenance.Generator, g.Question.Prompt, f.feature)
		}
	}
}

// TestSharedAlphaWording checks that an alpha stage is called an
// introduction only where its entry says the feature is new: CSI Health
// Monitoring is "released as a second Alpha" in 1.21.
func TestSharedAlphaWording(t *testing.T) {
	docs, tl := loadShared(t)
	for _, sd := range docs {
		if sd.name != "up21" {
			continue
		}
		for _, lang := range []string{LangJapanese, LangEnglish} {
			n := 0
			for _, g := range stageQuestionsAbout(Generate(sd.doc, tl, Options{Language: lang}), "CSI Health Monitoring", "1.21") {
				n++
				if text := g.Question.Prompt + g.Question.Explanation; strings.Contains(text, "導入") || strings.Contains(text, "introduced") {
					t.Errorf("%s %s: %q calls a second alpha an introduction", lang, g.Provenance.Generator, text)
				}
				if g.Provenance.Generator == GenReleaseOfStage {
					t.Errorf("%s: %q asks when a second alpha was alpha", lang, g.Question.Prompt)
				}
			}
			if n == 0 {
				t.Errorf("%s: no stage question about CSI Health Monitoring", lang)
			}
		}
	}
}

// TestSharedTrueFalseBalance checks that a true_false statement's wording
// does not tell whether it is true: over the shared documents, each stage
// claimed in 15 statements or more is true in 30 to 70 % of them, and
// guessing every statement from its claimed stage alone is right at most
// 60 % of the time (each document makes about half its statements true).
func TestSharedTrueFalseBalance(t *testing.T) {
	docs, tl := loadShared(t)
	for _, lang := range []string{LangJapanese, LangEnglish} {
		l := lexiconFor(lang)
		type tally struct{ truths, lies int }
		claims := map[changelog.Stage]*tally{}
		for _, sd := range docs {
			for _, g := range Generate(sd.doc, tl, Options{Language: lang}) {
				q := g.Question
				if g.Provenance.Generator != GenTrueFalse {
					continue
				}
				// The claimed stage is the longest wording of a change
				// the statement holds ("promoted to beta and turned on by
				// default" over "promoted to beta").
				var claim changelog.Stage
				for s, w := range l.done {
					if strings.Contains(q.Prompt, w) && len(w) > len(l.done[claim]) {
						claim = s
					}
				}
				if claim == "" {
					t.Errorf("%s %s: no stage wording in %q", lang, q.ExtID, q.Prompt)
					continue
				}
				if claims[claim] == nil {
					claims[claim] = &tally{}
				}
				if *q.Truth {
					claims[claim].truths++
				} else {
					claims[claim].lies++
				}
			}
		}
		all, guessed := 0, 0
		for s, n := range claims {
			all += n.truths + n.lies
			guessed += max(n.truths, n.lies)
			share := float64(n.truths) / float64(n.truths+n.lies)
			if n.truths+n.lies >= 15 && (share < 0.3 || share > 0.7) {
				t.Errorf("%s: %q is true in %d of %d statements", lang, l.done[s], n.truths, n.truths+n.lies)
			}
		}
		if all == 0 {
			t.Fatalf("%s: no true_false statements", lang)
		}
		t.Logf("%s: guessing from the claimed stage is right for %d of %d statements", lang, guessed, all)
		if float64(guessed) > 0.6*float64(all) {
			t.Errorf("%s: guessing from the claimed stage is right for %d of %d statements", lang, guessed, all)
		}
	}
}
