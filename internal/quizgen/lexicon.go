package quizgen

import (
	"strings"
	"unicode/utf8"

	"kubequiz/internal/changelog"
)

// lexicon holds the question templates of one language. The two lexicons
// are read-only tables.
type lexicon struct {
	code string
	// label is how a stage is shown as a choice or an item.
	label map[changelog.Stage]string
	// done is the stage as a completed change, after the subject:
	// "GA になった", "graduated to GA".
	done map[changelog.Stage]string
	// askRelease asks for the release of a stage change, %s = feature.
	askRelease map[changelog.Stage]string
	// held is a stage as one the feature was at in a release, for an
	// entry that does not say the feature is new there: "alpha だった",
	// "was alpha". A "second Alpha" is alpha, but was introduced before.
	held map[changelog.Stage]string
	// gateRemoved labels a feature gate's removal in a history.
	gateRemoved string
}

var japanese = &lexicon{
	code: LangJapanese,
	label: map[changelog.Stage]string{
		changelog.StageAlpha:         "alpha",
		changelog.StageBeta:          "beta",
		changelog.StageBetaDefaultOn: "beta (デフォルト有効)",
		changelog.StageGA:            "GA",
		changelog.StageDefaultOn:     "デフォルト有効",
		changelog.StageDefaultOff:    "デフォルト無効",
		changelog.StageDeprecated:    "非推奨",
		changelog.StageRemoved:       "削除",
		changelog.StageReverted:      "取り消し",
	},
	done: map[changelog.Stage]string{
		changelog.StageAlpha:         "alpha として導入された",
		changelog.StageBeta:          "beta に昇格した",
		changelog.StageBetaDefaultOn: "beta に昇格し、デフォルトで有効になった",
		changelog.StageGA:            "GA になった",
		changelog.StageDefaultOn:     "デフォルトで有効になった",
		changelog.StageDefaultOff:    "デフォルトで無効になった",
		changelog.StageDeprecated:    "非推奨になった",
		changelog.StageRemoved:       "削除された",
		changelog.StageReverted:      "変更が取り消された",
	},
	held: map[changelog.Stage]string{
		changelog.StageAlpha: "alpha だった",
	},
	gateRemoved: "フィーチャーゲート削除",
}

var english = &lexicon{
	code: LangEnglish,
	label: map[changelog.Stage]string{
		changelog.StageAlpha:         "alpha",
		changelog.StageBeta:          "beta",
		changelog.StageBetaDefaultOn: "beta (on by default)",
		changelog.StageGA:            "GA",
		changelog.StageDefaultOn:     "on by default",
		changelog.StageDefaultOff:    "off by default",
		changelog.StageDeprecated:    "deprecated",
		changelog.StageRemoved:       "removed",
		changelog.StageReverted:      "reverted",
	},
	done: map[changelog.Stage]string{
		changelog.StageAlpha:         "was introduced as alpha",
		changelog.StageBeta:          "was promoted to beta",
		changelog.StageBetaDefaultOn: "was promoted to beta and turned on by default",
		changelog.StageGA:            "graduated to GA",
		changelog.StageDefaultOn:     "was turned on by default",
		changelog.StageDefaultOff:    "was turned off by default",
		changelog.StageDeprecated:    "was deprecated",
		changelog.StageRemoved:       "was removed",
		changelog.StageReverted:      "had a change reverted",
	},
	askRelease: map[changelog.Stage]string{
		changelog.StageAlpha:         "Which release introduced %s as alpha?",
		changelog.StageBeta:          "Which release promoted %s to beta?",
		changelog.StageBetaDefaultOn: "Which release promoted %s to beta and turned it on by default?",
		changelog.StageGA:            "Which release promoted %s to GA?",
		changelog.StageDefaultOn:     "Which release turned %s on by default?",
		changelog.StageDefaultOff:    "Which release turned %s off by default?",
		changelog.StageDeprecated:    "Which release deprecated %s?",
		changelog.StageRemoved:       "Which release removed %s?",
	},
	held: map[changelog.Stage]string{
		changelog.StageAlpha: "was alpha",
	},
	gateRemoved: "feature gate removed",
}

// lexiconFor picks the templates for a language code; anything but English
// gets Japanese, the language of the meetups.
func lexiconFor(lang string) *lexicon {
	if strings.EqualFold(strings.TrimSpace(lang), LangEnglish) {
		return english
	}
	return japanese
}

func (l *lexicon) ja() bool { return l.code == LangJapanese }

// fact states a stage change: "v1.36 で X は GA になった". Unless intro is
// set (the entry says the feature is new), a stage with a held wording is
// stated as one the feature was at: "v1.36 で X は alpha だった", "X was
// alpha in v1.36".
func (l *lexicon) fact(release, feature string, s changelog.Stage, intro bool) string {
	if w, ok := l.held[s]; ok && l.holds(s, intro) {
		if l.ja() {
			return jaJoin(jaJoin("v"+release+" で "+feature, "は"), w)
		}
		return feature + " " + w + " in v" + release
	}
	if l.ja() {
		return jaJoin(jaJoin("v"+release+" で "+feature, "は"), l.done[s])
	}
	return "In v" + release + ", " + feature + " " + l.done[s]
}

// sentence ends a clause, with PR references when there are any.
func (l *lexicon) sentence(s string, prs []int) string {
	if refs := prRefs(prs); refs != "" {
		s += " (" + refs + ")"
	}
	if l.ja() {
		return s + "。"
	}
	return s + "."
}

// holds reports whether a stage is stated as one the feature was at rather
// than as a change (fact).
func (l *lexicon) holds(s changelog.Stage, intro bool) bool {
	_, ok := l.held[s]
	return ok && !intro
}

// stageQuestion asks which stage a feature was at in a release. It reads
// the same whatever the answer: a change ("moved to beta") and a stage the
// feature only stayed at ("was alpha", see holds) share one wording, or the
// prompt would tell which it is, and a held stage is nearly always alpha.
func (l *lexicon) stageQuestion(release, feature string) string {
	if l.ja() {
		return jaJoin("v"+release+" の時点で "+feature, "はどの段階だった?")
	}
	return "In v" + release + ", which stage was " + feature + " at?"
}

// releaseQuestion asks when a feature reached a stage, in the wording of a
// change ("introduced as alpha"): a stage an entry only says the feature
// was at is not asked this way (see introduced).
func (l *lexicon) releaseQuestion(feature string, s changelog.Stage) string {
	if l.ja() {
		return jaJoin(jaJoin(feature, "が"), l.done[s]) + "のはどのリリース?"
	}
	return strings.Replace(l.askRelease[s], "%s", feature, 1)
}

// releaseQuestionGiven asks when a feature reached a stage, given the
// stage it reached in the document's release: "v1.36 で GA になった
// ImageVolume が、alpha として導入されたのはどのリリース?".
func (l *lexicon) releaseQuestionGiven(givenName string, given changelog.Stage, release, feature string, s changelog.Stage) string {
	if l.ja() {
		return jaJoin(jaJoin(jaJoin("v"+release+" で", l.done[given]), givenName), "が、") + l.done[s] + "のはどのリリース?"
	}
	return givenName + " " + l.done[given] + " in v" + release + ". " + l.releaseQuestion(feature, s)
}

func (l *lexicon) orderPrompt(feature string) string {
	if l.ja() {
		return feature + " の段階の変化を、古いリリースから順に並べよ。"
	}
	return "Put the stage changes of " + feature + " in release order, oldest first."
}

// history writes a feature's events: "1.31 alpha → 1.33 beta (#1)".
func (l *lexicon) history(events []changelog.Event) string {
	return l.historyOf(events, false)
}

// historyOf is history; for a feature gate, a removal is said to be the
// gate's ("1.28 gate removed"): the feature itself stays when a gate is
// removed after GA.
func (l *lexicon) historyOf(events []changelog.Event, gate bool) string {
	parts := make([]string, 0, len(events))
	for _, e := range events {
		p := e.Release + " " + l.stageLabel(e.Stage, gate)
		if e.PR > 0 {
			p += " (" + prRefs([]int{e.PR}) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " → ")
}

// stageLabel is a stage as a history or a timeline item shows it: for a
// feature gate, a removal is the gate's.
func (l *lexicon) stageLabel(s changelog.Stage, gate bool) string {
	if gate && s == changelog.StageRemoved {
		return l.gateRemoved
	}
	return l.label[s]
}

// historyNote is a sentence with a feature's history, or "" when it has
// fewer than two events. gate is set for a feature gate (see historyOf).
func (l *lexicon) historyNote(feature string, events []changelog.Event, gate bool) string {
	if len(events) < 2 {
		return ""
	}
	if l.ja() {
		return feature + " の経緯: " + l.historyOf(events, gate) + "。"
	}
	return "History of " + feature + ": " + l.historyOf(events, gate) + "."
}

// gateName names a feature gate as such, for a removal: after GA the gate
// goes and the feature stays ("Removed GA'ed feature gate DevicePlugins").
func (l *lexicon) gateName(gate string) string {
	if l.ja() {
		return gate + " フィーチャーゲート"
	}
	return "the " + gate + " feature gate"
}

func (l *lexicon) orderExplanation(feature string, events []changelog.Event, gate bool) string {
	if l.ja() {
		return feature + " はリリースごとに " + l.historyOf(events, gate) + " と進んだ。"
	}
	return feature + " moved through " + l.historyOf(events, gate) + "."
}

func (l *lexicon) verdict(truth bool) string {
	switch {
	case l.ja() && truth:
		return "正しい。"
	case l.ja():
		return "誤り。実際には、"
	case truth:
		return "True. "
	}
	return "False. "
}

// describePrompt asks which name of a category a description is of (a
// feature, a flag, a metric ...); where the description named it, it says
// how the name is hidden.
func (l *lexicon) describePrompt(masked string, cat category) string {
	hidden := strings.Contains(masked, maskToken)
	what := l.kindNoun(cat)
	switch {
	case l.ja() && hidden:
		return jaJoin("次の説明に当てはまる", what) + "はどれ? (名前は " + maskToken + " で伏せてある)\n\n" + masked
	case l.ja():
		return jaJoin("次の説明に当てはまる", what) + "はどれ?\n\n" + masked
	case hidden:
		return "Which " + what + " does this describe? (its name is hidden as " + maskToken + ")\n\n" + masked
	}
	return "Which " + what + " does this describe?\n\n" + masked
}

// kindNoun names what a category's names are: 機能 (feature), フラグ (flag).
func (l *lexicon) kindNoun(cat category) string {
	ja, en := "機能", "feature"
	switch cat {
	case catFlag:
		ja, en = "フラグ", "flag"
	case catMetric:
		ja, en = "メトリクス", "metric"
	case catAPI:
		ja, en = "API バージョン", "API version"
	case catConfig:
		ja, en = "設定項目", "setting"
	case catCgroup:
		ja, en = "cgroup のファイル", "cgroup file"
	case catIdent, catNone:
		ja, en = "名前", "name"
	}
	if l.ja() {
		return ja
	}
	return en
}

func (l *lexicon) answerIs(answer, from string, prs []int) string {
	if l.ja() {
		return l.sentence("答えは "+answer+"。出典: "+from, prs)
	}
	return l.sentence("The answer is "+answer+". Source: "+from, prs)
}

// clozePrompt opens a cloze with a question in the deck's language and
// quotes the sentence, its gap in place. gate says the document calls the
// term a feature gate.
func (l *lexicon) clozePrompt(quote string, cat category, gate bool) string {
	if l.ja() {
		return jaJoin(jaJoin("次の文の空欄に入る", l.clozeNoun(cat, gate)), "は?") + "\n\n「" + quote + "」"
	}
	return "Which " + l.clozeNoun(cat, gate) + " fills the blank?\n\n\u201c" + quote + "\u201d"
}

// clozeNoun names what fills a cloze's gap: a feature gate only when the
// document calls the term one; a gate-shaped name it does not ("KeyID",
// "PodSecurityPolicy") is a name.
func (l *lexicon) clozeNoun(cat category, gate bool) string {
	switch {
	case cat == catGate && gate && l.ja():
		return "フィーチャーゲート"
	case cat == catGate && gate:
		return "feature gate"
	case cat == catGate:
		return l.kindNoun(catIdent)
	}
	return l.kindNoun(cat)
}

func (l *lexicon) gapIs(answer, from string, prs []int) string {
	if l.ja() {
		return l.sentence("空欄に入るのは "+answer+"。出典: "+from, prs)
	}
	return l.sentence("The gap is "+answer+". Source: "+from, prs)
}

func (l *lexicon) flashFront(term string) string {
	if l.ja() {
		return term + " とは?"
	}
	return "What is " + term + "?"
}

func (l *lexicon) flashExplanation(term, from string, prs []int) string {
	if l.ja() {
		return l.sentence(jaJoin(from, "にある "+term+" の説明"), prs)
	}
	return l.sentence("The description of "+term+" in "+from, prs)
}

// jaJoin joins two pieces of Japanese text, with a space only where a
// Latin letter or digit meets the other piece ("X は GA", "X はデフォルト").
func jaJoin(a, b string) string {
	la, _ := utf8.DecodeLastRuneInString(a)
	fb, _ := utf8.DecodeRuneInString(b)
	if la < utf8.RuneSelf && la != ' ' || fb < utf8.RuneSelf && fb != ' ' {
		return a + " " + b
	}
	return a + b
}

// documentLabel names a document: "v1.36 SIG-Node の変更内容",
// "the v1.36 CHANGELOG".
func (l *lexicon) documentLabel(release, sig string, article bool) string {
	name := "v" + release
	if release == "" {
		name = ""
	}
	if sig != "" {
		name = strings.TrimSpace(name + " " + sig)
	}
	switch {
	case l.ja() && article:
		return strings.TrimSpace(name + " の変更内容")
	case l.ja():
		return strings.TrimSpace(name + " CHANGELOG")
	case article:
		return strings.TrimSpace("the " + name + " article")
	}
	return strings.TrimSpace("the " + name + " CHANGELOG")
}
