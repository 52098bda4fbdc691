package quizgen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// run holds the state of one Generate call. Nothing in it outlives the call.
type run struct {
	// ctx is the call's context, kept for the generators' loops to look at
	// (stopped) since the run is the call; err is its error once done.
	ctx     context.Context
	err     error
	doc     *changelog.Document
	tl      *changelog.Timeline
	lang    *lexicon // templates chosen by Options.Language
	entries map[string]*changelog.Entry

	events       map[string][]changelog.Event                 // per featureKey
	steady       map[string]steady                            // steadyHistory, per featureKey
	masks        map[string]*namePattern                      // maskPattern, per name
	cats         map[string]category                          // per entry key + featureKey
	featureWords map[string]bool                              // per entry key: does its text say "feature" or "gate"
	distractors  map[string][]changelog.Stage                 // stageDistractors, per entry key + featureKey
	cons         *[]concept                                   // concepts, once found
	pool         *[]poolName                                  // namePool, once built
	facts        *[]stageFact                                 // stageFacts, once found
	stated       map[string]map[changelog.Stage]bool          // stages the document states, per feature and release
	reverted     map[string]bool                              // names some entry reverts, per featureKey
	gates        map[string]bool                              // isGate, per name
	gateTexts    *gateTexts                                   // the texts isGate searches, once indexed
	merged       map[*changelog.Entry][]changelog.StageChange // stages, per entry
	texts        map[*changelog.Entry]string                  // entryText, per entry
	mentioned    map[string]map[changelog.Stage]bool          // mentionedStages, per text
	newest       *string                                      // newest release in the timeline, once found
	seen         map[string]bool                              // facts already asked, per generator
	ids          map[string]bool
	out          []Generated
	dropped      []Dropped
}

func newRun(ctx context.Context, doc *changelog.Document, tl *changelog.Timeline, opt Options) *run {
	if tl == nil {
		// Without a release the timeline cannot hold doc; the stage
		// generators then find nothing, which is what they should do.
		tl, _ = changelog.NewTimeline(doc)
		if tl == nil {
			tl, _ = changelog.NewTimeline()
		}
	}
	r := &run{
		ctx: ctx, doc: doc, tl: tl, lang: lexiconFor(opt.Language),
		entries:      map[string]*changelog.Entry{},
		events:       map[string][]changelog.Event{},
		steady:       map[string]steady{},
		masks:        map[string]*namePattern{},
		merged:       map[*changelog.Entry][]changelog.StageChange{},
		texts:        map[*changelog.Entry]string{},
		mentioned:    map[string]map[changelog.Stage]bool{},
		cats:         map[string]category{},
		featureWords: map[string]bool{},
		gates:        map[string]bool{},
		seen:         map[string]bool{},
		ids:          map[string]bool{},
	}
	for i := range doc.Entries {
		e := &doc.Entries[i]
		if _, dup := r.entries[e.Key]; !dup {
			r.entries[e.Key] = e
		}
	}
	return r
}

// stopped reports whether the run's context is done. The generators
// return as soon as it is, and the run reports the context's error.
func (r *run) stopped() bool {
	if r.err == nil {
		r.err = r.ctx.Err()
	}
	return r.err != nil
}

// reDisputed finds a note that calls its own entry untrue: an article's
// author may add "this release note is a lie" (このリリースノートは嘘です)
// under an entry that was reverted or never happened.
var reDisputed = regexp.MustCompile(`嘘|誤りです|誤記|事実ではありません|(?i)\bnot true\b|\bis (?:wrong|incorrect)\b`)

// disputed reports whether a note of e says e is not true: no question is
// built on it.
func disputed(e *changelog.Entry) bool {
	for _, n := range e.Notes {
		if reDisputed.MatchString(n) {
			return true
		}
	}
	return false
}

// reRevertedNote is a note saying its entry was taken back: "この PR は
// … #137946 で revert され" (this PR was reverted), "#137574 で revert
// されているため、…このフィールドは存在しません" (it is gone, as it has been
// reverted), "this change was reverted in #N". A note that another change
// was reverted ("前述の #137909 は … で revert され") says neither.
var reRevertedNote = regexp.MustCompile(`この\s*(?:PR|変更|機能|フィールド)[^。]*(?:revert|リバート)\s*され|(?:revert|リバート)\s*されて(?:いる|おり)ため|(?i)\bthis (?:pr|change) (?:was|has been) reverted\b`)

// usable reports whether questions of generator gen may be built on e: not
// on an entry the document calls untrue or that fixed only a comment, and
// no quote of one it takes back (see takenBack). Nor do description
// questions and flashcards quote an entry that reverts a name: it tells
// what happened to the name, not what the name is.
func (r *run) usable(e *changelog.Entry, gen string) bool {
	if disputed(e) || reCommentOnly.MatchString(e.Text) {
		return false
	}
	switch gen {
	case GenCloze:
		return !r.takenBack(e)
	case GenFeatureFromDescription, GenFlashcard:
		return !r.takenBack(e) && len(r.revertedBy(e)) == 0
	}
	return true // the stage generators weigh reverts themselves
}

// takenBack reports whether the document takes e's change back: a note of
// e says so; another entry of the release says a name e removes "is not
// removed"; or another entry reverts a name e mentions ("Reverted the
// addition of the image_id field" after "Added the image_id field").
func (r *run) takenBack(e *changelog.Entry) bool {
	for _, n := range e.Notes {
		if reRevertedNote.MatchString(n) {
			return true
		}
	}
	for _, sc := range e.Stages {
		if rel, err := changelog.NormalizeRelease(sc.Release); err == nil && sc.Stage == changelog.StageRemoved &&
			r.statedStages(sc.Feature, rel)[changelog.StageDeprecated] {
			return true
		}
	}
	if r.reverted == nil {
		r.reverted = map[string]bool{}
		for i := range r.doc.Entries {
			for k := range r.revertedBy(&r.doc.Entries[i]) {
				r.reverted[k] = true
			}
		}
	}
	own := r.revertedBy(e)
	for _, m := range e.Mentions {
		if k := changelog.FeatureKey(m.Name); r.reverted[k] && !own[k] {
			return true
		}
	}
	return false
}

// revertedBy returns the names e reverts, as feature keys.
func (r *run) revertedBy(e *changelog.Entry) map[string]bool {
	var out map[string]bool
	for _, sc := range e.Stages {
		if sc.Stage == changelog.StageReverted {
			if out == nil {
				out = map[string]bool{}
			}
			out[changelog.FeatureKey(sc.Feature)] = true
		}
	}
	return out
}

// reCommentOnly starts an entry that changed only a code comment or a typo
// ("Revised the comment about the feature-gate level for X from alpha to
// beta", "kubeadm: fixed a small typo in …", "Updated API comments for
// …"): nothing a user of the release meets, so nothing to learn. Comments
// as such are not enough: "Fixed comments in kubeconfig files being
// dropped" is a fix users meet.
var reCommentOnly = regexp.MustCompile(`(?i)^\s*(?:[\w./-]+:\s+)?(?:revis|updat|fix|correct|chang|improv|adjust)\w*\s+` +
	`(?:(?:the|a|an|some|several|small|minor|few)\s+){0,2}` +
	`(?:typos?\b|(?:code|api|doc|inline|godoc)\s+comments?\b|comments?\s+(?:about|on|describing)\b)`)

// namesAnswer are the generators whose answer is a name: a feature a
// description tells, a term that fills a gap.
var namesAnswer = map[string]bool{GenFeatureFromDescription: true, GenCloze: true}

// add validates g and keeps it unless it fails or repeats an id. fact, when
// not empty, names what the question asks so that a second question about
// the same fact (stated again in a note or another entry) is skipped.
func (r *run) add(g Generated, fact string) {
	if e := r.entries[g.Provenance.Entry]; e != nil && !r.usable(e, g.Provenance.Generator) {
		return
	}
	if fact != "" {
		k := g.Provenance.Generator + "\x00" + fact
		if r.seen[k] {
			return
		}
		r.seen[k] = true
	}
	if givesAnswer(g.Question) {
		return // the prompt would tell the answer
	}
	if namesAnswer[g.Provenance.Generator] && givesNameAway(g.Question) {
		return // the prompt all but spells the name it asks for
	}
	if err := g.Question.Validate(); err != nil {
		r.dropped = append(r.dropped, Dropped{Provenance: g.Provenance, ExtID: g.Question.ExtID, Reason: err.Error()})
		return
	}
	if r.ids[g.Question.ExtID] {
		r.dropped = append(r.dropped, Dropped{Provenance: g.Provenance, ExtID: g.Question.ExtID, Reason: "duplicate id"})
		return
	}
	r.ids[g.Question.ExtID] = true
	r.out = append(r.out, g)
}

// history returns the per-release events of a feature, cached.
func (r *run) history(feature string) []changelog.Event {
	k := changelog.FeatureKey(feature)
	if ev, ok := r.events[k]; ok {
		return ev
	}
	ev := r.tl.Events(feature)
	r.events[k] = ev
	return ev
}

// withHistory appends to an explanation, in l's language, what the timeline
// says of feature, if anything: the history the stage questions trust, and
// none when it does not hold together (see steadyHistory), since a note
// with a false step would teach it.
func (r *run) withHistory(l *lexicon, expl, feature string) string {
	events, _, forward := r.steadyHistory(feature)
	if !forward {
		return expl
	}
	if h := l.historyNote(feature, events, r.isGate(feature)); h != "" {
		return expl + " " + h
	}
	return expl
}

// eventIn returns the event of a feature in a release.
func (r *run) eventIn(feature, release string) (changelog.Event, bool) {
	for _, e := range r.history(feature) {
		if changelog.CompareReleases(e.Release, release) == 0 {
			return e, true
		}
	}
	return changelog.Event{}, false
}

// newestRelease is the newest release the timeline knows of.
func (r *run) newestRelease() string {
	if r.newest != nil {
		return *r.newest
	}
	newest := r.doc.Release
	for _, f := range r.tl.Features() {
		if r.stopped() {
			return r.doc.Release
		}
		for _, e := range r.history(f) {
			if changelog.CompareReleases(e.Release, newest) > 0 {
				newest = e.Release
			}
		}
	}
	r.newest = &newest
	return newest
}

// Short generator codes used in ids.
var genCode = map[string]string{
	GenStageInRelease:         "stage",
	GenReleaseOfStage:         "release",
	GenTimelineOrder:          "timeline",
	GenFeatureFromDescription: "describe",
	GenCloze:                  "cloze",
	GenTrueFalse:              "tf",
	GenFlashcard:              "card",
}

// extID derives a question id from its provenance: generator, document,
// entry, feature and a variant (a stage, a concept's position). It never
// reads the text, so that rewording an entry keeps the id.
func extID(generator, document, entry, feature, variant string) string {
	h := sha256.Sum256([]byte(strings.Join([]string{generator, document, entry, changelog.FeatureKey(feature), variant}, "\x00")))
	return "gen-" + genCode[generator] + "-" + slug(feature) + "-" + hex.EncodeToString(h[:5])
}

// slug is a short lower-case form of a name for ids.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !ok {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(c)
		if b.Len() >= 32 {
			break
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

// hash64 is a deterministic number derived from its parts, used to pick
// among equally good options (a distractor, a true or a false statement).
func hash64(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// kindName maps a changelog kind to the question bank's source.kind words.
func kindName(k changelog.Kind) string {
	switch k {
	case changelog.KindUrgentUpgradeNote:
		return "urgent-upgrade-note"
	case changelog.KindDeprecation:
		return "deprecation"
	case changelog.KindAPIChange:
		return "api-change"
	case changelog.KindFeature:
		return "feature"
	case changelog.KindDocumentation:
		return "documentation"
	case changelog.KindFailingTest:
		return "failing-test"
	case changelog.KindBugOrRegression:
		return "bug"
	case changelog.KindCleanup:
		return "cleanup"
	case changelog.KindDependency:
		return "dependency"
	case changelog.KindHighlight:
		return "highlight"
	}
	return "uncategorized"
}

// kindConcept is the source.kind of background knowledge from notes and
// definitions.
const kindConcept = "concept"

// sigName writes a SIG the way the question bank does: "SIG-Node",
// "SIG-Cluster-Lifecycle".
func sigName(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "SIG-"), "SIG ")
	return "SIG-" + strings.Join(strings.Fields(s), "-")
}

// source builds the question's source for an entry of the document (nil for
// facts that belong to the document as a whole).
func (r *run) source(e *changelog.Entry, kind string) quiz.Source {
	s := quiz.Source{Release: r.doc.Release, Kind: kind}
	switch {
	case r.doc.SIG != "":
		s.SIG = sigName(r.doc.SIG)
	case e != nil && len(e.SIGs) > 0:
		names := make([]string, len(e.SIGs))
		for i, n := range e.SIGs {
			names[i] = sigName(n)
		}
		s.SIG = strings.Join(names, ", ")
	}
	if e != nil {
		s.PRs = positivePRs(e.PRs)
	}
	return s
}

func positivePRs(prs []int) []int {
	var out []int
	for _, p := range prs {
		if p > 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// prRefs writes PR numbers as "#1, #2".
func prRefs(prs []int) string {
	parts := make([]string, 0, len(prs))
	for _, p := range prs {
		if p > 0 {
			parts = append(parts, "#"+strconv.Itoa(p))
		}
	}
	return strings.Join(parts, ", ")
}

// entryText is entryText, made once per entry: the questions of an entry
// share it.
func (r *run) entryText(e *changelog.Entry) string {
	t, ok := r.texts[e]
	if !ok {
		t = entryText(e)
		r.texts[e] = t
	}
	return t
}

// entryText is the entry's text followed by its notes, for previews.
func entryText(e *changelog.Entry) string {
	parts := []string{cleanText(e.Text)}
	for _, n := range e.Notes {
		parts = append(parts, cleanText(n))
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// reAuthor is a credit left in an entry's text: "author: @andrewsykim",
// "(authors: @a, @b)", or one inside a parenthesis of other words ("(see
// KEP-1669, author: @a)"), whose closing parenthesis stays.
var reAuthor = regexp.MustCompile(`[ \t]*\((?i:author)s?:[ \t]*` + handles + `\)|[ \t]*,?[ \t]*(?i:author)s?:[ \t]*` + handles)

// handles are GitHub handles: "@a, @b".
const handles = `@[\w-]+(?:,[ \t]*@[\w-]+)*`

// cleanText drops credits (reAuthor), carriage returns and trailing space
// on each line.
func cleanText(s string) string {
	if strings.Contains(s, "uthor") {
		s = reAuthor.ReplaceAllString(s, "")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// documentLabel names the document in explanations.
func (r *run) documentLabel(l *lexicon) string {
	return l.documentLabel(r.doc.Release, sigName(r.doc.SIG), r.doc.Format == changelog.FormatArticle)
}

// focusOf is the feature an entry is mainly about.
func focusOf(e *changelog.Entry) string { return e.Focus }
