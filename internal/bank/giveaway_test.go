package bank

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
)

// releaseNumber finds a Kubernetes release number such as "1.21", "v1.28"
// or "v1.36.0" inside a text: "1." and one or two digits, not part of a
// longer number.
var releaseNumber = regexp.MustCompile(`(?:^|[^0-9A-Za-z.])v?1\.[0-9]{1,2}(?:\.[0-9]+)?(?:$|[^0-9])`)

// bareVersion is an item that is nothing but a version ("1.13.x", "19.03"):
// the thing being ordered, not a label on something else.
var bareVersion = regexp.MustCompile(`^v?[0-9]+(?:\.(?:[0-9]+|x))+$`)

// labelledItems returns the items of an order question that carry a release
// number beside their text ("alpha (1.31)", "v1.21: 非推奨になる"): with
// such labels the learner reads the order off the numbers.
func labelledItems(q quiz.Question) []string {
	if q.Type != quiz.Order {
		return nil
	}
	var bad []string
	for _, it := range q.Items {
		it = strings.TrimSpace(it)
		if !bareVersion.MatchString(it) && releaseNumber.MatchString(it) {
			bad = append(bad, it)
		}
	}
	return bad
}

// sameRelease reports whether an answer names the release rel ("1.36",
// "v1.36", "1.36.0", "v1.36.0").
func sameRelease(answer, rel string) bool {
	a := strings.TrimPrefix(quiz.Normalize(answer), "v")
	r := strings.TrimPrefix(quiz.Normalize(rel), "v")
	return r != "" && (a == r || a == r+".0")
}

// ownReleaseAnswers returns the answers of q that are the release of its
// deck. A question answered by its own deck's release gives itself away
// ("which release made X stable?" in the deck of that release): ask about
// another stage in another release instead.
func ownReleaseAnswers(q quiz.Question, rel string) []string {
	answers := append([]string{q.Answer}, q.Accept...)
	answers = append(answers, q.Answers...)
	if q.Type == quiz.Cloze {
		gaps, _ := quiz.ParseCloze(q.Prompt)
		for _, g := range gaps {
			answers = append(answers, g.Accept...)
		}
	}
	var bad []string
	for _, a := range answers {
		if a != "" && sameRelease(a, rel) {
			bad = append(bad, a)
		}
	}
	return bad
}

// answersInPrompt returns the answers of a typed question or a cloze gap
// that can be read in the prompt itself (the cloze with its gaps blanked).
// Answers of fewer than three characters are left out: "2" is in too many
// prompts to mean anything.
func answersInPrompt(q quiz.Question) []string {
	var answers []string
	prompt := q.Prompt
	switch q.Type {
	case quiz.Typed:
		answers = append([]string{q.Answer}, q.Accept...)
	case quiz.Cloze:
		gaps, _ := quiz.ParseCloze(q.Prompt)
		for _, g := range gaps {
			answers = append(answers, g.Accept...)
		}
		prompt = quiz.ClozeText(q.Prompt)
	default:
		return nil
	}
	p := quiz.Normalize(prompt)
	var bad []string
	for _, a := range answers {
		if n := quiz.Normalize(a); len([]rune(n)) >= 3 && strings.Contains(p, n) {
			bad = append(bad, a)
		}
	}
	return bad
}

// TestGiveawayChecks shows what each check catches and what it lets pass.
func TestGiveawayChecks(t *testing.T) {
	order := func(items ...string) quiz.Question {
		return quiz.Question{ExtID: "o", Type: quiz.Order, Items: items}
	}
	for _, c := range []struct {
		q    quiz.Question
		want int
	}{
		{order("alpha (1.31)", "beta (1.33)", "GA (1.36)"), 3},
		{order("v1.21: 非推奨になる", "テストが削除される"), 1},
		{order("1.28 以降: ゲートの指定を外す", "ゲートが削除される"), 1},
		{order("v1.36.0 がリリースされる", "x"), 1},
		{order("alpha として入る", "beta になる", "GA になる"), 0},
		{order("1.13.x", "17.03.x", "19.03.x"), 0},
		{order("KEP-3178 が実装される", "CoreDNS 10.2 に上がる", "IPv4 と IPv6"), 0},
	} {
		if got := labelledItems(c.q); len(got) != c.want {
			t.Errorf("labelledItems(%q) = %q, want %d item(s)", c.q.Items, got, c.want)
		}
	}

	for _, c := range []struct {
		q    quiz.Question
		want bool
	}{
		{quiz.Question{Type: quiz.SingleChoice, Choices: []string{"1.35", "1.36"}, Answer: "1.36"}, true},
		{quiz.Question{Type: quiz.SingleChoice, Choices: []string{"v1.35", "v1.36"}, Answer: "v1.36"}, true},
		{quiz.Question{Type: quiz.Typed, Answer: "1.36.0"}, true},
		{quiz.Question{Type: quiz.Typed, Answer: "36", Accept: []string{"v1.36"}}, true},
		{quiz.Question{Type: quiz.MultiChoice, Choices: []string{"1.35", "1.36"}, Answers: []string{"1.36"}}, true},
		{quiz.Question{Type: quiz.Cloze, Prompt: "X は {{1.36|v1.36}} で GA"}, true},
		{quiz.Question{Type: quiz.SingleChoice, Choices: []string{"1.36", "1.37"}, Answer: "1.37"}, false},
		{quiz.Question{Type: quiz.Cloze, Prompt: "X は {{1.33}} で beta、1.36 で GA"}, false},
		{quiz.Question{Type: quiz.Typed, Answer: "1.360"}, false},
	} {
		if got := ownReleaseAnswers(c.q, "1.36"); (len(got) > 0) != c.want {
			t.Errorf("ownReleaseAnswers(%+v, 1.36) = %q, want a give-away: %v", c.q, got, c.want)
		}
	}

	for _, c := range []struct {
		q    quiz.Question
		want bool
	}{
		{quiz.Question{Type: quiz.Typed, Prompt: "RestartAllContainersOnContainerExits で指定するアクションは?", Answer: "RestartAllContainers"}, true},
		{quiz.Question{Type: quiz.Cloze, Prompt: "DRAAdminAccess では {{adminAccess}} を true にする"}, true},
		{quiz.Question{Type: quiz.Cloze, Prompt: "containerd なら {{2.0|2}} 以降 (CRI-O 1.25 以降)"}, false},
		{quiz.Question{Type: quiz.Typed, Prompt: "全コンテナを再起動させるアクションは?", Answer: "RestartAllContainers"}, false},
		{quiz.Question{Type: quiz.SingleChoice, Prompt: "kubelet と apiserver のどちら?", Choices: []string{"kubelet", "apiserver"}, Answer: "kubelet"}, false},
	} {
		if got := answersInPrompt(c.q); (len(got) > 0) != c.want {
			t.Errorf("answersInPrompt(%q) = %q, want a give-away: %v", c.q.Prompt, got, c.want)
		}
	}
}

// TestQuestionFilesGiveNothingAway holds the bundled bank (questions/*.yaml)
// to what a study group needs of a question: no order question whose items
// carry their release numbers, no question whose answer is its deck's own
// release, and no typed or cloze answer that stands in its prompt.
func TestQuestionFilesGiveNothingAway(t *testing.T) {
	dir := filepath.Join("..", "..", "questions")
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Skipf("no .yaml files in %s yet", dir)
	}
	for _, path := range names {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Decode(name, data)
			if err != nil {
				t.Fatalf("Decode:\n%v", err)
			}
			rel := f.Deck.Release
			for i, q := range f.Questions {
				at := func(format string, args ...any) {
					t.Helper()
					t.Errorf("%s:%d: question %q: "+format, append([]any{name, f.Lines[i], q.ExtID}, args...)...)
				}
				if bad := labelledItems(q); len(bad) > 0 {
					at("order items carry release numbers, which give the order away: %q", bad)
				}
				if bad := ownReleaseAnswers(q, rel); len(bad) > 0 {
					at("the answer %q is the deck's own release %s: ask about a stage in another release", bad, rel)
				}
				if bad := answersInPrompt(q); len(bad) > 0 {
					at("the answer %q can be read in the prompt", bad)
				}
			}
		})
	}
}
