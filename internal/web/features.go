package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/quizgen"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file serves the page of a feature: each stage it reached, with its
// release, PRs and the documents that state it, over every stored
// document. Signed-in members see it, as they see the study pages that
// link it: it holds only what the stored changelogs say, but which
// documents the server holds (and the names of their files) is the
// admins' business, not the open web's.

// maxFeatureName bounds the name a feature page is asked for (runes).
const maxFeatureName = 200

// featureURL is the page of the feature named name (its gate, or a short
// phrase; the page finds it ignoring case and spaces).
func featureURL(name string) string { return "/features/" + url.PathEscape(name) }

// pathParam is a parameter of the request's path, unescaped: echo routes
// on the escaped path, and hands its parameters as they are, when the
// path holds an escape that the plain one cannot (such as %2F).
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	return url.PathUnescape(v)
}

// feature shows a feature's timeline. A name no stored document gives a
// stage is a 404.
func (s *Server) feature(c echo.Context) error {
	name, err := pathParam(c, "name")
	name = strings.TrimSpace(name)
	if err != nil || name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxFeatureName {
		return echo.ErrNotFound
	}
	tl, err := s.db.FeatureTimeline(c.Request().Context(), name)
	if errors.Is(err, quiz.ErrInvalid) {
		return echo.ErrNotFound
	}
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.FeaturePage(s.page(c, tl.Feature+" の経緯"), featureView(tl)))
}

// featureView is a timeline as the feature page shows it.
func featureView(tl store.FeatureTimeline) views.Feature {
	v := views.Feature{Name: tl.Feature}
	for _, st := range tl.Stages {
		fs := views.FeatureStage{Release: st.Release, Stage: string(st.Stage), PRs: st.PRs, Revert: st.Revert}
		for _, src := range st.Sources {
			fs.Sources = append(fs.Sources, views.FeatureSource{Document: src.Document, File: src.File,
				Format: string(src.Format), Evidence: src.Evidence})
		}
		v.Stages = append(v.Stages, fs)
	}
	return v
}

// generatorNames are the tags quizgen gives a question besides its
// feature: its generator's name.
var generatorNames = []string{quizgen.GenStageInRelease, quizgen.GenReleaseOfStage, quizgen.GenTimelineOrder,
	quizgen.GenFeatureFromDescription, quizgen.GenCloze, quizgen.GenTrueFalse, quizgen.GenFlashcard}

// featureCandidates are the names among a question's tags that may name a
// feature: a generated question's first tag is its feature, and the
// bundled bank tags questions with the gates they are about. Which of them
// have a timeline the store tells (FeaturesWithHistory).
func featureCandidates(q quiz.Question) []string {
	var out []string
	for _, t := range q.Tags {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(generatorNames, t) {
			out = append(out, t)
		}
	}
	return out
}

// featureLinks are the pages of the features a question is about that
// have a timeline, for its feedback.
func (s *Server) featureLinks(ctx context.Context, card store.CardPreview) ([]views.Link, error) {
	names := featureCandidates(card.Question.Question)
	if len(names) == 0 {
		return nil, nil
	}
	known, err := s.db.FeaturesWithHistory(ctx, card.History, names)
	if err != nil {
		return nil, err
	}
	var out []views.Link
	for _, n := range known {
		out = append(out, views.Link{Href: templ.SafeURL(featureURL(n)), Text: n})
	}
	return out, nil
}
