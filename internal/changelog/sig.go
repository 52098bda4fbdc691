package changelog

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// knownSIGs maps a SIG slug to the display name upstream release notes use.
// Names not listed are title-cased from the slug.
var knownSIGs = map[string]string{
	"api-machinery":          "API Machinery",
	"apps":                   "Apps",
	"architecture":           "Architecture",
	"auth":                   "Auth",
	"autoscaling":            "Autoscaling",
	"cli":                    "CLI",
	"cloud-provider":         "Cloud Provider",
	"cluster-lifecycle":      "Cluster Lifecycle",
	"contributor-experience": "Contributor Experience",
	"docs":                   "Docs",
	"etcd":                   "Etcd",
	"instrumentation":        "Instrumentation",
	"k8s-infra":              "K8s Infra",
	"multicluster":           "Multicluster",
	"network":                "Network",
	"node":                   "Node",
	"release":                "Release",
	"scalability":            "Scalability",
	"scheduling":             "Scheduling",
	"security":               "Security",
	"storage":                "Storage",
	"testing":                "Testing",
	"ui":                     "UI",
	"usability":              "Usability",
	"windows":                "Windows",
}

// displaySIGs holds the display names of knownSIGs.
var displaySIGs = func() map[string]bool {
	m := make(map[string]bool, len(knownSIGs))
	for _, v := range knownSIGs {
		m[v] = true
	}
	return m
}()

// NormalizeSIG returns the display name of a SIG written as "SIG-Node",
// "SIG Node", "sig/node", "node" or "Node". It returns "" when s holds no
// name.
func NormalizeSIG(s string) string {
	s = strings.TrimSpace(s)
	if displaySIGs[s] {
		return s
	}
	low := strings.ToLower(s)
	switch {
	case strings.HasPrefix(low, "sig/"):
		s = s[4:]
	case strings.HasPrefix(low, "sig-"), strings.HasPrefix(low, "sig "):
		s = s[4:]
	case low == "sig":
		return ""
	}
	s = strings.TrimSpace(strings.Trim(s, ".,;:"))
	if s == "" {
		return ""
	}
	slug := SIGSlug(s)
	if name, ok := knownSIGs[slug]; ok {
		return name
	}
	// Unknown SIG: keep the words, capitalise the first letter of each. A
	// name is words of letters and digits ("K8s Infra"), not markup or a
	// sentence.
	words := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) })
	if len(words) > 4 || utf8.RuneCountInString(s) > 40 {
		return ""
	}
	for i, w := range words {
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
			return ""
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}

// SIGSlug returns the lower-case hyphenated form of a SIG name, e.g.
// "cluster-lifecycle" for "Cluster Lifecycle".
func SIGSlug(name string) string {
	name = strings.TrimSpace(name)
	low := strings.ToLower(name)
	for _, p := range []string{"sig/", "sig-", "sig "} {
		if strings.HasPrefix(low, p) {
			low = low[len(p):]
			break
		}
	}
	var b strings.Builder
	dash := false
	for _, r := range low {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// isSIGName reports whether s is exactly a known SIG name or slug.
func isSIGName(s string) bool {
	_, ok := knownSIGs[SIGSlug(s)]
	return ok && len(s) <= 30
}

// splitSIGList splits "API Machinery, Node and Testing" or
// "sig/api-machinery,sig/node" into display names.
func splitSIGList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	s = strings.ReplaceAll(s, "、", ",")
	var parts []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		// "Node and Testing": only the last comma-separated part joins with "and".
		if i := strings.Index(p, " and "); i >= 0 {
			parts = append(parts, p[:i], p[i+5:])
			continue
		}
		parts = append(parts, p)
	}
	out := make([]string, 0, len(parts))
	seen := map[string]bool{}
	for _, p := range parts {
		n := NormalizeSIG(p)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}
