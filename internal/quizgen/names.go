package quizgen

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// hasJapanese reports whether s holds hiragana, katakana or kanji.
func hasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

// squash keeps only the letters and digits of s, in lower case: the form
// in which a masked text must no longer contain the name.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// givesAway reports whether text still contains one of the names.
func givesAway(text string, names ...string) bool {
	sq := squash(text)
	for _, n := range names {
		if k := squash(n); k != "" && strings.Contains(sq, k) {
			return true
		}
	}
	return false
}

var (
	reURL   = regexp.MustCompile(`https?://\S+`)
	rePRRef = regexp.MustCompile(`[(（]?#\d+[)）]?`)
	// Notes that only point elsewhere.
	reLinkLabel = regexp.MustCompile(`(?i)^\s*(?:kep|blog|doc|docs|issue|pr|参考|関連|link)\b\s*[:：]`)
)

// boilerplateJa are Japanese words that every stage change uses and that
// say nothing about what a feature does.
var boilerplateJa = strings.NewReplacer(
	"フィーチャーゲート", " ", "フィーチャー", " ", "ゲート", " ", "機能", " ", "デフォルト", " ", "有効化", " ",
	"無効化", " ", "有効", " ", "無効", " ", "昇格", " ", "無条件", " ", "ベータ", " ", "アルファ", " ",
	"安定版", " ", "削除", " ", "非推奨", " ", "導入", " ", "追加", " ",
	"固定", " ", "明示的", " ", "設定", " ", "場合", " ", "今すぐ", " ", "値", " ",
)

// boilerplateEn are such English words; boilerplateStems start them.
var (
	boilerplateEn = map[string]bool{
		"general": true, "availability": true, "generally": true, "available": true, "ga": true, "beta": true,
		"alpha": true, "stable": true, "feature": true, "gate": true, "gates": true, "by": true, "default": true,
		"the": true, "a": true, "an": true, "to": true, "is": true, "are": true, "was": true, "were": true,
		"now": true, "has": true, "have": true, "been": true, "be": true, "and": true, "of": true, "in": true,
		"on": true, "for": true, "with": true, "as": true, "this": true, "it": true,
		"unconditionally": true, "therefore": true, "thus": true, "will": true, "release": true, "releases": true,
		"version": true, "future": true, "longer": true, "flag": true,
	}
	boilerplateStems = []string{"promot", "graduat", "enabl", "disabl", "remov", "deprecat", "introduc", "add"}
)

func boilerplateWord(w string) bool {
	if boilerplateEn[w] {
		return true
	}
	for _, p := range boilerplateStems {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// informative reports whether a text says enough, once its masked names,
// links, PR references and stage boilerplate are set aside, to identify
// something. Hiragana, mostly grammar, does not count.
func informative(text string) bool {
	if reLinkLabel.MatchString(text) {
		return false
	}
	t := strings.ReplaceAll(text, maskToken, " ")
	if strings.Contains(t, "http") {
		t = reURL.ReplaceAllString(t, " ")
	}
	if strings.Contains(t, "#") {
		t = rePRRef.ReplaceAllString(t, " ")
	}
	n := contentLetters(t)
	if hasJapanese(text) {
		return n >= 12
	}
	return n >= 40
}

// contentLetters counts the letters and digits of a text outside masks,
// links, PR references, hiragana and the words every stage change uses.
func contentLetters(text string) int {
	t := strings.ReplaceAll(text, maskToken, " ")
	if strings.Contains(t, "http") {
		t = reURL.ReplaceAllString(t, " ")
	}
	if strings.Contains(t, "#") {
		t = rePRRef.ReplaceAllString(t, " ")
	}
	t = boilerplateJa.Replace(t)
	n := 0
	for _, w := range strings.FieldsFunc(t, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) || unicode.Is(unicode.Hiragana, r)
	}) {
		if lw := strings.ToLower(w); !boilerplateWord(lw) && !reVersionWord.MatchString(lw) {
			n += utf8.RuneCountInString(w)
		}
	}
	return n
}

// reStageWords finds stage words in a text: which stages it mentions.
var stageWords = []struct {
	re     *regexp.Regexp
	stages []changelog.Stage
}{
	{regexp.MustCompile(`(?i)\balpha\b|アルファ`), []changelog.Stage{changelog.StageAlpha}},
	{regexp.MustCompile(`(?i)\bbeta\b|ベータ`), []changelog.Stage{changelog.StageBeta, changelog.StageBetaDefaultOn}},
	// A gate that is locked or can no longer be turned off is at GA.
	{regexp.MustCompile(`(?i)\bga\b|\bstable\b|general(?:ly)? availab|安定版|\block(?:ed|s)?\b|unconditionally enabled|(?:cannot|can't|can not|can no longer) be disabled`), []changelog.Stage{changelog.StageGA}},
	{regexp.MustCompile(`(?i)by default|デフォルト|無条件`), []changelog.Stage{changelog.StageDefaultOn, changelog.StageDefaultOff, changelog.StageBetaDefaultOn}},
	{regexp.MustCompile(`(?i)deprecat|非推奨|廃止予定`), []changelog.Stage{changelog.StageDeprecated}},
	{regexp.MustCompile(`(?i)remov|withdraw|削除|取り下げ`), []changelog.Stage{changelog.StageRemoved}},
}

// mentionedStages lists the stages a text talks about.
func mentionedStages(text string) map[changelog.Stage]bool {
	out := map[changelog.Stage]bool{}
	for _, w := range stageWords {
		if w.re.MatchString(text) {
			for _, s := range w.stages {
				out[s] = true
			}
		}
	}
	return out
}

// alternatives lists other accepted spellings of a gap: the canonical
// name, and the name with its words joined or (for names of up to three
// words and nothing but letters and spaces) apart. A match written as a
// code token ("managed-fields", "legacy-service-account-token-clean-up")
// takes no other form: it is spelt that way in the flag or path it names,
// and a flag --show-managedFields does not exist.
func alternatives(match, name string) []string {
	if codeToken(match) {
		return nil
	}
	seen := map[string]bool{quiz.Normalize(match): true}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		n := quiz.Normalize(s)
		if n == "" || seen[n] || strings.ContainsAny(s, "|{}") {
			return
		}
		seen[n] = true
		out = append(out, s)
	}
	add(name)
	for _, s := range []string{match, name} {
		toks := nameTokens(s)
		add(strings.Join(toks, ""))
		if len(toks) <= 3 && onlyLetters(s) {
			add(strings.Join(toks, " "))
		}
	}
	return out
}

// nameWords are the lower-case words of a name of three letters or more,
// without a plural "s" and without the commonest words.
func nameWords(name string) []string {
	var out []string
	for _, t := range nameTokens(strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ").Replace(name)) {
		w := squash(t)
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		if len(w) >= 3 && !commonWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// commonWords are too frequent in feature names to tell two apart.
var commonWords = map[string]bool{
	"kubelet": true, "node": true, "pod": true, "container": true, "dra": true, "api": true,
	"feature": true, "gate": true, "support": true, "the": true, "and": true, "for": true, "with": true,
	// A metric's unit says nothing of what it measures.
	"total": true, "second": true, "seconds": true, "count": true, "byte": true, "bytes": true, "sum": true,
}

// nameForm is a name prepared for related.
type nameForm struct {
	sq    string   // squash of the name
	words []string // its distinct nameWords, sorted
}

func formOf(name string) nameForm {
	return nameForm{sq: squash(name), words: slices.Compact(slices.Sorted(slices.Values(nameWords(name))))}
}

// related reports whether two names may well mean the same thing: one
// contains the other, or they share more than half the words of the
// shorter one ("Immutable Secrets/ConfigMaps" and "Immutable Secrets and
// ConfigMaps").
func related(a, b string) bool { return relatedForms(formOf(a), formOf(b)) }

func relatedForms(a, b nameForm) bool {
	if a.sq == "" || b.sq == "" {
		return false
	}
	if strings.Contains(a.sq, b.sq) || strings.Contains(b.sq, a.sq) {
		return true
	}
	if len(a.words) == 0 || len(b.words) == 0 {
		return false
	}
	shared := 0
	for _, w := range a.words {
		if _, ok := slices.BinarySearch(b.words, w); ok {
			shared++
		}
	}
	return 2*shared > min(len(a.words), len(b.words))
}

// codeToken reports whether s is one word whose parts a hyphen,
// underscore, dot or slash joins: "managed-fields", "spec.externalIPs".
func codeToken(s string) bool {
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	rs := []rune(s)
	for i := 1; i+1 < len(rs); i++ {
		if joiner(rs[i]) && asciiAlnum(rs[i-1]) && asciiAlnum(rs[i+1]) {
			return true
		}
	}
	return false
}

func onlyLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != ' ' {
			return false
		}
	}
	return true
}

// atWordEdges reports whether text[start:end] neither starts nor ends
// inside a word of Latin letters and digits. A hyphen, underscore, dot or
// slash between the match and a letter or digit joins them into one longer
// word: "managed-fields" in "--show-managed-fields", a gate name in
// "--legacy-service-account-token-clean-up-period" or in an API path.
func atWordEdges(text string, start, end int) bool {
	before, n := utf8.DecodeLastRuneInString(text[:start])
	after, m := utf8.DecodeRuneInString(text[end:])
	if asciiAlnum(before) || asciiAlnum(after) {
		return false
	}
	if joiner(before) {
		if r, _ := utf8.DecodeLastRuneInString(text[:start-n]); asciiAlnum(r) {
			return false
		}
	}
	if joiner(after) {
		if r, _ := utf8.DecodeRuneInString(text[end+m:]); asciiAlnum(r) {
			return false
		}
	}
	return true
}

// joiner reports whether r joins two words into one token: "a-b", "a_b",
// "a.b", "a/b".
func joiner(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' }

func asciiAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// tail returns the last n bytes of s or fewer, starting at a rune.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
