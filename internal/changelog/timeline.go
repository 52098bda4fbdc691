package changelog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoRelease means a document without a release was added to a Timeline.
var ErrNoRelease = errors.New("document has no release")

// Event is one stage change of a feature, with its provenance.
type Event struct {
	Feature string `json:"feature"`
	Release string `json:"release"`
	Stage   Stage  `json:"stage"`
	PR      int    `json:"pr,omitempty"`
	// Revert is set when the change undoes an earlier one; for an event
	// from Events, when the release's changes include a revert.
	Revert bool `json:"revert,omitempty"`
	// Document and Entry are the keys of the document and entry that state
	// the change.
	Document string `json:"document"`
	Entry    string `json:"entry"`
	Source   string `json:"source"`
	// Kind and Evidence are the stating entry's kind and the sentence the
	// change was read from, so that a reader of the timeline can weigh the
	// statement as it would one in its own document (a bug fix rarely
	// removes a feature; "GA since v1.17" is no promotion in 1.21). They
	// are left out of the timeline's JSON.
	Kind     Kind   `json:"-"`
	Evidence string `json:"-"`
	seq      int
}

// Timeline is the cross-release history of features built from several
// documents. Add documents in any order; lookups order releases numerically.
// A Timeline is not safe for concurrent Add.
type Timeline struct {
	features map[string]*history
	docs     map[string]bool
	seq      int
}

type history struct {
	names  map[string]int
	first  string
	events []Event
}

// NewTimeline returns a timeline holding the given documents.
func NewTimeline(docs ...*Document) (*Timeline, error) {
	t := &Timeline{features: map[string]*history{}, docs: map[string]bool{}}
	for _, d := range docs {
		if err := t.Add(d); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Add records the stage changes of d. Adding the same document (same
// SHA256) twice has no effect. It fails for a nil document or one without a
// release.
func (t *Timeline) Add(d *Document) error {
	if d == nil {
		return fmt.Errorf("changelog: timeline add: nil document: %w", ErrInvalidOption)
	}
	if _, _, ok := ParseRelease(d.Release); !ok {
		return fmt.Errorf("changelog: timeline add %s: %w", d.Key, ErrNoRelease)
	}
	if t.features == nil {
		t.features, t.docs = map[string]*history{}, map[string]bool{}
	}
	if d.SHA256 != "" {
		if t.docs[d.SHA256] {
			return nil
		}
		t.docs[d.SHA256] = true
	}
	for _, e := range d.Entries {
		for _, sc := range e.Stages {
			rel, err := NormalizeRelease(sc.Release)
			if err != nil {
				continue
			}
			k := FeatureKey(sc.Feature)
			h := t.features[k]
			if h == nil {
				h = &history{names: map[string]int{}, first: sc.Feature}
				t.features[k] = h
			}
			h.names[sc.Feature]++
			t.seq++
			h.events = append(h.events, Event{
				Feature: sc.Feature, Release: rel, Stage: sc.Stage, PR: sc.PR, Revert: sc.Revert,
				Document: d.Key, Entry: e.Key, Source: sc.Source, Kind: e.Kind, Evidence: sc.Evidence, seq: t.seq,
			})
		}
	}
	return nil
}

// name is the display name: a name without spaces (the gate spelling) when
// there is one, else the most used, else the first seen.
func (h *history) name() string {
	best, bestN := h.first, -1
	for n, c := range h.names {
		score := c
		if !strings.Contains(n, " ") {
			score += 1000
		}
		if score > bestN || score == bestN && n < best {
			best, bestN = n, score
		}
	}
	return best
}

// Features returns the display names of all features, sorted
// case-insensitively.
func (t *Timeline) Features() []string {
	out := make([]string, 0, len(t.features))
	for _, h := range t.features {
		out = append(out, h.name())
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := strings.ToLower(out[i]), strings.ToLower(out[j])
		if a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out
}

// History returns every recorded change of a feature, ordered by release,
// then PR number, then the order in which they were added. The feature name
// is matched ignoring case and spaces.
func (t *Timeline) History(feature string) []Event {
	h := t.features[FeatureKey(feature)]
	if h == nil {
		return nil
	}
	out := append([]Event(nil), h.events...)
	name := h.name()
	for i := range out {
		out[i].Feature = name
	}
	sort.SliceStable(out, func(i, j int) bool { return eventLess(out[i], out[j]) })
	return out
}

func eventLess(a, b Event) bool {
	if c := CompareReleases(a.Release, b.Release); c != 0 {
		return c < 0
	}
	if a.PR != b.PR {
		return a.PR < b.PR
	}
	return a.seq < b.seq
}

// Events returns one event per release for a feature, ordered by release:
// the state the release ended in, with the PR and entry of the latest change.
// Within a release changes apply in PR order, so a later one overrides an
// earlier one; a maturity level and a default state combine ("beta" and "on
// by default" make StageBetaDefaultOn).
func (t *Timeline) Events(feature string) []Event {
	all := t.History(feature)
	var out []Event
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].Release == all[i].Release {
			j++
		}
		out = append(out, resolveRelease(all[i:j]))
		i = j
	}
	return out
}

// resolveRelease folds the events of one release, already in order. It
// keeps the maturity level and the default state apart, so that "beta"
// (#1), "off by default" (#2) and "back on by default" (#3) end as
// StageBetaDefaultOn. A removal stays; a deprecation or a bare revert
// counts when it comes last.
func resolveRelease(es []Event) Event {
	var (
		level    Stage // alpha, beta or ga
		levelBy  Event // the statement of the level
		def      Stage // default_on or default_off
		last     Stage
		removed  bool
		reverted bool
	)
	final := es[len(es)-1]
	for _, e := range es {
		switch e.Stage {
		case StageAlpha, StageBeta, StageGA:
			level, levelBy = e.Stage, e
			if e.Stage == StageGA {
				def = StageDefaultOn
			}
		case StageBetaDefaultOn:
			level, levelBy, def = StageBeta, e, StageDefaultOn
		case StageDefaultOn, StageDefaultOff:
			def = e.Stage
			if level != "" && e.Entry == levelBy.Entry && e.PR == levelBy.PR {
				// Stated with the level ("promoted to beta, and it is
				// turned off by default"): part of that change, not a
				// later switch.
				continue
			}
		case StageRemoved:
			removed = true
		case StageReverted:
			reverted = true
		}
		last = e.Stage
		if e.Revert {
			reverted = true
		}
	}
	switch {
	case removed:
		final.Stage = StageRemoved
	case last == StageReverted:
		final.Stage = StageReverted // undone within the release
	case last == StageDeprecated:
		final.Stage = StageDeprecated
	case level == StageGA:
		final.Stage = StageGA
	case level == StageBeta && def == StageDefaultOn:
		final.Stage = StageBetaDefaultOn
	case def == StageDefaultOff && last == StageDefaultOff:
		final.Stage = StageDefaultOff
	case level != "":
		final.Stage = level
	case def != "":
		final.Stage = def
	default:
		final.Stage = StageReverted
	}
	final.Revert = final.Revert || reverted && final.Stage != StageRemoved
	if final.Stage == StageReverted {
		final.Revert = true
	}
	return final
}

// StageIn returns the state a feature ended the release in.
func (t *Timeline) StageIn(feature, release string) (Event, bool) {
	for _, e := range t.Events(feature) {
		if CompareReleases(e.Release, release) == 0 {
			return e, true
		}
	}
	return Event{}, false
}

// ReleaseOf returns the first release in which the feature reached stage,
// e.g. ReleaseOf("ImageVolume", StageGA). StageBetaDefaultOn satisfies a
// question about StageBeta or StageDefaultOn.
func (t *Timeline) ReleaseOf(feature string, stage Stage) (string, bool) {
	for _, e := range t.Events(feature) {
		if e.Stage.Matches(stage) {
			return e.Release, true
		}
	}
	return "", false
}

// MarshalJSON writes the timeline as a list of features, each with its
// per-release events.
func (t *Timeline) MarshalJSON() ([]byte, error) {
	type feat struct {
		Feature string  `json:"feature"`
		Events  []Event `json:"events"`
	}
	names := t.Features()
	out := make([]feat, 0, len(names))
	for _, n := range names {
		out = append(out, feat{Feature: n, Events: t.Events(n)})
	}
	return json.Marshal(struct {
		Features []feat `json:"features"`
	}{out})
}
