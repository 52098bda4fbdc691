package web

import (
	"slices"
	"strconv"
	"strings"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file turns a document's review (admin_review.go) into views. It
// holds no I/O.

// documentPage is the review page of doc: one page of the questions q
// selects, the filter's choices, and the proposals.
func documentPage(doc store.ChangelogDocument, q reviewQuery, rp store.ReviewPage, facets store.ReviewFacets, proposals []store.Proposal) views.IngestDocumentPage {
	url := documentURL(doc.ID)
	first := q.withPage(1)
	page := views.IngestDocumentPage{
		Doc: documentView(doc), URL: url, Filter: q.view(),
		PublishURL: url + "/publish", RetireURL: url + "/retire",
		PublishAllURL: first.url(url + "/" + publishAll.path), RetireAllURL: first.url(url + "/" + retireAll.path),
		ClearURL:   url,
		Generators: facetOptions(facets.Generators), Types: facetOptions(facets.Types),
		Kinds: facetOptions(facets.Kinds), SIGs: facetOptions(facets.SIGs),
		Drafts: rp.ByStatus[quiz.Draft], Published: rp.ByStatus[quiz.Published], Retired: rp.ByStatus[quiz.Retired],
		Total: rp.Total, Page: q.page, Pages: max(1, (rp.Total+reviewPageSize-1)/reviewPageSize),
		PublishAll: toChange(rp, q.f, quiz.Published), RetireAll: toChange(rp, q.f, quiz.Retired),
	}
	page.Filtered = q.f != (store.ReviewFilter{Document: q.f.Document})
	for _, s := range []quiz.Status{"", quiz.Draft, quiz.Published, quiz.Retired} {
		sq := first
		sq.f.Status = s
		n := rp.ByStatus[s]
		if s == "" {
			n = rp.ByStatus[quiz.Draft] + rp.ByStatus[quiz.Published] + rp.ByStatus[quiz.Retired]
		}
		page.StatusLinks = append(page.StatusLinks, views.StatusLink{Status: string(s), N: n, URL: sq.url(url), Current: s == q.f.Status})
	}
	if page.Page > 1 {
		page.PrevURL = q.withPage(page.Page - 1).url(url)
	}
	if page.Page < page.Pages {
		page.NextURL = q.withPage(page.Page + 1).url(url)
	}
	page.From = (page.Page-1)*reviewPageSize + 1
	page.To = page.From + len(rp.Questions) - 1
	for _, dq := range rp.Questions {
		page.Questions = append(page.Questions, draftView(dq))
	}
	for _, p := range proposals {
		page.Proposals = append(page.Proposals, proposalView(doc.ID, p))
	}
	return page
}

// facetOptions are the choices of a filter's select.
func facetOptions(fs []store.ReviewFacet) []views.ReviewOption {
	out := make([]views.ReviewOption, len(fs))
	for i, f := range fs {
		out[i] = views.ReviewOption{Value: f.Value, N: f.N}
	}
	return out
}

// proposalView is a proposal of document docID, the wording learners see
// beside the one proposed, with what changes between them.
func proposalView(docID int64, p store.Proposal) views.IngestProposal {
	cur := draftView(p.Current)
	next := questionView(p.Proposed, p.Provenance)
	base := documentURL(docID) + "/proposals/" + strconv.FormatInt(p.Current.ID, 10)
	v := views.IngestProposal{ID: p.Current.ID, ExtID: p.Current.Question.ExtID, Current: cur, Proposed: next,
		AcceptURL: base + "/accept", DismissURL: base + "/dismiss", ProposedAt: p.ProposedAt.UTC().Format("2006-01-02 15:04")}
	a, b := p.Current.Question, p.Proposed
	for _, ch := range []struct {
		label string
		same  bool
	}{
		{"問題文", a.Prompt == b.Prompt},
		{"選択肢", slices.Equal(a.Choices, b.Choices) && slices.Equal(a.Items, b.Items)},
		{"答え", sameAnswer(a, b)},
		{"解説", a.Explanation == b.Explanation},
		{"出典", a.Source.Release == b.Source.Release && slices.Equal(a.Source.PRs, b.Source.PRs) && a.Source.URL == b.Source.URL},
	} {
		if !ch.same {
			v.Changes = append(v.Changes, ch.label)
		}
	}
	if a.Type != b.Type {
		v.Changes = append([]string{"問題の種類"}, v.Changes...)
	}
	if len(v.Changes) == 0 {
		v.Changes = []string{"根拠 (出典の文)"}
	}
	v.ChangesText = strings.Join(v.Changes, "・")
	return v
}

// sameAnswer reports whether two wordings of a question take the same
// answer: a cloze's, the answers of its gaps (its prompt holds them).
func sameAnswer(a, b quiz.Question) bool {
	if a.Type == quiz.Cloze && b.Type == quiz.Cloze {
		ga, errA := quiz.ParseCloze(a.Prompt)
		gb, errB := quiz.ParseCloze(b.Prompt)
		return errA == nil && errB == nil && slices.EqualFunc(ga, gb, func(x, y quiz.Gap) bool { return slices.Equal(x.Accept, y.Accept) })
	}
	return a.ExpectedAnswer() == b.ExpectedAnswer() && slices.Equal(a.Accept, b.Accept)
}
