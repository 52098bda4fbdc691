package changelog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read testdata: %v", err)
	}
	return b
}

func mustParse(t *testing.T, doc []byte, opts Options) *Document {
	t.Helper()
	d, err := Parse(doc, opts)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func kindCounts(d *Document) map[Kind]int {
	m := map[Kind]int{}
	for _, e := range d.Entries {
		m[e.Kind]++
	}
	return m
}

// hasStage reports whether some entry states the change; beta and on by
// default are two facts, which StageBetaDefaultOn asks for together.
func hasStage(d *Document, feature string, st Stage, release string, pr int) bool {
	if st == StageBetaDefaultOn {
		return hasStage(d, feature, StageBeta, release, pr) && hasStage(d, feature, StageDefaultOn, release, pr)
	}
	for _, e := range d.Entries {
		for _, sc := range e.Stages {
			if FeatureKey(sc.Feature) == FeatureKey(feature) && sc.Stage == st && sc.Release == release && sc.PR == pr {
				return true
			}
		}
	}
	return false
}

func stagesOf(d *Document, feature string) []StageChange {
	var out []StageChange
	for _, e := range d.Entries {
		for _, sc := range e.Stages {
			if FeatureKey(sc.Feature) == FeatureKey(feature) {
				out = append(out, sc)
			}
		}
	}
	return out
}

func entryWithPR(d *Document, pr int) *Entry {
	for i := range d.Entries {
		if slices.Contains(d.Entries[i].PRs, pr) {
			return &d.Entries[i]
		}
	}
	return nil
}

func mentionType(e *Entry, name string) MentionType {
	for _, m := range e.Mentions {
		if m.Name == name {
			return m.Type
		}
	}
	return ""
}

func TestParseRejectsBadInput(t *testing.T) {
	upstreamNoEntries := "## Changelog since v1.29.0\n\n## Changes by Kind\n\n### Feature\n\nSee [#1](https://github.com/kubernetes/kubernetes/pull/1) for details.\n"
	good := readTestdata(t, "upstream_multi_pr.md")
	tests := []struct {
		name string
		doc  []byte
		opts Options
		want error
	}{
		{"empty", nil, Options{}, ErrEmpty},
		{"white space and BOM", []byte("\uFEFF \n\t\r\n  "), Options{}, ErrEmpty},
		{"NUL byte", append([]byte("## Changes by Kind\n"), 0, 'x'), Options{}, ErrBinary},
		{"invalid UTF-8", []byte("## Changes by Kind\n- caf\xe9 au lait\n"), Options{}, ErrNotUTF8},
		{"over the size limit", bytes.Repeat([]byte("a"), MaxDocumentSize+1), Options{}, ErrTooLarge},
		{"prose without changelog structure", []byte("Dear diary,\nToday I upgraded my cluster and nothing broke.\n"), Options{}, ErrUnknownFormat},
		{"headings but no entries", []byte(upstreamNoEntries), Options{}, ErrNoEntries},
		{"article format forced on prose", []byte("Just a sentence.\n"), Options{Format: FormatArticle}, ErrNoEntries},
		{"unknown format option", good, Options{Format: "yaml"}, ErrInvalidOption},
		{"bad release option", good, Options{Release: "one point two"}, ErrInvalidOption},
		{"bad sig option", good, Options{SIG: "SIG-"}, ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.doc, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse error = %v, want errors.Is(_, %v)", err, tt.want)
			}
			if d != nil {
				t.Errorf("Parse returned a document with error %v, want nil", err)
			}
			if msg := err.Error(); msg != strings.ToLower(msg[:1])+msg[1:] || !strings.HasPrefix(msg, "changelog: ") {
				t.Errorf("error %q: want a lower-case message prefixed with the package name", msg)
			}
		})
	}
}

func TestParseAtSizeLimit(t *testing.T) {
	doc := readTestdata(t, "upstream_multi_pr.md")
	pad := bytes.Repeat([]byte(" "), MaxDocumentSize-len(doc))
	padded := append(append([]byte(nil), doc...), pad...)
	if len(padded) != MaxDocumentSize {
		t.Fatalf("padded size = %d, want %d", len(padded), MaxDocumentSize)
	}
	d := mustParse(t, padded, Options{})
	if got := len(d.Entries); got != 7 {
		t.Errorf("entries = %d, want 7", got)
	}
}

func TestParseTestdata(t *testing.T) {
	type stage struct {
		feature string
		stage   Stage
		release string
		pr      int
	}
	tests := []struct {
		file       string
		opts       Options
		format     Format
		release    string
		sig        string
		key        string
		kinds      map[Kind]int
		stages     []stage
		notStaged  []string // names that must not get a stage change
		mentions   map[string]MentionType
		prs        map[int][]int    // an entry's PR -> all its PRs
		sigs       map[int][]string // an entry's PR -> its SIGs
		notes      map[int]int      // an entry's PR -> number of notes
		textHas    map[int]string   // an entry's PR -> a substring of its text
		actionReqd []int
	}{
		{
			file: "upstream_multi_pr.md", format: FormatUpstream, release: "1.41", key: "1.41",
			kinds: map[Kind]int{KindUrgentUpgradeNote: 1, KindFeature: 3, KindBugOrRegression: 1, KindCleanup: 2},
			stages: []stage{
				{"QuotaSnapshots", StageGA, "1.41", 200010},
				{"QuotaSnapshotEvents", StageGA, "1.41", 200010},
				{"LazyVolumeAttach", StageBetaDefaultOn, "1.41", 200020},
				{"PodSnapshotRestore", StageAlpha, "1.41", 200030},
				{"StaticPodHashing", StageRemoved, "1.41", 200050},
				{"StaticPodHashing", StageGA, "1.38", 0},
				{"memory.high", StageDeprecated, "1.41", 200060},
			},
			notStaged: []string{"NodeLabelSync"},
			mentions: map[string]MentionType{
				"--legacy-socket-path": MentionFlag, "socketPath": MentionConfigField,
				"pod_snapshot_restore_seconds": MentionMetric, "memory.high": MentionCgroupFile,
				"QuotaSnapshotEvents": MentionFeatureGate, "kubelet": MentionComponent,
			},
			prs:        map[int][]int{200010: {200010, 200011}, 200040: {200040}},
			sigs:       map[int][]string{200010: {"Apps", "Node", "Scheduling"}, 200020: nil},
			textHas:    map[int]string{200030: "\n- a pod can be recreated from a snapshot", 200040: "first reported in #199999"},
			actionReqd: []int{200001},
		},
		{
			file: "upstream_crlf.md", format: FormatUpstream, release: "1.10", key: "1.10",
			kinds: map[Kind]int{KindAPIChange: 1, KindDeprecation: 1},
			stages: []stage{
				{"TickerWidget", StageBetaDefaultOn, "1.10", 5001},
				{"widgets.example.k8s.io/v1alpha1", StageDeprecated, "1.10", 5002},
			},
			notStaged: []string{"widgets.example.k8s.io/v1"},
			mentions:  map[string]MentionType{"widgets.example.k8s.io/v1": MentionAPIVersion},
			sigs:      map[int][]string{5002: nil},
			textHas:   map[int]string{5002: "v1. Clients should switch before the next release."},
		},
		{
			file: "upstream_by_sig.md", opts: Options{Release: "v1.16.0"}, format: FormatUpstreamBySIG, release: "1.16", key: "1.16",
			kinds: map[Kind]int{KindHighlight: 1, KindKnownIssue: 1, KindUrgentUpgradeNote: 2, KindFeature: 1, KindUncategorized: 1, KindDependency: 1},
			stages: []stage{
				{"Widget Autoscaling", StageBeta, "1.16", 0},
				{"Widget Autoscaling", StageAlpha, "1.14", 0},
				{"Windows GracefulStop", StageBeta, "1.16", 0},
				{"PodTopologyHints", StageGA, "1.16", 300002},
				{"--masquerade-everything", StageDeprecated, "1.16", 300003},
			},
			sigs: map[int][]string{300001: {"Storage"}, 300003: {"Network"}, 300002: nil},
		},
		{
			file: "article_headings_ja.txt", format: FormatArticle, release: "1.31", sig: "Storage", key: "1.31/storage",
			kinds: map[Kind]int{KindHighlight: 1, KindDeprecation: 1, KindAPIChange: 1, KindFeature: 2},
			stages: []stage{
				{"FooDisk", StageDeprecated, "1.31", 400001},
				{"VolumeAttributesClass", StageBetaDefaultOn, "1.31", 400002},
				{"VolumeAttributesClass", StageAlpha, "1.29", 0},
				{"SnapshotGroupQuota", StageAlpha, "1.31", 400003},
			},
			mentions: map[string]MentionType{"--volume-stats-interval": MentionFlag, "SnapshotGroupQuota": MentionFeatureGate},
			prs:      map[int][]int{400004: {400004, 400005}},
			sigs:     map[int][]string{400002: {"Storage", "API Machinery"}, 400003: {"Storage"}, 400004: nil},
			notes:    map[int]int{400001: 1, 400002: 1, 400003: 0},
		},
		{
			file: "article_markdown_ja.md", format: FormatArticle, release: "1.33", sig: "Auth", key: "1.33/auth",
			kinds: map[Kind]int{KindFeature: 2, KindDeprecation: 1},
			stages: []stage{
				{"TokenWidgetBinding", StageGA, "1.33", 500001},
				{"authz.example.k8s.io/v1beta1", StageDeprecated, "1.33", 500003},
			},
			mentions: map[string]MentionType{"--authz-cache-size": MentionFlag, "authz.example.k8s.io/v1beta1": MentionAPIVersion},
			sigs:     map[int][]string{500001: {"Auth"}, 500002: nil, 500003: {"Auth", "API Machinery"}},
			notes:    map[int]int{500001: 1, 500002: 0},
			textHas:  map[int]string{500002: "--authz-cache-size フラグで指定できるようにした。"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d := mustParse(t, readTestdata(t, tt.file), tt.opts)
			if d.Format != tt.format || d.Release != tt.release || d.SIG != tt.sig || d.Key != tt.key {
				t.Errorf("document = format %q release %q sig %q key %q, want %q %q %q %q",
					d.Format, d.Release, d.SIG, d.Key, tt.format, tt.release, tt.sig, tt.key)
			}
			if got := kindCounts(d); !mapsEqual(got, tt.kinds) {
				t.Errorf("kinds = %v, want %v", got, tt.kinds)
			}
			for _, s := range tt.stages {
				if !hasStage(d, s.feature, s.stage, s.release, s.pr) {
					t.Errorf("missing stage change %s %s in %s (#%d); have %+v", s.feature, s.stage, s.release, s.pr, stagesOf(d, s.feature))
				}
			}
			for _, n := range tt.notStaged {
				if got := stagesOf(d, n); len(got) > 0 {
					t.Errorf("%s: got stage changes %+v, want none", n, got)
				}
			}
			for pr, want := range tt.prs {
				e := entryWithPR(d, pr)
				if e == nil || !slices.Equal(e.PRs, want) {
					t.Errorf("entry #%d: PRs = %v, want %v", pr, prsOf(e), want)
				}
			}
			for pr, want := range tt.sigs {
				e := entryWithPR(d, pr)
				if e == nil || !slices.Equal(e.SIGs, want) {
					t.Errorf("entry #%d: SIGs = %v, want %v", pr, sigsOf(e), want)
				}
			}
			for pr, want := range tt.notes {
				if e := entryWithPR(d, pr); e == nil || len(e.Notes) != want {
					t.Errorf("entry #%d: %d notes, want %d", pr, notesOf(e), want)
				}
			}
			for pr, want := range tt.textHas {
				if e := entryWithPR(d, pr); e == nil || !strings.Contains(e.Text, want) {
					t.Errorf("entry #%d: text %q does not contain %q", pr, textOf(e), want)
				}
			}
			for name, want := range tt.mentions {
				found := false
				for i := range d.Entries {
					if got := mentionType(&d.Entries[i], name); got != "" {
						found = true
						if got != want {
							t.Errorf("mention %s: type %s, want %s", name, got, want)
						}
					}
				}
				if !found {
					t.Errorf("mention %s not found", name)
				}
			}
			for _, pr := range tt.actionReqd {
				if e := entryWithPR(d, pr); e == nil || !e.ActionRequired {
					t.Errorf("entry #%d: ActionRequired = false, want true", pr)
				}
			}
			for _, e := range d.Entries {
				if strings.Contains(e.Text, "](") || strings.Contains(e.Text, "[#") || strings.Contains(e.Text, "`") {
					t.Errorf("entry %s: text keeps markdown: %q", e.Key, e.Text)
				}
				if !strings.HasPrefix(e.Key, d.Key+"/"+string(e.Kind)+"/") {
					t.Errorf("entry key %q does not start with %q", e.Key, d.Key+"/"+string(e.Kind)+"/")
				}
			}
		})
	}
}

func prsOf(e *Entry) []int {
	if e == nil {
		return nil
	}
	return e.PRs
}

func sigsOf(e *Entry) []string {
	if e == nil {
		return nil
	}
	return e.SIGs
}

func notesOf(e *Entry) int {
	if e == nil {
		return -1
	}
	return len(e.Notes)
}

func textOf(e *Entry) string {
	if e == nil {
		return "<no entry>"
	}
	return e.Text
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestCRLFMatchesLF(t *testing.T) {
	crlf := readTestdata(t, "upstream_crlf.md")
	if !bytes.Contains(crlf, []byte("\r\n")) {
		t.Fatal("testdata upstream_crlf.md lost its CRLF line endings")
	}
	lf := bytes.ReplaceAll(crlf, []byte("\r\n"), []byte("\n"))
	a, b := mustParse(t, crlf, Options{}), mustParse(t, lf, Options{})
	if len(a.Entries) != len(b.Entries) {
		t.Fatalf("entries: CRLF %d, LF %d", len(a.Entries), len(b.Entries))
	}
	for i := range a.Entries {
		if a.Entries[i].Key != b.Entries[i].Key || a.Entries[i].Text != b.Entries[i].Text {
			t.Errorf("entry %d: CRLF %q %q, LF %q %q", i, a.Entries[i].Key, a.Entries[i].Text, b.Entries[i].Key, b.Entries[i].Text)
		}
		if strings.Contains(a.Entries[i].Text, "\r") {
			t.Errorf("entry %d keeps a carriage return: %q", i, a.Entries[i].Text)
		}
	}
	if a.SHA256 == b.SHA256 {
		t.Errorf("SHA256 of CRLF and LF input are equal, want the digest of the bytes given")
	}
}

func TestOptionsOverride(t *testing.T) {
	doc := readTestdata(t, "article_headings_ja.txt")
	d := mustParse(t, doc, Options{Release: "v1.32.4", SIG: "sig/api-machinery"})
	if d.Release != "1.32" || d.SIG != "API Machinery" || d.Key != "1.32/api-machinery" {
		t.Errorf("release %q sig %q key %q, want 1.32, API Machinery, 1.32/api-machinery", d.Release, d.SIG, d.Key)
	}
	// Stage changes follow the forced release.
	if !hasStage(d, "SnapshotGroupQuota", StageAlpha, "1.32", 400003) {
		t.Errorf("SnapshotGroupQuota alpha not recorded in the forced release: %+v", stagesOf(d, "SnapshotGroupQuota"))
	}
	// Forcing the format the document already has changes nothing.
	forced := mustParse(t, doc, Options{Format: FormatArticle})
	auto := mustParse(t, doc, Options{})
	if len(forced.Entries) != len(auto.Entries) || forced.Format != FormatArticle {
		t.Errorf("forced format: %d entries (%s), auto %d", len(forced.Entries), forced.Format, len(auto.Entries))
	}
}

func TestUnknownReleaseKeepsEntries(t *testing.T) {
	d := mustParse(t, readTestdata(t, "upstream_by_sig.md"), Options{})
	if d.Release != "" || d.Key != "unknown" {
		t.Errorf("release %q key %q, want empty release and key unknown", d.Release, d.Key)
	}
	if len(d.Entries) != 7 {
		t.Errorf("entries = %d, want 7", len(d.Entries))
	}
}

func TestEntryKeysSurviveEdits(t *testing.T) {
	orig := string(readTestdata(t, "upstream_by_sig.md"))
	edited := strings.NewReplacer(
		// A new entry ahead of the others.
		"## Known Issues\n", "## Known Issues\n- A brand-new issue nobody had seen before.\n",
		// Punctuation and spacing changes in an entry without a PR.
		"Node status may flap for a minute after an upgrade when the cloud provider answers slowly.",
		"Node status may flap  for a minute, after an upgrade, when the cloud provider answers slowly",
		// Reword an entry that has a PR.
		"Graduate PodTopologyHints to GA.", "Graduated PodTopologyHints to GA (finally).",
	).Replace(orig)
	a := mustParse(t, []byte(orig), Options{Release: "1.16"})
	b := mustParse(t, []byte(edited), Options{Release: "1.16"})
	keysB := map[string]bool{}
	for _, e := range b.Entries {
		keysB[e.Key] = true
	}
	for _, e := range a.Entries {
		if !keysB[e.Key] {
			t.Errorf("key %q of %q lost after the edit", e.Key, e.Text)
		}
	}
	if len(b.Entries) != len(a.Entries)+1 {
		t.Errorf("edited document has %d entries, want %d", len(b.Entries), len(a.Entries)+1)
	}
	// Re-parsing gives the same keys in the same order.
	c := mustParse(t, []byte(orig), Options{Release: "1.16"})
	for i := range a.Entries {
		if a.Entries[i].Key != c.Entries[i].Key {
			t.Errorf("entry %d: key %q then %q", i, a.Entries[i].Key, c.Entries[i].Key)
		}
	}
}

func TestWholeChangelogFile(t *testing.T) {
	entry := func(text string, pr int) string {
		return fmt.Sprintf("- %s ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@dev](https://github.com/dev))\n", text, pr, pr)
	}
	doc := "<!-- BEGIN MUNGE: GENERATED_TOC -->\n- [v1.20.1](#v1201)\n<!-- END MUNGE: GENERATED_TOC -->\n\n" +
		"# v1.20.1\n\n## Changelog since v1.20.0\n\n## Changes by Kind\n\n### Bug or Regression\n\n" + entry("Fixed a patch-level bug.", 11) +
		"\n# v1.20.0\n\n## Changelog since v1.19.0\n\n## Changes by Kind\n\n### Feature\n\n" + entry("Promoted `WidgetGate` to GA.", 10) + entry("Added a knob.", 9) +
		"\n# v1.20.0-rc.0\n\n## Changelog since v1.20.0-beta.2\n\n## Changes by Kind\n\n### Feature\n\n" + entry("Pre-release only.", 8)
	d := mustParse(t, []byte(doc), Options{})
	var prs []int
	for _, e := range d.Entries {
		prs = append(prs, e.PRs...)
	}
	if d.Release != "1.20" || !slices.Equal(prs, []int{10, 9}) {
		t.Errorf("release %q, PRs %v; want the v1.20.0 section: 1.20, [10 9]", d.Release, prs)
	}
}

func TestDuplicateKeysGetSuffix(t *testing.T) {
	doc := "## Changelog since v1.29.0\n\n## Changes by Kind\n\n### Feature\n\n" +
		"- First note about the widget. ([#7](https://github.com/kubernetes/kubernetes/pull/7), [@a](https://github.com/a))\n" +
		"- Second note about the widget. ([#7](https://github.com/kubernetes/kubernetes/pull/7), [@a](https://github.com/a))\n"
	d := mustParse(t, []byte(doc), Options{})
	want := []string{"1.30/feature/pr-7", "1.30/feature/pr-7-2"}
	var got []string
	for _, e := range d.Entries {
		got = append(got, e.Key)
	}
	if !slices.Equal(got, want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
}

// stageCase is one sentence and the change it states, or none.
type stageCase struct {
	sentence string
	feature  string // "" means: no stage change at all
	stage    Stage
	release  string
}

func upstreamWith(sentence string) []byte {
	return []byte("## Changelog since v1.29.0\n\n## Changes by Kind\n\n### Feature\n\n- " + sentence +
		" ([#4242](https://github.com/kubernetes/kubernetes/pull/4242), [@someone](https://github.com/someone))\n")
}

func articleWith(sentence string) []byte {
	return []byte("Kubernetes 1.30: SIG-Node の変更内容\n\nFeature\n\n• " + sentence + " (#4242, @someone)\n")
}

func checkStageCases(t *testing.T, cases []stageCase, wrap func(string) []byte) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.sentence, func(t *testing.T) {
			d := mustParse(t, wrap(c.sentence), Options{})
			var got []StageChange
			for _, e := range d.Entries {
				got = append(got, e.Stages...)
			}
			if c.feature == "" {
				if len(got) > 0 {
					t.Errorf("got %+v, want no stage change", got)
				}
				return
			}
			rel := c.release
			if rel == "" {
				rel = "1.30"
			}
			want := []Stage{c.stage}
			if c.stage == StageBetaDefaultOn {
				want = []Stage{StageBeta, StageDefaultOn} // two facts
			}
			for _, w := range want {
				if !slices.ContainsFunc(got, func(sc StageChange) bool {
					return FeatureKey(sc.Feature) == FeatureKey(c.feature) && sc.Stage == w && sc.Release == rel
				}) {
					t.Errorf("got %+v, want %s %s in %s", got, c.feature, w, rel)
				}
			}
		})
	}
}

func TestStageWordingEnglish(t *testing.T) {
	checkStageCases(t, []stageCase{
		{"Promoted the `FancyGate` feature gate to GA.", "FancyGate", StageGA, ""},
		{"The `FancyGate` feature has graduated to stable.", "FancyGate", StageGA, ""},
		{"FancyGate graduates to General Availability.", "FancyGate", StageGA, ""},
		{"The FancyGate feature gate is locked to enabled.", "FancyGate", StageGA, ""},
		{"Moved FancyGate to beta.", "FancyGate", StageBeta, ""},
		{"Promoted FancyGate to beta, and it will be enabled by default.", "FancyGate", StageBetaDefaultOn, ""},
		{"FancyGate graduates to Beta and enabled by default.", "FancyGate", StageBetaDefaultOn, ""},
		{"Promoted FancyGate to beta; it stays off by default.", "FancyGate", StageBeta, ""},
		{"Added a new `FancyGate` alpha feature.", "FancyGate", StageAlpha, ""},
		{"Added a new feature gate `FancyGate`, which is not enabled by default.", "FancyGate", StageAlpha, ""},
		{"Added a new alpha feature gate `FancyGate`. The feature gate will be removed once the fix is out.", "FancyGate", StageAlpha, ""},
		{"Deprecated the `--fancy-flag` flag, which is turned off by most installers.", "--fancy-flag", StageDeprecated, ""},
		{"Fancy things are now available in alpha behind the `FancyGate` feature gate.", "FancyGate", StageAlpha, ""},
		{"Requires the `FancyGate` feature gate (alpha).", "FancyGate", StageAlpha, ""},
		{"The `FancyGate` feature gate is enabled by default.", "FancyGate", StageDefaultOn, ""},
		{"The `FancyGate` feature gate was switched off by default.", "FancyGate", StageDefaultOff, ""},
		{"`FancyGate` is deprecated and will be removed later.", "FancyGate", StageDeprecated, ""},
		{"Removed the `FancyGate` feature gate.", "FancyGate", StageRemoved, ""},
		{"The `fancy/v2alpha1` FancyJob type definitions and clients are deprecated and removed.", "fancy/v2alpha1 FancyJob", StageRemoved, ""},
		{"The GA `FancyGate` feature gate has been removed and is unconditionally enabled.", "FancyGate", StageRemoved, ""},
		{"Reverted the `fancy_id` field added to the `FancyResponse` message.", "fancy_id", StageReverted, ""},
		{"FancyGate was alpha in 1.27 and is beta now.", "FancyGate", StageAlpha, "1.27"},
		// Not changes: fixes, plans, negations, metric stability, replacements.
		{"Fixed a crash in the alpha `FancyGate` feature.", "", "", ""},
		{"The `FancyGate` feature gate will be enabled by default in v1.31.", "", "", ""},
		{"The `FancyGate` feature gate is not yet enabled by default.", "", "", ""},
		{"Promoted the fancy_requests_total metric from alpha to beta stability.", "", "", ""},
		{"When you enable the `FancyGate` feature gate (off by default), widgets get faster.", "", "", ""},
		{"Backends now revert to their old behavior when `FancyGate` is off.", "", "", ""},
		{"Changed deprecated `FancyList` calls to `FancySet`.", "", "", ""},
		// An alpha gate is off by default: a new gate that is on is at a
		// stage the entry does not give.
		{"Added a new feature gate, `FancyGate` (enabled by default).", "", "", ""},
		{"Added a new feature gate `FancyGate`, which defaults to true.", "", "", ""},
		{"Added a new feature gate, `FancyGate` (enabled by default). The new feature gate lets plugins skip retries.", "", "", ""},
		{"Added a new feature gate `FancyGate`; it will be enabled by default in v1.32.", "FancyGate", StageAlpha, ""},
		{"Added a new feature gate `FancyGate` that keeps the default one-shot retries.", "FancyGate", StageAlpha, ""},
		{"`FancyGate` is deprecated and removed in a future release.", "FancyGate", StageDeprecated, ""},
		{"Removed the deprecated `--fancy-socket` flag from kubectl and kubeadm.", "--fancy-socket", StageRemoved, ""},
		// A new gate its entry says will go is a stopgap, not an alpha.
		{"kubeadm: Introduced a new feature gate `FancyGate` to keep the old upgrade order. Its default value is false. This feature gate will be removed in a future release.", "", "", ""},
		// "Deprecated" as an adjective: the metric was deprecated before.
		{"Deprecated metric `fancy_latency_microseconds` has been turned off.", "", "", ""},
		// Something done with the flag went, not the flag.
		{"Kubeadm: Removed the cleanup of the `--fancy-image` kubelet flag on upgrade.", "", "", ""},
		{"Kubeadm: Removed usage of the deprecated `--fancy-check` flag.", "", "", ""},
		{"Removed the special-casing of `FancyGate` on Windows.", "", "", ""},
		{"Deprecated the special-casing of `FancyGate` on Windows.", "", "", ""},
		{"Deprecated warnings about the `--fancy-flag` flag.", "", "", ""},
		// A flag removed from one subcommand stays in the others.
		{"Remove deprecated `--fancy-count, --fancy-mode` from `kubectl run`.", "", "", ""},
		{"Kubeadm: remove the deprecated `--fancy-socket` flag for `kubeadm upgrade apply`.", "", "", ""},
		{"Removed the deprecated `--fancy-socket` flag from the kubelet.", "--fancy-socket", StageRemoved, ""},
		// A group/version with a kind after it is that kind's version.
		{"`fancy.k8s.io/v1beta1` FancySlices are deprecated in favor of `fancy.k8s.io/v1`.", "fancy.k8s.io/v1beta1 FancySlices", StageDeprecated, ""},
		{"The fancy.k8s.io/v1beta1 FancyNode object is deprecated.", "fancy.k8s.io/v1beta1 FancyNode", StageDeprecated, ""},
		{"The `fancy.k8s.io/v1beta1` API is deprecated.", "fancy.k8s.io/v1beta1", StageDeprecated, ""},
		// But deprecating the use of X deprecates X.
		{"Deprecated the use of the `--fancy-flag` flag.", "--fancy-flag", StageDeprecated, ""},
		{"Deprecated usage of the `FancyGate` feature gate.", "FancyGate", StageDeprecated, ""},
		{"kubeadm deprecates the use of the `fancykube` image.", "fancykube image", StageDeprecated, ""},
	}, upstreamWith)
}

func TestStageWordingJapanese(t *testing.T) {
	checkStageCases(t, []stageCase{
		{"FancyGate 機能を stable に昇格させた。", "FancyGate", StageGA, ""},
		{"FancyGate feature gate を GA に昇格させた。", "FancyGate", StageGA, ""},
		{"Fancy Things 機能が GA になりました。", "Fancy Things", StageGA, ""},
		{"FancyGate フィーチャーゲートがベータに昇格し、デフォルトで有効になります。", "FancyGate", StageBetaDefaultOn, ""},
		{"FancyGate feature gate を beta に昇格させ、デフォルトで有効化した。", "FancyGate", StageBetaDefaultOn, ""},
		{"FancyGate feature gate がbeta(デフォルト有効)に昇格しました。", "FancyGate", StageBetaDefaultOn, ""},
		{"alpha の FancyGate 機能を追加した。", "FancyGate", StageAlpha, ""},
		{"FancyGate feature gate をデフォルトで無効化した。", "FancyGate", StageDefaultOff, ""},
		{"fancy.k8s.io/v1beta1 は非推奨になりました。", "fancy.k8s.io/v1beta1", StageDeprecated, ""},
		{"取り下げとなった機能 FancyGate が削除されました。", "FancyGate", StageRemoved, ""},
		{"FancyGate フィーチャーゲートが削除され、無条件で有効化されるようになりました。", "FancyGate", StageRemoved, ""},
		{"FancyGate 機能は 1.28 で alpha として導入されました。", "FancyGate", StageAlpha, "1.28"},
		// Not changes.
		{"アルファの FancyGate 機能を修正しました。", "", "", ""},
		{"FancyGate は 1.32 で削除される予定です。", "", "", ""},
		{"kubeadm: v1.14 より非推奨の kubeadm upgrade apply における --fancy-socket フラグは削除されました。", "", "", ""},
		{"Pod を削除した場合に FancyGate が動かない問題を修正した。", "", "", ""},
	}, articleWith)
}

// TestGateNoLongerSpecified: a gate "unconditionally enabled" that "can no
// longer be specified" is removed in the entry's release, and no GA of it
// is read there; one only enabled unconditionally, or that can no longer be
// disabled, is locked on: GA.
func TestGateNoLongerSpecified(t *testing.T) {
	tests := []struct {
		name, sentence string
		wrap           func(string) []byte
		want           map[string][]string // feature: "stage release", in order
	}{
		{"English, a list of gates",
			"The deprecated feature gates `FancyGate` and `OtherGate` are now unconditionally enabled and can no longer be specified in component invocations.", upstreamWith,
			map[string][]string{"FancyGate": {"removed 1.30"}, "OtherGate": {"removed 1.30"}}},
		{"English, GA since an earlier release",
			"The `FancyGate` feature gate that is GA since v1.17 is unconditionally enabled, and can no longer be specified via the --feature-gates argument.", upstreamWith,
			map[string][]string{"FancyGate": {"ga 1.17", "removed 1.30"}}},
		{"English, only enabled unconditionally",
			"The `FancyGate` feature gate is now unconditionally enabled.", upstreamWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"English, no longer to be set",
			"The `FancyGate` feature gate is now unconditionally enabled and can no longer be set.", upstreamWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"English, no longer to be disabled",
			"The `FancyGate` feature gate is unconditionally enabled and can no longer be disabled.", upstreamWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"Japanese, a list of gates",
			"非推奨のfeature gate FancyGate, OtherGate が無条件に有効になり、コンポーネントの呼び出しで指定することができなくなりました", articleWith,
			map[string][]string{"FancyGate": {"removed 1.30"}, "OtherGate": {"removed 1.30"}}},
		{"English, a value that can no longer be specified",
			"The `FancyGate` feature gate is now unconditionally enabled and the value false can no longer be specified.", upstreamWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"English, a flag that can no longer be specified",
			"The `FancyGate` feature gate is now unconditionally enabled, and `--feature-gates=FancyGate=false` can no longer be specified.", upstreamWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"Japanese, false can no longer be specified",
			"FancyGate フィーチャーゲートが無条件に有効になり、false を指定することができなくなりました。", articleWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"Japanese, disabling can no longer be specified",
			"FancyGate フィーチャーゲートが無条件で有効になり、無効化を指定できなくなりました。", articleWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"Japanese, a value can no longer be specified",
			"FancyGate フィーチャーゲートが無条件に有効化され、値を false に指定できなくなった。", articleWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
		{"Japanese, only enabled unconditionally",
			"FancyGate フィーチャーゲートが無条件で有効になりました。", articleWith,
			map[string][]string{"FancyGate": {"ga 1.30"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.wrap(tt.sentence), Options{})
			got := map[string][]string{}
			for _, e := range d.Entries {
				for _, sc := range e.Stages {
					got[sc.Feature] = append(got[sc.Feature], string(sc.Stage)+" "+sc.Release)
				}
			}
			if !maps.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("stage changes = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLaterEventsAndReverts(t *testing.T) {
	doc := "Kubernetes 1.30: SIG-Node の変更内容\n\nFeature\n\n" +
		"• FancyGate feature gate を beta に昇格させた。 (#1001, @a)\n" +
		"• FancyGate feature gate をデフォルトで無効化した。 (#1002, @b)\n" +
		"  • :pencil: この変更は #1003 で revert され、リリース時点ではデフォルト有効に戻っています。\n"
	d := mustParse(t, []byte(doc), Options{})
	tl, err := NewTimeline(d)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	got, ok := tl.StageIn("FancyGate", "1.30")
	if !ok || got.Stage != StageBetaDefaultOn || got.PR != 1003 || !got.Revert {
		t.Errorf("StageIn = %+v, %v; want beta_default_on from the revert in #1003", got, ok)
	}
	hist := tl.History("FancyGate")
	var prs []int
	for _, e := range hist {
		prs = append(prs, e.PR)
	}
	if !slices.Equal(prs, []int{1001, 1002, 1003}) {
		t.Errorf("history PRs = %v, want [1001 1002 1003]", prs)
	}
}

func TestReleaseHelpers(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.9", "1.10", -1},
		{"1.10", "1.9", 1},
		{"v1.36.0", "1.36", 0},
		{"1.36", "1.100", -1},
		{"2.0", "1.99", 1},
		{"not a release", "1.1", -1},
		{"1.1", "", 1},
	}
	for _, tt := range tests {
		if got := CompareReleases(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareReleases(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	for in, want := range map[string]string{"v1.36.0-rc.1": "1.36", "1.9": "1.9", " V1.17 ": "1.17"} {
		if got, err := NormalizeRelease(in); err != nil || got != want {
			t.Errorf("NormalizeRelease(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "v", "1.x", "0.0", "1.2.3.4", "1.-2"} {
		if got, err := NormalizeRelease(in); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("NormalizeRelease(%q) = %q, %v; want ErrInvalidOption", in, got, err)
		}
	}
}

func TestSIGNames(t *testing.T) {
	for in, want := range map[string]string{
		"SIG-Node": "Node", "SIG Node": "Node", "sig/api-machinery": "API Machinery", "cli": "CLI",
		"SIG Cluster Lifecycle": "Cluster Lifecycle", "sig/cloud-provider": "Cloud Provider",
		"sig/new-thing": "New Thing", "sig": "", "K8s Infra": "K8s Infra",
		// Markup and sentences are no names.
		"<i>Node</i>": "", "Node & Apps": "", "the one that handles all of the widgets": "",
	} {
		if got := NormalizeSIG(in); got != want {
			t.Errorf("NormalizeSIG(%q) = %q, want %q", in, got, want)
		}
	}
	lists := []struct {
		in   string
		want []string
	}{
		{"API Machinery, Apps, Node and Testing", []string{"API Machinery", "Apps", "Node", "Testing"}},
		{"Node and Testing", []string{"Node", "Testing"}},
		{"sig/api-machinery,sig/node,sig/node", []string{"API Machinery", "Node"}},
		{"Node", []string{"Node"}},
	}
	for _, tt := range lists {
		if got := splitSIGList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("splitSIGList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMentionClasses(t *testing.T) {
	tests := []struct {
		token string
		want  MentionType
	}{
		{"--reserved-cpus", MentionFlag},
		{"kubeadm.k8s.io/v1beta1", MentionAPIVersion},
		{"batch/v2alpha1", MentionAPIVersion},
		{"memory.low", MentionCgroupFile},
		{"cpu.weight", MentionCgroupFile},
		{"apiserver_request_total", MentionMetric},
		{"scheduler_goroutines", ""}, // one underscore: a metric only in context
		{"spec.hostUsers", MentionFieldPath},
		{"ImageVolume", MentionIdentifier},
		{"KubeletPSI", MentionIdentifier},
		{"CSIMigration", MentionIdentifier},
		{"memoryReservationPolicy", MentionConfigField},
		{"kube-proxy", MentionComponent},
		{"CRDs", ""},
		{"IPv6", ""},
		{"GitHub", ""},
		{"docker.io", ""},
		{"v1.36", ""},
	}
	for _, tt := range tests {
		if got := classifyToken(tt.token); got != tt.want {
			t.Errorf("classifyToken(%q) = %q, want %q", tt.token, got, tt.want)
		}
	}
}

func TestMentionsInContext(t *testing.T) {
	tests := []struct {
		text string
		name string
		want MentionType
	}{
		{"Add `scheduler_goroutines` metric to the scheduler.", "scheduler_goroutines", MentionMetric},
		{"kubelet_metrics_provider メトリクスを追加した。", "kubelet_metrics_provider", MentionMetric},
		{"Added the `image_id` field to the response.", "image_id", MentionConfigField},
		{"PullImageResponse に image_id フィールドを追加した。", "image_id", MentionConfigField},
		{"init に kubelet-finalize フェーズを追加しました。", "kubelet-finalize", MentionCode},
		{"Promoted the `A1Gate` and `B2Gate` feature gates to GA.", "A1Gate", MentionFeatureGate},
		{"Removed GA'ed feature gates: `OldOne`, `OldTwo`, and `OldThree`.", "OldThree", MentionFeatureGate},
		{"Kubelet Graceful Node Shutdown feature graduates to Beta.", "Graceful Node Shutdown", MentionFeature},
		{"kubeletのGraceful Node Shutdown機能がベータになりました。", "Graceful Node Shutdown", MentionFeature},
		{"この機能はalphaのため、ProbeTermGracefeature gateを有効にする必要があります。", "ProbeTermGrace", MentionFeatureGate},
		{"v1.18以降でGAになっているfeature gateWindowsThingとWindowsOther", "WindowsOther", MentionFeatureGate},
	}
	for _, tt := range tests {
		ms := extractMentions(toPlain(tt.text))
		var got MentionType
		for _, m := range ms {
			if m.name == tt.name {
				got = m.typ
			}
		}
		if got != tt.want {
			t.Errorf("%q: %s is %q, want %q (all: %+v)", tt.text, tt.name, got, tt.want, ms)
		}
	}
}

func TestConceptsFromNotes(t *testing.T) {
	doc := "Kubernetes 1.30: SIG-Node の変更内容\n\nFeature\n\n" +
		"• FancyGate feature gate を beta に昇格させた。 (#1001, @a)\n" +
		"  • :pencil: ウィジェットを並べ替えずに表示できる機能です。\n" +
		"  • :pencil: 設定できる値:\n" +
		"    • Tidy: 画面に収まるように詰めて表示します。\n"
	d := mustParse(t, []byte(doc), Options{})
	want := map[string]string{
		"FancyGate": "ウィジェットを並べ替えずに表示できる機能です。",
		"Tidy":      "画面に収まるように詰めて表示します。",
	}
	got := map[string]string{}
	for _, c := range d.Concepts() {
		if c.Document != "1.30/node" || c.Release != "1.30" || c.SIG != "Node" {
			t.Errorf("concept %+v: provenance does not match the document", c)
		}
		if _, ok := want[c.Term]; ok && strings.Contains(c.Description, want[c.Term]) {
			got[c.Term] = want[c.Term]
		}
	}
	if !mapsEqual(got, want) {
		t.Errorf("concepts found %v, want %v", got, want)
	}
}

// A deprecated version of a kind deprecates neither the kind nor the
// whole group/version; a group/version beside a flag or a gate is no kind's.
func TestVersionedKindIsOneSubject(t *testing.T) {
	checkStageCases(t, []stageCase{
		{"`fancy.k8s.io/v1beta1` FancySlices are deprecated.", "fancy.k8s.io/v1beta1 FancySlices", StageDeprecated, ""},
		{"Removed `fancy.k8s.io/v1beta1` `--fancy-flag` handling: the flag `--fancy-flag` is removed.", "--fancy-flag", StageRemoved, ""},
	}, upstreamWith)
	for _, s := range []string{
		"`fancy.k8s.io/v1beta1` FancySlices are deprecated in favor of `fancy.k8s.io/v1`.",
		"The fancy.k8s.io/v1beta1 FancyNode object is deprecated.",
	} {
		d := mustParse(t, upstreamWith(s), Options{})
		for _, e := range d.Entries {
			for _, sc := range e.Stages {
				if sc.Feature == "fancy.k8s.io/v1beta1" || !strings.HasPrefix(sc.Feature, "fancy.k8s.io/v1beta1 ") {
					t.Errorf("%q: stage change of %q, want one of the versioned kind only", s, sc.Feature)
				}
			}
		}
	}
}

// A change written without its bullet under another PR's entry is an entry
// of its own; a paragraph that goes on with the same PR is not.
func TestBulletlessEntries(t *testing.T) {
	suffix := func(pr int) string {
		return fmt.Sprintf(" ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@dev](https://github.com/dev))", pr, pr)
	}
	head := "## Changelog since v1.29.0\n\n## Changes by Kind\n\n### Feature\n\n"
	tests := []struct {
		name  string
		body  string
		texts []string
	}{
		{"another PR", "- Widgets negotiate protobuf with the server." + suffix(4001) + "\n" +
			"Renamed FeatureGate WidgetQueue to WidgetFairness." + suffix(4002) + "\n",
			[]string{"Widgets negotiate protobuf with the server.", "Renamed FeatureGate WidgetQueue to WidgetFairness."}},
		{"the same PR", "- The `--widget-config` flag accepts `all=false`." + suffix(4001) + "\n" +
			"The `--gizmo-config` flag accepts `all=false` too." + suffix(4001) + "\n",
			[]string{"The --widget-config flag accepts all=false. The --gizmo-config flag accepts all=false too."}},
		{"a wrapped entry", "- Widgets negotiate protobuf\nwith the server." + suffix(4001) + "\n",
			[]string{"Widgets negotiate protobuf with the server."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, []byte(head+tt.body), Options{})
			var got []string
			for _, e := range d.Entries {
				got = append(got, e.Text)
			}
			if !slices.Equal(got, tt.texts) {
				t.Errorf("entries %q, want %q", got, tt.texts)
			}
		})
	}
}

// A Japanese sentence with a subject of its own is not about a gate a later
// sentence names, and a name after a predicate's comma starts the next
// clause; a list after a comma does not, and a topic of time or place is
// no subject of its own.
func TestJapaneseClauseSubjects(t *testing.T) {
	checkStageCases(t, []stageCase{
		{"GA に昇格: FancyAlpha、FancyBeta", "FancyBeta", StageGA, ""},
		{"FancyGate feature gate を追加した。今回のリリースでは beta に昇格した。", "FancyGate", StageBeta, ""},
		{"FancyGate feature gate を追加した。これを beta に昇格させた。", "FancyGate", StageBeta, ""},
		{"Fancy の taint / toleration。 ResourceSlice 内の FancyTaints はデフォルト有効、 FancyRules は別 feature gate。", "FancyTaints", StageDefaultOn, ""},
	}, articleWith)
	for _, s := range []string{
		"DRA: fancy taint と toleration(KEP #5055)を beta に昇格させた。 FancyRules のサポートは FancyRules feature gate を有効化するかどうかに依存する。",
		"Fancy の taint / toleration。 ResourceSlice 内の taint はデフォルト有効、 FancyRules は別 feature gate。",
	} {
		d := mustParse(t, articleWith(s), Options{})
		for _, e := range d.Entries {
			for _, sc := range e.Stages {
				if sc.Feature == "FancyRules" {
					t.Errorf("%q: FancyRules %s, want no stage of it", s, sc.Stage)
				}
			}
		}
	}
}

// A sentence defines its subject only when it says what the subject is:
// not when it tells of a change, of what must be done, or of what an
// actor (a driver, a controller, a user) can now do.
func TestSentenceDefinitions(t *testing.T) {
	tests := []struct {
		text, term string // term "" when the text defines nothing
	}{
		{"WidgetProxy は停止中のエンドポイントを扱うようになり、無停止のデプロイが可能になりました。", ""},
		{"WidgetProxy は停止中のエンドポイントを扱うようになった。", ""},
		{"Widget driver は widgets/driver に対して update 権限を付与される必要がある。", ""},
		{"Widget driver は ResourceSlice 内の属性に list 型のフィールドを利用できる。", ""},
		{"Widget controllers は古いウィジェットを片付けられる。", ""},
		{"WSI (Widget Stall Information) は、ウィジェットの待ち時間を表す Linux カーネルの機能です。", "WSI"},
		{"GetAllocatableWidgetsはそのノードで利用可能なウィジェットの一覧を返します。", "GetAllocatableWidgets"},
		{"WidgetPool は、スケジューラがウィジェットの要求をまとめてから Node を選ぶ機能です。", "WidgetPool"},
		{"WidgetQoS という、ウィジェットのメモリを回収から守る機能。", "WidgetQoS"},
		{"Widget driver は、ウィジェットを Pod に割り当てるプラグインです。", "Widget driver"},
		// The tense of an "X という…" sentence tells nothing of X: it is
		// what the sentence is about.
		{"kubelet に GetAllocatableWidgets という新しい rpc が実装されました。", "GetAllocatableWidgets"},
	}
	for _, tt := range tests {
		var terms []string
		for _, c := range definitions(tt.text) {
			terms = append(terms, c.Term)
		}
		switch {
		case tt.term == "" && len(terms) > 0:
			t.Errorf("%q defines %q, want nothing", tt.text, terms)
		case tt.term != "" && (len(terms) != 1 || terms[0] != tt.term):
			t.Errorf("%q defines %q, want %q", tt.text, terms, tt.term)
		}
	}
}

// TestEnglishDefinitions: "X is a …", "X allows …" or a "X: …" line defines
// X only when X is made of words a name has, and a sentence only when it
// does not point back to another (sentences of the shared release notes
// and 1.28 CHANGELOG).
func TestEnglishDefinitions(t *testing.T) {
	tests := []struct {
		from, text, term string // term "" when the text defines nothing
	}{
		{"1.20 release notes #95719", "There is a new `pv_collector_total_pv_count` metric that counts persistent volumes by the volume plugin name and volume mode.", ""},
		{"1.26 release notes #112744", "Added a feature that allows a `StatefulSet` to start numbering replicas from an arbitrary non-negative ordinal, using the `.spec.ordinals.start` field.", ""},
		{"1.20 release notes #94494", "Port mapping now allows the same `containerPort` of different containers to different `hostPort` without naming the mapping explicitly.", ""},
		{"1.27 release notes #115374", "kubelet allows pods to use the `net.ipv4.ip_local_reserved_ports` sysctl by default and the minimal kernel version is 3.16; Pod Security admission allows this sysctl in v1.27+ versions of the baseline and restricted policies.", ""},
		{"1.20 release notes #95533", "kube-apiserver now maintains a Lease object to identify itself: \n- The feature is under feature gate `APIServerIdentity`. \n- Two flags are added to kube-apiserver: `identity-lease-duration-seconds`, `identity-lease-renew-interval-seconds`", ""},
		{"1.18 release notes #88503", "AppProtocol is a new field on Service and Endpoints resources, enabled with the ServiceAppProtocol feature gate.", "AppProtocol"},
		{"1.28 CHANGELOG", "`ClusterEventWithHint` allows each plugin to filter out more useless events via the callback function named `QueueingHintFn`.", "ClusterEventWithHint"},
	}
	for _, tt := range tests {
		var terms []string
		for _, c := range definitions(strings.ReplaceAll(tt.text, "`", "")) { // an entry's text is plain
			terms = append(terms, c.Term)
		}
		switch {
		case tt.term == "" && len(terms) > 0:
			t.Errorf("%s: %q defines %q, want nothing", tt.from, tt.text, terms)
		case tt.term != "" && (len(terms) != 1 || terms[0] != tt.term):
			t.Errorf("%s: %q defines %q, want %q", tt.from, tt.text, terms, tt.term)
		}
	}
}

// TestUpstreamForOneSIG: an upstream CHANGELOG parsed for one SIG leaves
// out the entries labelled with other SIGs only and keeps those without a
// label, counting both; an article, which is about one SIG already, keeps
// every entry.
func TestUpstreamForOneSIG(t *testing.T) {
	entry := func(pr int, text, sigs string) string {
		return fmt.Sprintf("- %s ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@dev](https://github.com/dev))%s\n", text, pr, pr, sigs)
	}
	doc := []byte("## Changelog since v1.29.0\n\n## Changes by Kind\n\n### Feature\n\n" +
		entry(5001, "Added widget routing to kube-proxy.", " [SIG Network]") +
		entry(5002, "The kubelet reports widget routes.", " [SIG Network and Node]") +
		entry(5003, "The kubelet caches widgets.", " [SIG Node]") +
		entry(5004, "Widgets are faster.", ""))
	tests := []struct {
		sig                   string
		wantPRs               []int
		otherSIGs, unlabelled int
		wantErr               string
	}{
		{"", []int{5001, 5002, 5003, 5004}, 0, 0, ""},
		{"network", []int{5001, 5002, 5004}, 1, 1, ""},
		{"SIG-Node", []int{5002, 5003, 5004}, 1, 1, ""},
		{"Storage", []int{5004}, 3, 1, ""},
	}
	for _, tt := range tests {
		d, err := Parse(doc, Options{SIG: tt.sig})
		if err != nil {
			t.Fatalf("SIG %q: %v", tt.sig, err)
		}
		var prs []int
		for _, e := range d.Entries {
			prs = append(prs, e.PRs...)
		}
		if !slices.Equal(prs, tt.wantPRs) || d.OtherSIGs != tt.otherSIGs || d.Unlabelled != tt.unlabelled {
			t.Errorf("SIG %q: entries of PRs %v, %d of other SIGs, %d without a label; want %v, %d, %d",
				tt.sig, prs, d.OtherSIGs, d.Unlabelled, tt.wantPRs, tt.otherSIGs, tt.unlabelled)
		}
	}
	// Every entry another SIG's: nothing to read.
	if _, err := Parse([]byte("## Changelog since v1.29.0\n\n## Changes by Kind\n\n### Feature\n\n"+entry(5003, "The kubelet caches widgets.", " [SIG Node]")),
		Options{SIG: "Storage"}); !errors.Is(err, ErrNoEntries) || !strings.Contains(err.Error(), "all labelled with other SIGs than Storage") {
		t.Errorf("a CHANGELOG of other SIGs only: %v, want ErrNoEntries saying so", err)
	}
	art := mustParse(t, articleWith("FancyGate を beta に昇格させた。"), Options{SIG: "Network"})
	if len(art.Entries) != 1 || art.OtherSIGs != 0 || art.SIG != "Network" {
		t.Errorf("article for SIG Network: %d entries, %d left out, SIG %q; want 1, 0, Network", len(art.Entries), art.OtherSIGs, art.SIG)
	}
}

// A removal of a limitation, or of the support of what an entry's first
// sentence introduced, removes nothing the sentence names; a first
// sentence's own removal still does.
func TestRemovalOfALimitOrASupport(t *testing.T) {
	checkStageCases(t, []stageCase{
		{"Kubeadm: the limitation that the `widgetErrors` field can not be set to `all` in the config file has been removed.", "", "", ""},
		{"The restriction on `--widget-port` values below 1024 was removed.", "", "", ""},
		{"Added widget swap support for both `Limited` and `Unlimited` modes. Support for `cgroup v1` is removed.", "", "", ""},
		{"Support for the `--widget-mode` flag is removed.", "--widget-mode", StageRemoved, ""},
		// A later sentence's removal stands when the first adds no
		// support, or when it names a flag or a gate.
		{"Removed the deprecated `--foo-mode` flag. Support for the `--bar-mode` flag is also removed.", "--bar-mode", StageRemoved, ""},
		{"The `WidgetGate` feature gate graduated to GA. Support for the `WidgetLegacy` feature gate is removed.", "WidgetLegacy", StageRemoved, ""},
		{"Added widget support for `Limited` mode. Support for the `--widget-legacy` flag is removed.", "--widget-legacy", StageRemoved, ""},
		{"Removed the deprecated `--foo-mode` flag. Support for `cgroup v1` is removed.", "cgroup v1", StageRemoved, ""},
		{"Removed support for the legacy `WidgetAPI`. Support for `cgroup v1` is removed.", "cgroup v1", StageRemoved, ""},
		{"The `WidgetAPI` is now unsupported. Support for `cgroup v1` is removed.", "cgroup v1", StageRemoved, ""},
		{"The widget support matrix was updated. Support for `cgroup v1` is removed.", "cgroup v1", StageRemoved, ""},
		// "warning" before a name is no limit on it.
		{"The warning `widget_warning_total` metric was removed.", "widget_warning_total", StageRemoved, ""},
		{"The `WidgetLimits` feature gate has been removed.", "WidgetLimits", StageRemoved, ""},
		// Going back to an old behaviour undoes no change of the release.
		{"The `widget_rules_total` metric has now reverted back\n  to its pre-1.29 behavior of counting every rule.", "", "", ""},
	}, upstreamWith)
}

// TestLinksToPlain: a link becomes its label, its address gone whole even
// when it holds parentheses.
func TestLinksToPlain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"See [the KEP](https://github.com/kubernetes/enhancements/issues/1) for more.", "See the KEP for more."},
		{"See [a page](https://en.wikipedia.org/wiki/Widget_(computing)) and more.", "See a page and more."},
		{"See [link](javascript:alert(2)) and more.", "See link and more."},
		{"Not a link: [x] (y).", "Not a link: [x] (y)."},
		// Unbalanced or doubly nested: the address is cut at its first ")".
		{"See [x](https://h/a_(b) more.", "See x more."},
		{"See [x](https://h/a((b))) more.", "See x)) more."},
	}
	for _, tt := range tests {
		if got := toPlain(tt.in).text; got != tt.want {
			t.Errorf("toPlain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// countdownCtx is a context whose Err turns to DeadlineExceeded after it
// has answered nil a given number of times.
type countdownCtx struct {
	context.Context
	left int
}

func (c *countdownCtx) Err() error {
	if c.left <= 0 {
		return context.DeadlineExceeded
	}
	c.left--
	return nil
}

func TestParseContextStops(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("# v1.99.0\n\n## Changelog since v1.98.0\n\n## Changes by Kind\n\n### Feature\n\n")
	for n := 1; n <= 1000; n++ {
		fmt.Fprintf(&sb, "- Graduated FeatureGate%d to GA. ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@someone](https://github.com/someone)) [SIG Node]\n", n, n, n)
	}
	doc := []byte(sb.String())
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		want error
		at   string // where the error says it stopped
	}{
		{"done before it starts", cancelled, context.Canceled, "changelog: parse: context canceled"},
		{"deadline among the entries", &countdownCtx{Context: context.Background(), left: 3}, context.DeadlineExceeded, "entry 128 of 1000"},
		{"time enough", &countdownCtx{Context: context.Background(), left: 1 << 20}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseContext(tt.ctx, doc, Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("ParseContext error = %v, want %v", err, tt.want)
			}
			if tt.want == nil {
				if len(d.Entries) != 1000 {
					t.Errorf("entries = %d, want 1000", len(d.Entries))
				}
				return
			}
			if d != nil || !strings.Contains(err.Error(), tt.at) {
				t.Errorf("ParseContext = %v, %v; want no document and an error naming %q", d, err, tt.at)
			}
		})
	}
}
