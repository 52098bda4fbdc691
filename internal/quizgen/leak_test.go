package quizgen

import (
	"regexp"
	"slices"
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
				if namesAnswer[g.Provenance.Generator] && givesNameAway(q) {
					t.Errorf("%s: the prompt %q all but spells the answer", where, q.Prompt)
				}
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
	// The give-away rule on every draft of the eight documents and the
	// eleven release-notes files, each alone as the grading sample draws
	// them.
	upstream, article, relnotes := gradingDrafts(t)
	n := 0
	for _, g := range slices.Concat(upstream, article, relnotes) {
		if !namesAnswer[g.Provenance.Generator] {
			continue
		}
		n++
		if givesNameAway(g.Question) {
			t.Errorf("%s %s: the prompt %q all but spells the answer", g.Provenance.Document, g.Question.ExtID, g.Question.Prompt)
		}
	}
	if n < 300 {
		t.Errorf("%d description and cloze drafts checked, want several hundred", n)
	}
}

// TestNameGivenAway checks the give-away rule of docs/content-quality.md on
// sentences of the reference documents, the name masked as the generators
// mask it.
func TestNameGivenAway(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       bool
	}{
		// release-notes-1.23.0.json: four of five words.
		{"DisableKubeletCloudCredentialProviders", "Introduce a feature gate `____` which allows disabling the in-tree kubelet credential providers.", true},
		// release-notes-1.23.0.json: two of three words ("with" does not count).
		{"JobTrackingWithFinalizers", "`____` enabled by default. This feature allows to keep track of the Job progress without relying on Pods staying in the apiserver.", true},
		// release-notes-1.21.0.json: every word, "Kube-proxy" for Proxying.
		{"WindowsEndpointSliceProxying", "____ feature gate has graduated to beta and is enabled by default. This means kube-proxy will  read from EndpointSlices instead of Endpoints on Windows by default.", true},
		// release-notes-1.21.0.json: enable, log and handler of four.
		{"enableSystemLogHandler", "Cluster admins can now turn off /logs endpoint in kubelet by setting ____ to false in their kubelet configuration file. ____ can be set to true only when enableDebuggingHandlers is also set to true.", true},
		// release-notes-1.25.0.json: four of five words.
		{"UserNamespacesStatelessPodsSupport", "Added alpha support for user namespaces in pods phase 1 (KEP 127, feature gate: ____)", true},
		// Both words of a two-word name.
		{"ImageVolume", "Added ImageVolumeWithDigest which includes the digest of image volumes in the container status.", true},
		// The name itself, unmasked, does not count: givesAnswer drops it.
		{"ImageVolume", "Graduated the ImageVolume feature to stable.", false},
		// Kept: one word of a two-word name.
		{"ImageVolume", "Graduated the ____ feature, an OCI image mounted into a pod, to stable.", false},
		{"ImageVolume", "コンテナに OCI イメージをボリュームとしてマウントする ____ 機能を stable に昇格させた。", false},
		// Kept: one of three words.
		{"JobTrackingWithFinalizers", "Jobs created before ____ was enabled are counted by the controller from the Pods that still exist.", false},
		// Kept: three of five words.
		{"UserNamespacesStatelessPodsSupport", "By enabling the `____` feature gate in kubelet, you can now run a stateless workload in a separate namespace", false},
		// Kept: two of four words.
		{"enableSystemLogHandler", "Cluster admins can now turn off the kubelet's /logs endpoint with ____.", false},
		// Kept: a name of one word that counts.
		{"EvenPodsSpread", "kube-scheduler: added the ____ plugin of the framework.", false},
		{"TokenRequest", "The ____ API is GA.", false},
		// Japanese words are not English words.
		{"WindowsEndpointSliceProxying", "Windows で kube-proxy が EndpointSlice を読む ____ がベータに昇格した。", true},
		{"WindowsEndpointSliceProxying", "Windows のノードで ____ がベータに昇格した。", false},
	} {
		if got := nameGivenAway(tt.text, tt.name); got != tt.want {
			t.Errorf("nameGivenAway(%q, %q) = %v, want %v (words %q)", tt.text, tt.name, got, tt.want, splitWords(tt.text))
		}
	}
}
