package changelog

import (
	"regexp"
	"strings"
)

// headingRole says how a section heading shapes the entries below it.
type headingRole int

const (
	roleUnknown   headingRole = iota
	roleRoot                  // "Changelog since v1.35.0", "# Changes": resets the context
	rolePass                  // "(No, really, you MUST read this before you upgrade)"
	roleKind                  // a kind heading: entries below get its kind
	roleContainer             // "Changes by Kind": holds kind headings, has no kind itself
	roleBySIG                 // "Other notable changes": kind uncategorized, SIG subheadings
	roleProse                 // "What's New", "Known Issues": subheadings are titles of prose entries
	roleDeps                  // "Dependencies": a version list, except as a by-SIG group
	roleSkip                  // downloads, detailed dependency changes, security advisories
)

type headingInfo struct {
	role headingRole
	kind Kind
}

// englishHeadings maps a lower-cased heading to its meaning.
var englishHeadings = map[string]headingInfo{
	"(no, really, you must read this before you upgrade)": {rolePass, ""},
	"no, really, you must read this before you upgrade":   {rolePass, ""},
	"changes":                        {roleRoot, ""},
	"urgent upgrade notes":           {roleKind, KindUrgentUpgradeNote},
	"action required":                {roleKind, KindUrgentUpgradeNote},
	"changes by kind":                {roleContainer, ""},
	"dependency":                     {roleKind, KindDependency},
	"dependencies":                   {roleDeps, KindDependency},
	"detailed go dependency changes": {roleSkip, ""},
	"important security information": {roleSkip, ""},
	"source code":                    {roleSkip, ""},
	"client binaries":                {roleSkip, ""},
	"server binaries":                {roleSkip, ""},
	"node binaries":                  {roleSkip, ""},
	"container images":               {roleSkip, ""},
	"deprecation":                    {roleKind, KindDeprecation},
	"deprecations":                   {roleKind, KindDeprecation},
	"deprecations and removals":      {roleKind, KindDeprecation},
	"api change":                     {roleKind, KindAPIChange},
	"api changes":                    {roleKind, KindAPIChange},
	"feature":                        {roleKind, KindFeature},
	"features":                       {roleKind, KindFeature},
	"notable features":               {roleKind, KindFeature},
	"documentation":                  {roleKind, KindDocumentation},
	"failing test":                   {roleKind, KindFailingTest},
	"failing tests":                  {roleKind, KindFailingTest},
	"bug or regression":              {roleKind, KindBugOrRegression},
	"other (cleanup or flake)":       {roleKind, KindCleanup},
	"other (bug, cleanup or flake)":  {roleKind, KindCleanup},
	"cleanup or flake":               {roleKind, KindCleanup},
	"uncategorized":                  {roleKind, KindUncategorized},
	"what's new (major themes)":      {roleProse, KindHighlight},
	"what's new":                     {roleProse, KindHighlight},
	"major themes":                   {roleProse, KindHighlight},
	"highlights":                     {roleProse, KindHighlight},
	"known issues":                   {roleProse, KindKnownIssue},
	"other notable changes":          {roleBySIG, KindUncategorized},
	"metrics changes":                {roleKind, KindUncategorized},
	"stable":                         {rolePass, ""},
	"beta":                           {rolePass, ""},
	"alpha":                          {rolePass, ""},
	"cli improvements":               {rolePass, ""},
	"added metrics":                  {roleKind, KindFeature},
	"deprecated/changed metrics":     {roleKind, KindDeprecation},
}

// japaneseHeadings maps a heading with its spaces removed (and any leading
// "1.17 の") to its meaning. These are the glosses articles put before or
// after the English kind names.
var japaneseHeadings = map[string]headingInfo{
	"重大なアップグレードに関する通達": {roleKind, KindUrgentUpgradeNote},
	"アップグレード時の注意":      {roleKind, KindUrgentUpgradeNote},
	"非推奨":              {roleKind, KindDeprecation},
	"廃止予定および削除された機能":   {roleKind, KindDeprecation},
	"非推奨および削除された機能":    {roleKind, KindDeprecation},
	"apiの変更":           {roleKind, KindAPIChange},
	"apiの変更点":          {roleKind, KindAPIChange},
	"機能追加":             {roleKind, KindFeature},
	"新機能":              {roleKind, KindFeature},
	"注目機能":             {roleKind, KindFeature},
	"ドキュメント":           {roleKind, KindDocumentation},
	"テストの失敗":           {roleKind, KindFailingTest},
	"失敗しているテスト":        {roleKind, KindFailingTest},
	"バグまたはリグレッション":     {roleKind, KindBugOrRegression},
	"バグ修正":             {roleKind, KindBugOrRegression},
	"その他":              {roleKind, KindCleanup},
	"未分類":              {roleKind, KindUncategorized},
	"分類なし":             {roleKind, KindUncategorized},
	"依存関係":             {roleKind, KindDependency},
	"主な変更点":            {roleProse, KindHighlight},
	"所感":               {roleProse, KindHighlight},
	"ハイライト":            {roleProse, KindHighlight},
	"注目の変更":            {roleProse, KindHighlight},
	"既知の問題":            {roleProse, KindKnownIssue},
	"その他の注目すべき変更":      {roleBySIG, KindUncategorized},
}

var (
	reReleaseHeading = regexp.MustCompile(`^v\d+\.\d+\.\d+(?:-[a-z]+\.\d+)?$`)
	reJaReleaseLead  = regexp.MustCompile(`^v?1\.\d+(?:\.\d+)?の`)
	reTrailingParen  = regexp.MustCompile(`\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)$`)
)

// cleanHeading trims markers that decorate headings in articles.
func cleanHeading(s string) string {
	s = strings.TrimSpace(s)
	for _, suf := range []string{":pencil:", "📝", ":", "："} {
		s = strings.TrimSpace(strings.TrimSuffix(s, suf))
	}
	s = strings.ReplaceAll(s, "’", "'")
	return strings.Join(strings.Fields(s), " ")
}

// classifyHeading returns what a heading means. It accepts an English kind
// name optionally followed by a parenthesised gloss, a Japanese gloss
// optionally followed by the English name in parentheses, and either alone.
func classifyHeading(title string) (headingInfo, bool) {
	t := cleanHeading(title)
	for range 4 {
		if t == "" {
			return headingInfo{}, false
		}
		if info, ok := lookupHeading(t); ok {
			return info, true
		}
		m := reTrailingParen.FindStringSubmatchIndex(t)
		if m == nil {
			return headingInfo{}, false
		}
		rest := strings.TrimSpace(t[:m[0]])
		inner := t[m[2]:m[3]]
		if rest != "" {
			if info, ok := lookupHeading(rest); ok {
				return info, true
			}
		}
		if info, ok := lookupHeading(inner); ok {
			return info, true
		}
		t = rest
	}
	return headingInfo{}, false
}

func lookupHeading(t string) (headingInfo, bool) {
	k := strings.ToLower(strings.TrimSpace(t))
	if info, ok := englishHeadings[k]; ok {
		return info, true
	}
	switch {
	case strings.HasPrefix(k, "changelog since"), strings.HasPrefix(k, "release notes for"):
		return headingInfo{roleRoot, ""}, true
	case strings.HasPrefix(k, "downloads for"):
		return headingInfo{roleSkip, ""}, true
	case reReleaseHeading.MatchString(k):
		return headingInfo{roleRoot, ""}, true
	}
	j := strings.ReplaceAll(k, " ", "")
	j = reJaReleaseLead.ReplaceAllString(j, "")
	if info, ok := japaneseHeadings[j]; ok {
		return info, true
	}
	return headingInfo{}, false
}
