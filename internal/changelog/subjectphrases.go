package changelog

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

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
