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
