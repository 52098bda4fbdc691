package views

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
)

// TestAnswerFormsDescribedByPrompt renders the answer form of every
// question type: each control a learner reaches (choices, inputs, the
// flashcard's reveal button) is described by the prompt, itself or through
// its fieldset, so that a screen reader says the question on reaching it
// after a swap; and a cloze's blanks are named, not read as underscores.
func TestAnswerFormsDescribedByPrompt(t *testing.T) {
	opts := []Option{{0, "a"}, {1, "b"}, {2, "c"}}
	tests := []struct {
		name string
		v    StudyPresentation
		want []string // in the prompt
	}{
		{"single", StudyPresentation{Type: quiz.SingleChoice, Prompt: "Q", Options: opts}, nil},
		{"multi", StudyPresentation{Type: quiz.MultiChoice, Prompt: "Q", Options: opts}, nil},
		{"true/false", StudyPresentation{Type: quiz.TrueFalse, Prompt: "Q"}, nil},
		{"order", StudyPresentation{Type: quiz.Order, Prompt: "Q", Options: opts}, nil},
		{"typed", StudyPresentation{Type: quiz.Typed, Prompt: "Q"}, nil},
		{"flashcard", StudyPresentation{Type: quiz.Flashcard, Prompt: "Q"}, nil},
		{"cloze, one gap", StudyPresentation{Type: quiz.Cloze, ClozeParts: quiz.ClozeParts("{{ImageVolume}} は GA")},
			[]string{`<span aria-hidden="true">____</span><span class="visually-hidden">（空欄）</span> は GA`}},
		{"cloze, two gaps", StudyPresentation{Type: quiz.Cloze, ClozeParts: quiz.ClozeParts("{{a}}と{{b}}")},
			[]string{`<span aria-hidden="true">____(1)</span><span class="visually-hidden">（空欄 1）</span>と<span aria-hidden="true">____(2)</span><span class="visually-hidden">（空欄 2）</span>`}},
	}
	ctlRe := regexp.MustCompile(`<(?:input|select|textarea|button)\b[^>]*>`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := StudyQuestion(tt.v).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			body := b.String()
			controls := 0
			for _, loc := range ctlRe.FindAllStringIndex(body, -1) {
				ctl := body[loc[0]:loc[1]]
				if strings.Contains(ctl, `type="hidden"`) || strings.HasPrefix(ctl, "<button") && !strings.Contains(ctl, "data-reveal") {
					continue // the answer button follows the controls
				}
				controls++
				before := body[:loc[0]]
				fieldset := before[max(strings.LastIndex(before, "<fieldset"), 0):]
				inFieldset := strings.Contains(before, "<fieldset") && !strings.Contains(fieldset, "</fieldset>")
				if !strings.Contains(ctl, `aria-describedby="prompt"`) && !(inFieldset && strings.HasPrefix(fieldset, `<fieldset aria-describedby="prompt"`)) {
					t.Errorf("control not described by the prompt: %s", ctl)
				}
			}
			if controls == 0 {
				t.Errorf("no control found: %s", body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("prompt lacks %s: %s", w, body)
				}
			}
			// The key hint on the answer button is one the form keeps:
			// Enter on an order question's selects opens them instead.
			if hint := strings.Contains(body, "(Enter)"); hint != (tt.v.Type != quiz.Order && tt.v.Type != quiz.Flashcard) {
				t.Errorf("the answer button's Enter hint shown: %v", hint)
			}
			if tt.v.Type == quiz.Cloze && strings.Count(body, quiz.ClozeBlank) != strings.Count(body, `<span aria-hidden="true">`+quiz.ClozeBlank) {
				t.Errorf("a blank a screen reader would read: %s", body)
			}
		})
	}
}

// TestSourceLine: every pull request is linked once, a document link that
// only repeats one is left out, and each link says it opens a new tab.
func TestSourceLine(t *testing.T) {
	tests := []struct {
		name      string
		src       quiz.Source
		wantLinks []string
	}{
		{"a document beside the PRs", quiz.Source{Release: "1.21", PRs: []int{97615}, URL: "https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/2238"},
			[]string{quiz.PRURL(97615), "https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/2238"}},
		{"the document is the PR", quiz.Source{PRs: []int{117718}, URL: "https://github.com/kubernetes/kubernetes/pull/117718"}, []string{quiz.PRURL(117718)}},
		{"the PR with a slash", quiz.Source{PRs: []int{1, 117718}, URL: "https://github.com/kubernetes/kubernetes/pull/117718/"}, []string{quiz.PRURL(1), quiz.PRURL(117718)}},
		{"a document alone", quiz.Source{URL: "https://kubernetes.io/blog/"}, []string{"https://kubernetes.io/blog/"}},
		{"the PR at its issue's address", quiz.Source{PRs: []int{118725}, URL: "https://github.com/kubernetes/kubernetes/issues/118725"}, []string{quiz.PRURL(118725)}},
		{"another issue", quiz.Source{PRs: []int{1}, URL: "https://github.com/kubernetes/kubernetes/issues/2"}, []string{quiz.PRURL(1), "https://github.com/kubernetes/kubernetes/issues/2"}},
	}
	hrefRe := regexp.MustCompile(`<a href="([^"]*)"[^>]*target="_blank">[^<]*<span class="visually-hidden">\(新しいタブで開きます\)</span></a>`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := sourceLine(tt.src).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range hrefRe.FindAllStringSubmatch(b.String(), -1) {
				got = append(got, m[1])
			}
			if strings.Count(b.String(), "<a ") != len(got) || !slices.Equal(got, tt.wantLinks) {
				t.Errorf("links %q, want %q, each saying it opens a new tab: %s", got, tt.wantLinks, b.String())
			}
		})
	}
}
