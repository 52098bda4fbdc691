package changelog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"kubequiz/internal/testshared"
)

func TestReleaseNotesJSON(t *testing.T) {
	d := mustParse(t, readTestdata(t, "release-notes.json"), Options{})
	if d.Format != FormatReleaseNotesJSON || d.Release != "1.40" || d.Key != "1.40/release-notes" || d.SIG != "" {
		t.Fatalf("format %q release %q key %q sig %q", d.Format, d.Release, d.Key, d.SIG)
	}
	type want struct {
		kind    Kind
		section string
		prs     []int
		authors []string
		sigs    []string
		action  bool
		line    int
	}
	wants := map[int]want{
		900010: {KindAPIChange, "API Change", []int{900010}, []string{"alice"}, []string{"Node", "Storage"}, false, 2},
		900011: {KindUrgentUpgradeNote, "Urgent Upgrade Notes", []int{900011}, []string{"bob"}, []string{"Node"}, true, 16},
		900012: {KindFeature, "Feature", []int{900012}, []string{"carol"}, []string{"Scheduling"}, false, 27},
		900014: {KindBugOrRegression, "Bug or Regression", []int{900014}, []string{"erin"}, []string{"Node"}, false, 45},
		900015: {KindUncategorized, "Uncategorized", []int{900015}, []string{"frank"}, []string{"CLI"}, false, 52},
	}
	if len(d.Entries) != len(wants) {
		t.Fatalf("%d entries, want %d (the note marked do_not_publish left out)", len(d.Entries), len(wants))
	}
	for _, e := range d.Entries {
		if len(e.PRs) == 0 {
			t.Fatalf("entry %q has no PR", e.Key)
		}
		w, ok := wants[e.PRs[0]]
		if !ok {
			t.Errorf("unexpected entry %q", e.Key)
			continue
		}
		got := want{e.Kind, e.Section, e.PRs, e.Authors, e.SIGs, e.ActionRequired, e.Line}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("entry %d = %+v, want %+v", e.PRs[0], got, w)
		}
		if wantKey := fmt.Sprintf("1.40/release-notes/%s/pr-%d", e.Kind, e.PRs[0]); e.Key != wantKey {
			t.Errorf("key %q, want %q", e.Key, wantKey)
		}
		if strings.Contains(e.Text, "Courtesy") || strings.Contains(e.Text, "github.com") {
			t.Errorf("text keeps the credit or the suffix: %q", e.Text)
		}
	}
	for _, c := range []struct {
		feature string
		stage   Stage
		pr      int
	}{
		{"FooVolume", StageGA, 900010},
		{"--bar-mode", StageRemoved, 900011},
		{"BazQuota", StageAlpha, 900012}, // the PR comes from the note's field: its markdown has no suffix
	} {
		if !hasStage(d, c.feature, c.stage, "1.40", c.pr) {
			t.Errorf("no stage change %s %s in 1.40 by #%d: %v", c.feature, c.stage, c.pr, stagesOf(d, c.feature))
		}
	}
}

func TestReleaseNotesJSONOptions(t *testing.T) {
	doc := readTestdata(t, "release-notes.json")
	d := mustParse(t, doc, Options{Release: "v1.41.2"})
	if d.Release != "1.41" || d.Key != "1.41/release-notes" || !hasStage(d, "FooVolume", StageGA, "1.41", 900010) {
		t.Errorf("given release: %q %q, stages %v", d.Release, d.Key, stagesOf(d, "FooVolume"))
	}
	d = mustParse(t, doc, Options{SIG: "node"})
	if d.Key != "1.40/node/release-notes" || len(d.Entries) != 3 || d.OtherSIGs != 2 {
		t.Errorf("for SIG Node: key %q, %d entries, %d of other SIGs; want 3 and 2", d.Key, len(d.Entries), d.OtherSIGs)
	}
	d = mustParse(t, doc, Options{Format: FormatReleaseNotesJSON})
	if len(d.Entries) != 5 {
		t.Errorf("forced format: %d entries", len(d.Entries))
	}
}

func TestReleaseNotesJSONDetectionAndErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		doc     string
		opts    Options
		err     error
		entries int
		release string
	}{
		{"array of notes", "\uFEFF [{\"text\": \"Graduated Foo to GA.\", \"pr_number\": 5, \"release_version\": \"v1.30.0-rc.1\"}]", Options{}, nil, 1, "1.30"},
		{"no release", `{"7": {"markdown": "Added Foo.", "pr_number": 7}}`, Options{}, nil, 1, ""},
		{"most notes' release", `{"1": {"text": "A.", "release_version": "1.30.0"}, "2": {"text": "B.", "release_version": "1.31.0"}, "3": {"text": "C.", "release_version": "1.31.0"}}`, Options{}, nil, 3, "1.31"},
		{"note without text", `{"1": {"text": " ", "pr_number": 1}, "2": {"text": "B.", "pr_number": 2}}`, Options{}, nil, 1, ""},
		{"broken", `{"1": {"text": "A."`, Options{}, ErrUnknownFormat, 0, ""},
		{"not notes", `{"1": 2}`, Options{}, ErrUnknownFormat, 0, ""},
		{"wrong field type", `{"1": {"text": 3}}`, Options{}, ErrUnknownFormat, 0, ""},
		{"text after", `{"1": {"text": "A."}} {}`, Options{}, ErrUnknownFormat, 0, ""},
		{"a scalar", `"notes"`, Options{Format: FormatReleaseNotesJSON}, ErrUnknownFormat, 0, ""},
		{"markdown forced as JSON", "## Changes by Kind\n### Feature\n- x ([#1](https://github.com/kubernetes/kubernetes/pull/1), [@a](https://github.com/a))\n", Options{Format: FormatReleaseNotesJSON}, ErrUnknownFormat, 0, ""},
		{"no notes", `{}`, Options{}, ErrNoEntries, 0, ""},
		{"all left out", `{"1": {"text": "A.", "do_not_publish": true}}`, Options{}, ErrNoEntries, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse([]byte(c.doc), c.opts)
			if c.err != nil {
				if !errors.Is(err, c.err) || d != nil {
					t.Fatalf("Parse = %v, %v; want %v", d, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Format != FormatReleaseNotesJSON || len(d.Entries) != c.entries || d.Release != c.release {
				t.Errorf("format %q, %d entries, release %q; want %d, %q", d.Format, len(d.Entries), d.Release, c.entries, c.release)
			}
		})
	}
}

// releaseNotesFile is one file of the shared release-notes folder.
type releaseNotesFile struct {
	name    string
	release string // what the file states, "" when its notes carry no release_version
	given   string // the release to give
}

var releaseNotesFiles = func() []releaseNotesFile {
	var out []releaseNotesFile
	for minor := 17; minor <= 27; minor++ {
		rel := fmt.Sprintf("1.%d", minor)
		f := releaseNotesFile{name: fmt.Sprintf("release-notes-%s.0.json", rel), given: rel}
		if minor <= 19 {
			f.release = rel
		}
		out = append(out, f)
	}
	return out
}()

type noteCounts struct{ notes, left int }

func countNotes(t *testing.T, b []byte) noteCounts {
	t.Helper()
	var notes map[string]struct {
		DoNotPublish bool `json:"do_not_publish"`
	}
	if err := json.Unmarshal(b, &notes); err != nil {
		t.Fatal(err)
	}
	var c noteCounts
	for _, n := range notes {
		c.notes++
		if n.DoNotPublish {
			c.left++
		}
	}
	return c
}

func TestSharedReleaseNotes(t *testing.T) {
	testshared.Dir(t)
	for _, f := range releaseNotesFiles {
		t.Run(f.name, func(t *testing.T) {
			b, err := os.ReadFile(testshared.Path(t, "release-notes", f.name))
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > MaxDocumentSize {
				t.Fatalf("%d bytes, over MaxDocumentSize", len(b))
			}
			detected := mustParse(t, b, Options{})
			if detected.Format != FormatReleaseNotesJSON || detected.Release != f.release {
				t.Errorf("detected format %q release %q, want %q", detected.Format, detected.Release, f.release)
			}
			d := mustParse(t, b, Options{Release: f.given})
			c := countNotes(t, b)
			if len(d.Entries) != c.notes-c.left {
				t.Errorf("%d entries, want %d notes less %d left out", len(d.Entries), c.notes, c.left)
			}
			keys := map[string]bool{}
			stages := 0
			for _, e := range d.Entries {
				if keys[e.Key] {
					t.Errorf("key %q twice", e.Key)
				}
				keys[e.Key] = true
				if len(e.PRs) == 0 || len(e.Authors) == 0 || e.Text == "" || e.Line < 2 {
					t.Errorf("entry %q: PRs %v authors %v line %d text %q", e.Key, e.PRs, e.Authors, e.Line, e.Text)
				}
				for _, sc := range e.Stages {
					stages++
					if _, _, ok := ParseRelease(sc.Release); !ok || sc.Feature == "" {
						t.Errorf("entry %q: stage change %+v", e.Key, sc)
					}
				}
			}
			if stages < 20 {
				t.Errorf("%d stage changes; a release's notes state more", stages)
			}
		})
	}
}

// stageFactsByPR lists each PR's stage changes as sorted strings.
func stageFactsByPR(d *Document) map[int][]string {
	out := map[int][]string{}
	for _, e := range d.Entries {
		for _, pr := range e.PRs {
			for _, sc := range e.Stages {
				f := fmt.Sprintf("%s %s %s #%d", sc.Feature, sc.Stage, sc.Release, sc.PR)
				if !slices.Contains(out[pr], f) {
					out[pr] = append(out[pr], f)
				}
			}
			sort.Strings(out[pr])
		}
	}
	return out
}

// TestReleaseNotesAndChangelogAgree reads the 1.21 notes in both formats:
// every PR in both gives the same stage changes.
func TestReleaseNotesAndChangelogAgree(t *testing.T) {
	testshared.Dir(t)
	b, err := os.ReadFile(testshared.Path(t, "release-notes", "release-notes-1.21.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	notes := stageFactsByPR(mustParse(t, b, Options{Release: "1.21"}))
	changelog := stageFactsByPR(sharedDocument(t, "up21"))
	both := 0
	for pr, cl := range changelog {
		n, ok := notes[pr]
		if !ok {
			continue
		}
		both++
		if !slices.Equal(n, cl) {
			t.Errorf("#%d: release notes %v, CHANGELOG %v", pr, n, cl)
		}
	}
	if both < 50 {
		t.Errorf("%d PRs with stage changes in both, want most of them", both)
	}
}
