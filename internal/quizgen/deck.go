package quizgen

import (
	"strings"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// Deck returns the deck that holds the questions generated from a
// document: one per release and SIG, with the slug the bundled question bank
// uses ("v1-36-sig-node"), so that generated and hand-written questions of a
// release and SIG form one deck; or "v1-36-changelog" for a document about
// every SIG. language is the language of a deck created for it: "ja" (the
// default) or "en".
func Deck(doc *changelog.Document, language string) quiz.Deck {
	if language == "" {
		language = LangJapanese
	}
	rel := doc.Release
	d := quiz.Deck{Release: rel, Language: language}
	base := "v" + strings.ReplaceAll(rel, ".", "-")
	if doc.SIG == "" {
		d.Slug = base + "-changelog"
		d.Title = "v" + rel + " CHANGELOG"
		d.Description = "Kubernetes " + rel + " の CHANGELOG から生成した問題"
		if language == LangEnglish {
			d.Description = "Questions generated from the Kubernetes " + rel + " CHANGELOG"
		}
		return d
	}
	d.SIG = "SIG-" + strings.ReplaceAll(doc.SIG, " ", "-")
	d.Slug = base + "-sig-" + changelog.SIGSlug(doc.SIG)
	d.Title = "v" + rel + " " + d.SIG
	d.Description = "Kubernetes " + rel + " の " + d.SIG + " の変更内容から生成した問題"
	if language == LangEnglish {
		d.Description = "Questions generated from the Kubernetes " + rel + " " + d.SIG + " changes"
	}
	return d
}
