package changelog

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// releaseDoc builds a small upstream document for one release whose entries
// are the given sentences, each with its own PR.
func releaseDoc(t *testing.T, release string, firstPR int, sentences ...string) *Document {
	t.Helper()
	major, minor, ok := ParseRelease(release)
	if !ok {
		t.Fatalf("bad release %q", release)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Changelog since v%d.%d.0\n\n## Changes by Kind\n\n### Feature\n\n", major, minor-1)
	for i, s := range sentences {
		pr := firstPR + i
		fmt.Fprintf(&b, "- %s ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@dev](https://github.com/dev))\n", s, pr, pr)
	}
	return mustParse(t, []byte(b.String()), Options{})
}

func TestTimelineOrdersReleasesNumerically(t *testing.T) {
	// Added out of order, and 1.10 must come after 1.9.
	docs := []*Document{
		releaseDoc(t, "1.36", 3600, "Promoted the `WidgetGate` feature gate to GA."),
		releaseDoc(t, "1.9", 900, "Added a new `WidgetGate` alpha feature."),
		releaseDoc(t, "1.10", 1000, "Promoted the `WidgetGate` feature gate to beta."),
		releaseDoc(t, "1.12", 1200, "The `WidgetGate` feature gate is enabled by default."),
	}
	tl, err := NewTimeline(docs...)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	var got []string
	for _, e := range tl.Events("widgetgate") {
		got = append(got, fmt.Sprintf("%s %s #%d", e.Release, e.Stage, e.PR))
	}
	want := []string{"1.9 alpha #900", "1.10 beta #1000", "1.12 default_on #1200", "1.36 ga #3600"}
	if !slices.Equal(got, want) {
		t.Errorf("Events = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		stage Stage
		want  string
		ok    bool
	}{
		{StageAlpha, "1.9", true},
		{StageBeta, "1.10", true},
		{StageDefaultOn, "1.12", true},
		{StageGA, "1.36", true},
		{StageRemoved, "", false},
	} {
		if got, ok := tl.ReleaseOf("WidgetGate", tt.stage); got != tt.want || ok != tt.ok {
			t.Errorf("ReleaseOf(WidgetGate, %s) = %q, %v; want %q, %v", tt.stage, got, ok, tt.want, tt.ok)
		}
	}
	if got := tl.Features(); !slices.Equal(got, []string{"WidgetGate"}) {
		t.Errorf("Features = %q, want [WidgetGate]", got)
	}
	for _, e := range tl.Events("WidgetGate") {
		if e.Document == "" || !strings.HasPrefix(e.Entry, e.Document+"/") {
			t.Errorf("event %+v: entry key does not belong to its document", e)
		}
	}
}

func TestTimelineWithinRelease(t *testing.T) {
	tests := []struct {
		name      string
		sentences []string
		want      Stage
		wantPR    int
		revert    bool
	}{
		{"later PR overrides", []string{
			"Promoted the `WidgetGate` feature gate to beta.",
			"The `WidgetGate` feature gate is switched off by default.",
		}, StageDefaultOff, 101, false},
		{"level and default combine", []string{
			"Promoted the `WidgetGate` feature gate to beta.",
			"The `WidgetGate` feature gate is enabled by default.",
		}, StageBetaDefaultOn, 101, false},
		{"beta stated with off by default", []string{
			"Promoted the feature gate `WidgetGate` to beta, and it is turned off by default.",
		}, StageBeta, 100, false},
		{"beta, then switched off", []string{
			"Promoted the feature gate `WidgetGate` to beta.",
			"The `WidgetGate` feature gate is switched off by default.",
		}, StageDefaultOff, 101, false},
		{"removal stays", []string{
			"Removed the `WidgetGate` feature gate.",
			"Promoted the `WidgetGate` feature gate to GA.",
		}, StageRemoved, 101, false},
		{"revert alone", []string{
			"Added the `WidgetGate` feature gate (alpha).",
			"Reverted the `WidgetGate` feature gate.",
		}, StageReverted, 101, true},
		{"state after revert", []string{
			"Added the `WidgetGate` feature gate (alpha).",
			"Reverted the `WidgetGate` feature gate.",
			"Added the `WidgetGate` feature gate (beta, enabled by default).",
		}, StageBetaDefaultOn, 102, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := NewTimeline(releaseDoc(t, "1.20", 100, tt.sentences...))
			if err != nil {
				t.Fatalf("NewTimeline: %v", err)
			}
			got, ok := tl.StageIn("WidgetGate", "v1.20.0")
			if !ok || got.Stage != tt.want || got.PR != tt.wantPR || got.Revert != tt.revert {
				t.Errorf("StageIn = %+v, %v; want %s #%d revert=%v (history %+v)", got, ok, tt.want, tt.wantPR, tt.revert, tl.History("WidgetGate"))
			}
			prs := map[int]bool{} // a sentence may state two facts ("beta, enabled by default")
			for _, e := range tl.History("WidgetGate") {
				prs[e.PR] = true
			}
			if len(prs) != len(tt.sentences) {
				t.Errorf("History has events of %d PRs, want %d", len(prs), len(tt.sentences))
			}
		})
	}
}

func TestTimelineAdd(t *testing.T) {
	doc := releaseDoc(t, "1.20", 100, "Promoted the `WidgetGate` feature gate to GA.")
	var tl Timeline // the zero value is usable
	if err := tl.Add(doc); err != nil {
		t.Fatalf("Add: %v", err)
	}
	if err := tl.Add(doc); err != nil {
		t.Fatalf("Add again: %v", err)
	}
	if n := len(tl.History("WidgetGate")); n != 1 {
		t.Errorf("adding the same document twice gave %d events, want 1", n)
	}
	if err := tl.Add(nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("Add(nil) = %v, want ErrInvalidOption", err)
	}
	noRelease := &Document{Key: "unknown", Entries: doc.Entries}
	if err := tl.Add(noRelease); !errors.Is(err, ErrNoRelease) {
		t.Errorf("Add(no release) = %v, want ErrNoRelease", err)
	}
	if _, ok := tl.ReleaseOf("NoSuchGate", StageGA); ok {
		t.Errorf("ReleaseOf(NoSuchGate) found a release")
	}
	if ev := tl.Events("NoSuchGate"); ev != nil {
		t.Errorf("Events(NoSuchGate) = %+v, want nil", ev)
	}
}

func TestTimelineNamesAndJSON(t *testing.T) {
	a := releaseDoc(t, "1.20", 100, "Kubelet Graceful Node Shutdown feature graduates to Beta.")
	b := releaseDoc(t, "1.21", 200, "Promoted the `GracefulNodeShutdown` feature gate to GA.")
	tl, err := NewTimeline(a, b)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	if got := tl.Features(); !slices.Equal(got, []string{"GracefulNodeShutdown"}) {
		t.Errorf("Features = %q, want one feature spelt as the gate", got)
	}
	if got, ok := tl.ReleaseOf("graceful node shutdown", StageBeta); !ok || got != "1.20" {
		t.Errorf("ReleaseOf(beta) = %q, %v; want 1.20", got, ok)
	}
	raw, err := json.Marshal(tl)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	var back struct {
		Features []struct {
			Feature string  `json:"feature"`
			Events  []Event `json:"events"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if len(back.Features) != 1 || len(back.Features[0].Events) != 2 || back.Features[0].Events[1].Stage != StageGA {
		t.Errorf("JSON = %s, want one feature with two events ending in ga", raw)
	}
}
