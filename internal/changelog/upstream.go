package changelog

import (
	"regexp"
	"slices"
	"strings"
)

// rawEntry is an entry as cut from the document, before its text is
// analysed.
type rawEntry struct {
	kind    Kind
	section string
	sigs    []string // from a SIG heading
	title   string   // prose entries: the subheading
	lines   []string // entry lines; the first holds the bullet's content
	notes   [][]string
	refs    []int // PR numbers from reference-only lines in prose
	line    int
	prose   bool // a titled prose entry (highlight, known issue)
	action  bool // under an "Action Required" heading
	suffix  bool // a PR suffix has been seen (articles)
}

var (
	reMDHeading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	reSubBullet = regexp.MustCompile(`^\s*(?:[-*+]\s+|[•・]\s*|\d{1,2}[.)]\s+)(\S.*)$`)
	reNumbered  = regexp.MustCompile(`^\d{1,2}[.)] `)
)

// headingFrame is one open heading while walking markdown.
type headingFrame struct {
	level int
	title string
	info  headingInfo
	known bool
}

// sectionCtx is what the open headings say about the lines below them.
type sectionCtx struct {
	kind       Kind
	skip       bool
	sigs       []string
	proseTitle string
	section    string
	action     bool
}

// contextOf reads the open headings from the outermost in: a root heading
// resets the context, a kind heading sets the kind, a SIG heading inside a
// kind or a by-SIG section sets the SIG, and under a prose section the next
// heading is the title of a prose entry.
func contextOf(stack []headingFrame) sectionCtx {
	var c sectionCtx
	var names []string
	inProse, bySIG := false, false
	for _, h := range stack {
		if inProse {
			c.proseTitle = h.title
			continue
		}
		if !h.known {
			if isSIGName(h.title) && (bySIG || c.kind != "") {
				c.sigs = []string{NormalizeSIG(h.title)}
			}
			names = append(names, h.title)
			continue
		}
		switch h.info.role {
		case roleRoot:
			c, names, bySIG = sectionCtx{}, nil, false
		case rolePass:
		case roleKind:
			c.kind, c.sigs = h.info.kind, nil
			c.action = c.action || strings.EqualFold(cleanHeading(h.title), "action required")
			names = append(names, h.title)
		case roleContainer:
			c.kind = ""
			names = append(names, h.title)
		case roleBySIG:
			c.kind, bySIG = h.info.kind, true
			names = append(names, h.title)
		case roleProse:
			c.kind, inProse = h.info.kind, true
			names = append(names, h.title)
		case roleDeps:
			if bySIG {
				c.kind, c.sigs = KindDependency, nil
			} else {
				c.skip = true
			}
			names = append(names, h.title)
		case roleSkip:
			c.skip = true
		}
	}
	c.section = strings.Join(names, " / ")
	return c
}

// parseUpstream cuts upstream CHANGELOG markdown into raw entries. Both the
// "Changes by Kind" layout and the older by-SIG layout go through here: the
// headings decide the kind and SIG of what follows them.
func parseUpstream(lines []string) []rawEntry {
	var (
		stack []headingFrame
		out   []rawEntry
		cur   *rawEntry
		ctx   sectionCtx
	)
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for i, l := range lines {
		var m []string
		if len(l) > 0 && l[0] == '#' {
			m = reMDHeading.FindStringSubmatch(l)
		}
		if m != nil {
			flush()
			level := len(m[1])
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				stack = stack[:len(stack)-1]
			}
			info, known := classifyHeading(m[2])
			stack = append(stack, headingFrame{level: level, title: m[2], info: info, known: known})
			ctx = contextOf(stack)
			if ctx.proseTitle != "" && !ctx.skip {
				cur = &rawEntry{kind: ctx.kind, section: ctx.section, title: stripInlineMarkdown(ctx.proseTitle), line: i + 1, prose: true}
			}
			continue
		}
		if ctx.skip || ctx.kind == "" {
			continue
		}
		if cur != nil && cur.prose {
			cur.lines = append(cur.lines, l)
			continue
		}
		// A top-level item starts an entry; so does a change written
		// without its bullet ("Renamed FeatureGate A to B. (#85260, …)")
		// right under another PR's entry.
		first := topBullet(l)
		if first == "" && cur != nil && startsAnotherEntry(cur.lines, l) {
			first = strings.TrimSpace(l)
		}
		if first != "" {
			flush()
			cur = &rawEntry{
				kind: ctx.kind, section: ctx.section, sigs: ctx.sigs,
				lines: []string{first}, line: i + 1, action: ctx.action,
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	flush()
	// Drop prose entries that turned out empty (a subheading with nothing
	// below it).
	kept := out[:0]
	for _, e := range out {
		if e.prose && strings.TrimSpace(strings.Join(e.lines, "")) == "" {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// startsAnotherEntry reports whether l, an unindented line without a
// bullet, is an entry of its own: it ends with the PR suffix of other PRs
// than the entry above, which ended with its own. A paragraph that goes on
// with the same PR ("… (#84304)" twice) stays in its entry.
func startsAnotherEntry(lines []string, l string) bool {
	if l == "" || l[0] == ' ' || l[0] == '\t' || len(lines) == 0 {
		return false
	}
	prev := lines[len(lines)-1]
	if strings.TrimSpace(prev) == "" {
		return false // after a blank line: a paragraph of the entry
	}
	own, above := findSuffixes(l, true), findSuffixes(prev, true)
	if len(own) != 1 || len(above) != 1 || own[0].start == 0 {
		return false
	}
	for _, pr := range own[0].prs {
		if slices.Contains(above[0].prs, pr) {
			return false
		}
	}
	return true
}

// topBullet returns the content of a top-level list item ("- ", " - ",
// "* "), or "".
func topBullet(l string) string {
	t := l
	if strings.HasPrefix(t, " ") {
		t = t[1:]
	}
	if len(t) < 3 || t[0] != '-' && t[0] != '*' && t[0] != '+' || t[1] != ' ' {
		return ""
	}
	return strings.TrimSpace(t[2:])
}

// assembleLines joins the lines of one entry: wrapped lines are joined with
// a space, nested list items and paragraphs start a new line, and nested
// items are written "- item".
func assembleLines(lines []string) string {
	var b strings.Builder
	pendingBreak := false
	base := -1 // indentation of the first nested item
	for i, l := range lines {
		l = strings.ReplaceAll(l, `\n`, " ")
		t := strings.TrimSpace(l)
		if t == "" {
			pendingBreak = b.Len() > 0
			continue
		}
		switch {
		case i == 0 || b.Len() == 0:
			b.WriteString(t)
		case reSubBullet.MatchString(l):
			m := reSubBullet.FindStringSubmatch(l)
			ind := indentOf(l)
			if base < 0 || ind < base {
				base = ind
			}
			pad := strings.Repeat("  ", min((ind-base)/2, 4))
			if reNumbered.MatchString(t) {
				b.WriteString("\n" + pad + t)
			} else {
				b.WriteString("\n" + pad + "- " + m[1])
			}
		case pendingBreak:
			b.WriteString("\n" + t)
		default:
			b.WriteString(" " + t)
		}
		pendingBreak = false
	}
	return b.String()
}
