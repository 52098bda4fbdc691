package changelog

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// sentence is a byte range of a text.
type sentence struct{ start, end int }

// splitSentences cuts s at 。, at ". " / "; " before a new clause, at "! "
// and "? ", and at line breaks.
func splitSentences(s string) []sentence {
	var out []sentence
	start := 0
	emit := func(end, next int) {
		if strings.TrimSpace(s[start:end]) != "" {
			out = append(out, sentence{start, end})
		}
		start = next
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			emit(i, i+1)
		case r == '。' || r == '．':
			emit(i+size, i+size)
		case (r == '.' || r == ';' || r == '!' || r == '?') && i+1 < len(s) && s[i+1] == ' ':
			if r != '.' || sentenceEndsAt(s, i) {
				emit(i+1, i+2)
			}
		}
		i += size
	}
	emit(len(s), len(s))
	return out
}

// sentenceEndsAt reports whether the full stop at i ends a sentence: not an
// abbreviation such as "e.g." and followed by something that starts one.
func sentenceEndsAt(s string, i int) bool {
	w := strings.ToLower(tail(s[:i+1], 6))
	for _, abbr := range []string{"e.g.", "i.e.", "etc.", "vs.", " no.", "approx."} {
		if strings.HasSuffix(w, abbr) {
			return false
		}
	}
	if i+2 >= len(s) {
		return true
	}
	c := s[i+2]
	return !isLower(c)
}

// maxSentence is the longest sentence, in bytes, read for stage changes.
const maxSentence = 4000

// analysisCtx carries what a part's analysis needs from its entry.
type analysisCtx struct {
	release   string   // document release
	minor     int      // document minor, 0 when unknown
	defaultPR int      // PR used when a sentence names none
	context   []string // subjects to use when a sentence names none
	// contextAll lets the context apply to deprecations and removals too
	// (notes and highlights); entry text uses it for maturity changes only.
	contextAll bool
	// afterSupport is set for the sentences after a part's first when
	// that one speaks of support ("Added … swap support …"): a later
	// "Support for X is removed" is that support's, for X.
	afterSupport bool
}

// event is one stage change read from a part, before merging.
type event struct {
	feature  string
	mtype    MentionType
	stage    Stage
	release  string
	pr       int
	promo    bool
	revert   bool
	evidence string
	// explicit: the sentence names the release of the change.
	explicit bool
	// def is a default state (StageDefaultOn or StageDefaultOff) stated
	// with a level (alpha, beta, GA) and folded into it: "promoted to
	// beta, enabled by default" is beta and on by default, two facts.
	def Stage
}

var (
	reJaParticle      = regexp.MustCompile(`(?:を|が|は)\s*$`)
	reJaTrailNoun     = regexp.MustCompile(`(?:\s*(?:の使用|の機能|機能|の|feature gate|フィーチャーゲート|フィーチャー|イメージ|フェーズ|コマンド|フラグ|オプション|サポート|フィールド|メトリクス))+\s*$`)
	reTrailParens     = regexp.MustCompile(`\s*\([^()]*\)\s*$`)
	reAnyParens       = regexp.MustCompile(`\s*\([^()]*\)`)
	reObjLead         = regexp.MustCompile(`(?i)^\s*(?:the\s+|an?\s+)?(?:new\s+)?(?:use\s+of\s+(?:the\s+)?)?(?:support\s+for\s+(?:the\s+)?)?(?:(?:deprecated|alpha|beta|ga|ga'ed|withdrawn|generally available|general available)\s+)*`)
	reObjTrail        = regexp.MustCompile(`(?i)(?:^|\s+)(?:feature[- ]?gates?|feature[- ]?flags?|features?|gates?|flags?|api)\s*$`)
	reSubjectLead     = regexp.MustCompile(`^\s*[A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)?:\s+`)
	reLeadPreposition = regexp.MustCompile(`(?i)^(?:in|on|at|for|to|from|since|as|by|with|of|and|or)\b`)
	reReplacement     = regexp.MustCompile(`(?i)\bin favou?r of\b|\binstead\b|\buse\b|\breplaced by\b|代わりに|を使用`)
	reLocativeBefore  = regexp.MustCompile(`(?i)\b(?:in|on|into|within|inside|from|via|across)\s+(?:the\s+)?$`)
	reLocativeAfter   = regexp.MustCompile(`^\s*(?:内|上の|の中|配下)`)
	// reStopgapGate says a gate is temporary: "This feature gate will be
	// removed in a future release."
	reStopgapGate = regexp.MustCompile(`\b(?:feature[- ]gate|gate)\s+will\s+be\s+removed\b`)
	// reSubcommandScope names the subcommand a flag belongs to: "from
	// kubectl run", "for kubeadm upgrade apply", "kubeadm upgrade apply
	// における" (group 1 or 2 is the subcommand's first word).
	reSubcommandScope = regexp.MustCompile(`(?i)\b(?:from|for|of|in)\s+(?:the\s+)?(?:kubectl|kubeadm)\s+([a-z][a-z-]*)\b|\b(?:kubectl|kubeadm)\s+([a-z][a-z-]*)(?:\s+[a-z][a-z-]*)*\s*(?:における|での)`)
	pronounSubject    = map[string]bool{"it": true, "this": true, "that": true, "they": true, "these": true, "those": true, "users": true, "we": true, "you": true, "there": true, "which": true, "both": true, "all": true}
)

// analyzeStages reads the stage changes stated in one part (entry text, a
// note, a highlight body) and merges them per feature and release.
func analyzeStages(pt plainText, ms []mention, ctx analysisCtx) []event {
	s := pt.text
	if len(pt.low) != len(s) {
		pt.low = asciiLower(s)
	}
	var raw []event
	mi := 0 // mentions are sorted by start, like the sentences
	firstSupports := false
	for si, sn := range splitSentences(s) {
		if si == 0 {
			first := pt.low[sn.start:sn.end]
			firstSupports = strings.Contains(first, "support") && reAddsSupport.MatchString(first)
		}
		for mi < len(ms) && ms[mi].start < sn.start {
			mi++
		}
		if sn.end-sn.start > maxSentence {
			continue // no sentence is this long; do not spend time on it
		}
		sent := s[sn.start:sn.end]
		matches := findStageMatches(sent, pt.low[sn.start:sn.end], ctx.minor)
		if len(matches) == 0 {
			continue
		}
		var sms []mention
		for j := mi; j < len(ms) && ms[j].start < sn.end; j++ {
			if m := ms[j]; m.end <= sn.end {
				sms = append(sms, mention{start: m.start - sn.start, end: m.end - sn.start, name: m.name, typ: m.typ})
			}
		}
		refs, at := prRefs(sent)
		var (
			prev    []mention
			prevEnd int
			sentEvs []event
		)
		for i, m := range matches {
			if m.inferred && (reStopgapGate.MatchString(pt.low) || defaultOnIn(pt.low)) {
				// "a new feature gate … will be removed in a future
				// release", or one the entry says is on by default.
				continue
			}
			ctx.afterSupport = si > 0 && firstSupports
			subj := resolveSubjects(sent, sms, matches, i, prevEnd, prev, ctx)
			prevEnd = max(prevEnd, m.end)
			if len(subj) == 0 {
				continue
			}
			prev = subj
			release := ctx.release
			if m.release != "" {
				release = m.release
			}
			pr := pickPR(refs, at, m.start, m.end)
			if pr == 0 && release == ctx.release {
				pr = ctx.defaultPR
			}
			for _, sj := range subj {
				if sj.typ == MentionFlag && (m.stage == StageRemoved || m.stage == StageDeprecated) && subcommandScoped(sent) {
					// "Remove --replicas from kubectl run": the flag stays
					// in the other commands.
					continue
				}
				sentEvs = append(sentEvs, event{
					feature: sj.name, mtype: sj.typ, stage: m.stage, release: release, pr: pr,
					promo: m.promo, evidence: strings.TrimSpace(sent), explicit: m.release != "",
				})
			}
		}
		raw = append(raw, pastPromotions(sentEvs)...)
	}
	return mergeEvents(raw)
}

// pastPromotions drops, from the events of one sentence, a GA without a
// release of its own of a feature the sentence removes: a gate is removed
// after its GA, so the GA is the gate's past ("The feature gates
// CSIMigrationGCE is graduated to GA and were unconditionally enabled have
// been removed in v1.25"), not a change of the document's release. A GA
// the sentence dates ("GA since v1.18") stays, with its own release.
func pastPromotions(evs []event) []event {
	removed := map[string]bool{}
	for _, e := range evs {
		if e.stage == StageRemoved {
			removed[FeatureKey(e.feature)] = true
		}
	}
	if len(removed) == 0 {
		return evs
	}
	out := evs[:0]
	for _, e := range evs {
		if e.stage == StageGA && !e.explicit && removed[FeatureKey(e.feature)] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// pickPR returns the PR referenced last before the match, else the first one
// after it, else 0.
func pickPR(refs, at []int, start, end int) int {
	pr := 0
	for i, a := range at {
		if a < start {
			pr = refs[i]
		}
	}
	if pr != 0 {
		return pr
	}
	for i, a := range at {
		if a >= end {
			return refs[i]
		}
	}
	return 0
}

// subjectCapable reports whether a mention of type t can be what a change of
// stage st applies to.
func subjectCapable(t MentionType, st Stage) bool {
	switch t {
	case MentionComponent, "":
		return false
	case MentionFeatureGate, MentionFeature, MentionIdentifier, MentionAPIVersion, MentionCode:
		return true
	}
	return !isMaturity(st) // flags, metrics, fields: deprecated or removed only
}

// resolveSubjects decides which names match i of a sentence is about. A
// name that is part of a context name ("ConfigMaps" in the highlight
// "Immutable Secrets and ConfigMaps") stands for the context name.
func resolveSubjects(sent string, ms []mention, matches []stageMatch, i, prevEnd int, prev []mention, ctx analysisCtx) []mention {
	out := joinVersionedKinds(sent, subjectsOf(sent, ms, matches, i, prevEnd, prev, ctx))
	for j, m := range out {
		lm := strings.ToLower(m.name)
		for _, c := range ctx.context {
			if len(c) > len(m.name) && strings.Contains(strings.ToLower(c), lm) {
				out[j] = mention{name: c, typ: MentionFeature}
				break
			}
		}
	}
	return out
}

func subjectsOf(sent string, ms []mention, matches []stageMatch, i, prevEnd int, prev []mention, ctx analysisCtx) []mention {
	m := matches[i]
	nextStart := len(sent)
	if i+1 < len(matches) {
		nextStart = matches[i+1].start
	}
	unnamed := false // an identifier left out by unnamedIdentifier
	capable := func(lo, hi int) []mention {
		var out []mention
		for _, x := range ms {
			if x.start < lo || x.end > hi || !subjectCapable(x.typ, m.stage) || locative(sent, x) || placeholder(sent, x) {
				continue
			}
			if m.obj[0] >= 0 && reCodeVerb.MatchString(sent[m.start:]) && unnamedIdentifier(sent, x, m.stage) || codeNamed(sent, x, m.stage) {
				unnamed = true
				continue
			}
			out = append(out, x)
		}
		return preferFeatures(out, m.stage)
	}
	// 1. The object of "Promoted X to GA": the names in it, else the phrase.
	// Words before the stage that end with a comma ("add the kubeadm
	// specific, Alpha … feature gate X") describe a subject named after it.
	if m.obj[0] >= 0 && !(m.after && strings.HasSuffix(strings.TrimSpace(sent[m.obj[0]:m.obj[1]]), ",")) {
		if c := capable(m.obj[0], m.obj[1]); len(c) > 0 {
			if len(c) > 1 && adjacentNames(sent, c) {
				// "Promoted DaemonSet MaxSurge to GA", "Promoted
				// CronJob's TimeZone support to beta": one name.
				if p := cleanPhrase(sent[m.obj[0]:m.obj[1]], m.stage); p != "" {
					return []mention{{name: p, typ: MentionFeature}}
				}
			}
			return completeNames(sent, c, m.obj[0], m.obj[1])
		}
		if unnamed {
			return nil // "Deprecated MinNodeScore in favor of MinScore": a constant
		}
		obj := sent[m.obj[0]:m.obj[1]]
		if p := cleanPhrase(obj, m.stage); p != "" {
			return []mention{{name: p, typ: MentionFeature}}
		}
		if strings.TrimSpace(reObjLead.ReplaceAllString(obj, "")) != "" {
			return nil // the object is named but is no feature ("opt-in alpha support")
		}
	}
	// A removal of a limitation or a check ("the limitation that the X
	// field can not be set to all has been removed"), or, after a first
	// sentence that adds support for something, of that support for a
	// platform ("Added full cgroup v2 swap support … Support for cgroup v1
	// is removed"), removes nothing it names. A flag or a gate named
	// there is removed.
	if (m.stage == StageRemoved || m.stage == StageDeprecated) && !m.after && m.obj[0] < 0 &&
		reAccessTo.MatchString(strings.TrimSpace(sent[prevEnd:m.start])) {
		return nil // "Direct access to the Raw field of metav1.FieldsV1 is deprecated": a way to reach it
	}
	if m.stage == StageRemoved && !m.after && m.obj[0] < 0 {
		clause := strings.ToLower(strings.TrimSpace(sent[prevEnd:m.start]))
		if reRestriction.MatchString(clause) {
			return nil
		}
		if strings.HasPrefix(clause, "support for ") && ctx.afterSupport && !namesFlagOrGate(ms, prevEnd, m.start) {
			return nil
		}
	}
	// 2. Names since the previous match, nearest group first.
	if !m.after {
		if c := capable(prevEnd, m.end); len(c) > 0 {
			g := lastGroup(sent, c)
			if g[len(g)-1].end <= m.start {
				return completeNames(sent, g, prevEnd, m.start)
			}
			return g
		}
	}
	// 3. The previous match's subject: "X graduated to beta and is enabled
	// by default". 4. Names after the match, up to the next one (not
	// replacements named after "in favor of"). Patterns whose subject
	// follows them ("Added alpha support for X") try 4 first.
	hi := max(nextStart, m.end) // the next match may overlap this one
	if loc := reReplacement.FindStringIndex(sent[m.end:hi]); loc != nil {
		hi = m.end + loc[0]
	}
	if hasJapanese(sent) {
		// After a Japanese predicate and a comma, a name with a topic of
		// its own starts the next clause ("ResourceSlice 内の taint は
		// デフォルト有効、 DeviceTaintRules は別 feature gate"); a list
		// goes on ("GA に昇格: A、B").
		if c := strings.Index(sent[m.end:hi], "、"); c >= 0 && reJaTopic.MatchString(sent[m.end+c:hi]) {
			hi = m.end + c
		}
	}
	after := capable(m.end, hi)
	if m.after && len(after) > 0 {
		return firstGroup(sent, after)
	}
	if len(prev) > 0 {
		return prev
	}
	if len(after) > 0 {
		return firstGroup(sent, after)
	}
	if m.after {
		if c := capable(prevEnd, m.start); len(c) > 0 {
			return lastGroup(sent, c)
		}
	}
	// 5. The entry's focus, for sentences that name nothing. In an entry's
	// own text, a Japanese sentence with a subject of its own ("device
	// taint と toleration を beta に昇格させた") is about that, not about a
	// gate a later sentence names.
	if len(ctx.context) > 0 && !m.named && (ctx.contextAll || isMaturity(m.stage)) && !namesAnything(ms) &&
		(ctx.contextAll || !ownJaSubject(sent[:m.start])) {
		out := make([]mention, 0, len(ctx.context))
		for _, c := range ctx.context {
			out = append(out, mention{name: c, typ: MentionFeature})
		}
		return out
	}
	if m.named || unnamed {
		// "This feature gate is an alpha": of the gate a name says; a
		// piece of code left out above is not read as a phrase either.
		return nil
	}
	// 6. A phrase: the Japanese subject before を/が/は, the English subject
	// at the start of the sentence, or one after the statement.
	if m.after && !hasJapanese(sent) && !namesAnything(ms) {
		if p := phraseAfter(sent[m.end:hi], m.stage); p != "" {
			return []mention{{name: p, typ: MentionFeature}}
		}
	}
	if p := phraseSubject(sent, m, prevEnd); p != "" {
		return []mention{{name: p, typ: MentionFeature}}
	}
	return nil
}

// adjacentNames reports whether names follow one another with nothing but a
// space or a possessive between them, as the words of one name do.
func adjacentNames(sent string, ms []mention) bool {
	for j := 0; j+1 < len(ms); j++ {
		if ms[j].end > ms[j+1].start {
			return false
		}
		switch sent[ms[j].end:ms[j+1].start] {
		case " ", "'s ", "’s ":
		default:
			return false
		}
	}
	return true
}

// placeholder reports whether a name stands between braces, a placeholder
// of a path: "{kubelet_root_dir}/plugins".
func placeholder(sent string, x mention) bool {
	return x.start > 0 && sent[x.start-1] == '{' || x.end < len(sent) && sent[x.end] == '}'
}

// unnamedIdentifier reports whether a deprecation or removal of an
// identifier, the object of "Deprecated" or "Removed", that the sentence
// does not call a feature, a gate, an API or a flag is one of code rather
// than of a feature: a constant ("Deprecated
// MinNodeScore and MaxNodeScore in favor of MinScore and MaxScore"), a
// method ("Removed the temporary build-tagged ProtoMessage() marker
// method"), a helper, a type. Such changes are no stage facts.
func unnamedIdentifier(sent string, x mention, st Stage) bool {
	if x.typ != MentionIdentifier || st != StageDeprecated && st != StageRemoved {
		return false
	}
	before := tail(sent[:x.start], 24)
	return !reKindBefore.MatchString(before) && !reVersionBefore.MatchString(before) && !reKindAfter.MatchString(sent[x.end:])
}

// codeNamed reports whether a deprecated or removed identifier is called a
// piece of code ("cri-client helper メソッド NewLogOptions を削除した",
// "the ProtoMessage() marker method"), or is a type of a Go package.
func codeNamed(sent string, x mention, st Stage) bool {
	if st != StageDeprecated && st != StageRemoved {
		return false
	}
	if x.typ == MentionFieldPath {
		// "genericclioptions.IOStreams", "metav1.FieldsV1": a Go type of a
		// package, not a field of an API object.
		last := x.name[strings.LastIndexByte(x.name, '.')+1:]
		return last != "" && isUpper(last[0])
	}
	if x.typ != MentionIdentifier {
		return false
	}
	return reCodeBefore.MatchString(tail(sent[:x.start], 24)) || reCodeAfter.MatchString(sent[x.end:])
}

var (
	reCodeBefore = regexp.MustCompile(`(?i)\b(?:methods?|functions?|helpers?|types?|structs?|constants?|interfaces?)\s+$|(?:メソッド|関数|ヘルパー|構造体|定数)\s*$`)
	reCodeAfter  = regexp.MustCompile(`(?i)^(?:\(\)|\s+(?:methods?|functions?|helpers?|structs?|constants?|interfaces?)\b|\s*(?:メソッド|関数|構造体|定数))`)
)

var (
	// reCodeVerb starts "Deprecated X" or "Removed X", whose object may be
	// code; "Deprecation of X" heads a text about a feature.
	reCodeVerb = regexp.MustCompile(`(?i)^(?:deprecat(?:e|es|ed|ing)|remov(?:e|es|ed|ing))\b`)
	// reVersionBefore ends with an API version: the kind after it is
	// served by it ("discovery.k8s.io/v1beta1 EndpointSlices").
	reVersionBefore = regexp.MustCompile(`/v\d+(?:(?:alpha|beta)\d+)?\s+$`)
	reKindBefore    = regexp.MustCompile(`(?i)\b(?:features?|feature[- ]?gates?|gates?|フィーチャーゲート|機能)\s*:?\s*$`)
	reKindAfter     = regexp.MustCompile(`(?i)^\s*(?:features?\b|feature[- ]?gates?\b|gates?\b|apis?\b|flags?\b|feature[- ]?flags?\b|フィーチャーゲート|機能|API)`)
)

// completeNames makes a lone name the noun phrase it starts, or ends, in
// the span lo to hi of the sentence before the statement: the name with
// the words after it up to the verb ("OpenStack Cinder CSI migration is on
// by default", "The EndpointSlice topology field has been removed", "Moved
// `non-graceful node` shutdown to GA"), and capitalised words before it
// that start the clause ("Multi vCenter support is deprecated"). Words
// that only say what the name is ("feature gate", "API") add nothing, and
// a preposition ends the phrase where it stands. A name in a comparison
// ("vSphere releases less than 67u3 are deprecated") is no subject. Lists
// of names, and names of other kinds (flags, metrics, API versions, named
// features), are left as they are.
func completeNames(sent string, subj []mention, lo, hi int) []mention {
	if len(subj) != 1 {
		return subj
	}
	x := subj[0]
	switch x.typ {
	case MentionFeatureGate, MentionIdentifier, MentionCode, MentionConfigField:
	default:
		return subj
	}
	words := strings.Fields(reTrailAux.ReplaceAllString(sent[x.end:hi], ""))
	if x.end < hi && !isSpaceByte(sent[x.end]) {
		words = nil // punctuation or a quote after the name: not one phrase
	}
	var tail []string
	kind := false // a word that says what the name is came first
	for i, w := range words {
		lw := strings.ToLower(w)
		if comparisonWord[lw] {
			return nil
		}
		if len(tail) == 0 && kindWord[lw] {
			kind = true
			continue // "the X feature gate", "the X API": X is named
		}
		if kind || stopWord[lw] || !rePhraseWord.MatchString(w) {
			break // the phrase ends here
		}
		tail = append(tail, w)
		if i+1 < len(words) {
			switch next := strings.ToLower(words[i+1]); {
			case (next == "field" || next == "fields" || next == "api") && i+2 == len(words):
				tail = append(tail, words[i+1]) // "the EndpointSlice topology field"
			case next == "field" || next == "fields" || next == "api":
				tail = nil // "GetAllocatableResources podresources API endpoint": the name is the first
			case kindWord[next]:
				tail = nil // "X topology feature gate": a gate spelt apart is too unsure
			default:
				continue
			}
			break
		}
	}
	start, end := x.start, x.end
	if len(tail) > 0 {
		if len(tail) > 3 {
			return nil // a longer noun phrase than a name: not one to name
		}
		end = strings.Index(sent[x.end:hi], tail[len(tail)-1]) + x.end + len(tail[len(tail)-1])
	}
	if before := strings.Fields(sent[lo:x.start]); len(before) > 0 && len(before) <= 5 {
		// Capitalised words that start the clause before the name,
		// joined by "for" or "of": "Multi vCenter support", "Finalizer
		// Protection for Service LoadBalancers".
		i := 0
		if l := strings.ToLower(before[0]); l == "the" || l == "a" || l == "an" {
			i = 1
		}
		lead := before[i:]
		ok := len(lead) > 0 && len(lead) <= 4 && isSpaceByte(sent[x.start-1])
		for j, w := range lead {
			lw := strings.ToLower(w)
			if (lw == "for" || lw == "of") && j > 0 && j < len(lead)-1 {
				continue
			}
			ok = ok && rePhraseWord.MatchString(w) && isUpper(w[0]) && !phraseLead[lw] && !kindWord[lw] &&
				!reVerbWord.MatchString(lw) && !(strings.HasSuffix(lw, "s") && !isUpper(w[len(w)-2]))
		}
		if ok {
			start = strings.LastIndex(sent[:x.start], lead[0])
		}
	}
	if start == x.start && end == x.end {
		return subj
	}
	return []mention{{start: start, end: end, name: sent[start:end], typ: MentionFeature}}
}

var (
	// reTrailAux is the auxiliary verb before a stage statement: "is",
	// "has been", "are now".
	reTrailAux = regexp.MustCompile(`(?i)(?:\s+(?:is|are|was|were|has|have|had|been|be|being|now|also|formally|officially|fully|completely|finally))+\s*$`)
	// rePhraseWord is a word that may be part of a name: letters, digits
	// and hyphens.
	rePhraseWord = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*$`)
	// kindWord says what kind of thing a name is, and so adds nothing to it.
	kindWord = map[string]bool{"feature": true, "features": true, "gate": true, "gates": true, "feature-gate": true,
		"feature-gates": true, "flag": true, "flags": true, "feature-flag": true, "api": true, "apis": true,
		"field": true, "fields": true, "functionality": true, "capability": true, "featuregate": true, "featuregates": true}
	// stopWord ends a noun phrase.
	stopWord = map[string]bool{"in": true, "on": true, "to": true, "for": true, "from": true, "with": true, "of": true,
		"by": true, "and": true, "or": true, "as": true, "at": true, "via": true, "the": true, "a": true, "an": true,
		"that": true, "which": true, "when": true, "if": true, "will": true, "can": true, "should": true, "since": true,
		"into": true, "behind": true, "under": true, "after": true, "before": true, "until": true, "it": true,
		"its": true, "so": true, "but": true, "not": true, "no": true, "now": true, "is": true, "are": true,
		"was": true, "were": true, "has": true, "have": true, "had": true, "be": true, "been": true, "being": true}
	// reVerbWord is a verb that may open an entry before a name:
	// "Upgrades IPv6Dualstack to Beta".
	reVerbWord = regexp.MustCompile(`^(?:upgrad|updat|bump|mov|mak|mark|set|us|switch|turn|chang|drop|allow|fix|add|remov|renam|introduc|graduat|promot|deprecat|enabl|disabl|lock|support|featuregate)`)
	// comparisonWord makes a name the term of a comparison, not a subject.
	comparisonWord = map[string]bool{"less": true, "than": true, "older": true, "newer": true, "greater": true, "lower": true, "higher": true}
)

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// reAccessTo starts a clause whose subject is a way of reaching what it
// names.
var reAccessTo = regexp.MustCompile(`(?i)^(?:the\s+)?(?:direct\s+)?(?:access|writes?|reads?)\s+(?:to|of)\b`)

// reRestriction starts a clause whose subject is a limit put on what it
// names, not the thing named.
var reRestriction = regexp.MustCompile(`^(?:[a-z0-9-]+:\s*)?(?:the\s+|this\s+|a\s+)?(?:limitation|restriction|requirement|constraint|check|validation|warning)s?\s+(?:that|on|of|for|against|to|which)\b`)

// reAddsSupport is a sentence that adds support for something: "Added full
// cgroup v2 swap support", not "Removed support for …" nor "unsupported".
var reAddsSupport = regexp.MustCompile(`\b(?:add(?:s|ed|ing)?|introduc(?:e|es|ed|ing)|implement(?:s|ed|ing)?|enabl(?:e|es|ed|ing))\b[^.;]*\bsupport\b`)

// namesFlagOrGate reports whether a flag or a feature gate is mentioned
// between lo and hi.
func namesFlagOrGate(ms []mention, lo, hi int) bool {
	for _, x := range ms {
		if x.start >= lo && x.end <= hi && (x.typ == MentionFlag || x.typ == MentionFeatureGate) {
			return true
		}
	}
	return false
}

// notSubcommand are words after kubectl or kubeadm that name no
// subcommand: "from kubectl and kubeadm", "of the kubectl command".
var notSubcommand = map[string]bool{"and": true, "or": true, "in": true, "to": true, "for": true, "with": true,
	"as": true, "since": true, "the": true, "a": true, "command": true, "commands": true, "cli": true,
	"flag": true, "flags": true, "binary": true, "itself": true, "now": true, "is": true, "was": true}

// subcommandScoped reports whether a sentence scopes a flag to one
// kubectl or kubeadm subcommand.
func subcommandScoped(sent string) bool {
	for _, m := range reSubcommandScope.FindAllStringSubmatch(sent, -1) {
		w := m[1]
		if w == "" {
			w = m[2]
		}
		if !notSubcommand[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// joinVersionedKinds makes a group/version and the kind named right after it
// one subject: "discovery.k8s.io/v1beta1 EndpointSlices are deprecated"
// deprecates that version of EndpointSlice, neither the kind nor the whole
// group/version.
func joinVersionedKinds(sent string, subj []mention) []mention {
	out := make([]mention, 0, len(subj))
	for j := 0; j < len(subj); j++ {
		v := subj[j]
		if j+1 < len(subj) && v.typ == MentionAPIVersion && subj[j+1].typ == MentionIdentifier && subj[j+1].start > v.end &&
			strings.TrimSpace(sent[v.end:subj[j+1].start]) == "" {
			k := subj[j+1]
			out = append(out, mention{start: v.start, end: k.end, name: v.name + " " + k.name, typ: MentionAPIVersion})
			j++
			continue
		}
		out = append(out, v)
	}
	return out
}

// reJaSubject is the noun phrase and particle that end a Japanese text
// before a stage statement: "device taint と toleration(KEP #5055)を".
// reJaTopic is a clause with a topic of its own: "、 X は".
var (
	reJaSubject = regexp.MustCompile(`([^、。:：]*?)\s*(?:を|が|は)\s*$`)
	reJaTopic   = regexp.MustCompile(`^、\s*[^、。]*?\S\s*は`)
)

// genericSubject are subjects that point back at the entry's feature
// rather than name one.
var genericSubject = map[string]bool{"feature gate": true, "feature": true, "gate": true, "pr": true, "kep": true}

// ownJaSubject reports whether the Japanese text before a stage statement
// ends with a subject of its own: a noun phrase in Latin letters before
// を, が or は ("device taint と toleration を"), not a topic of place or
// time ("1.36 では", "このリリースでは"), a pronoun ("これを") or a word
// that points back ("feature gate は").
func ownJaSubject(before string) bool {
	if !hasJapanese(before) {
		return false
	}
	m := reJaSubject.FindStringSubmatch(before)
	if m == nil {
		return false
	}
	phrase := strings.TrimSpace(m[1])
	for _, suffix := range []string{"で", "に", "と", "から", "まで"} {
		if strings.HasSuffix(phrase, suffix) {
			return false // では, には, とは, からは, までは
		}
	}
	if i := strings.LastIndexAny(phrase, ":："); i >= 0 {
		phrase = strings.TrimSpace(phrase[i+1:])
	}
	phrase = strings.TrimSpace(reAnyParens.ReplaceAllString(phrase, ""))
	low := strings.ToLower(phrase)
	return strings.ContainsAny(low, "abcdefghijklmnopqrstuvwxyz") && !genericSubject[low]
}

// locative reports whether a name is only where the change happens: "in
// ResourceSlices", "ResourceSlice 内の".
//
// A name followed by "feature gate" is no place ("can be disabled via the
// ClientsAllowCARotation feature gate"). A name other than a gate after
// "for" is a complement, not the subject ("diskformat storage class
// parameter for in-tree vSphere volume plugin is deprecated"), unless it
// is what "support for" names.
func locative(sent string, x mention) bool {
	if reGateAfterName.MatchString(sent[x.end:]) {
		return false
	}
	before := tail(sent[:x.start], 24)
	if reLocativeBefore.MatchString(before) {
		return true
	}
	if c := reComplementBefore.FindStringSubmatch(before); c != nil && x.typ != MentionFeatureGate && x.typ != MentionFeature && !strings.EqualFold(c[1], "support") {
		return true
	}
	return reLocativeAfter.MatchString(sent[x.end:])
}

var (
	reGateAfterName    = regexp.MustCompile(`(?i)^\s*(?:feature[- ]?gates?\b|フィーチャーゲート)`)
	reComplementBefore = regexp.MustCompile(`(?i)(\w*)\s+for\s+(?:the\s+)?(?:in-tree\s+|out-of-tree\s+)?$`)
)

func namesAnything(ms []mention) bool {
	for _, m := range ms {
		if m.typ != MentionComponent {
			return true
		}
	}
	return false
}

// preferFeatures keeps gates and named features when a maturity change has
// them among its candidates.
func preferFeatures(c []mention, st Stage) []mention {
	if !isMaturity(st) {
		return c
	}
	var f []mention
	for _, m := range c {
		if m.typ == MentionFeatureGate || m.typ == MentionFeature {
			f = append(f, m)
		}
	}
	if len(f) > 0 {
		return f
	}
	return c
}

// lastGroup returns the last run of names joined by list separators.
func lastGroup(sent string, c []mention) []mention {
	j := len(c) - 1
	for j > 0 && reListGap.MatchString(gapText(sent, c[j-1], c[j])) {
		j--
	}
	return c[j:]
}

// firstGroup returns the first run of names joined by list separators.
func firstGroup(sent string, c []mention) []mention {
	j := 0
	for j+1 < len(c) && reListGap.MatchString(gapText(sent, c[j], c[j+1])) {
		j++
	}
	return c[:j+1]
}

func gapText(sent string, a, b mention) string {
	if a.end > b.start {
		return ""
	}
	g := sent[a.end:b.start]
	g = strings.ReplaceAll(g, "feature gates", "")
	g = strings.ReplaceAll(g, "feature gate", "")
	return g
}

// phraseSubject finds a subject that is not a recognised name.
func phraseSubject(sent string, m stageMatch, prevEnd int) string {
	before := ""
	if prevEnd <= m.start {
		before = tail(sent[prevEnd:m.start], 300)
	}
	if hasJapanese(sent) {
		if loc := reJaParticle.FindStringIndex(before); loc != nil {
			return jaRun(before[:loc[0]], m.stage)
		}
		return ""
	}
	if prevEnd > 0 || m.after {
		return ""
	}
	b := reSubjectLead.ReplaceAllString(before, "")
	b = strings.TrimSpace(b)
	for _, suf := range []string{" has", " have", " is", " are", " was", " were", " now", " feature", " features", " feature gate", " gate"} {
		b = strings.TrimSuffix(b, suf)
	}
	b = strings.TrimPrefix(strings.TrimPrefix(b, "The "), "the ")
	p := cleanPhrase(b, m.stage)
	if p == "" || !isUpper(p[0]) && !isDigit(p[0]) && !componentLed(p) {
		return ""
	}
	return p
}

// componentLed reports whether a phrase of several words starts with a
// component's name: "The kubelet podresources endpoint is GA".
func componentLed(p string) bool {
	f := strings.Fields(p)
	return len(f) >= 2 && components[strings.ToLower(f[0])]
}

// reComparison makes a phrase a range of versions, not a name: "VM
// Hardware version less than 15".
var reComparison = regexp.MustCompile(`(?i)\b(?:less|more|older|newer|greater|lower|higher)\s+than\b`)

// phraseAfter is the name a statement whose subject follows it gives in
// words: "Alpha implementation of Kubectl Command Headers: …",
// "Implemented alpha support for a drop-in kubelet configuration
// directory". It runs to a punctuation mark or a word that ends a noun
// phrase.
func phraseAfter(after string, st Stage) string {
	after = reSupportFor.ReplaceAllString(after, "")
	var words []string
	for _, w := range strings.Fields(after) {
		end := strings.IndexAny(w, ":;,.()")
		if end == 0 {
			break
		}
		if end > 0 {
			w = w[:end]
		}
		if stopWord[strings.ToLower(w)] || !rePhraseWord.MatchString(w) {
			break
		}
		words = append(words, w)
		if end > 0 || len(words) > 5 {
			break
		}
	}
	if len(words) == 0 || len(words) > 5 {
		return ""
	}
	return cleanPhrase(strings.Join(words, " "), st)
}

// reSupportFor starts what follows "alpha" before the name: "support for
// a", "of the".
var reSupportFor = regexp.MustCompile(`(?i)^\s*(?:(?:support|implementation|version)\s+)?(?:for|of)?\s*(?:the\s+|an?\s+)?`)

// cleanPhrase trims an object phrase to a name, or returns "" when it does
// not look like one. A maturity change needs a name with a capital letter or
// of several words ("opt-in" is not a feature).
func cleanPhrase(p string, st Stage) string {
	p = reAnyParens.ReplaceAllString(p, "")
	p = reObjLead.ReplaceAllString(p, "")
	p = reObjTrail.ReplaceAllString(p, "")
	p = strings.ReplaceAll(strings.Trim(strings.TrimSpace(p), `"'.,:;`), `"`, "")
	if p == "" || hasJapanese(p) || !hasLetter(p) {
		return ""
	}
	words := strings.Fields(p)
	if len(words) > 6 || len(words) == 0 || pronounSubject[strings.ToLower(words[0])] {
		return ""
	}
	if strings.ContainsAny(p, ",;") || strings.Contains(strings.ToLower(p), "metric") || reComparison.MatchString(p) {
		return ""
	}
	if isMaturity(st) && (len(words) < 2 && p == strings.ToLower(p) || strings.Contains(p, "_")) {
		return ""
	}
	if !isMaturity(st) && !technical(p) && !thingNouns[strings.ToLower(words[len(words)-1])] {
		return ""
	}
	if strings.Count(p, "(") != strings.Count(p, ")") || reLeadPreposition.MatchString(p) {
		return ""
	}
	return p
}

// thingNouns end a phrase in lower case that names something a release
// can deprecate or remove: "the hyperkube image", "prometheus cluster
// monitoring addon".
var thingNouns = map[string]bool{
	"image": true, "images": true, "addon": true, "addons": true, "add-on": true, "add-ons": true, "plugin": true,
	"plugins": true, "label": true, "labels": true, "annotation": true, "annotations": true, "command": true,
	"commands": true, "script": true, "scripts": true, "parameter": true, "parameters": true, "tarball": true,
}

// jaThingNouns are the Japanese nouns after a Latin name that make it one
// of the thingNouns: "hyperkube イメージ" is the hyperkube image.
var jaThingNouns = []struct{ ja, en string }{
	{"イメージ", "image"}, {"アドオン", "addon"}, {"プラグイン", "plugin"}, {"ラベル", "label"},
	{"アノテーション", "annotation"}, {"コマンド", "command"}, {"スクリプト", "script"}, {"パラメータ", "parameter"},
}

// technical reports whether a phrase looks like a name rather than prose:
// a capital, a digit or one of - / . _ in it.
func technical(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isUpper(c) || isDigit(c) || strings.IndexByte("-/._", c) >= 0 {
			return true
		}
	}
	return false
}

// jaRun returns the trailing run of Latin words in s, after dropping generic
// Japanese nouns such as 機能 and イメージ.
func jaRun(s string, st Stage) string {
	noun := ""
	if loc := reJaTrailNoun.FindStringIndex(s); loc != nil {
		stripped := strings.TrimSpace(s[loc[0]:loc[1]])
		for _, n := range jaThingNouns {
			if strings.HasPrefix(stripped, n.ja) {
				noun = n.en
			}
		}
	}
	s = reJaTrailNoun.ReplaceAllString(s, "")
	s = reTrailParens.ReplaceAllString(s, "")
	s = strings.TrimRight(s, " ")
	end := len(s)
	start := end
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		if r < utf8.RuneSelf && (isNameByte(byte(r)) || r == ' ') {
			start -= size
			continue
		}
		if r == 'と' && start-size > 0 {
			// "device taint と toleration": keep joined Latin words together.
			pr, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s[:start-size], " "))
			if pr < utf8.RuneSelf && isNameByte(byte(pr)) {
				start -= size
				continue
			}
		}
		break
	}
	run := strings.TrimSpace(s[start:end])
	if strings.Contains(run, "と") {
		// "device taint と toleration": the words joined are one name.
		run = strings.Join(strings.Fields(strings.ReplaceAll(run, "と", " and ")), " ")
	}
	if p := cleanPhrase(run, st); p != "" || noun == "" || run == "" {
		return p
	}
	return cleanPhrase(run+" "+noun, st) // "hyperkube イメージ": the hyperkube image
}

// mergeEvents folds the events of one part into one per feature and release,
// in the order they were stated.
func mergeEvents(raw []event) []event {
	type key struct{ f, rel string }
	var order []key
	byKey := map[key][]event{}
	for _, e := range raw {
		k := key{FeatureKey(e.feature), e.release}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], e)
	}
	out := make([]event, 0, len(order))
	for _, k := range order {
		out = append(out, foldGroup(byKey[k])...)
	}
	return out
}

// foldGroup folds the statements about one feature in one release. A
// feature that reaches a level and whose gate is then deprecated ("Pod
// process namespace sharing is now Generally Available. The
// PodShareProcessNamespace feature gate is now deprecated") changed twice:
// both stay, the level first. Otherwise the statements fold into one
// (foldStages).
func foldGroup(es []event) []event {
	var level, deprecation []event
	removed := false
	for _, e := range es {
		switch e.stage {
		case StageDeprecated:
			deprecation = append(deprecation, e)
		case StageRemoved, StageReverted:
			removed = true
		default:
			level = append(level, e)
		}
	}
	if removed || len(deprecation) == 0 || len(level) == 0 {
		return []event{foldStages(es)}
	}
	lv := foldStages(level)
	switch lv.stage {
	case StageAlpha, StageBeta, StageBetaDefaultOn, StageGA:
		return []event{lv, foldStages(deprecation)}
	}
	return []event{foldStages(es)}
}

// foldStages applies a sequence of statements about one feature: a promotion
// to beta followed by "enabled by default" is StageBetaDefaultOn; removal
// wins over GA ("GA gates removed"); a revert followed by a state records
// that state as a revert.
func foldStages(es []event) event {
	final := es[0]
	final.stage = ""
	revert := false
	for _, e := range es {
		if e.stage == StageReverted {
			revert = true
			if final.stage == "" {
				final.pr, final.evidence, final.stage = e.pr, e.evidence, StageReverted
			}
			continue
		}
		cur := final.stage
		if cur == StageReverted {
			cur = ""
		}
		next := combineStages(cur, e.stage, final.promo)
		if (e.stage == StageDefaultOn || e.stage == StageDefaultOff) && isLevel(next) {
			final.def = e.stage // stated with the level, folded into it
		}
		if next != final.stage {
			final.pr, final.evidence, final.promo = e.pr, e.evidence, e.promo
			final.stage = next
			final.revert = revert
			final.explicit = e.explicit
		}
		if final.mtype != MentionFeatureGate && e.mtype == MentionFeatureGate {
			final.mtype, final.feature = e.mtype, e.feature
		}
	}
	if final.stage == StageReverted {
		final.revert = true
	}
	switch {
	case final.stage == StageBetaDefaultOn:
		final.def = StageDefaultOn
	case !isLevel(final.stage):
		final.def = ""
	}
	return final
}

// isLevel reports whether s is a maturity level: alpha, beta (on by
// default or not) or GA.
func isLevel(s Stage) bool {
	switch s {
	case StageAlpha, StageBeta, StageBetaDefaultOn, StageGA:
		return true
	}
	return false
}

// combineStages returns the state after next is stated about a feature that
// is in state cur; promo says whether cur came from a promotion.
func combineStages(cur, next Stage, promo bool) Stage {
	switch next {
	case StageBeta:
		if cur == StageDefaultOn || cur == StageBetaDefaultOn {
			return StageBetaDefaultOn
		}
	case StageGA, StageDeprecated:
		if cur == StageRemoved {
			return cur
		}
	case StageDefaultOn:
		switch cur {
		case StageBeta, StageBetaDefaultOn:
			return StageBetaDefaultOn
		case StageGA, StageRemoved:
			return cur
		}
	case StageDefaultOff:
		if cur == StageRemoved || cur == StageGA || cur == StageBeta && promo {
			return cur
		}
	case StageReverted:
		if cur != "" {
			return cur
		}
	}
	return next
}

// FeatureKey is the identity of a feature name: case and spaces ignored, so
// "Graceful Node Shutdown" and "GracefulNodeShutdown" are one feature.
func FeatureKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '\u3000' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
