package quizgen

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
)

// callsGate is the plain search that gateTexts.calls replaces: every text
// of every entry, for each name.
func callsGate(doc *changelog.Document, name string) bool {
	for i := range doc.Entries {
		e := &doc.Entries[i]
		if calledGate(e.Text, name) || calledGate(e.Title, name) || slices.ContainsFunc(e.Notes, func(n string) bool { return calledGate(n, name) }) {
			return true
		}
	}
	return false
}

// TestGateTextsAgree checks the index against the plain search for every
// name the shared documents mention or change, and for names spelt with
// other characters.
func TestGateTextsAgree(t *testing.T) {
	docs, _ := loadShared(t)
	called := 0
	for _, sd := range docs {
		g := newGateTexts(sd.doc)
		names := map[string]bool{"": true, "feature gate": true, "Kube-Proxy": true, "spec.hostUsers": true, "--feature-gates": true}
		for _, e := range sd.doc.Entries {
			for _, m := range e.Mentions {
				names[m.Name] = true
			}
			for _, sc := range e.Stages {
				names[sc.Feature] = true
			}
		}
		for n := range names {
			want := callsGate(sd.doc, n)
			if got := g.calls(n); got != want {
				t.Errorf("%s: calls(%q) = %v, plain search %v", sd.name, n, got, want)
			}
			if want {
				called++
			}
		}
	}
	if called < 50 {
		t.Errorf("%d names are called gates, want at least 50", called)
	}
}

func TestGateTextsCalls(t *testing.T) {
	doc := &changelog.Document{Entries: []changelog.Entry{
		{Text: "Promoted the NodeLogQuery feature gate to GA."},
		{Text: "Feature gates: DRAAdminAccess, DRAPrioritizedList and ImageVolume."},
		{Text: "The ImageVolumeSource type is new.", Notes: []string{"ProcMountType フィーチャーゲートを有効にする"}},
		{Title: "the KubeletPSI gate"},
	}}
	g := newGateTexts(doc)
	for _, c := range []struct {
		name string
		want bool
	}{
		{"NodeLogQuery", true},
		{"DRAAdminAccess", true},
		{"ImageVolume", true},
		{"ProcMountType", true},
		{"KubeletPSI", true},
		{"ImageVolumeSource", false},
		{"NodeLog", false},
		{"Node LogQuery", false},
		{"Missing", false},
	} {
		if got := g.calls(c.name); got != c.want {
			t.Errorf("calls(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// namePatternRegexp is the regular expression namePattern stands for.
func namePatternRegexp(name string) *regexp.Regexp {
	toks := nameTokens(name)
	quoted := make([]string, len(toks))
	for i, t := range toks {
		quoted[i] = regexp.QuoteMeta(t)
	}
	expr := strings.Join(quoted, `[\s_\-]*`)
	if letterCount(name) >= 4 {
		expr = "(?i)" + expr
	}
	return regexp.MustCompile(expr)
}

// TestNamePatternAgrees checks namePattern against its regular expression
// for the names of the shared documents in every text of their entries,
// and for spellings that take the gaps and the folding to their edges.
func TestNamePatternAgrees(t *testing.T) {
	docs, _ := loadShared(t)
	r := &run{masks: map[string]*namePattern{}}
	check := func(where, name, text string) {
		t.Helper()
		want := namePatternRegexp(name).FindAllStringIndex(text, -1)
		got := r.maskPattern(name).FindAllStringIndex(text, -1)
		if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Errorf("%s: %q in %q: got %v, want %v", where, name, text, got, want)
		}
	}
	for _, c := range []struct{ name, text string }{
		{"ImageVolume", "image volumes, Image-Volume, image__ -volume, IMAGEVOLUME, imagevolume"},
		{"DRA", "hydrant DRA dra DRA-x"},
		{"KubeletPSI", "kubelet psi, Kubelet\tPSI, kubelet-\npsi"},
		{"--dry-run", "use --dry-run or ---dry-run, -- dry - run"},
		{"Kelvin", "\u212aelvin and kelvin"},
		{"a-b", "a--b a-b a_b"},
	} {
		check("case", c.name, c.text)
	}
	for _, sd := range docs {
		for _, e := range sd.doc.Entries {
			texts := append([]string{e.Text, e.Title}, e.Notes...)
			for _, m := range e.Mentions {
				for _, text := range texts {
					check(sd.name+" "+e.Key, m.Name, text)
				}
			}
			for _, sc := range e.Stages {
				for _, text := range texts {
					check(sd.name+" "+e.Key, sc.Feature, text)
				}
			}
		}
	}
}
