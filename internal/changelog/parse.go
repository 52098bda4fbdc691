package changelog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

var (
	reVersionSection = regexp.MustCompile(`^# v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.]+)?\s*$`)
	reChangelogSince = regexp.MustCompile(`(?i)^#{1,3}\s+changelog since v(\d+)\.(\d+)\.(\d+)`)
	reReleaseNotes   = regexp.MustCompile(`(?i)^#{1,3}\s+release notes for v(\d+)\.(\d+)\.\d+`)
	reMinorMention   = regexp.MustCompile(`\bv?1\.(\d{2})\b`)
	reDepLine        = regexp.MustCompile(`^- [\w.-]+\.[a-z]{2,}/`)
	reActionRequired = regexp.MustCompile(`(?i)\baction[ _-]required\b|必須対応|要対応`)
)

// Parse reads one changelog document. The format, release and SIG are
// detected unless opts sets them. It returns an error wrapping one of the
// package's sentinel errors when the input is empty, binary, not UTF-8,
// larger than MaxDocumentSize, in no known format or without entries.
func Parse(doc []byte, opts Options) (*Document, error) {
	return ParseContext(context.Background(), doc, opts)
}

// ctxCheckEvery is how many entries ParseContext builds between two looks
// at its context.
const ctxCheckEvery = 64

// ParseContext is Parse that stops when ctx is done, with an error wrapping
// ctx.Err(). The time it takes grows with the document's size.
func ParseContext(ctx context.Context, doc []byte, opts Options) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("changelog: parse: %w", err)
	}
	if err := checkInput(doc); err != nil {
		return nil, err
	}
	if opts.Format != "" && !opts.Format.Valid() {
		return nil, fmt.Errorf("changelog: format %q: %w", opts.Format, ErrInvalidOption)
	}
	var release string
	if opts.Release != "" {
		r, err := NormalizeRelease(opts.Release)
		if err != nil {
			return nil, err
		}
		release = r
	}
	sig := ""
	if opts.SIG != "" {
		if sig = NormalizeSIG(opts.SIG); sig == "" {
			return nil, fmt.Errorf("changelog: sig %q: %w", opts.SIG, ErrInvalidOption)
		}
	}

	format := opts.Format
	if format == "" && looksLikeJSON(doc) {
		format = FormatReleaseNotesJSON
	}
	var lines []string
	if format != FormatReleaseNotesJSON {
		lines = normalizeDocument(doc)
	}
	if format == "" {
		format = detectFormat(lines)
		if format == "" {
			return nil, fmt.Errorf("changelog: no changelog headings or PR references found: %w", ErrUnknownFormat)
		}
	}

	d := &Document{Format: format}
	sum := sha256.Sum256(doc)
	d.SHA256 = hex.EncodeToString(sum[:])
	var raws []rawEntry
	switch format {
	case FormatUpstream, FormatUpstreamBySIG:
		section, sectionRelease := selectReleaseSection(lines, release)
		raws = parseUpstream(section)
		d.Release = sectionRelease
		if d.Release == "" {
			d.Release = upstreamRelease(section)
		}
	case FormatReleaseNotesJSON:
		rn, err := parseReleaseNotes(doc)
		if err != nil {
			return nil, err
		}
		raws, d.Release = rn.entries, rn.release
	case FormatArticle:
		var meta articleMeta
		raws, meta = parseArticle(lines)
		d.Title, d.Release, d.SIG, d.Intro = meta.title, meta.release, meta.sig, meta.intro
		if d.Release == "" {
			d.Release = mentionedRelease(lines)
		}
	}
	if release != "" {
		d.Release = release
	}
	if sig != "" {
		d.SIG = sig
	}
	d.Key = documentKey(d.Release, d.SIG)
	if format == FormatReleaseNotesJSON {
		d.Key += releaseNotesKeySuffix
	}

	minor := 0
	if _, m, ok := ParseRelease(d.Release); ok {
		minor = m
	}
	for i, r := range raws {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("changelog: parse: entry %d of %d: %w", i, len(raws), err)
			}
		}
		e := buildEntry(r, format, d.Release, minor)
		if e.Text == "" && e.Title == "" {
			continue
		}
		if sig != "" && format != FormatArticle {
			switch {
			case len(e.SIGs) == 0:
				d.Unlabelled++ // it may be the SIG's: kept
			case !labelled(e, sig):
				d.OtherSIGs++ // an upstream CHANGELOG's entry of other SIGs
				continue
			}
		}
		d.Entries = append(d.Entries, e)
	}
	if len(d.Entries) == 0 && d.OtherSIGs > 0 {
		return nil, fmt.Errorf("changelog: %s document: its %d entries are all labelled with other SIGs than %s: %w", format, d.OtherSIGs, sig, ErrNoEntries)
	}
	if len(d.Entries) == 0 {
		return nil, fmt.Errorf("changelog: %s document: %w", format, ErrNoEntries)
	}
	adoptPRs(d)
	assignKeys(d)
	return d, nil
}

// adoptPRs gives a change of the document's release stated without a PR
// (a highlight, a list under a heading, an upgrade note without a link)
// the PR of the entry that states the same change, when exactly one PR
// does: "CSI Migration Beta" over the highlight, and "Feature gates
// CSIMigration to Beta (on by default)" (#85231) among the features.
func adoptPRs(d *Document) {
	type fact struct {
		key     string
		stage   Stage
		release string
	}
	prs := map[fact]int{} // -1 when two PRs state it
	for _, e := range d.Entries {
		for _, sc := range e.Stages {
			if sc.PR <= 0 || sc.Release != d.Release {
				continue
			}
			f := fact{spellingKey(sc.Feature), sc.Stage, sc.Release}
			if pr, ok := prs[f]; ok && pr != sc.PR {
				prs[f] = -1
			} else if !ok {
				prs[f] = sc.PR
			}
		}
	}
	// A plural of a gate the document names is the gate: "EndpointSlices
	// are now beta" and "Use the EndpointSlice feature gate".
	gates := map[string]string{}
	for _, e := range d.Entries {
		for _, m := range e.Mentions {
			if m.Type == MentionFeatureGate {
				gates[m.Name] = m.Name
			}
		}
	}
	for i := range d.Entries {
		for j := range d.Entries[i].Stages {
			sc := &d.Entries[i].Stages[j]
			if g, ok := gates[strings.TrimSuffix(sc.Feature, "s")]; ok && strings.HasSuffix(sc.Feature, "s") {
				sc.Feature = g
			}
			if sc.PR != 0 || sc.Release != d.Release {
				continue
			}
			if pr := prs[fact{spellingKey(sc.Feature), sc.Stage, sc.Release}]; pr > 0 {
				sc.PR = pr
			}
		}
	}
}

// spellingKey is FeatureKey with "/" and "&" read as "and": "Immutable
// Secrets/ConfigMaps" and "Immutable Secrets and ConfigMaps" are one
// feature spelt two ways.
func spellingKey(name string) string { return FeatureKey(reAndSpelling.Replace(name)) }

var reAndSpelling = strings.NewReplacer("/", " and ", "&", " and ", "＆", " and ")

// labelled reports whether one of an entry's SIG labels names sig (a
// display name, as NormalizeSIG gives it).
func labelled(e Entry, sig string) bool {
	for _, s := range e.SIGs {
		if NormalizeSIG(s) == sig {
			return true
		}
	}
	return false
}

// detectFormat tells upstream markdown, the older by-SIG upstream layout and
// plain-text articles apart. It returns "" when none fits.
func detectFormat(lines []string) Format {
	var mdKnown, mdLinks, plainSfx, jaHeads int
	kindHeads, bySIGHeads := 0, 0
	ja, titled := false, false
	for _, l := range lines {
		if !ja && hasJapanese(l) {
			ja = true
		}
		if t := strings.TrimLeft(l, "# "); !titled && strings.HasPrefix(t, "Kubernetes") && reArticleTitle.MatchString(t) {
			titled = true
		}
		if strings.Contains(l, "](https://github.com/kubernetes/kubernetes/pull/") {
			mdLinks++
		}
		if m := reMDHeading.FindStringSubmatch(l); m != nil {
			if info, ok := classifyHeading(m[2]); ok {
				mdKnown++
				switch {
				case strings.EqualFold(cleanHeading(m[2]), "changes by kind"):
					kindHeads++
				case info.role == roleBySIG, strings.EqualFold(cleanHeading(m[2]), "notable features"),
					strings.EqualFold(cleanHeading(m[2]), "deprecations and removals"):
					bySIGHeads++
				}
			}
			continue
		}
		if rePlainSuffix.MatchString(l) {
			plainSfx++
		}
		if len(l) < 200 && !strings.HasPrefix(strings.TrimSpace(l), "-") {
			if _, ok := classifyHeading(strings.TrimSpace(l)); ok {
				jaHeads++
			}
		}
	}
	switch {
	case ja && titled && (plainSfx > 0 || mdLinks > 0):
		// A Japanese article, possibly written in markdown.
		return FormatArticle
	case mdKnown > 0 && mdLinks > 0:
		if bySIGHeads > 0 && kindHeads == 0 {
			return FormatUpstreamBySIG
		}
		return FormatUpstream
	case plainSfx > 0 && (ja || jaHeads > 0):
		return FormatArticle
	case ja && jaHeads > 0 && mdLinks > 0:
		return FormatArticle
	}
	return ""
}

// selectReleaseSection returns the lines of one release when the document
// holds several "# v1.x.y" sections: the one asked for, else the first x.0,
// else the first. It also returns that section's release.
func selectReleaseSection(lines []string, want string) ([]string, string) {
	type sec struct {
		start        int
		major, minor int
		patch        int
		pre          bool
	}
	var secs []sec
	for i, l := range lines {
		if m := reVersionSection.FindStringSubmatch(l); m != nil {
			major, _ := strconv.Atoi(m[1])
			minor, _ := strconv.Atoi(m[2])
			patch, _ := strconv.Atoi(m[3])
			secs = append(secs, sec{i, major, minor, patch, m[4] != ""})
		}
	}
	if len(secs) == 0 {
		return lines, ""
	}
	pick := -1
	wmaj, wmin, wok := ParseRelease(want)
	for i, s := range secs {
		if s.patch != 0 || s.pre {
			continue
		}
		if !wok || s.major == wmaj && s.minor == wmin {
			pick = i
			break
		}
	}
	if pick < 0 {
		pick = 0
	}
	end := len(lines)
	if pick+1 < len(secs) {
		end = secs[pick+1].start
	}
	s := secs[pick]
	return lines[s.start:end], formatRelease(s.major, s.minor)
}

// upstreamRelease reads the release from the section's own headings, or
// failing that from the versions its text mentions most.
func upstreamRelease(lines []string) string {
	for _, l := range lines {
		if m := reReleaseNotes.FindStringSubmatch(l); m != nil {
			return m[1] + "." + m[2]
		}
	}
	for _, l := range lines {
		if m := reChangelogSince.FindStringSubmatch(l); m != nil {
			major, _ := strconv.Atoi(m[1])
			minor, _ := strconv.Atoi(m[2])
			if patch, _ := strconv.Atoi(m[3]); patch == 0 {
				minor++
			}
			return formatRelease(major, minor)
		}
	}
	return mentionedRelease(lines)
}

// mentionedRelease returns the release mentioned most often outside
// dependency lists, or "".
func mentionedRelease(lines []string) string {
	counts := map[int]int{}
	for _, l := range lines {
		if reDepLine.MatchString(l) {
			continue
		}
		for _, m := range reMinorMention.FindAllStringSubmatch(l, -1) {
			n, _ := strconv.Atoi(m[1])
			counts[n]++
		}
	}
	best, bestN := 0, 0
	for minor, n := range counts {
		if n > bestN || n == bestN && minor > best {
			best, bestN = minor, n
		}
	}
	if bestN < 3 {
		return ""
	}
	return formatRelease(1, best)
}

func documentKey(release, sig string) string {
	if release == "" {
		release = "unknown"
	}
	if sig == "" {
		return release
	}
	return release + "/" + SIGSlug(sig)
}

// buildEntry turns a raw entry into an Entry: text and suffix, notes,
// mentions and stage changes.
func buildEntry(r rawEntry, format Format, release string, minor int) Entry {
	e := Entry{Kind: r.kind, Section: r.section, Title: r.title, Line: r.line, ActionRequired: r.action}
	markdown := format != FormatArticle

	joined := strings.Join(r.lines, "\n")
	sfx := findSuffixes(joined, markdown)
	if len(sfx) == 0 && !markdown {
		sfx = findSuffixes(joined, true)
	}
	body := removeSuffixes(joined, sfx)
	for _, s := range sfx {
		e.PRs = append(e.PRs, s.prs...)
		if s.author != "" && !slices.Contains(e.Authors, s.author) && len(e.Authors) < 64 {
			e.Authors = append(e.Authors, s.author)
		}
		if len(s.sigs) > 0 {
			e.SIGs = s.sigs
		}
	}
	if r.prose {
		for _, m := range rePullURL.FindAllStringSubmatch(body, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil {
				e.PRs = append(e.PRs, n)
			}
		}
		e.PRs = append(e.PRs, r.refs...)
	}
	e.PRs = uniqueInts(e.PRs)
	if len(e.SIGs) == 0 && len(r.sigs) > 0 {
		e.SIGs = append([]string(nil), r.sigs...)
	}
	text := toPlain(assembleLines(strings.Split(body, "\n")))
	e.Text = text.text
	if mayRequireAction(e.Text) && reActionRequired.MatchString(e.Text) {
		e.ActionRequired = true
	}
	notes := make([]plainText, 0, len(r.notes))
	for _, n := range r.notes {
		pt := toPlain(assembleLines(n))
		if pt.text == "" {
			continue
		}
		notes = append(notes, pt)
		e.Notes = append(e.Notes, pt.text)
	}

	a := entryAnalyzer{release: release, minor: minor, defaultPR: firstOr(e.PRs, 0)}
	a.analyze(&e, r, text, notes)
	return e
}

func mayRequireAction(s string) bool {
	return strings.Contains(s, "ction") || strings.Contains(s, "CTION") || strings.Contains(s, "対応")
}

func firstOr(xs []int, d int) int {
	if len(xs) > 0 {
		return xs[0]
	}
	return d
}

// uniqueInts drops repeated numbers, keeping the first of each.
func uniqueInts(xs []int) []int {
	seen := make(map[int]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func appendUniqueStr(xs []string, y string) []string {
	for _, x := range xs {
		if x == y {
			return xs
		}
	}
	return append(xs, y)
}

// assignKeys gives every entry a key from the document key, the kind and
// the PR numbers, or a hash of the text when there is no PR. A repeated key
// gets "-2", "-3" in document order.
func assignKeys(d *Document) {
	seen := map[string]int{}
	for i := range d.Entries {
		e := &d.Entries[i]
		var id string
		if len(e.PRs) > 0 {
			prs := append([]int(nil), e.PRs...)
			sort.Ints(prs)
			parts := make([]string, len(prs))
			for j, p := range prs {
				parts[j] = strconv.Itoa(p)
			}
			id = "pr-" + strings.Join(parts, "-")
		} else {
			src := e.Text
			if e.Title != "" {
				src = e.Title
			}
			id = "h-" + contentHash(src)
		}
		k := d.Key + "/" + string(e.Kind) + "/" + id
		seen[k]++
		if n := seen[k]; n > 1 {
			k += "-" + strconv.Itoa(n)
		}
		e.Key = k
	}
}

// contentHash hashes the letters and digits of s, lower-cased, so that
// changes in spacing, punctuation or markup do not change it.
func contentHash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:5])
}
