package changelog

import (
	"regexp"
	"strings"
)

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
