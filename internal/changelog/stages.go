package changelog

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stagePattern is one way of stating a maturity change.
type stagePattern struct {
	re    *regexp.Regexp
	stage Stage // "" means: read the stage from submatch word
	word  int   // submatch holding a stage word (timeline and parenthesised forms)
	rel   int   // submatch holding an explicit minor version
	obj   int   // submatch holding the object ("Promoted X to GA")
	// verb patterns must start a clause ("Removed X", "Kubeadm: deprecate X").
	verb bool
	// state patterns describe a default rather than change it; inside
	// parentheses they are ignored.
	state bool
	// promo marks a promotion: a later "off by default" keeps the stage.
	promo bool
	// future patterns already contain "will be" and skip the future check.
	future bool
	// subjectAfter: the subject follows the match ("Added alpha support for X").
	subjectAfter bool
	// locked: a gate locked to its default; "(false)" after it is no GA.
	locked bool
	// newGate: "a new feature gate", alpha only by inference (see
	// stageMatch.inferred).
	newGate bool
	// named patterns take their subject from a name in the sentence,
	// never from the entry's focus or a phrase.
	named bool
	// ja patterns only run on sentences with Japanese in them.
	ja bool
	// need: when set, one of these must occur too (lower case).
	need []string
	// triggers: the pattern only runs when one of these occurs (lower case);
	// "ga" must be a whole word.
	triggers []string
}

var stagePatterns = []stagePattern{
	// English: general availability.
	{re: regexp.MustCompile(`\b(?:promot|graduat|mov)(?:e|ed|es|ing)\b(.*?)\bto\s+(?:ga|stable|general availability|generally available)\b`), stage: StageGA, obj: 1, promo: true, triggers: []string{"ga", "stable", "general"}, need: []string{"promot", "graduat", "mov"}},
	// "was GA'ed in 1.20": the release after the verb's ending is the GA's.
	{re: regexp.MustCompile(`\b(?:is|are|was|were|has been|have been|be)\s+(?:now\s+|also\s+)?(?:in\s+)?(?:ga(?:['’]e?d)?|generally available|general availability)\b|\b(?:is|are|has been|have been)\s+now\s+stable\b|\bmade\s+stable\b|\breach(?:es|ed)?\s+(?:ga|general availability|stable)\b`), stage: StageGA, promo: true, triggers: []string{"ga", "stable", "general"}},
	{re: regexp.MustCompile(`\block(?:ed|s)?\s+(?:(.+?)\s+)?(?:to\s+(?:true|enabled|its default|the default|default value|default|on)|on)\b`), stage: StageGA, obj: 1, locked: true, triggers: []string{"lock"}},
	{re: regexp.MustCompile(`\bunconditionally\s+enabled\b`), stage: StageGA, triggers: []string{"uncondition"}},
	// A gate that "can no longer be specified" is gone, whatever it is
	// locked to: "The deprecated feature gates X and Y are now
	// unconditionally enabled and can no longer be specified" removes them
	// (their features were GA before). This hit holds the GA one above.
	// One that "can no longer be set" or "disabled" may only be locked.
	// The gate itself must be what can no longer be specified: "… and the
	// value false can no longer be specified" locks it on.
	{re: regexp.MustCompile(`\bunconditionally\s+enabled\s*,?\s+and\s+can\s*(?:no\s+longer|not)\s+be\s+specified\b`), stage: StageRemoved, triggers: []string{"uncondition"}},
	// English: beta.
	{re: regexp.MustCompile(`\bto\s+beta\s*(?:,\s*|\s+)(?:and\s+)?(?:it\s+)?(?:will\s+be\s+|is\s+(?:now\s+)?|now\s+|be\s+)?(?:enabled|turned on|on)\s+by\s+default\b|\bto\s+beta\s*\(\s*(?:on|enabled)\s+by\s+default`), stage: StageBetaDefaultOn, promo: true, future: true, triggers: []string{"beta"}},
	{re: regexp.MustCompile(`\b(?:promot|graduat|mov)(?:e|ed|es|ing)\b(.*?)\bto\s+beta\b`), stage: StageBeta, obj: 1, promo: true, triggers: []string{"beta"}, need: []string{"promot", "graduat", "mov"}},
	{re: regexp.MustCompile(`\bto\s+beta\b`), stage: StageBeta, promo: true, triggers: []string{"beta"}},
	{re: regexp.MustCompile(`\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:in\s+)?beta\b|\b(?:available|introduced|added)\s+(?:in|as)\s+(?:an?\s+)?beta\b|\breach(?:es|ed)?\s+beta\b`), stage: StageBeta, promo: true, triggers: []string{"beta"}},
	// English: alpha.
	{re: regexp.MustCompile(`\b(?:add|adds|added|adding|introduc(?:e|es|ed|ing)|new|implement(?:s|ed)?)\b([^.;:]*?)\balpha\b`), stage: StageAlpha, obj: 1, subjectAfter: true, triggers: []string{"alpha"}, need: []string{"add", "introduc", "new", "implement"}},
	{re: regexp.MustCompile(`\b(?:available|introduced|added)\s+(?:in|as)\s+(?:an?\s+)?alpha\b`), stage: StageAlpha, subjectAfter: true, triggers: []string{"alpha"}},
	{re: regexp.MustCompile(`\bnew\s+(?:alpha\s+)?feature[- ]gates?\b`), stage: StageAlpha, subjectAfter: true, newGate: true, triggers: []string{"new"}},
	// "Extended the Job API for alpha version of BackoffLimitPerIndex",
	// "Alpha implementation of Kubectl Command Headers".
	{re: regexp.MustCompile(`\balpha\s+(?:version|implementation)\s+of\b`), stage: StageAlpha, subjectAfter: true, triggers: []string{"alpha"}},
	// "This is an alpha field … with the IndexedJob feature gate enabled",
	// "This feature is alpha and is behind the DaemonSetUpdateSurge
	// feature gate": what is alpha is the gate the sentence names.
	{re: regexp.MustCompile(`\b(?:is|are)\s+(?:an?\s+)?alpha(?:\s+(?:field|feature|api))?\b`), stage: StageAlpha, named: true, triggers: []string{"alpha"}},
	// English: stage and release named together ("alpha in 1.31").
	{re: regexp.MustCompile(`\b(alpha|beta|ga|stable)\s+in\s+(?:kubernetes\s+)?v?1\.(\d+)\b`), word: 1, rel: 2, triggers: []string{"alpha", "beta", "ga", "stable"}, need: []string{" in "}},
	// Parenthesised stage after a name: "(alpha)", "(beta in v1.36)", "(beta, enabled by default)".
	{re: regexp.MustCompile(`\(\s*(alpha|beta|ga|stable)\b((?:\s*[,、]|\s+in\s)[^)]*)?\)`), word: 1, triggers: []string{"(alpha", "(beta", "(ga", "(stable", "( alpha", "( beta"}},
	// English: default state.
	{re: regexp.MustCompile(`\b(?:enabled|turned on|switched on|on)\s+by\s+default\b`), stage: StageDefaultOn, state: true, triggers: []string{"by default"}},
	{re: regexp.MustCompile(`\benabl(?:e|es|ed|ing)\s+(?:the\s+)?(.+?)\s+by\s+default\b`), stage: StageDefaultOn, obj: 1, triggers: []string{"by default"}, need: []string{"enabl"}},
	{re: regexp.MustCompile(`\b(?:turned|switched)\s+off\s+by\s+default\b|\b(?:to|now|been)\s+disabled\s+by\s+default\b`), stage: StageDefaultOff, state: true, triggers: []string{"by default"}},
	{re: regexp.MustCompile(`\bdisabl(?:e|es|ed|ing)\s+(?:the\s+)?(.+?)\s+by\s+default\b`), stage: StageDefaultOff, obj: 1, triggers: []string{"by default"}, need: []string{"disabl"}},
	// English: deprecation.
	{re: regexp.MustCompile(`\b(?:is|are|was|were|has been|have been|be|being|been|now|got)\s+(?:now\s+|also\s+|formally\s+|officially\s+)?(?:marked\s+(?:as\s+)?)?deprecated\b`), stage: StageDeprecated, triggers: []string{"deprecat"}},
	{re: regexp.MustCompile(`\bdeprecat(?:e|es|ed|ing)\b(.*?)(?:\bin favou?r of\b|[.;](?:\s|$)|$)`), stage: StageDeprecated, obj: 1, verb: true, triggers: []string{"deprecat"}},
	{re: regexp.MustCompile(`\bmark(?:s|ed|ing)?\s+(.+?)\s+as\s+deprecated\b`), stage: StageDeprecated, obj: 1, triggers: []string{"deprecat"}, need: []string{"mark"}},
	{re: regexp.MustCompile(`\bdeprecation\s+(?:of|for)\b(.*?)(?:[.;](?:\s|$)|$)`), stage: StageDeprecated, obj: 1, triggers: []string{"deprecation"}},
	// English: removal.
	{re: regexp.MustCompile(`\b(?:is|are|was|were|has been|have been|be|been|being|now|got)\s+(?:now\s+|fully\s+|also\s+|completely\s+|officially\s+)?removed\b`), stage: StageRemoved, triggers: []string{"remov"}},
	{re: regexp.MustCompile(`\bremov(?:e|es|ed|ing)\s+(.+?)(?:[.;](?:\s|$)|\bfrom\b|\bin favou?r\b|$)`), stage: StageRemoved, obj: 1, verb: true, triggers: []string{"remov"}},
	{re: regexp.MustCompile(`\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?deprecated\s+and\s+(?:then\s+)?removed\b`), stage: StageRemoved, triggers: []string{"remov"}},
	{re: regexp.MustCompile(`\bwithdrawn\b`), stage: StageRemoved, triggers: []string{"withdrawn"}},
	// English: revert.
	{re: regexp.MustCompile(`\brevert(?:s|ed|ing)?\b|\broll(?:s|ed)?\s+back\b|\brolled\s+back\b`), stage: StageReverted, triggers: []string{"revert", "roll back", "rolls back", "rolled back"}},

	// Japanese: a release followed by a stage ("1.31 で alpha、1.33 で beta").
	{re: regexp.MustCompile(`(?:^|[^\d.])v?1\.(\d+)\s*(?:で|では|から|に|にて|以降で?)\s*(?:は\s*)?(\balpha\b|\bbeta\b|\bga\b|\bstable\b|アルファ|ベータ|安定版|デフォルト(?:で)?\s*有効(?:化)?|デフォルト(?:で)?\s*無効(?:化)?|非推奨|削除)`), word: 2, rel: 1, ja: true, triggers: []string{"で", "から", "に"}},
	{re: regexp.MustCompile(`(?:\bga\b|general availability|\bstable\b|安定版)\s*(?:\([^)]*\)\s*)?(?:に|と|へ)\s*(?:な[りっるれ]|昇格|移行|到達|格上げ)`), stage: StageGA, promo: true, ja: true, triggers: []string{"ga", "general", "stable", "安定版"}},
	{re: regexp.MustCompile(`(?:\bbeta\b|ベータ)(?:版)?\s*(?:\(([^)]*)\)\s*)?(?:に|と|へ)\s*(?:な[りっるれ]|昇格|移行|格上げ)`), stage: StageBeta, promo: true, ja: true, triggers: []string{"beta", "ベータ"}},
	{re: regexp.MustCompile(`(?:\bbeta\b|ベータ)\s*(?:で|,|、)\s*デフォルト(?:で|が)?\s*有効`), stage: StageBetaDefaultOn, ja: true, triggers: []string{"beta", "ベータ"}},
	{re: regexp.MustCompile(`(?:\bbeta\b|ベータ)版です`), stage: StageBeta, ja: true, triggers: []string{"beta", "ベータ"}},
	{re: regexp.MustCompile(`(?:\balpha\b|アルファ)(?:版)?\s*(?:で|として)?\s*(?:導入|追加)|(?:新しい|新たな|新規の?)\s*(?:\balpha\b|アルファ)|(?:\balpha\b|アルファ)(?:版)?\s*(?:に|と)\s*な[りっる]`), stage: StageAlpha, ja: true, triggers: []string{"alpha", "アルファ"}},
	{re: regexp.MustCompile(`(?:\balpha\b|アルファ)\s*の([^。]*?)を追加`), stage: StageAlpha, obj: 1, ja: true, triggers: []string{"alpha", "アルファ"}},
	{re: regexp.MustCompile(`(?:\balpha\b|アルファ)(?:のため|なので|であるため)([^。]*?)有効にする必要`), stage: StageAlpha, obj: 1, ja: true, triggers: []string{"alpha", "アルファ"}},
	{re: regexp.MustCompile(`デフォルト(?:で|が)?\s*有効(?:化)?`), stage: StageDefaultOn, state: true, ja: true, triggers: []string{"デフォルト"}},
	{re: regexp.MustCompile(`デフォルト(?:で|が)?\s*無効(?:化)?`), stage: StageDefaultOff, state: true, ja: true, triggers: []string{"デフォルト"}},
	{re: regexp.MustCompile(`(?:非推奨|廃止予定)\s*(?:と|に)\s*(?:な|し|され)|(?:非推奨|廃止予定)(?:化|とする|にする)`), stage: StageDeprecated, ja: true, triggers: []string{"非推奨", "廃止予定"}},
	{re: regexp.MustCompile(`(?:削除|取り下げ)(?:され|し|とな|する)`), stage: StageRemoved, ja: true, triggers: []string{"削除", "取り下げ"}},
	{re: regexp.MustCompile(`無条件(?:で|に)\s*有効|(?:デフォルト値|有効|true)\s*に固定`), stage: StageGA, ja: true, triggers: []string{"無条件", "固定"}},
	// "無条件に有効になり、コンポーネントの呼び出しで指定することができなく
	// なりました": the gate is gone. With an object ("false を指定", "値を
	// false に指定") it is only locked on.
	{re: regexp.MustCompile(`無条件(?:で|に)\s*有効(?:化)?(?:に)?(?:なり|なって|され|し)[、,]?\s*(?:[^。、をにが]{0,40}?で\s*)?指定(?:する)?(?:こと)?(?:が|は)?でき(?:なく|ない|ません)`), stage: StageRemoved, ja: true, triggers: []string{"無条件"}},
	{re: regexp.MustCompile(`リバート|差し戻|元に戻`), stage: StageReverted, ja: true, triggers: []string{"リバート", "差し戻", "元に戻"}},
}

// stageWord maps a stage word from a timeline or parenthesis.
func stageWord(w string) Stage {
	w = strings.ToLower(strings.Join(strings.Fields(w), ""))
	switch {
	case w == "alpha" || w == "アルファ":
		return StageAlpha
	case w == "beta" || w == "ベータ":
		return StageBeta
	case w == "ga" || w == "stable" || w == "安定版":
		return StageGA
	case strings.HasPrefix(w, "デフォルト") && strings.Contains(w, "無効"):
		return StageDefaultOff
	case strings.HasPrefix(w, "デフォルト"):
		return StageDefaultOn
	case w == "非推奨":
		return StageDeprecated
	case w == "削除":
		return StageRemoved
	}
	return ""
}

func isDefault(s Stage) bool { return s == StageDefaultOn || s == StageDefaultOff }

func isMaturity(s Stage) bool {
	switch s {
	case StageAlpha, StageBeta, StageBetaDefaultOn, StageGA, StageDefaultOn, StageDefaultOff:
		return true
	}
	return false
}

// stageMatch is one pattern hit inside a sentence (offsets in the sentence).
type stageMatch struct {
	start, end int
	stage      Stage
	obj        [2]int
	release    string // explicit release, "" for the document's
	promo      bool
	after      bool
	// inferred: alpha read from "a new feature gate" without the word
	// alpha; a gate its entry says will be removed is a stopgap instead.
	inferred bool
	// locked: a gate locked to its default, which says nothing of the
	// default itself ("Locked the X feature gate to enabled by default").
	locked bool
	named  bool // see stagePattern.named
}

var (
	reDefaultOffParen = regexp.MustCompile(`(?i)^\s*\(\s*(?:off|disabled)\s+by\s+default`)
	reDefaultOnParen  = regexp.MustCompile(`(?i)^\s*[,、]?\s*\(?\s*(?:(?:on|enabled)\s+by\s+default|デフォルト(?:で)?\s*有効)`)
	reDefaultOnWords  = regexp.MustCompile(`(?i)(?:on|enabled)\s+by\s+default|default(?:s)?\s+(?:to\s+)?(?:true|on|enabled)|デフォルト(?:で)?\s*(?:有効|true)`)
	reReleaseBefore   = regexp.MustCompile(`(?:^|[^\d.])v?1\.(\d+)\s*(?:で|では|から|に|にて|以降で?)?\s*(?:は)?\s*$`)
	reReleaseBeforeE  = regexp.MustCompile(`(?:^|[^\d.])v?1\.(\d+)\s*(?:で|では|から|に|にて|以降で?)\s*(?:は)?\s*$`)
	reReleaseAfter    = regexp.MustCompile(`(?i)^\s*(?:\([^)]{0,12}\)\s*)?(?:(?:feature|features|gate|way|back|first|already|originally|previously|as|a|an|the|level|stage)\s+){0,4}?(?:in|as of|since)\s+(?:kubernetes\s+)?v?1\.(\d+)\b`)
	// reToEnd ends the text before "be …": "to be deprecated" is a plan.
	reToEnd      = regexp.MustCompile(`(?i)\bto\s+$`)
	reAnyRelease = regexp.MustCompile(`(?:^|[^\d.])v?1\.(\d{1,2})(?:[^\d.]|$)`)
	reDocFix     = regexp.MustCompile(`\bcomments?\b|\btypos?\b`)
	// reLaterRelease follows a removal that is a plan.
	reLaterRelease = regexp.MustCompile(`^\s*(?:in|with)\s+(?:a\s+|the\s+)?(?:future|later|subsequent|upcoming|next)\b`)
	// reRevertTo follows "reverted" that goes back to a behaviour, not
	// undoes a change of the release: "reverted back to its pre-1.27
	// behavior".
	reRevertTo = regexp.MustCompile(`^\s*(?:back\s+)?to\s`)
	// reRevertOfChange follows "reverted" that undoes a change or a fix.
	reRevertOfChange = regexp.MustCompile(`(?i)^\s+(?:the\s+|a\s+)?(?:[\w-]+\s+){0,2}?(?:changes?|fix(?:es)?|behaviou?rs?)\s+(?:to|for|in|of)\b`)
	// reDoneAfter follows the object of "Deprecated X" when the word is an
	// adjective: "Deprecated metric X has been turned off".
	reDoneAfter = regexp.MustCompile(`^\s*(?:is|are|was|were|has been|have been)\s+(?:now\s+|also\s+)?(?:turned off|switched off|disabled|hidden|removed|deleted|dropped)\b`)
	reAdvice    = regexp.MustCompile(`(?i)\bplease\b|\bconsider\b|\byou should\b|\brecommend`)
	// reObjAround starts the object of "Removed X" or "Deprecated X" that
	// names something done with X rather than X: "Removed the cleanup of
	// the --pod-infra-container-image flag", "Removed usage of the
	// deprecated etcd flags": X itself stays.
	reObjAround = regexp.MustCompile(`(?i)^\s*(?:the\s+|a\s+|an\s+|any\s+)?(?:clean-?ups?|usages?|uses?|handling|references?|mentions?|workarounds?|special[- ]casing|fallbacks?|calls?|checks?|logic|code|warnings?)\s+(?:of|to|for|on|about|around)\b`)
	// reObjUse is the part of reObjAround that, after "Deprecated", still
	// names X: the use of X is what a deprecation of X asks to stop.
	reObjUse      = regexp.MustCompile(`(?i)^\s*(?:the\s+|a\s+|an\s+|any\s+)?(?:usages?|uses?)\s+of\b`)
	reObjStop     = regexp.MustCompile(`(?i)\s+(?:is|are|was|were|will|has|have|in|since|as of|from|which|that|to|with|for)(?:[^\w-]|$)|\s+and\s+(?:add|adds|added|make|makes|made|use|used|uses|replace|replaced|introduce|introduced|update|updated|mark|marked|set|move|moved|rename|renamed)\b|[()]`)
	reNegAfterJa  = regexp.MustCompile(`^(?:ではな|でな|にならな|になっていな|されていな|されな|しな|されず|しません|されません|にはな|予定|される予定|する予定|た場合|る場合|ても|たとき|たら|ると|たよう|るよう|らしい|かもしれ)`)
	rePRRef       = regexp.MustCompile(`(?:^|[^\w#-])#(\d{4,7})\b|kubernetes/kubernetes/pull/(\d+)`)
	reKEPBefore   = regexp.MustCompile(`(?i)KEP[\s-]*$`)
	reVerbLead    = regexp.MustCompile(`(?i)(?:^|\b)(?:the|a|an|of|for|to|with|remove|removed|removes|delete|deleted|deletes|use|using|non|un)\s*$`)
	reClauseBreak = regexp.MustCompile(`[:;,]\s*$|\b(?:and|then|also)\s*$`)
)

// A sentence with none of these stems states no stage change.
var (
	stageStems   = []string{"alpha", "beta", "ga", "stable", "general", "by default", "deprecat", "remov", "withdrawn", "revert", "roll", "lock", "uncondition", "new"}
	stageStemsJa = []string{"デフォルト", "削除", "取り下げ", "非推奨", "廃止", "無条件", "固定", "アルファ", "ベータ", "安定", "リバート", "差し戻", "元に戻"}
)

// findStageMatches runs the patterns over one sentence and returns the hits
// that state a change in order, dropping plans, negations, conditions and
// hits inside a longer hit.
// low is sent with ASCII letters lower-cased.
func findStageMatches(sent, low string, docMinor int) []stageMatch {
	ja := hasJapanese(sent)
	gaWord := containsWord(low, "ga")
	if !anyIn(low, stageStems, gaWord) && !(ja && anyIn(low, stageStemsJa, false)) {
		return nil
	}
	docFix := (strings.Contains(low, "comment") || strings.Contains(low, "typo")) && reDocFix.MatchString(low)
	// English plans say "will"; Japanese ones may only name the release.
	laterRelease := ja && docMinor > 0 && strings.Contains(sent, "1.") && mentionsLaterRelease(sent, docMinor)
	var out []stageMatch
	for pi := range stagePatterns {
		p := &stagePatterns[pi]
		if p.ja && !ja {
			continue
		}
		if !anyIn(low, p.triggers, gaWord) || len(p.need) > 0 && !anyIn(low, p.need, false) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(low, -1) {
			if p.obj > 0 && m[2*p.obj] >= 0 && m[2*p.obj+1]-m[2*p.obj] > 240 {
				continue // an "object" that long is a whole clause, not a name
			}
			sm := stageMatch{start: m[0], end: m[1], stage: p.stage, obj: [2]int{-1, -1}, promo: p.promo, after: p.subjectAfter,
				inferred: p.newGate && !strings.Contains(low[m[0]:m[1]], "alpha"), locked: p.locked, named: p.named}
			if p.word > 0 {
				sm.stage = stageWord(sent[m[2*p.word]:m[2*p.word+1]])
				if sm.stage == "" {
					continue
				}
				if p.rel == 0 && isMaturity(sm.stage) && len(m) > 5 && m[4] >= 0 && reDefaultOnWords.MatchString(sent[m[4]:m[5]]) && sm.stage == StageBeta {
					sm.stage = StageBetaDefaultOn
				}
			}
			if p.obj > 0 && m[2*p.obj] >= 0 {
				sm.obj = [2]int{m[2*p.obj], m[2*p.obj+1]}
				if p.verb {
					// "Removed X and added Y", "deprecated in v1.14) is removed":
					// the object ends at the next clause.
					if loc := reObjStop.FindStringIndex(sent[sm.obj[0]:sm.obj[1]]); loc != nil {
						sm.obj[1] = sm.obj[0] + loc[0]
						sm.end = sm.obj[1]
					}
					// "Deprecated the use of X" deprecates X; "Removed the use
					// of X" removes nothing of X, nor does either verb with
					// the cleanup, a workaround or warnings of X.
					obj := sent[sm.obj[0]:sm.obj[1]]
					if strings.TrimSpace(obj) == "" || reObjAround.MatchString(obj) && (sm.stage == StageRemoved || !reObjUse.MatchString(obj)) {
						continue
					}
				}
			}
			if p.rel > 0 {
				sm.release = "1." + sent[m[2*p.rel]:m[2*p.rel+1]]
			}
			before := sent[:m[0]]
			if p.state && insideParens(before) {
				continue
			}
			if !p.future && p.rel == 0 && (futureBefore(tail(before, 40)) || strings.HasPrefix(low[m[0]:], "be ") && reToEnd.MatchString(before)) {
				continue // "will be removed", "the soon to be deprecated X"
			}
			if reNegAfterJa.MatchString(sent[m[1]:]) && !strings.HasPrefix(sent[m[0]:], "廃止予定") {
				continue
			}
			if p.verb && (!verbPosition(tail(before, 120)) || reAdvice.MatchString(tail(before, 200)) || strings.HasSuffix(before, "-")) {
				continue
			}
			if isMaturity(sm.stage) && (vetoMetric(low, m[0], m[1]) || docFix) {
				continue
			}
			after := low[m[1]:]
			if p.locked && strings.Contains(after[:min(len(after), 20)], "false") {
				continue
			}
			// "Deprecated metric X has been turned off": the deprecation came
			// before; what this release did is said after the name.
			if p.verb && sm.stage == StageDeprecated && reDoneAfter.MatchString(low[sm.end:]) {
				continue
			}
			if sm.stage == StageRemoved && reLaterRelease.MatchString(after) {
				continue // "deprecated and removed in a future release"
			}
			if rest := afterObject(sent, sm, m[1]); sm.stage == StageRemoved && (removedFromPart(rest, sent[:m[0]], ja) || conditional(rest)) {
				// "Removed X from node declared features", "X has been
				// removed from the default value of --flag": X stays; "…
				// if the etcd version is < v3.6.0": only sometimes.
				continue
			}
			if sm.stage == StageReverted && (reRevertTo.MatchString(after) || reRevertOfChange.MatchString(after)) {
				// "revert (back) to the old behaviour" undoes no change;
				// "Reverts breaking change to inline AzureFile volumes"
				// undoes a change to what it names, not the name's stage.
				continue
			}
			// A Japanese beta pattern may carry "(デフォルト有効)" inside.
			if sm.stage == StageBeta && p.obj == 0 && len(m) > 3 && m[2] >= 0 && reDefaultOnWords.MatchString(sent[m[2]:m[3]]) {
				sm.stage = StageBetaDefaultOn
			}
			if sm.stage == StageBeta && reDefaultOnParen.MatchString(sent[m[1]:]) && strings.HasPrefix(strings.TrimSpace(sent[m[1]:]), "(") {
				sm.stage = StageBetaDefaultOn
			}
			if sm.release == "" {
				rb := reReleaseBeforeE
				if ja {
					rb = reReleaseBefore
				}
				if rm := rb.FindStringSubmatch(tail(before, 16)); rm != nil {
					sm.release = "1." + rm[1]
				} else if rm := reReleaseAfter.FindStringSubmatch(sent[sm.end:]); rm != nil {
					// After the statement, or after the object a verb's
					// clause ends with: "Deprecate X and Y in 1.23.0".
					sm.release = "1." + rm[1]
				}
			}
			if sm.release == "" && p.rel == 0 && !p.future && wordBefore(tail(before, 40), untilWords) {
				// "will be removed after the feature graduates to GA": a
				// condition; "after being deprecated in 1.17" is dated.
				continue
			}
			if sm.release != "" && docMinor > 0 {
				if _, minor, ok := ParseRelease(sm.release); ok && minor > docMinor {
					continue // a plan for a later release, not a change
				}
			}
			if sm.release == "" && laterRelease {
				continue // "1.22 ではデフォルトで有効になります"
			}
			out = append(out, sm)
			if loc := reDefaultOffParen.FindStringIndex(sent[m[1]:]); loc != nil && sm.stage == StageBeta && sm.promo {
				// "CSIMigrationGCE to Beta (off by default since it
				// requires …)": beta, and off by default, is two facts.
				off := sm
				off.start, off.end, off.stage, off.obj, off.promo = m[1]+loc[0], m[1]+loc[1], StageDefaultOff, [2]int{-1, -1}, false
				out = append(out, off)
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].start != out[b].start {
			return out[a].start < out[b].start
		}
		return out[a].end > out[b].end
	})
	// Drop matches inside an earlier one, and overlapping matches that say
	// the same thing.
	kept := out[:0]
	for _, m := range out {
		drop := false
		for _, k := range kept {
			inside := m.start >= k.start && m.end <= k.end
			overlap := m.start < k.end && k.start < m.end
			if inside || overlap && (m.stage == k.stage || k.locked && isDefault(m.stage)) {
				drop = true
				break
			}
		}
		if !drop {
			kept = append(kept, m)
		}
	}
	return kept
}

var (
	// reFromPlace is what something is removed from: "from the kubelet".
	reFromPlace = regexp.MustCompile(`^\s*(?:\([^)]*\)\s*)?from\s+((?:[^.;,]|\.\w){1,80})`)
	// reWhole names what a removal from takes something out of
	// Kubernetes: a component or program, the code, an API or a type of
	// one ("from pvc.Status"), or its reporting.
	reWhole = regexp.MustCompile(`(?i)\bkube|\bk8s\b|k8s\.io|cadvisor|scheduler|apiserver|api\b|controller|client-go|\bproxy|\bcode|\bsource tree\b|\brepo|\brelease|\bimages?\b|\bbinar|\bbuild|\bpackage|\bmodule|\bscripts?\b|\bbeing\b|\bcommand|\bcli\b|\betcd\b|\be2e\b|\bcomponents?\b|\b[a-z]\w*\.[A-Z]\w*|コードベース|リポジトリ|スクリプト`)
	// reJaFrom is the place of a Japanese removal: "X から … を削除".
	reJaFrom = regexp.MustCompile(`(\S+(?:\s+\S+){0,3})\s*から`)
	// reCondition makes a change conditional: "… if the etcd version is
	// < v3.6.0", "… when the feature gate is disabled".
	reCondition = regexp.MustCompile(`(?i)^[^.;,]{0,40}?\b(?:if|when|unless|whenever|in case)\b`)
	// rePurpose starts a clause that says why, not when.
	rePurpose = regexp.MustCompile(`(?i)\b(?:so that|so as|because|in order)\b`)
	// reProgram is a program named by its hyphenated name: "from
	// deepcopy-gen".
	reProgram = regexp.MustCompile(`^(?:the\s+)?[a-z0-9]+-[a-z0-9-]*[a-z0-9](?:\s|$)`)
)

// removedFromPart reports whether a removal takes its object out of part
// of something that stays ("from node declared features", "from the
// default value of --non-blocking-taints", "from status"), not out of
// Kubernetes, a component or an API. after is the text after the
// English statement; before, for a Japanese one, the text before it.
func removedFromPart(after, before string, ja bool) bool {
	if ja {
		m := reJaFrom.FindStringSubmatch(tail(before, 160))
		return m != nil && !reWhole.MatchString(m[1])
	}
	m := reFromPlace.FindStringSubmatch(after)
	return m != nil && !reWhole.MatchString(m[1]) && !reProgram.MatchString(m[1])
}

// afterObject is the text after a statement's object, or after the
// statement when it has none.
func afterObject(low string, sm stageMatch, end int) string {
	if sm.obj[0] >= 0 {
		return low[sm.obj[1]:]
	}
	return low[end:]
}

// conditional reports whether the text after a removal makes it happen
// only under a condition.
func conditional(after string) bool {
	loc := reCondition.FindStringIndex(after)
	return loc != nil && !rePurpose.MatchString(after[:loc[1]])
}

// defaultOnIn reports whether a text says, anywhere, that something is on
// by default now: not "not enabled by default", nor "will be enabled by
// default in v1.32", nor "default one".
func defaultOnIn(text string) bool {
	for _, loc := range reDefaultOnWords.FindAllStringIndex(text, -1) {
		if loc[1] < len(text) && isAlnum(text[loc[1]]) {
			continue // "default one", "default on-disk" is another word
		}
		if !futureBefore(tail(text[:loc[0]], 40)) {
			return true
		}
	}
	return false
}

// futureWords make a following stage statement a plan, a condition or a
// negation rather than a change.
var futureWords = map[string]bool{
	"will": true, "would": true, "shall": true, "should": true, "may": true, "might": true, "could": true,
	"must": true, "going": true, "plan": true, "plans": true, "planned": true, "expected": true,
	"scheduled": true, "intend": true, "intends": true, "intended": true, "not": true, "never": true,
	"longer": true, "cannot": true, "can't": true, "won't": true, "isn't": true, "aren't": true,
	"wasn't": true, "weren't": true, "you": true, "once": true,
}

// untilWords put a stage statement that no release dates at a time yet to
// come: "after the feature graduates to GA".
var untilWords = map[string]bool{"after": true, "until": true, "before": true}

// futureBefore reports whether one of the last three words of before is a
// future, conditional or negating word.
func futureBefore(before string) bool {
	return wordBefore(before, futureWords)
}

// wordBefore reports whether one of the last three words of before, in
// its clause, is one of words, or a contracted "will" ("they'll").
func wordBefore(before string, words map[string]bool) bool {
	f := strings.Fields(asciiLower(before))
	for i := len(f) - 1; i >= 0 && i >= len(f)-3; i-- {
		w := f[i]
		if strings.ContainsAny(w, ",.;:") {
			return false // the clause ends here
		}
		if w = strings.Trim(w, "()"); words[w] || strings.HasSuffix(w, "'ll") || strings.HasSuffix(w, "’ll") {
			return true // "they'll be removed"
		}
	}
	return false
}

func anyIn(low string, subs []string, gaWord bool) bool {
	for _, t := range subs {
		if t == "ga" {
			if gaWord {
				return true
			}
			continue
		}
		if strings.Contains(low, t) {
			return true
		}
	}
	return false
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !isUpper(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if isUpper(b[i]) {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// containsWord reports whether w occurs in s with no ASCII letter or digit
// on either side.
func containsWord(s, w string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(w)
		if (i == 0 || !isAlnum(s[i-1])) && (j == len(s) || !isAlnum(s[j])) {
			return true
		}
		off = i + 1
	}
}

// mentionsLaterRelease reports whether sent names a release after the
// document's.
func mentionsLaterRelease(sent string, docMinor int) bool {
	for _, m := range reAnyRelease.FindAllStringSubmatch(sent, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > docMinor && n < docMinor+10 {
			return true
		}
	}
	return false
}

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

func insideParens(before string) bool {
	return strings.Count(before, "(")-strings.Count(before, ")") > 0
}

// verbPosition reports whether a verb at the end of before starts a clause:
// "Removed X", "Kubeadm: remove X", "kubeadm deprecates X".
func verbPosition(before string) bool {
	t := strings.TrimSpace(before)
	if len(t) >= 100 {
		return false // a long clause before the verb: not the start of one
	}
	if t == "" || reClauseBreak.MatchString(before) {
		return true
	}
	if reVerbLead.MatchString(t) {
		return false
	}
	f := strings.Fields(t)
	last := strings.ToLower(f[len(f)-1])
	if strings.HasSuffix(last, "ed") || strings.HasSuffix(last, "ing") {
		return false // "Changed deprecated X": an adjective after a verb
	}
	return len(f) <= 2
}

// vetoMetric rejects metric stability levels and API version bumps, which
// use the same words as feature maturity.
func vetoMetric(low string, start, end int) bool {
	lo := max(start-40, 0)
	hi := min(end+60, len(low))
	w := low[lo:hi]
	return strings.Contains(w, "metric") || strings.Contains(w, "stability") || strings.Contains(w, "メトリク")
}

// prRefs returns the PR numbers referenced in s with their offsets, skipping
// KEP numbers.
func prRefs(s string) (refs []int, at []int) {
	if !strings.Contains(s, "#") && !strings.Contains(s, "/pull/") {
		return nil, nil // what rePRRef needs is not there: skip the regexp
	}
	for _, m := range rePRRef.FindAllStringSubmatchIndex(s, -1) {
		g := 2
		if m[2] < 0 {
			g = 4
		}
		if g == 2 && reKEPBefore.MatchString(s[:m[g]-1]) {
			continue
		}
		n, err := strconv.Atoi(s[m[g]:m[g+1]])
		if err != nil {
			continue
		}
		refs = append(refs, n)
		at = append(at, m[g])
	}
	return refs, at
}
