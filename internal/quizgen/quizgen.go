// Package quizgen turns parsed changelog documents into draft questions.
// It is pure and deterministic: the same documents give the same questions,
// with the same ids, in the same order.
//
// Each generator reads one kind of fact:
//
//   - stage_in_release: the stage a feature moved to in the document's
//     release (single_choice over stages);
//   - release_of_stage: the release in which a feature reached a stage
//     (single_choice over neighbouring releases; needs the timeline);
//   - timeline_order: a feature's stage changes in release order (order);
//   - feature_from_description: an entry text, note or definition with the
//     feature's name masked (single_choice over features of the same
//     release and SIG);
//   - cloze: an entry text with its key term as the gap;
//   - true_false: a correct or a perturbed (wrong stage, wrong release)
//     statement of a stage change;
//   - flashcard: "what is X?" with a definition from the document.
//
// Every question is checked with quiz.Question.Validate; one that fails is
// dropped and reported, never returned.
package quizgen

import (
	"context"
	"fmt"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// Generator names.
const (
	GenStageInRelease         = "stage_in_release"
	GenReleaseOfStage         = "release_of_stage"
	GenTimelineOrder          = "timeline_order"
	GenFeatureFromDescription = "feature_from_description"
	GenCloze                  = "cloze"
	GenTrueFalse              = "true_false"
	GenFlashcard              = "flashcard"
)

// Generators lists every generator name in the order Generate emits their
// questions.
func Generators() []string {
	return []string{
		GenStageInRelease, GenReleaseOfStage, GenTimelineOrder, GenFeatureFromDescription,
		GenCloze, GenTrueFalse, GenFlashcard,
	}
}

// Languages of the question templates.
const (
	LangJapanese = "ja"
	LangEnglish  = "en"
)

// Options choose how questions are written.
type Options struct {
	// Language of the question templates: "ja" (the default; anything
	// but "en" counts as Japanese) or "en". Cloze and description
	// questions keep their source's language, since they are the source
	// text; a flashcard's back is quoted as written.
	Language string
}

// Provenance says where a generated question comes from.
type Provenance struct {
	Document  string `json:"document"`  // changelog.Document.Key
	Entry     string `json:"entry"`     // changelog.Entry.Key ("" for timeline questions and article introductions)
	Generator string `json:"generator"` // one of the Gen* names
	PRs       []int  `json:"prs,omitempty"`
	// SourceText is the entry text (or the timeline events) the question
	// was built from, to show beside it in a preview.
	SourceText string `json:"source_text"`
	// Feature is the feature or term the question is about.
	Feature string `json:"feature,omitempty"`
	// Stage and Release are the true fact a stage question rests on: the
	// feature reached Stage in Release. A false true_false statement
	// perturbs one of them.
	Stage   changelog.Stage `json:"stage,omitempty"`
	Release string          `json:"release,omitempty"`
}

// Generated is one draft question and its provenance. Question.ExtID is
// derived from the provenance, so re-generating from the same or a lightly
// edited document gives the same id.
type Generated struct {
	Question   quiz.Question `json:"question"`
	Provenance Provenance    `json:"provenance"`
}

// Dropped is a candidate question that failed validation.
type Dropped struct {
	Provenance Provenance `json:"provenance"`
	ExtID      string     `json:"id"`
	Reason     string     `json:"reason"`
}

// Report is the outcome of one generation run.
type Report struct {
	Questions []Generated `json:"questions"`
	// Dropped lists candidates that were built but failed
	// quiz.Question.Validate or repeated an id. It is empty unless a
	// generator has a bug or the input is unusual.
	Dropped []Dropped `json:"dropped,omitempty"`
}

// Counts returns how many questions each generator produced.
func (r Report) Counts() map[string]int {
	return Count(r.Questions)
}

// Count returns how many of gs each generator produced.
func Count(gs []Generated) map[string]int {
	out := map[string]int{}
	for _, g := range gs {
		out[g.Provenance.Generator]++
	}
	return out
}

// Generate builds questions from doc, using tl (which must already include
// doc) for questions that need other releases. Every question passes
// quiz.Question.Validate. A nil tl is treated as a timeline of doc alone.
func Generate(doc *changelog.Document, tl *changelog.Timeline, opt Options) []Generated {
	return GenerateReport(doc, tl, opt).Questions
}

// GenerateContext is Generate that stops when ctx is done, with no
// questions and an error wrapping ctx.Err(). The time it takes grows with
// the size of the document and of the timeline.
func GenerateContext(ctx context.Context, doc *changelog.Document, tl *changelog.Timeline, opt Options) ([]Generated, error) {
	rep, err := GenerateReportContext(ctx, doc, tl, opt)
	return rep.Questions, err
}

// GenerateReport is Generate that also reports the candidates it dropped.
func GenerateReport(doc *changelog.Document, tl *changelog.Timeline, opt Options) Report {
	rep, _ := GenerateReportContext(context.Background(), doc, tl, opt) // a background context is never done
	return rep
}

// GenerateReportContext is GenerateReport that stops when ctx is done, as
// GenerateContext does.
func GenerateReportContext(ctx context.Context, doc *changelog.Document, tl *changelog.Timeline, opt Options) (Report, error) {
	if doc == nil {
		return Report{}, nil
	}
	r := newRun(ctx, doc, tl, opt)
	for _, gen := range []func(){r.stageInRelease, r.releaseOfStage, r.timelineOrder, r.featureFromDescription, r.cloze, r.trueFalse, r.flashcards} {
		if r.stopped() {
			break
		}
		gen()
	}
	if r.err != nil {
		return Report{}, fmt.Errorf("quizgen: generate %s: %w", doc.Key, r.err)
	}
	return Report{Questions: r.out, Dropped: r.dropped}, nil
}
