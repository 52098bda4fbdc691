package quizgen

import (
	"regexp"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

func TestShows(t *testing.T) {
	tests := []struct {
		text, answer string
		want         bool
	}{
		{"v1.36 の時点で X はどの段階だった?", "1.36", true},
		{"X は v1.36 で GA になった。", "1.3", false},
		{"X は 1.36.1 で直った。", "1.36", false},
		{"In v1.36, which stage was the AllBeta gate at?", "beta", false},
		{"Which stage was the widget feature gate at?", "GA", false},
		{"Is it Beta now?", "beta", true},
		{"The image volume is mounted.", "ImageVolume", true},
		{"ImageVolumeSource is a type.", "ImageVolume", true},
		{"Which DRA driver?", "DRAAdminAccess", false},
		{"Fill ____ in.", "", false},
	}
	for _, tt := range tests {
		if got := shows(tt.text, tt.answer); got != tt.want {
			t.Errorf("shows(%q, %q) = %v, want %v", tt.text, tt.answer, got, tt.want)
		}
	}
}

// TestSharedNoAnswerInPrompt checks every draft of the reference
// documents, in both languages, with a test of its own: a choice
// question's answer is not a word of its prompt in any case (a release
// written "v1.36" included), a gap's answer is not in the text around
// the gaps, and a release question's answer is not the deck's release.
func TestSharedNoAnswerInPrompt(t *testing.T) {
	docs, tl := loadShared(t)
	word := func(a string) *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|[^\pL\pN]|v)` + regexp.QuoteMeta(a) + `(?:$|[^\pL\pN.]|\.(?:$|\D))`)
	}
	total := 0
	for _, lang := range []string{LangJapanese, LangEnglish} {
		for _, sd := range docs {
			for _, g := range Generate(sd.doc, tl, Options{Language: lang}) {
				total++
				q, where := g.Question, lang+" "+sd.name+" "+g.Question.ExtID
				switch q.Type {
				case quiz.SingleChoice:
					if word(q.Answer).MatchString(q.Prompt) {
						t.Errorf("%s: answer %q in the prompt %q", where, q.Answer, q.Prompt)
					}
					if len([]rune(q.Answer)) >= 5 && strings.Contains(strings.ToLower(q.Prompt), strings.ToLower(q.Answer)) {
						t.Errorf("%s: answer %q in the prompt %q", where, q.Answer, q.Prompt)
					}
					if g.Provenance.Generator == GenReleaseOfStage && changelog.CompareReleases(q.Answer, sd.doc.Release) == 0 {
						t.Errorf("%s: the answer %q is the deck's release", where, q.Answer)
					}
				case quiz.Cloze:
					gaps, err := quiz.ParseCloze(q.Prompt)
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					blank := strings.ToLower(quiz.ClozeText(q.Prompt))
					for _, gap := range gaps {
						for _, a := range gap.Accept {
							if word(a).MatchString(blank) || len([]rune(a)) >= 5 && strings.Contains(blank, strings.ToLower(a)) {
								t.Errorf("%s: gap answer %q in %q", where, a, blank)
							}
						}
					}
				}
			}
		}
	}
	if total < 500 {
		t.Errorf("%d drafts checked, want the reference documents' several hundred", total)
	}
}
