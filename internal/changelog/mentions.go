package changelog

import (
	"regexp"
	"sort"
	"strings"
)

// mention is a name found at a byte range of an analysed text.
type mention struct {
	start, end int
	name       string
	typ        MentionType
}

// token is a run of name characters: ASCII letters, digits and _ . - /.
type token struct {
	start, end int
	text       string
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// tokenize splits s into name tokens, trimming punctuation that ends a
// sentence. Tokens without a letter are dropped.
func tokenize(s string) []token {
	out := make([]token, 0, len(s)/8+4)
	for i := 0; i < len(s); {
		if !isNameByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		st, en := i, j
		for en > st && strings.IndexByte(".-/_", s[en-1]) >= 0 {
			en--
		}
		if !(en-st > 2 && s[st] == '-' && s[st+1] == '-') {
			for st < en && strings.IndexByte(".-/_", s[st]) >= 0 {
				st++
			}
		}
		if en > st && hasLetter(s[st:en]) {
			out = append(out, token{st, en, s[st:en]})
		}
		i = j
	}
	return out
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) || isLower(s[i]) {
			return true
		}
	}
	return false
}

// notNames are CamelCase words that are product names, not Kubernetes names.
var notNames = map[string]bool{
	"GitHub": true, "JavaScript": true, "TypeScript": true, "PowerShell": true, "YouTube": true,
	"LinkedIn": true, "PostgreSQL": true, "MySQL": true, "macOS": true, "iOS": true, "iPhone": true,
	"gRPC": true, "cAdvisor": true, "eBPF": true, "IPv4": true, "IPv6": true, "OpenTelemetry": true,
	"McAfee": true, "DevOps": true, "WebSocket": true, "WebSockets": true, "JSONPath": true, "JsonPath": true,
	"SELinux": true, "OAuth": true, "IPsec": true, "NVIDIA": true, "PyTorch": true, "TensorFlow": true,
}

var components = map[string]bool{
	"kubelet": true, "kube-proxy": true, "kube-apiserver": true, "kube-scheduler": true,
	"kube-controller-manager": true, "cloud-controller-manager": true, "kubeadm": true, "kubectl": true,
}

var metricSuffixes = []string{"_total", "_seconds", "_bytes", "_count", "_sum", "_bucket", "_ratio", "_info", "_percent"}

var cgroupControllers = []string{"memory.", "cpu.", "io.", "pids.", "cpuset.", "hugetlb.", "rdma.", "misc.", "cgroup."}

var notFieldEnds = map[string]bool{
	"com": true, "io": true, "org": true, "net": true, "dev": true, "yaml": true, "yml": true, "json": true,
	"conf": true, "pem": true, "crt": true, "key": true, "go": true, "md": true, "sh": true, "txt": true,
	"exe": true, "sock": true, "log": true, "local": true, "cluster": true, "svc": true, "html": true, "py": true,
}

var reAPIVersion = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*/v\d+(?:(?:alpha|beta)\d+)?(?:/[A-Za-z]+)?$`)

// codeWords are quoted values that name no feature.
var codeWords = map[string]bool{
	"alpha": true, "beta": true, "ga": true, "stable": true, "true": true, "false": true,
	"enabled": true, "disabled": true, "none": true, "null": true, "nil": true, "yes": true, "no": true,
}

// classifyToken says what kind of name t is, or "" when it is not one.
func classifyToken(t string) MentionType {
	switch {
	case len(t) > 3 && t[0] == '-' && t[1] == '-' && isLower(t[2]):
		return MentionFlag
	case strings.Contains(t, "/v") && reAPIVersion.MatchString(t):
		return MentionAPIVersion
	case isCgroupFile(t):
		return MentionCgroupFile
	case isMetricName(t):
		return MentionMetric
	case isFieldPath(t):
		return MentionFieldPath
	case notNames[t]:
		return ""
	case isUpperCamel(t):
		return MentionIdentifier
	case isLowerCamel(t):
		return MentionConfigField
	case (t[0] == 'k' || t[0] == 'K' || t[0] == 'c' || t[0] == 'C') && components[strings.ToLower(t)]:
		return MentionComponent
	}
	return ""
}

func isCgroupFile(t string) bool {
	for _, c := range cgroupControllers {
		if !strings.HasPrefix(t, c) || len(t) == len(c) {
			continue
		}
		for i := len(c); i < len(t); i++ {
			if !(isLower(t[i]) || t[i] == '_' || t[i] == '.') {
				return false
			}
		}
		return true
	}
	return false
}

func isMetricName(t string) bool {
	if !isLower(t[0]) {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '_':
			n++
		case isLower(c) || isDigit(c):
		default:
			return false
		}
	}
	if n >= 2 {
		return true
	}
	if n == 1 {
		for _, s := range metricSuffixes {
			if strings.HasSuffix(t, s) {
				return true
			}
		}
	}
	return false
}

func isFieldPath(t string) bool {
	if !strings.Contains(t, ".") || strings.ContainsAny(t, "/_-") {
		return false
	}
	segs := strings.Split(t, ".")
	if len(segs) < 2 || notFieldEnds[strings.ToLower(segs[len(segs)-1])] {
		return false
	}
	marked := false
	for _, s := range segs {
		if len(s) < 2 || !isUpper(s[0]) && !isLower(s[0]) {
			return false
		}
		for i := 0; i < len(s); i++ {
			if !isAlnum(s[i]) {
				return false
			}
			if isUpper(s[i]) {
				marked = true
			}
		}
		switch s {
		case "spec", "status", "metadata", "resources", "securityContext":
			marked = true
		case "k8s":
			return false
		}
	}
	return marked
}

// isUpperCamel: ImageVolume, KubeletPSI, IPTablesOwnershipCleanup, and an
// acronym before a word such as CSIMigration.
func isUpperCamel(t string) bool {
	if len(t) < 4 || !isUpper(t[0]) {
		return false
	}
	seenLower := false
	camel := false
	caps := 0 // capitals before the first lower-case letter
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isAlnum(c) {
			return false
		}
		switch {
		case isLower(c):
			seenLower = true
		case isUpper(c) && seenLower:
			camel = true
		case isUpper(c):
			caps++
		}
	}
	if camel {
		return true
	}
	// CSIMigration: two or more capitals, then at least three lower-case letters.
	tailLower := 0
	for i := caps; i < len(t) && isLower(t[i]); i++ {
		tailLower++
	}
	return caps >= 3 && tailLower >= 3 && caps+tailLower == len(t)
}

// isLowerCamel: memoryReservationPolicy, imageMinimumGCAge.
func isLowerCamel(t string) bool {
	if len(t) < 5 || !isLower(t[0]) {
		return false
	}
	up := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isAlnum(c) {
			return false
		}
		if isUpper(c) {
			up = true
		}
	}
	return up
}

// isNameish reports whether a token may be part of a multi-word feature
// name: capitalised, an acronym, CamelCase or containing a capital.
func isNameish(t string) bool {
	if isUpper(t[0]) || isDigit(t[0]) {
		return true
	}
	for i := 1; i < len(t); i++ {
		if isUpper(t[i]) {
			return true
		}
	}
	return false
}

// phraseLead are words dropped from the front of a multi-word feature name.
var phraseLead = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "that": true, "these": true, "those": true,
	"new": true, "alpha": true, "beta": true, "ga": true, "stable": true, "kubelet": true,
	"kubernetes": true, "kube-proxy": true, "kubeadm": true, "kubectl": true, "kube-apiserver": true,
	"kube-scheduler": true, "kube-controller-manager": true, "scheduler": true, "apiserver": true,
	"add": true, "added": true, "adds": true, "promote": true, "promoted": true, "promotes": true,
	"graduate": true, "graduated": true, "graduates": true, "moving": true, "move": true, "moved": true,
	"enable": true, "enabled": true, "disable": true, "disabled": true, "remove": true, "removed": true,
	"deprecate": true, "deprecated": true, "withdrawn": true, "feature": true, "features": true,
	"gate": true, "gates": true, "and": true, "or": true, "k8s": true, "fixed": true, "fix": true,
}

var (
	reListGap      = regexp.MustCompile(`^[\s,、/'"]*(?:(?:and|or|と|および|や|及び)[\s,、'"]*)?$`)
	rePhaseWord    = regexp.MustCompile(`^\s*(?:フェーズ|サブフェーズ|サブコマンド|コマンド|phase|sub-phase|subcommand|command|プラグイン|plugin)`)
	reMetricAfter  = regexp.MustCompile(`^\s*(?:metrics?\b|メトリク)`)
	reMetricBefore = regexp.MustCompile(`(?i)\bmetrics?\s+$`)
	reFieldWord    = regexp.MustCompile(`^\s*(?:フィールド|field|パラメータ|parameter|オプション|option|設定)`)
)

// extractMentions finds the names in a plain text, left to right.
func extractMentions(pt plainText) []mention {
	s := pt.text
	toks := tokenize(s)
	typ := make([]MentionType, len(toks))
	for i, t := range toks {
		typ[i] = classifyToken(t.text)
	}
	var phrases []mention

	// Hyphenated names before "phase", "command" and the like; snake_case
	// names before "field".
	for i, t := range toks {
		if typ[i] != "" || !isLower(t.text[0]) {
			continue
		}
		switch {
		case strings.Contains(t.text, "-") && rePhaseWord.MatchString(s[t.end:]):
			typ[i] = MentionCode
		case strings.Contains(t.text, "_") && (reMetricAfter.MatchString(s[t.end:]) || reMetricBefore.MatchString(tail(s[:t.start], 12))):
			typ[i] = MentionMetric
		case strings.Contains(t.text, "_") && reFieldWord.MatchString(s[t.end:]):
			typ[i] = MentionConfigField
		}
	}

	// Code spans: a single token keeps its class (or becomes an identifier or
	// code); several words become one code mention.
	for _, sp := range pt.code {
		inner := strings.TrimSpace(s[sp[0]:sp[1]])
		if inner == "" || looksLikeVersion(inner) || strings.HasPrefix(inner, "/") || codeWords[strings.ToLower(inner)] {
			continue
		}
		idx := tokensIn(toks, sp[0], sp[1])
		if len(idx) > 12 {
			continue // a code block, not a name
		}
		switch {
		case len(idx) == 1 && toks[idx[0]].text == inner:
			if typ[idx[0]] == "" {
				if isUpper(inner[0]) && hasLower(inner) {
					typ[idx[0]] = MentionIdentifier
				} else if hasLetter(inner) && len(inner) <= 60 {
					typ[idx[0]] = MentionCode
				}
			}
		case len(idx) > 1 && len(inner) <= 60 && !strings.ContainsAny(inner, "=<>{},"):
			phrases = append(phrases, mention{start: sp[0], end: sp[1], name: inner, typ: MentionCode})
		}
	}

	low := pt.low
	if len(low) != len(s) {
		low = asciiLower(s)
	}
	gateWords, featureWords := keywords(low)

	// Gate keywords: names listed right before or after are feature gates.
	for _, gw := range gateWords {
		m, bare := gw.span, gw.bare
		found := false
		// Backwards: "`A` and `B` feature gates".
		edge := m[0]
		for i, n := lastTokenBefore(toks, m[0]), 0; i >= 0 && n < 40; i, n = i-1, n+1 {
			if isConnector(toks[i].text) {
				continue
			}
			if !reListGap.MatchString(s[toks[i].end:edge]) || !gateCandidate(typ[i]) {
				break
			}
			typ[i] = MentionFeatureGate
			edge = toks[i].start
			found = true
		}
		if found || bare {
			continue
		}
		// Forwards: "feature gates: `A`, `B` and `C`".
		prev := m[1]
		for i, n := firstTokenAfter(toks, m[1]), 0; i >= 0 && i < len(toks) && n < 40; i, n = i+1, n+1 {
			if isConnector(toks[i].text) {
				continue
			}
			gap := strings.TrimLeft(s[prev:toks[i].start], " :")
			if !reListGap.MatchString(gap) || !gateCandidate(typ[i]) {
				break
			}
			typ[i] = MentionFeatureGate
			prev = toks[i].end
		}
	}

	// Named features: "Graceful Node Shutdown feature", "ImageVolume 機能".
	for _, m := range featureWords {
		ja := !isLower(s[m[0]]) && !isUpper(s[m[0]])
		var idx []int
		for i := lastTokenBefore(toks, m[0]); i >= 0 && len(idx) < 5; i-- {
			gap := s[toks[i].end:nextStart(toks, i, m[0])]
			if ja && gap != "" && gap != " " || !ja && gap != " " {
				break
			}
			if !ja && !isNameish(toks[i].text) {
				break
			}
			idx = append([]int{i}, idx...)
		}
		for len(idx) > 0 && phraseLead[strings.ToLower(toks[idx[0]].text)] {
			idx = idx[1:]
		}
		switch {
		case len(idx) == 1:
			i := idx[0]
			if typ[i] == MentionIdentifier || typ[i] == "" && isUpperCamel(toks[i].text) {
				typ[i] = MentionFeatureGate
			}
		case len(idx) > 1:
			st, en := toks[idx[0]].start, toks[idx[len(idx)-1]].end
			if isUpper(s[m[0]]) {
				// "Node Declared Features": a capital makes the word
				// part of the name, not a word about it.
				en = m[1]
			}
			phrases = append(phrases, mention{start: st, end: en, name: s[st:en], typ: MentionFeature})
		}
	}

	// Merge: phrases hide the tokens inside them.
	sort.Slice(phrases, func(a, b int) bool { return phrases[a].start < phrases[b].start })
	out := append([]mention(nil), phrases...)
	pi := 0
	for i, t := range toks {
		if typ[i] == "" {
			continue
		}
		for pi < len(phrases) && phrases[pi].end <= t.start {
			pi++
		}
		inside := false
		for j := pi; j < len(phrases) && phrases[j].start <= t.start; j++ {
			if t.end <= phrases[j].end {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, mention{start: t.start, end: t.end, name: t.text, typ: typ[i]})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].start < out[b].start })
	// Drop phrases that overlap an earlier one.
	kept := out[:0]
	lastEnd := -1
	for _, m := range out {
		if m.start < lastEnd {
			continue
		}
		kept = append(kept, m)
		lastEnd = m.end
	}
	return kept
}

// keyword is a "feature gate" (or bare "gate") found in a text.
type keyword struct {
	span [2]int
	bare bool
}

// keywords finds, in a lower-cased text, the words that mark feature gates
// ("feature gate", "feature-flag", "フィーチャーゲート", a bare "gate") and
// those that mark named features ("feature", "機能", "フィーチャー").
func keywords(low string) (gates []keyword, features [][2]int) {
	covered := map[int]bool{} // where a "gate" is part of "feature gate"
	word := func(i, j int) bool {
		return (i == 0 || !isAlnum(low[i-1])) && (j >= len(low) || !isAlnum(low[j]))
	}
	for off := 0; off < len(low); {
		i := strings.Index(low[off:], "feature")
		if i < 0 {
			break
		}
		i += off
		j := i + len("feature")
		if i > 0 && isAlnum(low[i-1]) {
			off = j
			continue
		}
		k := j
		if k < len(low) && (low[k] == ' ' || low[k] == '-') {
			k++
		}
		if rest := low[k:]; strings.HasPrefix(rest, "gate") || strings.HasPrefix(rest, "flag") {
			e := k + 4
			if e < len(low) && low[e] == 's' {
				e++
			}
			if word(i, e) {
				gates = append(gates, keyword{span: [2]int{i, e}})
				covered[k] = true
				off = e
				continue
			}
		}
		if j < len(low) && low[j] == 's' {
			j++
		}
		if word(i, j) {
			features = append(features, [2]int{i, j})
		}
		off = j
	}
	for off := 0; off < len(low); {
		i := strings.Index(low[off:], "gate")
		if i < 0 {
			break
		}
		i += off
		j := i + 4
		if j < len(low) && low[j] == 's' {
			j++
		}
		off = j
		if !word(i, j) || covered[i] {
			continue
		}
		gates = append(gates, keyword{span: [2]int{i, j}, bare: true})
	}
	for _, w := range []string{"フィーチャーゲート", "フィーチャーフラグ"} {
		for off := 0; ; {
			i := strings.Index(low[off:], w)
			if i < 0 {
				break
			}
			i += off
			gates = append(gates, keyword{span: [2]int{i, i + len(w)}})
			off = i + len(w)
		}
	}
	for _, w := range []string{"機能", "フィーチャー"} {
		for off := 0; ; {
			i := strings.Index(low[off:], w)
			if i < 0 {
				break
			}
			i += off
			off = i + len(w)
			if strings.HasPrefix(low[off:], "ゲート") || strings.HasPrefix(low[off:], "フラグ") {
				continue
			}
			features = append(features, [2]int{i, off})
		}
	}
	sort.Slice(gates, func(a, b int) bool { return gates[a].span[0] < gates[b].span[0] })
	sort.Slice(features, func(a, b int) bool { return features[a][0] < features[b][0] })
	return gates, features
}

func gateCandidate(typ MentionType) bool {
	return typ == MentionIdentifier || typ == MentionFeatureGate
}

func isConnector(t string) bool {
	switch strings.ToLower(t) {
	case "and", "or":
		return true
	}
	return false
}

func hasLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLower(s[i]) {
			return true
		}
	}
	return false
}

func looksLikeVersion(s string) bool {
	s = strings.TrimPrefix(s, "v")
	if s == "" || !isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != '.' && s[i] != '-' && !isLower(s[i]) {
			return false
		}
	}
	return true
}

func tokensIn(toks []token, start, end int) []int {
	var idx []int
	for i := firstTokenAfter(toks, start); i >= 0 && i < len(toks) && toks[i].start < end; i++ {
		if toks[i].end <= end {
			idx = append(idx, i)
		}
	}
	return idx
}

// lastTokenBefore returns the index of the last token ending at or before
// pos, or -1.
func lastTokenBefore(toks []token, pos int) int {
	i := sort.Search(len(toks), func(i int) bool { return toks[i].end > pos })
	return i - 1
}

// firstTokenAfter returns the index of the first token starting at or after
// pos, or -1.
func firstTokenAfter(toks []token, pos int) int {
	i := sort.Search(len(toks), func(i int) bool { return toks[i].start >= pos })
	if i == len(toks) {
		return -1
	}
	return i
}

// nextStart is where the text after token i ends: the next token's start,
// capped at limit.
func nextStart(toks []token, i, limit int) int {
	if i+1 < len(toks) && toks[i+1].start < limit {
		return toks[i+1].start
	}
	return limit
}
