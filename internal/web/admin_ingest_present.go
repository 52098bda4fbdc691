package web

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"kubequiz/internal/changelog"
	"kubequiz/internal/ingest"
	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file turns ingest values into views and form fields back into
// values. It holds no I/O: the handlers in admin_ingest.go make the calls.

// jobProgress words the pipeline's progress for the progress page: each
// file parsed, then each document's questions generated, then the preview
// computed (previewUpload): 2n+1 steps for n files.
func jobProgress(progress func(string, int, int)) ingest.Progress {
	return func(step ingest.Step, file string, i, n int) {
		switch step {
		case ingest.StepParse:
			progress(fmt.Sprintf("解析しています (%d/%d): %s", i+1, n, file), i, 2*n+1)
		case ingest.StepGenerate:
			progress(fmt.Sprintf("問題を生成しています (%d/%d): %s", i+1, n, file), n+i, 2*n+1)
		}
	}
}

// ingestSources are an upload's files as the content pipeline's sources.
func ingestSources(files []store.UploadedFile) []ingest.Source {
	srcs := make([]ingest.Source, len(files))
	for i, f := range files {
		srcs[i] = ingest.Source{Name: f.Name, Data: f.Data}
	}
	return srcs
}

// saveProblem says why an upload cannot be stored: in the admin's words
// for a document that would replace one of the other kind, else the
// store's own message.
func saveProblem(err error) views.IngestProblem {
	var fc *store.FormatConflictError
	if errors.As(err, &fc) {
		detail := fmt.Sprintf("%s は %s (%s) から保存済みです。%s で取り込むとそれを置き換え、その問題を退役させるため、何も保存していません。",
			fc.Key, fc.StoredFile, views.FormatLabel(string(fc.StoredFormat)), views.FormatLabel(string(fc.Format)))
		if fc.Format != changelog.FormatArticle {
			// An upstream CHANGELOG read for the whole release has a key
			// of its own; an article has no other way in.
			detail += "upstream の CHANGELOG はリリース全体として (SIG を指定せずに) 取り込めます。"
		}
		return views.IngestProblem{File: fc.Key, Msg: "このリリースと SIG は別の種類の文書から保存されています", Detail: detail}
	}
	if text, ok := errorText(err); ok {
		return views.IngestProblem{File: "保存", Msg: "この内容は保存できません: " + text}
	}
	return views.IngestProblem{File: "保存", Msg: "この内容は保存できません", Detail: err.Error()}
}

// parseProblems say in Japanese why files were refused.
func parseProblems(problems []ingest.Problem) []views.IngestProblem {
	if len(problems) == 0 {
		return nil
	}
	out := make([]views.IngestProblem, len(problems))
	for i, p := range problems {
		out[i] = parseProblem(p.File, p.Err)
	}
	return out
}

// parseProblem says in Japanese why a file was refused, and where in it
// when the parser tells (problems_ja.go).
func parseProblem(file string, err error) views.IngestProblem {
	msg, detail := changelogProblem(err)
	return views.IngestProblem{File: file, Msg: msg, Detail: detail}
}

// formLines splits a textarea into its non-blank lines.
func formLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func docTitle(d store.ChangelogDocument) string {
	if d.Title != "" {
		return d.Title
	}
	return d.Key
}

func documentView(d store.ChangelogDocument) views.IngestDocument {
	return views.IngestDocument{URL: documentURL(d.ID), Key: d.Key, Title: d.Title, Release: d.Release, SIG: d.SIG,
		Format: string(d.Format), File: d.FileName, DeckSlug: d.DeckSlug, DeckTitle: d.DeckTitle,
		UpdatedAt: d.UpdatedAt.Format("2006-01-02 15:04"), Entries: d.Entries, Stages: d.StageChanges,
		Drafts: d.Drafts, Published: d.Published, Retired: d.Retired}
}

func questionView(q quiz.Question, prov quizgen.Provenance) views.IngestQuestion {
	return views.IngestQuestion{ExtID: q.ExtID, Type: string(q.Type), Prompt: q.Prompt, Answer: q.ExpectedAnswer(),
		Explanation: q.Explanation, SourceText: prov.SourceText, Generator: prov.Generator, Choices: q.Choices, PRs: prov.PRs}
}

func draftView(dq store.DraftQuestion) views.IngestQuestion {
	v := questionView(dq.Question, dq.Provenance)
	v.ID, v.Status, v.Edited = dq.ID, string(dq.Status), dq.Edited
	v.EditURL = "/admin/ingest/questions/" + strconv.FormatInt(dq.ID, 10)
	return v
}

func editView(dq store.DraftQuestion, problems []quiz.FieldError) views.IngestEdit {
	q := dq.Question
	e := views.IngestEdit{
		Action: "/admin/ingest/questions/" + strconv.FormatInt(dq.ID, 10), BackURL: documentURL(dq.DocumentID),
		ExtID: q.ExtID, Type: string(q.Type), Status: string(dq.Status), SourceText: dq.Provenance.SourceText,
		Prompt: q.Prompt, Explanation: q.Explanation, Answer: q.Answer,
		Choices: strings.Join(q.Choices, "\n"), Answers: strings.Join(q.Answers, "\n"),
		Accept: strings.Join(q.Accept, "\n"), Items: strings.Join(q.Items, "\n"), Problems: problems,
	}
	if q.Truth != nil {
		e.Truth = strconv.FormatBool(*q.Truth)
	}
	return e
}

// previewDocs turns dry-run results into the preview's values.
func previewDocs(inputs []store.ChangelogInput, results []store.IngestResult) []views.IngestPreviewDoc {
	out := make([]views.IngestPreviewDoc, len(results))
	for i, r := range results {
		in := inputs[i]
		d := views.IngestPreviewDoc{File: r.File, Key: r.DocumentKey, Title: in.Document.Title, Format: string(in.Document.Format),
			Outcome: string(r.Document), DeckSlug: r.Deck.Slug, DeckTitle: r.Deck.Title, DeckNew: r.DeckCreated, Entries: r.Entries,
			SIG: in.Document.SIG, OtherSIGs: in.Document.OtherSIGs, Unlabelled: in.Document.Unlabelled}
		for k, n := range r.EntriesByKind {
			d.Kinds = append(d.Kinds, views.IngestCount{Name: string(k), N: n})
		}
		sort.Slice(d.Kinds, func(a, b int) bool {
			if d.Kinds[a].N != d.Kinds[b].N {
				return d.Kinds[a].N > d.Kinds[b].N
			}
			return d.Kinds[a].Name < d.Kinds[b].Name
		})
		for _, e := range in.Document.Entries {
			for _, sc := range e.Stages {
				d.Stages = append(d.Stages, views.IngestStage{Feature: sc.Feature, Stage: string(sc.Stage), Release: sc.Release,
					Entry: e.Key, Evidence: sc.Evidence, PR: sc.PR})
			}
		}
		outcome := map[string]store.QuestionOutcome{}
		for _, q := range r.Questions {
			outcome[q.ExtID] = q
		}
		groups := map[string]int{}
		for _, name := range generatorOrder(r.Generators) {
			c := r.Generators[name]
			d.Generators = append(d.Generators, views.IngestGenerator{Name: name, Added: c.Added, Updated: c.Updated,
				Unchanged: c.Unchanged, KeptEdits: c.KeptEdits, Retired: c.Retired})
			groups[name] = len(d.Groups)
			d.Groups = append(d.Groups, views.IngestGroup{Name: name})
		}
		for _, g := range in.Generated {
			v := questionView(g.Question, g.Provenance)
			o := outcome[g.Question.ExtID]
			v.Outcome, v.Status = string(o.Outcome), string(o.Status)
			gi := groups[g.Provenance.Generator]
			d.Groups[gi].Questions = append(d.Groups[gi].Questions, v)
			d.Groups[gi].Total++
		}
		d.StagesTotal = len(d.Stages)
		out[i] = d
	}
	return out
}

// A preview's page shows at most this many of each document's stages and
// of its questions.
const (
	previewStagesPerPage    = 200
	previewQuestionsPerPage = 50
)

// previewPage is page n of pv, whose own page's address is url: each
// document's stages and questions from the n-th window of
// previewStagesPerPage and previewQuestionsPerPage on (the questions in
// the order of their generators), as many pages as the longest of them
// needs. A page out of range shows the last.
func previewPage(pv views.IngestPreview, n int, url string) views.IngestPreview {
	pages := 1
	for _, d := range pv.Docs {
		questions := 0
		for _, g := range d.Groups {
			questions += g.Total
		}
		pages = max(pages, pagesOf(d.StagesTotal, previewStagesPerPage), pagesOf(questions, previewQuestionsPerPage))
	}
	n = min(max(n, 1), pages)
	out := pv
	out.Docs = make([]views.IngestPreviewDoc, len(pv.Docs))
	for i, d := range pv.Docs {
		d.Stages = window(d.Stages, (n-1)*previewStagesPerPage, previewStagesPerPage)
		from, to := (n-1)*previewQuestionsPerPage, n*previewQuestionsPerPage
		groups := make([]views.IngestGroup, len(d.Groups))
		at := 0 // the first question of the group in the document's order
		for j, g := range d.Groups {
			g.Questions = window(g.Questions, max(from-at, 0), to-max(from, at))
			at += g.Total
			groups[j] = g
		}
		d.Groups = groups
		out.Docs[i] = d
	}
	out.Pager = views.Pager{Page: n, Pages: pages}
	if n > 1 {
		out.Pager.PrevURL = url + "&page=" + strconv.Itoa(n-1)
	}
	if n < pages {
		out.Pager.NextURL = url + "&page=" + strconv.Itoa(n+1)
	}
	return out
}

// pagesOf is the number of pages of per items that n items fill.
func pagesOf(n, per int) int { return (n + per - 1) / per }

// window is the at most n items of xs from the from-th on.
func window[T any](xs []T, from, n int) []T {
	if from >= len(xs) || n <= 0 {
		return nil
	}
	return xs[from:min(from+n, len(xs))]
}

// generatorOrder lists generator names in quizgen's order, unknown ones last.
func generatorOrder(counts map[string]store.GeneratorCounts) []string {
	var out []string
	known := map[string]bool{}
	for _, g := range []string{quizgen.GenStageInRelease, quizgen.GenReleaseOfStage, quizgen.GenTimelineOrder,
		quizgen.GenFeatureFromDescription, quizgen.GenCloze, quizgen.GenTrueFalse} {
		known[g] = true
		if _, ok := counts[g]; ok {
			out = append(out, g)
		}
	}
	var rest []string
	for g := range counts {
		if !known[g] {
			rest = append(rest, g)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
