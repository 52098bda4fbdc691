// Package changelog parses Kubernetes release notes into structured entries.
//
// Three families of text are understood:
//
//   - the upstream CHANGELOG markdown of kubernetes/kubernetes, both the modern
//     "Changes by Kind" layout (1.19 and later) and the older layout that groups
//     notes by SIG (1.17 and earlier);
//   - the JSON of the Kubernetes release-notes tool (relnotes.k8s.io): the
//     same notes as the CHANGELOG, one object per note with its PR, author,
//     SIGs and kinds;
//   - plain-text articles that summarise one release for one SIG, typically in
//     Japanese, with the author's supplementary notes under each entry.
//
// Parse turns one document into a Document: release, SIG, format and entries.
// Each Entry carries its kind, text, notes, PR numbers, authors, SIGs, the
// names it mentions (feature gates, configuration fields, flags, metrics, API
// versions, cgroup files) and the maturity changes it states (alpha, beta, GA,
// on or off by default, deprecated, removed, reverted). A Timeline combines
// several documents into a per-feature history ordered by release.
//
// The package is pure: it does no I/O and reads no clock. Text goes in, values
// come out.
package changelog

import (
	"errors"
)

// MaxDocumentSize is the largest document Parse accepts, in bytes.
const MaxDocumentSize = 2 << 20

// Errors returned by Parse. They are wrapped with context; test for them with
// errors.Is.
var (
	// ErrEmpty means the document has no text at all (or only white space).
	ErrEmpty = errors.New("empty document")
	// ErrBinary means the document contains NUL bytes.
	ErrBinary = errors.New("binary content")
	// ErrNotUTF8 means the document is not valid UTF-8.
	ErrNotUTF8 = errors.New("not valid utf-8")
	// ErrTooLarge means the document is larger than MaxDocumentSize.
	ErrTooLarge = errors.New("document too large")
	// ErrUnknownFormat means the layout could not be recognised.
	ErrUnknownFormat = errors.New("unknown document format")
	// ErrNoEntries means the layout was recognised but no entry was found.
	ErrNoEntries = errors.New("no entries found")
	// ErrInvalidOption means an Options field holds a value Parse cannot use.
	ErrInvalidOption = errors.New("invalid option")
)

// Format names a document layout.
type Format string

// Document layouts.
const (
	// FormatUpstream is the upstream CHANGELOG markdown with "Changes by Kind".
	FormatUpstream Format = "upstream"
	// FormatUpstreamBySIG is the older upstream markdown (1.17 and before)
	// that groups notes by SIG under "Other notable changes".
	FormatUpstreamBySIG Format = "upstream_by_sig"
	// FormatArticle is a plain-text article about one release and one SIG,
	// such as the Japanese "変更内容" write-ups.
	FormatArticle Format = "article"
	// FormatReleaseNotesJSON is the JSON of the Kubernetes release-notes
	// tool: an object of notes, each with its markdown, PR, author, SIGs
	// and kinds. A document opening with "{" or "[" is read as one. Its
	// release is the notes' release_version; a file whose notes leave it
	// out gives a document without a release. Its key ends in
	// "/release-notes", apart from the CHANGELOG's.
	FormatReleaseNotesJSON Format = "release_notes_json"
)

// Formats lists every format, in the order a form or a usage message
// offers them.
func Formats() []Format {
	return []Format{FormatUpstream, FormatUpstreamBySIG, FormatReleaseNotesJSON, FormatArticle}
}

// SameNotes reports whether documents of formats a and b, of one release,
// print the same upstream notes: the CHANGELOG, in either layout, and the
// release-notes JSON do; an article is its author's own.
func SameNotes(a, b Format) bool {
	return a != FormatArticle && b != FormatArticle && a.Valid() && b.Valid()
}

// Valid reports whether f is one of the known formats.
func (f Format) Valid() bool {
	switch f {
	case FormatUpstream, FormatUpstreamBySIG, FormatArticle, FormatReleaseNotesJSON:
		return true
	}
	return false
}

// Kind is the normalised category of an entry.
type Kind string

// Entry kinds. Upstream headings map onto these; article headings (English,
// Japanese or both) map onto the same set.
const (
	KindUrgentUpgradeNote Kind = "urgent_upgrade_note"
	KindDeprecation       Kind = "deprecation"
	KindAPIChange         Kind = "api_change"
	KindFeature           Kind = "feature"
	KindDocumentation     Kind = "documentation"
	KindFailingTest       Kind = "failing_test"
	KindBugOrRegression   Kind = "bug_or_regression"
	KindCleanup           Kind = "cleanup"
	KindUncategorized     Kind = "uncategorized"
	KindDependency        Kind = "dependency"
	// KindHighlight is a "What's New (Major Themes)" subsection or an
	// article's own highlight section: prose under a title, not a PR entry.
	KindHighlight Kind = "highlight"
	// KindKnownIssue is an item under "Known Issues".
	KindKnownIssue Kind = "known_issue"
)

// Stage is a maturity step or default-state change of a feature.
type Stage string

// Stages. StageBetaDefaultOn is a promotion to beta that also turns the
// feature on by default; StageDefaultOn and StageDefaultOff change only the
// default. StageGA also covers "stable", "General Availability" and a gate
// locked to enabled. StageReverted records that a change was undone in the
// same release without naming the resulting state.
const (
	StageAlpha         Stage = "alpha"
	StageBeta          Stage = "beta"
	StageBetaDefaultOn Stage = "beta_default_on"
	StageDefaultOn     Stage = "default_on"
	StageDefaultOff    Stage = "default_off"
	StageGA            Stage = "ga"
	StageDeprecated    Stage = "deprecated"
	StageRemoved       Stage = "removed"
	StageReverted      Stage = "reverted"
)

// Matches reports whether s satisfies a question about want: an exact match,
// or StageBetaDefaultOn when asked for StageBeta or StageDefaultOn.
func (s Stage) Matches(want Stage) bool {
	if s == want {
		return true
	}
	return s == StageBetaDefaultOn && (want == StageBeta || want == StageDefaultOn)
}

// MentionType says what kind of name a Mention is.
type MentionType string

// Mention types.
const (
	MentionFeatureGate MentionType = "feature_gate" // CamelCase gate, e.g. ImageVolume
	MentionFeature     MentionType = "feature"      // named feature, e.g. "Graceful Node Shutdown"
	MentionConfigField MentionType = "config_field" // lowerCamel field, e.g. memoryReservationPolicy
	MentionFieldPath   MentionType = "field_path"   // dotted API field, e.g. spec.hostUsers
	MentionFlag        MentionType = "flag"         // command-line flag, e.g. --reserved-cpus
	MentionMetric      MentionType = "metric"       // metric name, e.g. volume_operation_errors_total
	MentionAPIVersion  MentionType = "api_version"  // group/version, e.g. kubeadm.k8s.io/v1beta1
	MentionCgroupFile  MentionType = "cgroup_file"  // cgroup interface file, e.g. memory.low
	MentionIdentifier  MentionType = "identifier"   // other CamelCase name: API kinds, RPCs, types
	MentionCode        MentionType = "code"         // other quoted code, commands and sub-phases
	MentionComponent   MentionType = "component"    // kubelet, kube-proxy, kubeadm, ...
)

// Options override what Parse would otherwise detect. The zero value detects
// everything.
type Options struct {
	// Format forces a layout instead of detecting it.
	Format Format `json:"format,omitempty"`
	// Release forces the release, e.g. "1.36" or "v1.36.0".
	Release string `json:"release,omitempty"`
	// SIG forces the document's SIG, e.g. "Node" or "SIG-Node". An
	// upstream CHANGELOG, which covers every SIG, then leaves out the
	// entries labelled with other SIGs only (Document.OtherSIGs); it keeps
	// those without a label, which may be the SIG's (Document.Unlabelled).
	SIG string `json:"sig,omitempty"`
}

// Document is one parsed changelog document.
type Document struct {
	// Key identifies the document for provenance: release and SIG slug,
	// e.g. "1.36/node", or "1.36" when the document covers every SIG.
	Key string `json:"key"`
	// Release is "MAJOR.MINOR", e.g. "1.36"; empty when it could not be
	// determined and was not given in Options.
	Release string `json:"release"`
	// SIG is set when the document is about one SIG, e.g. "Node".
	SIG    string `json:"sig,omitempty"`
	Format Format `json:"format"`
	// Title is the article title when the document has one.
	Title string `json:"title,omitempty"`
	// SHA256 is the hex digest of the input bytes.
	SHA256  string  `json:"sha256"`
	Entries []Entry `json:"entries"`
	// Intro is the prose of an article before its first section. It is no
	// entry, but Concepts reads definitions from it.
	Intro []string `json:"intro,omitempty"`
	// OtherSIGs counts the entries of an upstream CHANGELOG left out for
	// Options.SIG, labelled with other SIGs only; Unlabelled those kept
	// without any SIG label.
	OtherSIGs  int `json:"other_sigs,omitempty"`
	Unlabelled int `json:"unlabelled,omitempty"`
}

// Entry is one change: an upstream bullet, an article's translated entry with
// its notes, or a highlight.
type Entry struct {
	// Key is stable across re-parsing the same or a lightly edited document:
	// document key, kind and PR numbers, or a hash of the text when there is
	// no PR.
	Key  string `json:"key"`
	Kind Kind   `json:"kind"`
	// Section is the heading path the entry was found under, as written.
	Section string `json:"section,omitempty"`
	// Title is set for highlights.
	Title string `json:"title,omitempty"`
	// Text is the entry without its PR/author/SIG suffix, with markdown
	// links, emphasis and code quotes removed. Nested list items start a new
	// line with "- ", indented two spaces per extra level; paragraphs are
	// separated by a line break.
	Text string `json:"text"`
	// Notes are the author's supplementary notes (article formats).
	Notes   []string `json:"notes,omitempty"`
	PRs     []int    `json:"prs,omitempty"`
	Authors []string `json:"authors,omitempty"`
	SIGs    []string `json:"sigs,omitempty"`
	// ActionRequired is set when the entry asks users to act.
	ActionRequired bool          `json:"action_required,omitempty"`
	Mentions       []Mention     `json:"mentions,omitempty"`
	Stages         []StageChange `json:"stages,omitempty"`
	// Focus is the feature the entry is mainly about: the first feature
	// whose maturity it changes, else its first feature gate or named
	// feature, else its first other name. Generators mask it in the text.
	Focus string `json:"focus,omitempty"`
	// Line is the 1-based line where the entry starts.
	Line int `json:"line"`
}

// Mention is a name found in an entry or its notes.
type Mention struct {
	Name string      `json:"name"`
	Type MentionType `json:"type"`
	// InNote is set when the name appears only in the notes.
	InNote bool `json:"in_note,omitempty"`
}

// StageChange is one maturity change an entry states.
type StageChange struct {
	Feature string `json:"feature"`
	Stage   Stage  `json:"stage"`
	// Release is where the change happened: the document's release, or the
	// release a note names ("1.31 で alpha").
	Release string `json:"release"`
	// PR is the pull request that made the change; 0 when the text names
	// a historical change without one.
	PR int `json:"pr,omitempty"`
	// Revert is set when the change undoes an earlier one.
	Revert bool `json:"revert,omitempty"`
	// Source is where the statement was read: "text", "note" or "heading".
	Source string `json:"source"`
	// Evidence is the sentence the change was read from.
	Evidence string `json:"evidence"`
}
