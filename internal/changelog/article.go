package changelog

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

var (
	// "Kubernetes 1.36: SIG-Node (kubelet) 変更内容", "Kubernetes 1.21: SIG Nodeに関する変更点"
	reArticleTitle = regexp.MustCompile(`^Kubernetes\s+v?(1\.\d+)(?:\.\d+)?\s*:\s*(.+?)\s*(?:の変更内容|変更内容|に関する変更点|の変更点|変更点|の変更まとめ|changes|release notes)\s*$`)
	reTitleSIG     = regexp.MustCompile(`(?i)^SIG[- ]?\s*([A-Za-z][A-Za-z -]*?)\s*(?:\(.*\))?$`)
	reIntroRelease = regexp.MustCompile(`Kubernetes\s*v?1\.(\d+)`)
	reIntroSIG     = regexp.MustCompile(`SIG[- ]([A-Z][A-Za-z]+(?: [A-Z][a-z]+)?)`)
	// "以下は Kubernetes 1.36 の CHANGELOG の和訳です。" opens the translated part.
	reChangelogStart = regexp.MustCompile(`(?i)^以下は.*(?:changelog|リリースノート).*(?:和訳|翻訳|抜粋)`)
	reRefOnly        = regexp.MustCompile(`^(?:KEP[- ]?#?\d+|#(\d+))$`)
	reDigitsOnly     = regexp.MustCompile(`^\d+$`)
	reDecoratedHead  = regexp.MustCompile(`^(?:#{1,6}\s+|[■□◆◇▼▽▶▷]\s*)(.+?)\s*#*$|^【(.+)】$`)
	reEmptyMarker    = regexp.MustCompile(`^(?:なし|特になし|無し|none|n/a)(?:\s*\(.*\))?\s*[。.]?$|項目はなし[。.)]*$|項目はありません[。.]*$`)
)

// articleLine is one line split into indentation, bullet and content.
type articleLine struct {
	indent  int
	bullet  bool
	content string
}

func splitArticleLine(l string) articleLine {
	ind := indentOf(l)
	t := strings.TrimSpace(l)
	for _, mark := range []string{"•", "・", "◦", "‣", "▪", "-", "*"} {
		if strings.HasPrefix(t, mark+" ") {
			return articleLine{indent: ind, bullet: true, content: strings.TrimSpace(t[len(mark)+1:])}
		}
	}
	// Japanese text often sets "・" and "•" without a space.
	for _, mark := range []string{"・", "•"} {
		if rest, ok := strings.CutPrefix(t, mark); ok && rest != "" {
			return articleLine{indent: ind, bullet: true, content: strings.TrimSpace(rest)}
		}
	}
	return articleLine{indent: ind, content: t}
}

// noteMarkers introduce the author's own notes.
var noteMarkers = []string{"📝", ":pencil:", "✏️", "✏", "補足:", "(補足)", "※"}

// stripNoteMarker reports whether s starts with a note marker and returns
// s without it.
func stripNoteMarker(s string) (string, bool) {
	for _, m := range noteMarkers {
		if strings.HasPrefix(s, m) {
			return strings.TrimSpace(strings.TrimPrefix(s, m)), true
		}
	}
	return s, false
}

type articleMeta struct {
	title, release, sig string
	intro               []string
}

// parseArticle cuts a plain-text article into raw entries. Entries are either
// bullets at the shallowest indentation that carries PR suffixes, or bare
// lines when the article does not use bullets for entries; deeper bullets are
// the author's notes.
func parseArticle(lines []string) ([]rawEntry, articleMeta) {
	var meta articleMeta
	usesMarker := false
	bulletSfx, bareSfx, entryIndent := 0, 0, -1
	for _, l := range lines {
		if strings.Contains(l, "📝") || strings.Contains(l, ":pencil:") {
			usesMarker = true
		}
		if !lineHasSuffix(l) {
			continue
		}
		al := splitArticleLine(l)
		if al.bullet {
			bulletSfx++
			if entryIndent < 0 || al.indent < entryIndent {
				entryIndent = al.indent
			}
		} else if al.indent == 0 {
			bareSfx++
		}
	}
	bulleted := bulletSfx > bareSfx

	var (
		out       []rawEntry
		cur       *rawEntry
		note      = -1 // index of the open note in cur.notes
		noteInd   int
		kind      Kind
		prose     bool
		sigs      []string
		section   string
		kindHead  string
		seenStart bool
	)
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
		}
		cur, note = nil, -1
	}
	startNote := func(text string, ind int) {
		cur.notes = append(cur.notes, []string{text})
		note, noteInd = len(cur.notes)-1, ind
	}
	for i, raw := range lines {
		t := strings.TrimSpace(raw)
		if t == "" {
			// Keep paragraph breaks inside the open entry or note.
			if cur != nil && note >= 0 {
				cur.notes[note] = append(cur.notes[note], "")
			} else if cur != nil {
				cur.lines = append(cur.lines, "")
			}
			continue
		}
		if reDigitsOnly.MatchString(t) {
			continue
		}
		// Headings marked as such ("## Feature", "【API の変更】", "■ 所感").
		explicit := false
		if m := reDecoratedHead.FindStringSubmatch(t); m != nil && indentOf(raw) == 0 {
			t, raw, explicit = strings.TrimSpace(m[1]+m[2]), strings.TrimSpace(m[1]+m[2]), true
		}
		al := splitArticleLine(raw)

		if !al.bullet && al.indent == 0 {
			if m := reArticleTitle.FindStringSubmatch(t); m != nil {
				if meta.title == "" {
					meta.title, meta.release = t, m[1]
					if sm := reTitleSIG.FindStringSubmatch(strings.TrimSpace(m[2])); sm != nil {
						meta.sig = NormalizeSIG(sm[1])
					}
				}
				flush()
				kind, prose = "", false
				continue
			}
			if reChangelogStart.MatchString(t) {
				flush()
				kind, prose, seenStart = "", false, true
				continue
			}
			if info, ok := classifyHeading(t); ok && utf8.RuneCountInString(t) <= 80 {
				flush()
				seenStart = true
				switch info.role {
				case rolePass, roleContainer:
					// Keep the current kind: "(No, really…)" and "Changes by Kind" only group.
					if info.role == roleContainer {
						kind, prose = "", false
					}
				case roleSkip:
					kind, prose = "", false
				default:
					kind, prose, sigs, section, kindHead = info.kind, info.role == roleProse, nil, t, t
				}
				continue
			}
			if kind != "" && !prose && isSIGName(t) && utf8.RuneCountInString(t) <= 30 {
				flush()
				sigs = []string{NormalizeSIG(t)}
				section = kindHead + " / " + t
				continue
			}
			if prose && reRefOnly.MatchString(t) {
				if cur != nil {
					if m := reRefOnly.FindStringSubmatch(t); m[1] != "" {
						if n, err := strconv.Atoi(m[1]); err == nil {
							cur.refs = append(cur.refs, n)
						}
					}
				}
				continue
			}
			if reEmptyMarker.MatchString(t) {
				continue
			}
			if explicit || looksLikeHeading(lines, i) {
				flush()
				if prose {
					cur = &rawEntry{kind: kind, section: section, title: t, line: i + 1, prose: true}
					continue
				}
				kind = ""
				continue
			}
		}
		if reEmptyMarker.MatchString(al.content) {
			continue
		}
		if kind == "" {
			if !seenStart && !al.bullet {
				meta.intro = append(meta.intro, t)
			}
			continue
		}
		if prose {
			if cur == nil {
				continue
			}
			if text, ok := stripNoteMarker(al.content); ok {
				startNote(text, al.indent)
				continue
			}
			if note >= 0 && (al.indent > noteInd || !al.bullet && al.indent > 0) {
				cur.notes[note] = append(cur.notes[note], raw)
				continue
			}
			note = -1
			cur.lines = append(cur.lines, raw)
			continue
		}

		hasSfx := lineHasSuffix(raw)
		newEntry := func() {
			flush()
			cur = &rawEntry{kind: kind, section: section, sigs: sigs, lines: []string{al.content}, line: i + 1, suffix: hasSfx}
		}
		if bulleted {
			switch {
			case al.bullet && al.indent <= entryIndent:
				newEntry()
			case cur == nil:
			case al.bullet:
				text, marked := stripNoteMarker(al.content)
				switch {
				case marked:
					startNote(text, al.indent)
				case usesMarker && !cur.suffix:
					cur.lines = append(cur.lines, strings.Repeat(" ", al.indent)+"- "+al.content)
					cur.suffix = hasSfx
				case note >= 0 && al.indent > noteInd:
					cur.notes[note] = append(cur.notes[note], raw)
				default:
					startNote(text, al.indent)
				}
			case note >= 0:
				cur.notes[note] = append(cur.notes[note], raw)
			default:
				cur.lines = append(cur.lines, raw)
			}
			continue
		}
		// Bare-line entries.
		text, marked := stripNoteMarker(al.content)
		switch {
		case !al.bullet && al.indent == 0 && !marked:
			newEntry()
		case cur == nil:
		case marked || al.bullet && (note < 0 || al.indent <= noteInd):
			startNote(text, al.indent)
		case note >= 0:
			cur.notes[note] = append(cur.notes[note], raw)
		default:
			cur.lines = append(cur.lines, raw)
		}
	}
	flush()

	if meta.release == "" {
		for _, l := range meta.intro {
			if m := reIntroRelease.FindStringSubmatch(l); m != nil {
				meta.release = "1." + m[1]
				break
			}
		}
	}
	if meta.sig == "" {
		for _, l := range meta.intro {
			if m := reIntroSIG.FindStringSubmatch(l); m != nil {
				meta.sig = NormalizeSIG(m[1])
				break
			}
		}
	}
	return out, meta
}

// lineHasSuffix reports whether a line ends with a PR suffix, plain or as
// markdown links.
func lineHasSuffix(l string) bool {
	if i := strings.LastIndex(l, "(#"); i >= 0 {
		if _, ok := parsePlainSuffix(l, i); ok {
			return true
		}
	}
	if i := strings.LastIndex(l, "([#"); i >= 0 {
		_, ok := parseMDSuffix(l, i)
		return ok
	}
	return false
}

// looksLikeHeading reports whether line i of an article is a heading the
// tables do not know: a short unindented line without closing punctuation,
// standing alone between blank lines.
func looksLikeHeading(lines []string, i int) bool {
	t := strings.TrimSpace(lines[i])
	n := utf8.RuneCountInString(t)
	if n == 0 || n > 60 || indentOf(lines[i]) > 0 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if strings.ContainsRune("。.!?:、,;)", last) {
		return false
	}
	if rePlainSuffix.MatchString(t) || rePlainPR.MatchString(t) {
		return false
	}
	if i > 0 && strings.TrimSpace(lines[i-1]) != "" {
		return false
	}
	if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
		return false
	}
	return true
}
