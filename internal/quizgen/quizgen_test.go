package quizgen

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

// upstreamDoc writes a small upstream CHANGELOG for one release with one
// Feature entry per sentence, PRs numbered from firstPR, all for SIG Node.
func upstreamDoc(release string, firstPR int, sentences ...string) string {
	return upstreamKindDoc(release, "Feature", firstPR, sentences...)
}

// upstreamKindDoc is upstreamDoc with the entries under another kind's
// heading ("Bug or Regression", "Cleanup or Removal").
func upstreamKindDoc(release, kind string, firstPR int, sentences ...string) string {
	major, minor, _ := changelog.ParseRelease(release)
	var b strings.Builder
	fmt.Fprintf(&b, "## Changelog since v%d.%d.0\n\n## Changes by Kind\n\n### %s\n\n", major, minor-1, kind)
	for i, s := range sentences {
		pr := firstPR + i
		fmt.Fprintf(&b, "- %s ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@dev](https://github.com/dev)) [SIG Node]\n", s, pr, pr)
	}
	return b.String()
}

func parse(t *testing.T, text string) *changelog.Document {
	t.Helper()
	d, err := changelog.Parse([]byte(text), changelog.Options{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

func generate(t *testing.T, opt Options, docs ...*changelog.Document) Report {
	t.Helper()
	tl, err := changelog.NewTimeline(docs...)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	rep := GenerateReport(docs[0], tl, opt)
	for _, d := range rep.Dropped {
		t.Errorf("dropped %s: %s", d.ExtID, d.Reason)
	}
	return rep
}

// Sentences of a made-up release, in our own words.
var (
	sentWidgetBeta   = "Promoted the `WidgetGate` feature gate to beta."
	sentWidgetRevert = "Reverted the promotion of `WidgetGate` to beta."
	sentSprocketGA   = "Graduated the `SprocketSync` feature gate to GA. The kubelet now keeps sprocket caches in step with the container runtime, so a restart no longer loses cached sprocket layouts."
	sentGizmoAlpha   = "Added new `GizmoPool` alpha feature. When it is on, the scheduler pools gizmo requests from all containers of a pod before choosing a node for them."
	sentFlangeOn     = "Promoted the `FlangeProbe` feature gate to beta, enabled by default. Flange probes report readiness of mounted flanges to the kubelet before containers start."
	sentDoohickey    = "Deprecated the `DoohickeyMode` feature gate. Clusters that still set it receive a warning at startup and should stop setting it before it is removed."
)

func TestRevertedFeatureGetsNoStageQuestion(t *testing.T) {
	d := parse(t, upstreamDoc("1.40", 4001, sentWidgetBeta, sentWidgetRevert, sentSprocketGA))
	rep := generate(t, Options{}, d)
	for _, g := range rep.Questions {
		if g.Provenance.Feature == "WidgetGate" {
			switch g.Provenance.Generator {
			case GenStageInRelease, GenReleaseOfStage, GenTrueFalse, GenTimelineOrder:
				t.Errorf("%s asks about the reverted WidgetGate: %q", g.Provenance.Generator, g.Question.Prompt)
			}
		}
	}
	if got := rep.Counts()[GenStageInRelease]; got != 1 {
		t.Errorf("stage_in_release questions = %d, want 1 (SprocketSync only)", got)
	}
}

func TestOneFeatureHasNoDescriptionQuestion(t *testing.T) {
	d := parse(t, upstreamDoc("1.40", 4003, sentSprocketGA))
	rep := generate(t, Options{}, d)
	if n := rep.Counts()[GenFeatureFromDescription]; n != 0 {
		t.Errorf("feature_from_description questions = %d, want 0 without distractors", n)
	}
	// The one sentence that names it says only that it was promoted.
	if n := rep.Counts()[GenCloze]; n != 0 {
		t.Errorf("cloze questions = %d, want 0", n)
	}
}

func TestDescriptionNeedsThreeDistractors(t *testing.T) {
	d := parse(t, upstreamDoc("1.40", 4003, sentSprocketGA, sentGizmoAlpha, sentFlangeOn, sentDoohickey))
	rep := generate(t, Options{}, d)
	var descs []Generated
	for _, g := range rep.Questions {
		if g.Provenance.Generator == GenFeatureFromDescription {
			descs = append(descs, g)
		}
	}
	if len(descs) == 0 {
		t.Fatalf("no feature_from_description question from four features")
	}
	for _, g := range descs {
		q := g.Question
		if len(q.Choices) != 4 || !slices.Contains(q.Choices, q.Answer) {
			t.Errorf("%s: choices %q answer %q", q.ExtID, q.Choices, q.Answer)
		}
		if strings.Contains(strings.ToLower(q.Prompt), strings.ToLower(q.Answer)) {
			t.Errorf("%s: prompt %q names the answer", q.ExtID, q.Prompt)
		}
	}
}

func TestCRLFGivesTheSameQuestions(t *testing.T) {
	lf := upstreamDoc("1.40", 4003, sentSprocketGA, sentGizmoAlpha, sentFlangeOn, sentDoohickey)
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	got := generate(t, Options{}, parse(t, crlf)).Questions
	want := generate(t, Options{}, parse(t, lf)).Questions
	if len(want) == 0 {
		t.Fatalf("no questions")
	}
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("CRLF input gives other questions:\n got %s\nwant %s", g, w)
	}
	if strings.Contains(mustJSON(t, got), `\r`) {
		t.Errorf("carriage return in the output")
	}
}

func TestTemplatesPerLanguage(t *testing.T) {
	d := parse(t, upstreamDoc("1.40", 4003, sentSprocketGA, sentGizmoAlpha, sentFlangeOn, sentDoohickey))
	tests := []struct {
		lang       string
		wantPrompt string // in the stage_in_release prompt
		wantJa     bool
	}{
		{"", "どの段階", true},
		{"ja", "どの段階", true},
		{"en", "which stage", false},
		{"EN", "which stage", false},
		{"fr", "どの段階", true},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			for _, g := range generate(t, Options{Language: tt.lang}, d).Questions {
				q := g.Question
				switch g.Provenance.Generator {
				case GenStageInRelease:
					if !strings.Contains(q.Prompt, tt.wantPrompt) {
						t.Errorf("%s: prompt %q, want it to contain %q", q.ExtID, q.Prompt, tt.wantPrompt)
					}
					fallthrough
				case GenReleaseOfStage, GenTrueFalse:
					if hasJapanese(q.Prompt+q.Explanation) != tt.wantJa {
						t.Errorf("%s: prompt %q explanation %q: Japanese %v, want %v", q.ExtID, q.Prompt, q.Explanation, !tt.wantJa, tt.wantJa)
					}
				case GenCloze, GenFeatureFromDescription:
					// The words around a quote are the deck's language;
					// the quote stays as the changelog wrote it.
					if hasJapanese(q.Explanation) != tt.wantJa {
						t.Errorf("%s: explanation %q: Japanese %v, want %v", q.ExtID, q.Explanation, !tt.wantJa, tt.wantJa)
					}
					if g.Provenance.Generator == GenFeatureFromDescription && hasJapanese(q.Prompt) != tt.wantJa {
						t.Errorf("%s: prompt %q: Japanese %v, want %v", q.ExtID, q.Prompt, !tt.wantJa, tt.wantJa)
					}
					quoted := quiz.ClozeText(q.Prompt)
					if g.Provenance.Generator == GenFeatureFromDescription {
						_, quoted, _ = strings.Cut(q.Prompt, "\n\n")
					}
					if !strings.Contains(quoted, " the ") || hasJapanese(quoted) {
						t.Errorf("%s: %q does not quote the English entry", q.ExtID, quoted)
					}
				}
			}
		})
	}
}

func TestIDsStableAcrossRewording(t *testing.T) {
	a := parse(t, upstreamDoc("1.40", 4003, sentSprocketGA, sentGizmoAlpha, sentFlangeOn, sentDoohickey))
	reworded := strings.Replace(sentSprocketGA, "a restart no longer loses", "restarting no longer drops", 1)
	b := parse(t, upstreamDoc("1.40", 4003, reworded, sentGizmoAlpha, sentFlangeOn, sentDoohickey))
	ids := func(r Report) []string {
		var out []string
		for _, g := range r.Questions {
			out = append(out, g.Question.ExtID)
		}
		return out
	}
	got, want := ids(generate(t, Options{}, b)), ids(generate(t, Options{}, a))
	if !slices.Equal(got, want) {
		t.Errorf("ids after rewording an entry:\n got %q\nwant %q", got, want)
	}
}

func TestNilInputs(t *testing.T) {
	if got := Generate(nil, nil, Options{}); got != nil {
		t.Errorf("Generate(nil) = %v, want nil", got)
	}
	d := parse(t, upstreamDoc("1.40", 4003, sentSprocketGA, sentGizmoAlpha))
	if got := Generate(d, nil, Options{}); len(got) == 0 {
		t.Errorf("Generate without a timeline gave nothing")
	}
	noRelease := &changelog.Document{Key: "x", Entries: d.Entries}
	for _, g := range Generate(noRelease, nil, Options{}) {
		if err := g.Question.Validate(); err != nil {
			t.Errorf("%s: %v", g.Question.ExtID, err)
		}
	}
}

func TestTimelineAcrossReleases(t *testing.T) {
	docs := []*changelog.Document{
		parse(t, upstreamDoc("1.40", 4003, sentSprocketGA, sentGizmoAlpha)),
		parse(t, upstreamDoc("1.37", 3701, "Added new `SprocketSync` alpha feature.")),
		parse(t, upstreamDoc("1.38", 3801, "Promoted the `SprocketSync` feature gate to beta.")),
	}
	rep := generate(t, Options{Language: LangEnglish}, docs...)
	var order, release []quiz.Question
	for _, g := range rep.Questions {
		switch g.Provenance.Generator {
		case GenTimelineOrder:
			order = append(order, g.Question)
		case GenReleaseOfStage:
			if g.Provenance.Feature == "SprocketSync" {
				release = append(release, g.Question)
			}
		}
	}
	if len(order) != 1 || !slices.Equal(order[0].Items, []string{"alpha", "beta", "GA"}) {
		t.Fatalf("timeline_order questions %+v, want one ordering alpha, beta, GA", order)
	}
	// Its GA is the deck's release: the release questions ask of its alpha
	// and its beta, given the GA, with choices before it.
	answers := map[string]bool{}
	for _, q := range release {
		answers[q.Answer] = true
		if !strings.Contains(q.Prompt, "graduated to GA in v1.40") {
			t.Errorf("%q does not give the GA of the deck's release", q.Prompt)
		}
		for _, ch := range q.Choices {
			if changelog.CompareReleases(ch, "1.40") >= 0 {
				t.Errorf("%q: choice %s is not before the GA", q.Prompt, ch)
			}
		}
	}
	if len(release) != 2 || !answers["1.37"] || !answers["1.38"] {
		t.Fatalf("release_of_stage questions %+v, want two answering 1.37 and 1.38", release)
	}
	// The older documents ask no timeline question: it belongs to the
	// newest change.
	for _, d := range docs[1:] {
		tl, _ := changelog.NewTimeline(docs...)
		if n := Count(Generate(d, tl, Options{}))[GenTimelineOrder]; n != 0 {
			t.Errorf("%s: %d timeline_order questions, want 0", d.Key, n)
		}
	}
}

func TestStageDistractorsNeverAlsoTrue(t *testing.T) {
	all := []changelog.Stage{
		changelog.StageAlpha, changelog.StageBeta, changelog.StageBetaDefaultOn, changelog.StageDefaultOn,
		changelog.StageGA, changelog.StageDeprecated, changelog.StageRemoved,
	}
	for _, answer := range all {
		for _, d := range distractorPreference[answer] {
			if overlaps(answer, d) || answer.Matches(d) || d.Matches(answer) {
				t.Errorf("answer %s: distractor %s could also be true", answer, d)
			}
		}
	}
	tests := []struct {
		a, b changelog.Stage
		want bool
	}{
		{changelog.StageBetaDefaultOn, changelog.StageBeta, true},
		{changelog.StageBeta, changelog.StageBetaDefaultOn, true},
		{changelog.StageGA, changelog.StageDefaultOn, true},
		{changelog.StageDefaultOn, changelog.StageBeta, true},
		{changelog.StageGA, changelog.StageBeta, false},
		{changelog.StageAlpha, changelog.StageBeta, false},
		{changelog.StageRemoved, changelog.StageDeprecated, false},
	}
	for _, tt := range tests {
		if got := overlaps(tt.a, tt.b); got != tt.want {
			t.Errorf("overlaps(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNameTokens(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"ImageVolume", []string{"Image", "Volume"}},
		{"KubeletPSI", []string{"Kubelet", "PSI"}},
		{"PSIData", []string{"PSI", "Data"}},
		{"spec.externalIPs", []string{"spec.external", "IPs"}},
		{"Graceful Node Shutdown", []string{"Graceful", "Node", "Shutdown"}},
		{"memory.low", []string{"memory.low"}},
	}
	for _, tt := range tests {
		if got := nameTokens(tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("nameTokens(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestMasking(t *testing.T) {
	r := newRun(context.Background(), &changelog.Document{}, nil, Options{})
	tests := []struct {
		name, text, want string
	}{
		{"ImageVolume", "Graduated the ImageVolume feature; image volumes use image-volume mounts.", "Graduated the ____ feature; ____s use ____ mounts."},
		{"ImageVolume", "ImageVolumeWithDigest adds the digest.", "ImageVolumeWithDigest adds the digest."},
		{"memory.low", "memory.low 以下のとき", "____ 以下のとき"},
		{"PSI", "KubeletPSI exposes PSI; capsicum stays.", "KubeletPSI exposes ____; capsicum stays."},
		{"Graceful Node Shutdown", "kubeletのGraceful Node Shutdown機能", "kubeletの____機能"},
		{"ManifestBasedAdmissionControlConfig", "Added alpha support for manifest-based admission control configuration (KEP-5793).", "Added alpha support for manifest-based admission control configuration (KEP-5793)."},
		{"Service externalIPs", "New admission controller DenyServiceExternalIPs is available.", "New admission controller DenyServiceExternalIPs is available."},
		{"Service externalIPs", "Service ExternalIPs can be denied.", "____ can be denied."},
	}
	for _, tt := range tests {
		if got := r.mask(tt.text, tt.name); got != tt.want {
			t.Errorf("mask %q in %q = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
	// An alias of a heading ("WidgetQoS / WidgetReservationPolicy") is
	// masked only where it is written as the heading writes it: the
	// widgetReservationPolicy field is another identifier.
	aliases := []struct {
		name, text, want string
	}{
		{"WidgetReservationPolicy", "Set widgetReservationPolicy in the config.", "Set widgetReservationPolicy in the config."},
		{"WidgetReservationPolicy", "WidgetReservationPolicy replaces the old switch.", "____ replaces the old switch."},
		{"memory.low", "memory.low 以下のとき", "____ 以下のとき"},
	}
	for _, tt := range aliases {
		if got := r.maskSameCase(tt.text, tt.name); got != tt.want {
			t.Errorf("maskSameCase %q in %q = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestGivesAway(t *testing.T) {
	r := newRun(context.Background(), &changelog.Document{}, nil, Options{})
	tests := []struct {
		text, name string
		want       bool
	}{
		{"the ____ feature mounts images", "ImageVolume", false},
		{"mounts OCI images as volumes", "ImageVolume", true},
		{"uses image-volume", "ImageVolume", true},
		{"PSI metrics from the kubelet", "KubeletPSI", true},
		{"____ は cgroup v2 の機能", "MemoryQoS", false},
		{"ResourceClaim の adminAccess: true で管理者用デバイスアクセスを許可", "DRAAdminAccess", true},
		{"lets an admin read device access logs", "DRAAdminAccess", true},
		{"DRA drivers publish device attributes", "DRAAdminAccess", false},
		{"exposes node PSI metrics", "NodePSI", true},
	}
	for _, tt := range tests {
		if got := r.givesAwayTokens(tt.text, []string{tt.name}); got != tt.want {
			t.Errorf("givesAwayTokens(%q, %q) = %v, want %v", tt.text, tt.name, got, tt.want)
		}
	}
}

func TestRelated(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Immutable Secrets/ConfigMaps", "Immutable Secrets and ConfigMaps", true},
		{"Device Binding Conditions", "DRA Device Binding Conditions", true},
		{"ImageVolume", "ImageVolumeWithDigest", true},
		{"NodeDeclaredFeatures", "NodeLogQuery", false},
		{"DRAAdminAccess", "DRAPrioritizedList", false},
		{"memory.min", "memory.low", false},
	}
	for _, tt := range tests {
		if got := related(tt.a, tt.b); got != tt.want {
			t.Errorf("related(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := related(tt.b, tt.a); got != tt.want {
			t.Errorf("related(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestInformative(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"____ が General Availability になり、無条件に有効になりました。", false},
		{"この機能はalphaのため、利用するためには____ feature gateを有効にする必要があります。", false},
		{"Promoted the ____ feature gate to GA.", false},
		{"KEP: https://github.com/kubernetes/enhancements/issues/1", false},
		{"OCI イメージを Pod のボリュームとして直接マウントできる機能です。", true},
		{"The kubelet now keeps sprocket caches in step with the container runtime.", true},
	}
	for _, tt := range tests {
		if got := informative(tt.text); got != tt.want {
			t.Errorf("informative(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestIdentifying: a metric's sentence identifies it by what it measures,
// not by saying that it is a metric, of what type, or at what stability
// level (sentences of the shared release notes, the term blanked).
func TestIdentifying(t *testing.T) {
	tests := []struct {
		from, blanked string
		want          bool
	}{
		{"1.17 release notes #83603", "Change ____ metric from Gauge to Histogram.", false},
		{"1.17 release notes #85446", "kubelet: the metric ____ be marked as with the ALPHA stability level.", false},
		{"1.24 release notes #108004", "Add the metric ____ to kubelet's cAdvisor metric endpoint.", false},
		{"1.18 release notes #88134", "Add ____ metric to component-base to track client side rate limiter latency in seconds.", true},
		{"1.20 release notes #95719", "There is a new ____ metric that counts persistent volumes by the volume plugin name and volume mode.", true},
	}
	for _, tt := range tests {
		if got := identifying(tt.blanked); got != tt.want {
			t.Errorf("%s: identifying(%q) = %v, want %v", tt.from, tt.blanked, got, tt.want)
		}
	}
}

func TestAlternatives(t *testing.T) {
	tests := []struct {
		match, name string
		want        []string
	}{
		{"ImageVolume", "ImageVolume", []string{"Image Volume"}},
		{"Graceful Node Shutdown", "Graceful Node Shutdown", []string{"GracefulNodeShutdown"}},
		{"workload-aware preemption", "WorkloadAwarePreemption", []string{"WorkloadAwarePreemption", "workload-awarepreemption", "Workload Aware Preemption"}},
		{"spec.externalIPs", "spec.externalIPs", nil},
		{"managed-fields", "managedFields", nil},
		{"legacy-service-account-token-clean-up", "LegacyServiceAccountTokenCleanUp", nil},
	}
	for _, tt := range tests {
		if got := alternatives(tt.match, tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("alternatives(%q, %q) = %q, want %q", tt.match, tt.name, got, tt.want)
		}
	}
}

func TestKindAndSIGNames(t *testing.T) {
	kinds := []struct {
		k    changelog.Kind
		want string
	}{
		{changelog.KindUrgentUpgradeNote, "urgent-upgrade-note"},
		{changelog.KindAPIChange, "api-change"},
		{changelog.KindFailingTest, "failing-test"},
		{changelog.KindBugOrRegression, "bug"},
		{changelog.KindHighlight, "highlight"},
		{changelog.KindKnownIssue, "uncategorized"},
	}
	for _, tt := range kinds {
		if got := kindName(tt.k); got != tt.want {
			t.Errorf("kindName(%s) = %q, want %q", tt.k, got, tt.want)
		}
	}
	sigs := []struct{ in, want string }{
		{"Node", "SIG-Node"},
		{"Cluster Lifecycle", "SIG-Cluster-Lifecycle"},
		{"SIG-Network", "SIG-Network"},
		{"", ""},
	}
	for _, tt := range sigs {
		if got := sigName(tt.in); got != tt.want {
			t.Errorf("sigName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJapaneseSpacing(t *testing.T) {
	tests := []struct {
		release, feature string
		stage            changelog.Stage
		intro            bool
		want             string
	}{
		{"1.36", "ImageVolume", changelog.StageGA, false, "v1.36 で ImageVolume は GA になった"},
		{"1.36", "DRAConsumableCapacity", changelog.StageDefaultOn, false, "v1.36 で DRAConsumableCapacity はデフォルトで有効になった"},
		{"1.17", "--cri-socket", changelog.StageRemoved, false, "v1.17 で --cri-socket は削除された"},
		{"1.36", "MemoryQoS", changelog.StageAlpha, false, "v1.36 で MemoryQoS は alpha だった"},
		{"1.36", "GizmoPool", changelog.StageAlpha, true, "v1.36 で GizmoPool は alpha として導入された"},
	}
	for _, tt := range tests {
		if got := japanese.fact(tt.release, tt.feature, tt.stage, tt.intro); got != tt.want {
			t.Errorf("fact = %q, want %q", got, tt.want)
		}
	}
}

// TestStageQuestionWording: a stage question reads the same whatever its
// answer, a change or a stage held (which is nearly always alpha), so the
// prompt does not give the answer away.
func TestStageQuestionWording(t *testing.T) {
	tests := []struct {
		lex  *lexicon
		want string
	}{
		{japanese, "v1.36 の時点で X はどの段階だった?"},
		{english, "In v1.36, which stage was X at?"},
	}
	for _, tt := range tests {
		if got := tt.lex.stageQuestion("1.36", "X"); got != tt.want {
			t.Errorf("%s stageQuestion = %q, want %q", tt.lex.code, got, tt.want)
		}
	}
}

const (
	kindCleanup = "Other (Cleanup or Flake)"
	kindBug     = "Bug or Regression"
	kindAPI     = "API Change"
)

// stageQuestionsAbout lists the stage questions (stage_in_release,
// release_of_stage, true_false) that rest on feature reaching a stage in
// release.
func stageQuestionsAbout(gs []Generated, feature, release string) []Generated {
	var out []Generated
	for _, g := range gs {
		switch g.Provenance.Generator {
		case GenStageInRelease, GenReleaseOfStage, GenTrueFalse:
			if changelog.FeatureKey(g.Provenance.Feature) == changelog.FeatureKey(feature) && g.Provenance.Release == release {
				out = append(out, g)
			}
		}
	}
	return out
}

// A stage the entry or the timeline puts in an earlier release, a gate
// locked on, and a removal read from a bug fix are no change of the
// release; a gate promoted and locked, or a gate a bug fix removes, are.
func TestStageFactsNeedAStepInTheRelease(t *testing.T) {
	tests := []struct {
		name    string
		docs    []string // the first is the one questions are made from
		feature string
		want    bool // whether stage questions about feature in 1.40 are made
	}{
		{"GA since an earlier release", []string{
			upstreamKindDoc("1.40", kindCleanup, 4001, "The `WidgetGate` feature gate that is GA since v1.38 is unconditionally enabled."),
		}, "WidgetGate", false},
		{"deprecated gates locked on", []string{
			upstreamKindDoc("1.40", kindCleanup, 4001, "The deprecated feature gates `WidgetGate` and `SprocketSync` are now unconditionally enabled."),
		}, "WidgetGate", false},
		{"deprecated gates that can no longer be specified: removed", []string{
			upstreamKindDoc("1.40", kindCleanup, 4001, "The deprecated feature gates `WidgetGate` and `SprocketSync` are now unconditionally enabled and can no longer be specified in component invocations."),
		}, "WidgetGate", true},
		{"locked on without a promotion", []string{
			upstreamKindDoc("1.40", kindCleanup, 4001, "The `WidgetGate` feature gate is now unconditionally enabled and can no longer be set."),
		}, "WidgetGate", false},
		{"GA again after GA", []string{
			upstreamDoc("1.40", 4001, "Promoted the `WidgetGate` feature gate to GA."),
			upstreamDoc("1.38", 3801, "Graduated the `WidgetGate` feature gate to GA."),
		}, "WidgetGate", false},
		{"GA after a deprecation", []string{
			upstreamDoc("1.40", 4001, "Promoted the `WidgetGate` feature gate to GA."),
			upstreamKindDoc("1.38", kindCleanup, 3801, "Deprecated the `WidgetGate` feature gate."),
		}, "WidgetGate", false},
		{"bug fix removing part of a volume", []string{
			upstreamKindDoc("1.40", kindBug, 4001, "Remove Sprocket Topology from migrated in-tree widget volumes."),
		}, "Sprocket Topology", false},
		{"promoted and locked", []string{
			upstreamDoc("1.40", 4001, "Graduated the `WidgetGate` feature gate to GA and locked it to enabled."),
		}, "WidgetGate", true},
		{"GA after beta", []string{
			upstreamDoc("1.40", 4001, "Promoted the `WidgetGate` feature gate to GA."),
			upstreamDoc("1.38", 3801, "Promoted the `WidgetGate` feature gate to beta."),
		}, "WidgetGate", true},
		{"bug fix removing a gate", []string{
			upstreamKindDoc("1.40", kindBug, 4001, "Removed the `WidgetGate` feature gate, which was GA since v1.38."),
		}, "WidgetGate", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var docs []*changelog.Document
			for _, d := range tt.docs {
				docs = append(docs, parse(t, d))
			}
			got := stageQuestionsAbout(generate(t, Options{}, docs...).Questions, tt.feature, "1.40")
			if tt.want && len(got) == 0 {
				t.Errorf("no stage question about %s in 1.40", tt.feature)
			}
			if !tt.want {
				for _, g := range got {
					t.Errorf("%s: %q (%s in 1.40) rests on no change of 1.40", g.Provenance.Generator, g.Question.Prompt, g.Provenance.Stage)
				}
			}
		})
	}
}

// TestOneFeatureSpeltTwoWays: a feature a document names with "/" in one
// entry and "and" in another ("Immutable Widgets/Sprockets", "Immutable
// Widgets and Sprockets") gets one question of each kind, not two.
func TestOneFeatureSpeltTwoWays(t *testing.T) {
	doc := parse(t, upstreamDoc("1.40", 4001,
		"Immutable Widgets/Sprockets graduated to stable.",
		"Immutable Widgets and Sprockets graduated to stable."))
	counts := map[string]int{}
	for _, g := range generate(t, Options{}, doc).Questions {
		switch g.Provenance.Generator {
		case GenStageInRelease, GenReleaseOfStage, GenTrueFalse:
			if strings.HasPrefix(g.Provenance.Feature, "Immutable Widgets") {
				counts[g.Provenance.Generator]++
			}
		}
	}
	// No release question: the one release it knows is the deck's.
	for gen, want := range map[string]int{GenStageInRelease: 1, GenReleaseOfStage: 0, GenTrueFalse: 1} {
		if counts[gen] != want {
			t.Errorf("%s questions about Immutable Widgets/Sprockets = %d, want %d (%v)", gen, counts[gen], want, counts)
		}
	}
}

// History notes leave out releases whose statements are no change, and
// a history that contradicts itself or does not go forward is left out.
func TestHistoryNotes(t *testing.T) {
	tests := []struct {
		name string
		docs []string // the first is the one questions are made from
		want string   // the WidgetGate note in explanations, "" for none
	}{
		{"beta then GA", []string{
			upstreamDoc("1.38", 3801, "Promoted the `WidgetGate` feature gate to beta."),
			upstreamDoc("1.40", 4001, "Promoted the `WidgetGate` feature gate to GA."),
		}, "WidgetGate の経緯: 1.38 beta (#3801) → 1.40 GA (#4001)。"},
		{"GA and removed in one release", []string{
			upstreamDoc("1.38", 3801, "Promoted the `WidgetGate` feature gate to beta."),
			upstreamKindDoc("1.40", kindAPI, 4001, "The WidgetGate controllers are now GA.", "The `WidgetGate` topology field has been removed from the GA API."),
		}, ""},
		{"removed, then GA", []string{
			upstreamDoc("1.37", 3701, "Promoted the `WidgetGate` feature gate to beta."),
			upstreamKindDoc("1.38", kindCleanup, 3801, "Removed the `WidgetGate` feature gate."),
			upstreamDoc("1.40", 4001, "Promoted the `WidgetGate` feature gate to GA."),
		}, ""},
		{"a locked gate's release left out", []string{
			upstreamDoc("1.38", 3801, "Promoted the `WidgetGate` feature gate to beta."),
			upstreamDoc("1.39", 3901, "Promoted the `WidgetGate` feature gate to GA."),
			upstreamKindDoc("1.40", kindCleanup, 4001, "The `WidgetGate` feature gate that is GA since v1.39 is unconditionally enabled."),
		}, "WidgetGate の経緯: 1.38 beta (#3801) → 1.39 GA (#3901)。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var docs []*changelog.Document
			for _, d := range tt.docs {
				docs = append(docs, parse(t, d))
			}
			rep := generate(t, Options{}, docs...)
			if len(rep.Questions) == 0 {
				t.Fatalf("no questions")
			}
			for _, g := range rep.Questions {
				expl := g.Question.Explanation
				_, note, found := strings.Cut(expl, "WidgetGate の経緯")
				// Cloze and description questions explain in their
				// source's language.
				quoting := g.Provenance.Generator == GenCloze || g.Provenance.Generator == GenFeatureFromDescription
				switch {
				case tt.want == "" && (found || strings.Contains(expl, "History of WidgetGate")):
					t.Errorf("%s: explanation %q has a history note", g.Question.ExtID, expl)
				case tt.want != "" && !quoting && g.Provenance.Feature == "WidgetGate" && "WidgetGate の経緯"+note != tt.want:
					t.Errorf("%s: explanation %q, want the note %q", g.Question.ExtID, expl, tt.want)
				}
			}
		})
	}
}

// A stage question is about a name that holds a stage: a program, a
// product that starts a longer noun phrase, or a placeholder in a path is
// none; a gate or a flag beside it is.
func TestStageSubjects(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		feature  string
		wantAsks bool
	}{
		{"a program named in code", upstreamKindDoc("1.40", kindCleanup, 4001,
			"Kubeadm: Removed the deprecated `etcd` flags `--widget-check` and `--sprocket-interval`. Set them with `--feature-gates` instead."),
			"etcd", false},
		{"the flags beside it", upstreamKindDoc("1.40", kindCleanup, 4001,
			"Kubeadm: Removed the deprecated `etcd` flags `--widget-check` and `--sprocket-interval`. Set them with `--feature-gates` instead."),
			"--widget-check", true},
		// Something done with a flag was removed, not the flag (1.36's
		// #135701 and #135807).
		{"usage of flags", upstreamKindDoc("1.40", kindCleanup, 4001,
			"Kubeadm: Removed usage of the deprecated `etcd` flags `--widget-check` and `--sprocket-interval` if the `etcd` version is older than v3.6.0."),
			"--widget-check", false},
		{"the cleanup of a flag", upstreamKindDoc("1.40", kindCleanup, 4001,
			"Kubeadm: Removed the cleanup of the `--widget-image` kubelet flag from `/var/lib/kubelet/kubeadm-flags.env` on upgrade. This cleanup was necessary when upgrading to `v1.39`."),
			"--widget-image", false},
		{"a product before a longer noun phrase", upstreamDoc("1.40", 4001, "WidgetCloud Cinder CSI migration is on by default."),
			"WidgetCloud", false},
		{"a field before a noun", upstreamKindDoc("1.40", "Deprecation", 4001, "The sprocket parameter for the in-tree gizmoCloud volume plugin is deprecated."),
			"gizmoCloud", false},
		{"a placeholder in a path", upstreamKindDoc("1.40", "Deprecation", 4001, "Removed plugin watching of the deprecated directory {sprocket_root_dir}/plugins."),
			"sprocket_root_dir", false},
		{"a gate", upstreamDoc("1.40", 4001, "The `WidgetCloud` feature gate is on by default."),
			"WidgetCloud", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stageQuestionsAbout(generate(t, Options{}, parse(t, tt.doc)).Questions, tt.feature, "1.40")
			if tt.wantAsks && len(got) == 0 {
				t.Errorf("no stage question about %s", tt.feature)
			}
			if !tt.wantAsks {
				for _, g := range got {
					t.Errorf("%s: %q asks about %s, which holds no stage", g.Provenance.Generator, g.Question.Prompt, tt.feature)
				}
			}
		})
	}
}

func TestNameShapes(t *testing.T) {
	tests := []struct {
		name string
		want category
	}{
		{"ImageVolume", catGate},
		{"CSIMigration", catGate},
		{"Kubeadm", catIdent},
		{"etcd", catNone},
		{"vSphere", catNone},
		{"--cri-socket", catFlag},
		{"volume_operation_errors_total", catMetric},
		{"batch/v2alpha1", catAPI},
		{"discovery.k8s.io/v1beta1 EndpointSlices", catAPI},
		{"Graceful Node Shutdown", catNamed},
	}
	for _, tt := range tests {
		if got := shapeOf(tt.name); got != tt.want {
			t.Errorf("shapeOf(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
	mods := []struct {
		text, name string
		want       bool
	}{
		{"OpenStack Cinder CSI migration is on by default.", "OpenStack", true},
		{"Multi vCenter support is deprecated as of v1.21.", "vCenter", true},
		{"The parameter for the in-tree vSphere volume plugin is deprecated.", "vSphere", true},
		{"The ImageVolume feature gate is GA.", "ImageVolume", false},
		{"Promoted ImageVolume to GA.", "ImageVolume", false},
		{"ImageVolume が GA になった。", "ImageVolume", false},
	}
	for _, tt := range mods {
		if got := modifies(tt.text, tt.name); got != tt.want {
			t.Errorf("modifies(%q, %q) = %v, want %v", tt.text, tt.name, got, tt.want)
		}
	}
}

// A cloze is not made from a text with braces of its own, which would
// merge with the gap's; one from a plain text grades its answers right.
func TestClozeBraces(t *testing.T) {
	tests := []struct {
		name     string
		sentence string
		want     int // cloze questions
	}{
		{"placeholder next to the term", "Removed the `WidgetGate` feature gate and the directory {WidgetGate}/plugins it watched.", 0},
		{"braces elsewhere", "Promoted the `WidgetGate` feature gate to GA; it now fills {spec.widgets} for every pod.", 0},
		{"no braces", "Promoted the `WidgetGate` feature gate to GA; it now fills the sprocket list for every pod.", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var clozes []quiz.Question
			for _, g := range generate(t, Options{}, parse(t, upstreamDoc("1.40", 4001, tt.sentence))).Questions {
				if g.Provenance.Generator == GenCloze {
					clozes = append(clozes, g.Question)
				}
			}
			if len(clozes) != tt.want {
				t.Fatalf("%d cloze questions %+v, want %d", len(clozes), clozes, tt.want)
			}
			for _, q := range clozes {
				gaps, err := quiz.ParseCloze(q.Prompt)
				if err != nil {
					t.Fatalf("%s: %v", q.ExtID, err)
				}
				clozeGradesRight(t, q.ExtID, q, gaps)
				if !q.Grade(quiz.Response{Texts: []string{"WidgetGate"}}).Correct {
					t.Errorf("%s: %q: WidgetGate is graded wrong", q.ExtID, q.Prompt)
				}
			}
		})
	}
}

// articleDoc writes a small article of release 1.40 for SIG Node with one
// highlight per heading and body.
func articleDoc(sections ...[2]string) string {
	var b strings.Builder
	b.WriteString("Kubernetes 1.40: SIG-Node の変更内容\n\n所感 :pencil:\n\n今回のリリースで印象に残った機能を紹介します。\n\n")
	for _, s := range sections {
		fmt.Fprintf(&b, "%s\n\n%s\n\n", s[0], s[1])
	}
	b.WriteString("Feature\n\n  • kubelet に bazQuota 設定を追加した。 (#900002、@bob) [sig/node]\n")
	return b.String()
}

// An alpha stage reads as an introduction only when the entry says the
// feature is new; a heading's stage is no fact when its section puts the
// feature in an earlier release.
func TestAlphaWording(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		lang     string
		feature  string
		wantFact string // in the true_false explanation; "" for no stage question at all
	}{
		{
			"heading, section names an earlier release",
			articleDoc([2]string{"Alpha: WidgetQoS", "WidgetQoS は cgroup v2 の設定を使ってウィジェットのメモリを回収から守る機能です。\n1.39 以前は WidgetQoS feature gate を有効化すると一律で保護されていましたが、1.40 では widgetPolicy でこの挙動を選べるようになりました。"}),
			LangJapanese, "WidgetQoS", "",
		},
		{
			"heading, nothing earlier",
			articleDoc([2]string{"Alpha: GizmoPool", "GizmoPool は、スケジューラが Pod のギズモ要求をまとめてから Node を選ぶ機能です。 Pod ごとの要求を一つのプールとして扱います。"}),
			LangJapanese, "GizmoPool", "v1.40 で GizmoPool は alpha だった",
		},
		{
			"heading, section says new",
			articleDoc([2]string{"Alpha: SprocketCache", "SprocketCache は kubelet がスプロケットのキャッシュをコンテナランタイムと同期する新規の機能です。 再起動してもキャッシュが失われません。"}),
			LangJapanese, "SprocketCache", "v1.40 で SprocketCache は alpha として導入された",
		},
		{
			"second alpha",
			upstreamDoc("1.40", 4001, "The `WidgetGate` feature is being released as a second Alpha in Kubernetes 1.40. Widget probes now report through the kubelet."),
			LangEnglish, "WidgetGate", "WidgetGate was alpha in v1.40",
		},
		{
			"added alpha",
			upstreamDoc("1.40", 4001, sentGizmoAlpha),
			LangEnglish, "GizmoPool", "In v1.40, GizmoPool was introduced as alpha",
		},
		{
			"now available as alpha",
			upstreamDoc("1.40", 4001, "The `WidgetGate` feature gate is now available as alpha (off by default)."),
			LangJapanese, "WidgetGate", "v1.40 で WidgetGate は alpha だった",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var facts []string
			release := false
			for _, g := range generate(t, Options{Language: tt.lang}, parse(t, tt.doc)).Questions {
				q := g.Question
				switch g.Provenance.Generator {
				case GenTrueFalse, GenStageInRelease, GenReleaseOfStage:
				default:
					continue
				}
				if g.Provenance.Feature != tt.feature {
					continue
				}
				facts = append(facts, q.Explanation)
				release = release || g.Provenance.Generator == GenReleaseOfStage
				intro := strings.Contains(tt.wantFact, "導入") || strings.Contains(tt.wantFact, "introduced")
				if says := strings.Contains(q.Prompt+q.Explanation, "導入") || strings.Contains(q.Prompt+q.Explanation, "introduced"); says != intro {
					t.Errorf("%s: %q / %q: wording, want as in %q", g.Provenance.Generator, q.Prompt, q.Explanation, tt.wantFact)
				}
				if !intro && g.Provenance.Generator == GenTrueFalse && !strings.Contains(q.Prompt, "v1.40") {
					t.Errorf("false statement %q moves to another release a stage the feature may have held then too", q.Prompt)
				}
			}
			if tt.wantFact == "" {
				if len(facts) > 0 {
					t.Errorf("stage questions %q, want none", facts)
				}
				return
			}
			if len(facts) == 0 || !strings.Contains(facts[0], tt.wantFact) {
				t.Errorf("stage explanations %q, want %q", facts, tt.wantFact)
			}
			// The one release these documents know is the deck's: no
			// release question asks for it.
			if release {
				t.Errorf("a release_of_stage question whose answer is the deck's release")
			}
		})
	}
}

// A gap is never made inside a longer word such as a flag or an API path,
// and it accepts only spellings of the form the text writes.
func TestClozeGapForms(t *testing.T) {
	tests := []struct {
		name     string
		sentence string
		want     []string // accepted spellings of each gap, nil for no cloze
	}{
		{"inside a flag", "Promoted the `WidgetGate` feature gate to GA. Set --show-widget-gate to see it in the output of kubectl.", nil},
		{"prefix of a flag", "Promoted the `WidgetGate` feature gate to GA. The kubelet reads --widget-gate-period for how often to check it.", nil},
		{"end of an API path", "Promoted the `WidgetGate` feature gate to GA; the widgets.k8s.io/v1alpha1/WidgetGate objects are deprecated.", nil},
		// The first sentence says only that it was promoted: the second
		// is quoted.
		{"words apart", "Promoted the `WidgetGate` feature gate to GA. Widget Gate settings now apply to every pod in the cluster.", []string{"Widget Gate|WidgetGate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var clozes []quiz.Question
			for _, g := range generate(t, Options{}, parse(t, upstreamDoc("1.40", 4001, tt.sentence))).Questions {
				if g.Provenance.Generator == GenCloze {
					clozes = append(clozes, g.Question)
				}
			}
			if tt.want == nil {
				if len(clozes) != 0 {
					t.Fatalf("cloze %q, want none", clozes[0].Prompt)
				}
				return
			}
			if len(clozes) != 1 {
				t.Fatalf("%d cloze questions, want 1", len(clozes))
			}
			gaps, err := quiz.ParseCloze(clozes[0].Prompt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range gaps {
				got = append(got, strings.Join(g.Accept, "|"))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%q: gaps accept %q, want %q", clozes[0].Prompt, got, tt.want)
			}
		})
	}
}

// A term gets one description question per document, however many
// entries describe it.
func TestOneDescriptionPerTerm(t *testing.T) {
	first := "Added the placement-based widget algorithm to the scheduler. Its use is guarded by the `WidgetCache` feature gate, which also turns on pooled requests for every pod of a job."
	tests := []struct {
		name      string
		sentences []string
		want      int // description questions about WidgetCache
	}{
		{"one entry", []string{first}, 1},
		{"three entries", []string{
			first,
			"Added the widget scoring extension point to the scheduler. Its use is guarded by the `WidgetCache` feature gate and needs a restart of the scheduler to take effect.",
			"Extended the node resources plugin to score widget placements. The usage of the extension point is guarded by the `WidgetCache` feature gate on every scheduler.",
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sentences := append(slices.Clone(tt.sentences), sentSprocketGA, sentFlangeOn, sentDoohickey, sentGizmoAlpha)
			rep := generate(t, Options{}, parse(t, upstreamDoc("1.40", 4001, sentences...)))
			var got []string
			for _, g := range rep.Questions {
				if g.Provenance.Generator == GenFeatureFromDescription && g.Provenance.Feature == "WidgetCache" {
					got = append(got, g.Question.Prompt)
				}
			}
			if len(got) != tt.want {
				t.Errorf("%d description questions about WidgetCache, want %d: %q", len(got), tt.want, got)
			}
		})
	}
}

// TestDisputedEntries: an entry whose own note says it is not true gives
// no question, whatever the generator; the same entry without that note
// does.
func TestDisputedEntries(t *testing.T) {
	const entry = "  • WidgetKubeQuota を GA に昇格させた。 (#900010、@dev) [sig/node]\n"
	tests := []struct {
		name string
		note string
		want bool // questions from the entry
	}{
		{"a plain note", "    • :pencil: 1.38 で alpha 導入、1.39 で beta になった機能です。\n", true},
		{"a note calling it a lie", "    • 最終的な結論を見る限りこのリリースノートは嘘です。\n", false},
		{"a note saying it is wrong", "    • この記述は誤りです。WidgetKubeQuota は 1.40 でも beta のままです。\n", false},
		{"an English note", "    • This is not true: WidgetKubeQuota is still beta.\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, "Kubernetes 1.40: SIG-Node の変更内容\n\nFeature\n\n"+entry+tt.note)
			tl, err := changelog.NewTimeline(doc)
			if err != nil {
				t.Fatal(err)
			}
			rep := GenerateReport(doc, tl, Options{Language: LangJapanese})
			var entryKey string
			for _, e := range doc.Entries {
				if strings.Contains(e.Text, "WidgetKubeQuota") {
					entryKey = e.Key
				}
			}
			if entryKey == "" {
				t.Fatalf("no entry parsed: %+v", doc.Entries)
			}
			got := false
			for _, g := range rep.Questions {
				if g.Provenance.Entry == entryKey {
					got = true
				}
			}
			if got != tt.want {
				t.Errorf("questions from the entry: %v, want %v (%d questions, %d dropped)", got, tt.want, len(rep.Questions), len(rep.Dropped))
			}
			for _, d := range rep.Dropped {
				t.Errorf("dropped %s: %s", d.ExtID, d.Reason)
			}
		})
	}
}

func TestCardBack(t *testing.T) {
	long := strings.Repeat("あ", maxFlashcardBack)
	tests := []struct {
		name, desc string
		want       string // "" for no card
	}{
		{"plain", "OCI イメージをボリュームとして直接マウントできる機能です。", "OCI イメージをボリュームとして直接マウントできる機能です。"},
		{"list marker", "- 従来の振る舞い。コンテナごとに動作します。", "従来の振る舞い。コンテナごとに動作します。"},
		{"numbered item", "2. pods are queued again", "pods are queued again"},
		{"a dash inside stays", "memory.min - the floor", "memory.min - the floor"},
		{"list cut off", "It filters useless events. The queue changes how it queues each Pod:", "It filters useless events."},
		{"list cut off, Japanese", "無駄なイベントを除きます。次の 2 つのモードがあります：", "無駄なイベントを除きます。"},
		{"a version is no sentence end", "Kustomize went from v2.0.3 to v4.0.5:", ""},
		{"only a list introduction", "次のとおりです:", ""},
		{"a reason", "k8s.io/kubernetes はライブラリとしての利用を推奨しておらず、依存を持っていたためです。", ""},
		{"a reason, in English", "Because the library is not meant for import.", ""},
		{"a purpose inside stays", "監視を減らすため、kubelet は変更を見ません。", "監視を減らすため、kubelet は変更を見ません。"},
		{"a credit", "ゼロダウンタイムのデプロイメントが可能になりました。author: @andrewsykim", "ゼロダウンタイムのデプロイメントが可能になりました。"},
		{"credits in parentheses", "Zero-downtime rollouts work (Authors: @a-b, @c)", "Zero-downtime rollouts work"},
		{"too long, no sentence end", long + "あ", ""},
		{"an abbreviation is no sentence end", "It supports two modes, e.g. the following:", ""},
		{"nor another", "The queue behaves as in v1.30. See the following, i.e. below:", "The queue behaves as in v1.30."},
		{"a credit inside a parenthesis", "Zero-downtime rollouts work (see KEP-1669, author: @andrewsykim).", "Zero-downtime rollouts work (see KEP-1669)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := cardBack(tt.desc)
			if tt.want == "" && ok {
				t.Fatalf("cardBack(%q) = %q, want no card", tt.desc, got)
			}
			if tt.want != "" && (!ok || got != tt.want) {
				t.Fatalf("cardBack(%q) = %q, %v; want %q", tt.desc, got, ok, tt.want)
			}
		})
	}
}

func TestInNameList(t *testing.T) {
	tests := []struct {
		text, name string
		want       bool
	}{
		{"The deprecated feature gates RotateKubeletClientCertificate, AttachVolumeLimit and EvenPodsSpread are now enabled.", "RotateKubeletClientCertificate", true},
		{"ServiceNodeExclusion, NodeDisruptionExclusion and LegacyNodeRoleBehavior features have been promoted to GA.", "LegacyNodeRoleBehavior", true},
		{"Added apiserver_peer_proxy_errors_total and apiserver_peer_discovery_sync_errors_total alpha metrics.", "apiserver_peer_proxy_errors_total", true},
		{"The deprecated flag --lock-object-namespace and --lock-object-name have been removed.", "--lock-object-namespace", true},
		{"ExtendWebSocketsToKubelet と UserNamespacesHostNetwork が追加されました。", "UserNamespacesHostNetwork", true},
		{"`MemoryQoS`, `PodLevelResources` are alpha.", "MemoryQoS", true},
		// One name, however the sentence goes on.
		{"Graduated the UserNamespacesSupport feature gate to GA.", "UserNamespacesSupport", false},
		{"Kube-proxy: remove deprecated --cleanup-ipvs flag of kube-proxy, and make --cleanup flag always flush IPVS.", "--cleanup-ipvs", false},
		{"TaintNodesByCondition was graduated to GA, CheckNodeMemoryPressure were removed.", "TaintNodesByCondition", false},
		{"Remove alpha CSIMigrationXXComplete flag and add alpha InTreePluginXXUnregister flag.", "InTreePluginXXUnregister", false},
		{"MemoryQoS と呼ばれる機能です。", "MemoryQoS", false},
		{"ImageVolume and the kubelet now agree.", "ImageVolume", false},
		{"Registered_metric_total, hidden_metric_total & kubernetes_feature_enabled are beta.", "kubernetes_feature_enabled", true},
		// A serial comma before the last name.
		{"Removed GA'ed feature gates: MixedProtocolLBService, ServiceInternalTrafficPolicy, ServiceIPStaticSubrange, and EndpointSliceTerminatingCondition.", "EndpointSliceTerminatingCondition", true},
		{"Removed GA'ed feature gates: MixedProtocolLBService, ServiceInternalTrafficPolicy, ServiceIPStaticSubrange, and EndpointSliceTerminatingCondition.", "ServiceIPStaticSubrange", true},
		{"Removed container_cpu_load_average_10s, container_cpu_load_d_average_10s, and cpu_tasks_state metrics.", "cpu_tasks_state", true},
		{"Promoted FooGate, BarGate, or BazGate to GA.", "BazGate", true},
		// A series of single words, in any case (1.24 release notes #108312).
		{"CRD x-kubernetes-validations rules now support the CEL functions: isSorted, sum, min, max, indexOf, lastIndexOf, find and findAll.", "isSorted", true},
		{"CRD x-kubernetes-validations rules now support the CEL functions: isSorted, sum, min, max, indexOf, lastIndexOf, find and findAll.", "lastIndexOf", true},
		// A comma before the gap may end a clause.
		{"When scheduling fails for a PodGroup, WorkloadAwarePreemption runs for the group.", "WorkloadAwarePreemption", false},
		{"When writing the ConfigMap kubeadm (init, upgrade apply) will respect the value of UnversionedKubeletConfigMap, while when reading it (join, reset, upgrade), it would attempt to use new format first.", "UnversionedKubeletConfigMap", false},
	}
	for _, tt := range tests {
		i := strings.Index(tt.text, tt.name)
		if got := inNameList(tt.text, i, i+len(tt.name)); got != tt.want {
			t.Errorf("inNameList(%q, %s) = %v, want %v", tt.text, tt.name, got, tt.want)
		}
	}
}

// TestCommentOnlyEntries: an entry that changed only a code comment or a
// typo gives no question; one that changed documentation users read does.
func TestCommentOnlyEntries(t *testing.T) {
	tests := []struct {
		sentence string
		want     bool // questions from the entry
	}{
		{"Revised the comment about the feature-gate level for WidgetKubeQuota from alpha to beta.", false},
		{"Updated the comment about the feature-gate level for WidgetKubeQuota from alpha to beta", false},
		{"Fixed a typo in the WidgetKubeQuota feature gate's description.", false},
		{"Fix typos in WidgetKubeQuota.", false},
		{"Fixes a typo in the WidgetKubeQuota feature gate's description.", false},
		{"kubeadm: fixed a typo in the WidgetKubeQuota feature gate's description.", false},
		{"Fixed a small typo in the WidgetKubeQuota feature gate's description.", false},
		{"Updated API comments for the WidgetKubeQuota feature gate from alpha to beta.", false},
		// Comments users meet: a fix of their own files.
		{"Fixed comments in kubeconfig files being dropped when the WidgetKubeQuota feature gate is enabled.", true},
		{"Clarified documentation to indicate that the widgetPeriod kubelet field requires the WidgetKubeQuota feature gate.", true},
		{"Promoted the WidgetKubeQuota feature gate to beta, enabled by default.", true},
	}
	for _, tt := range tests {
		t.Run(tt.sentence, func(t *testing.T) {
			doc := parse(t, upstreamDoc("1.40", 4001, tt.sentence))
			tl, err := changelog.NewTimeline(doc)
			if err != nil {
				t.Fatal(err)
			}
			var from []string
			for _, g := range Generate(doc, tl, Options{Language: LangJapanese}) {
				if g.Provenance.Entry != "" {
					from = append(from, g.Provenance.Generator)
				}
			}
			if got := len(from) > 0; got != tt.want {
				t.Errorf("questions from the entry: %v (%v), want %v", got, from, tt.want)
			}
		})
	}
}

// TestDescribePrompt: the description question names the kind of name it
// hides, and says it hides one only where the text named it.
func TestDescribePrompt(t *testing.T) {
	tests := []struct {
		lex    *lexicon
		masked string
		cat    category
		want   string
	}{
		{japanese, "The " + maskToken + " gate is on.", catGate, "次の説明に当てはまる機能はどれ? (名前は " + maskToken + " で伏せてある)\n\nThe " + maskToken + " gate is on."},
		{japanese, "Counts requests.", catMetric, "次の説明に当てはまるメトリクスはどれ?\n\nCounts requests."},
		{japanese, "A new " + maskToken + " flag.", catFlag, "次の説明に当てはまるフラグはどれ? (名前は " + maskToken + " で伏せてある)\n\nA new " + maskToken + " flag."},
		{english, "A new " + maskToken + " field.", catConfig, "Which setting does this describe? (its name is hidden as " + maskToken + ")\n\nA new " + maskToken + " field."},
		{english, "Lists pods.", catIdent, "Which name does this describe?\n\nLists pods."},
		// A space between Japanese and a Latin word, as everywhere else.
		{japanese, "Serves pods.", catAPI, "次の説明に当てはまる API バージョンはどれ?\n\nServes pods."},
		{japanese, "Sets a floor.", catCgroup, "次の説明に当てはまる cgroup のファイルはどれ?\n\nSets a floor."},
	}
	for _, tt := range tests {
		if got := tt.lex.describePrompt(tt.masked, tt.cat); got != tt.want {
			t.Errorf("describePrompt(%q, %v) = %q, want %q", tt.masked, tt.cat, got, tt.want)
		}
	}
}

// An entry's PR made its own release's change: a change the entry recalls
// from an earlier release is explained without it.
func TestRecalledChangeCitesNoLaterPR(t *testing.T) {
	doc := parse(t, upstreamKindDoc("1.40", kindCleanup, 4001,
		"Removed the `WidgetGate` feature gate, which is GA since v1.37 and unconditionally enabled."))
	rep := generate(t, Options{Language: "en"}, doc)
	asked := 0
	for _, g := range rep.Questions {
		p := g.Provenance
		if p.Generator != GenReleaseOfStage || p.Feature != "WidgetGate" || p.Stage != changelog.StageGA {
			continue
		}
		asked++
		first, _, _ := strings.Cut(g.Question.Explanation, ". ")
		if !strings.Contains(first, "1.37") || strings.Contains(first, "#4001") {
			t.Errorf("explanation %q: want the 1.37 change without #4001, the PR of 1.40's removal", g.Question.Explanation)
		}
	}
	if asked == 0 {
		t.Fatalf("no question about the release WidgetGate went GA in; got %d questions", len(rep.Questions))
	}
}

// The notes of a release merge its pre-releases: when one entry removes a
// name and another says it is not removed but deprecated, no release is
// asked for either.
func TestRemovedAndKeptInOneRelease(t *testing.T) {
	doc := parse(t, upstreamKindDoc("1.40", kindCleanup, 4001,
		"Removed the storage metric `widget_errors_total`, since `widget_status_count` counts the same.",
		"The metric `widget_errors_total` is not removed, but is marked deprecated."))
	rep := generate(t, Options{Language: "en"}, doc)
	for _, g := range rep.Questions {
		switch p := g.Provenance; p.Generator {
		case GenReleaseOfStage, GenStageInRelease, GenTrueFalse:
			if p.Feature == "widget_errors_total" {
				t.Errorf("%s asks %q (answer %q): 1.40 both removes and keeps it", p.Generator, g.Question.Prompt, g.Question.ExpectedAnswer())
			}
		default:
			// Nor is the removal quoted.
			if p.Entry == doc.Entries[0].Key {
				t.Errorf("%s quotes the removal the release takes back: %q", p.Generator, g.Question.Prompt)
			}
		}
	}
}

// Only a name the document calls a feature gate has its removal worded as
// the gate's: a gate-shaped constant is not one.
func TestNamedAsGate(t *testing.T) {
	doc := parse(t, upstreamDoc("1.40", 4001,
		"Promoted the `WidgetGate` feature gate to GA.",
		"Deprecated `WidgetScore` in favor of `WidgetRank` in the scheduler framework.",
		"Added the `WidgetHostNetwork` runtime handler and tied the `WidgetHostNetworkSupport` feature gate to it.",
		"The Windows containers WidgetAsUsername feature is now beta."))
	r := newRun(context.Background(), doc, nil, Options{Language: "en"})
	tests := []struct {
		feature string
		stage   changelog.Stage
		want    string
	}{
		{"WidgetGate", changelog.StageRemoved, "the WidgetGate feature gate"},
		{"WidgetGate", changelog.StageGA, "WidgetGate"},
		{"WidgetScore", changelog.StageRemoved, "WidgetScore"},
		{"WidgetHostNetwork", changelog.StageRemoved, "WidgetHostNetwork"},
		{"WidgetAsUsername", changelog.StageRemoved, "WidgetAsUsername"},
		{"WidgetHostNetworkSupport", changelog.StageRemoved, "the WidgetHostNetworkSupport feature gate"},
	}
	for _, tt := range tests {
		if got := r.named(tt.feature, tt.stage); got != tt.want {
			t.Errorf("named(%s, %s) = %q, want %q", tt.feature, tt.stage, got, tt.want)
		}
	}
}

// "X is now GA. The X feature gate is deprecated": a stage question about
// the gate does not offer GA as a wrong answer.
func TestDeprecatedGateOfAGAFeature(t *testing.T) {
	doc := parse(t, upstreamDoc("1.40", 4001,
		"Widget namespace sharing is now generally available. The `WidgetShareNamespace` feature gate is now deprecated and will be removed in 1.42."))
	rep := generate(t, Options{Language: "en"}, doc)
	asked := 0
	for _, g := range rep.Questions {
		p := g.Provenance
		if p.Generator != GenStageInRelease || p.Feature != "WidgetShareNamespace" {
			continue
		}
		asked++
		for _, c := range g.Question.Choices {
			if c == "GA" {
				t.Errorf("%q offers %v: GA is true of the feature too", g.Question.Prompt, g.Question.Choices)
			}
		}
	}
	if asked == 0 {
		t.Errorf("no stage question about WidgetShareNamespace; got %d questions", len(rep.Questions))
	}
}

// A feature gate removed after GA leaves the feature: the questions say
// the gate was removed. A flag's removal is the flag's.
func TestGateRemovalNamesTheGate(t *testing.T) {
	docs := []*changelog.Document{
		parse(t, upstreamKindDoc("1.40", kindCleanup, 4001, "Removed GA'ed feature gate `WidgetGate`.", "Removed the deprecated `--widget-mode` flag from the kubelet.")),
		parse(t, upstreamDoc("1.37", 3701, "Promoted the `WidgetGate` feature gate to GA.")),
		parse(t, upstreamDoc("1.35", 3501, "Promoted the `WidgetGate` feature gate to beta.")),
	}
	for _, lang := range []string{"en", "ja"} {
		rep := generate(t, Options{Language: lang}, docs...)
		gate, flag := "the WidgetGate feature gate", "--widget-mode"
		if lang == "ja" {
			gate = "WidgetGate フィーチャーゲート"
		}
		asked := map[string]bool{}
		for _, g := range rep.Questions {
			p, q := g.Provenance, g.Question
			if p.Stage != changelog.StageRemoved {
				continue
			}
			switch p.Generator {
			case GenReleaseOfStage, GenStageInRelease, GenTrueFalse:
			default:
				continue
			}
			want := flag
			if p.Feature == "WidgetGate" {
				want = gate
			}
			asked[p.Feature] = true
			if !strings.Contains(q.Prompt, want) || !strings.Contains(q.Explanation, want) {
				t.Errorf("%s %s: prompt %q, explanation %q: want them to name %q", lang, p.Generator, q.Prompt, q.Explanation, want)
			}
			if p.Feature == "WidgetGate" && p.Generator == GenReleaseOfStage {
				hist := "1.40 feature gate removed"
				if lang == "ja" {
					hist = "1.40 フィーチャーゲート削除"
				}
				if !strings.Contains(q.Explanation, hist) {
					t.Errorf("%s: explanation %q: want the history to say %q", lang, q.Explanation, hist)
				}
			}
		}
		if !asked["WidgetGate"] || !asked["--widget-mode"] {
			t.Errorf("%s: removal questions about %v, want WidgetGate and --widget-mode", lang, asked)
		}
		ordered := false
		for _, g := range rep.Questions {
			if g.Provenance.Generator == GenTimelineOrder && g.Provenance.Feature == "WidgetGate" {
				ordered = true
				if items := g.Question.Items; len(items) == 0 || items[len(items)-1] != lexiconFor(lang).gateRemoved {
					t.Errorf("%s: timeline items %q, want the gate's removal last", lang, items)
				}
			}
		}
		if !ordered {
			t.Errorf("%s: no timeline question about WidgetGate", lang)
		}
	}
}

// An entry the document takes back is quoted in no cloze, description or
// flashcard: its own note says it was reverted, or another entry reverts
// a name it mentions. An entry that reverts a name tells what happened to
// it, not what it is: it makes no description or flashcard of the name.
func TestRevertedEntriesNotQuoted(t *testing.T) {
	quoting := func(gen string) bool {
		return gen == GenCloze || gen == GenFeatureFromDescription || gen == GenFlashcard
	}
	const seedEntry = "  • WidgetKubeQuota feature gate を GA に昇格させ、Pod ごとの widget の数を上限で抑えられるようにした。 (#900010、@dev) [sig/node]\n"
	seeds := []struct {
		name string
		note string
		want bool // quoted questions from the entry
	}{
		{"a plain note", "    • :pencil: 1.38 で alpha 導入、1.39 で beta になった機能です。\n", true},
		{"a note about another PR's revert", "    • :pencil: 前述の #900009 は #900011 で revert され、リリース時点ではデフォルト有効です。\n", true},
		{"a note that this PR was reverted", "    • :pencil: この PR は #900011 で revert され、リリース時点では beta のままです。\n", false},
		{"a note that it is gone", "    • :pencil: #900011 で revert されているため、リリース時点ではこの機能はありません。\n", false},
	}
	for _, tt := range seeds {
		t.Run(tt.name, func(t *testing.T) {
			doc := parse(t, "Kubernetes 1.40: SIG-Node の変更内容\n\nFeature\n\n"+seedEntry+tt.note)
			tl, err := changelog.NewTimeline(doc)
			if err != nil {
				t.Fatal(err)
			}
			rep := GenerateReport(doc, tl, Options{Language: LangJapanese})
			got := false
			for _, g := range rep.Questions {
				if quoting(g.Provenance.Generator) && strings.Contains(g.Question.Prompt+g.Question.Answer, "widget の数") {
					got = true
				}
			}
			if got != tt.want {
				t.Errorf("quoted questions from the entry: %v, want %v (%d questions)", got, tt.want, len(rep.Questions))
			}
		})
	}

	doc := parse(t, "Kubernetes 1.40: SIG-Node の変更内容\n\nFeature\n\n"+
		"  • CRI API: WidgetResponse メッセージに widget_id フィールドを追加した。ランタイムが返す、Node 上の widget ごとに一意な名前になる。 (#900020、@dev) [sig/node]\n"+
		"  • CRI API WidgetResponse メッセージへの widget_id フィールドの追加を revert した。 (#900021、@dev) [sig/node]\n"+
		// Other fields, for the wrong choices of a description.
		"  • CRI API: GizmoStatus メッセージに gizmo_id フィールドを追加した。コンテナにマウントした gizmo を表す。 (#900022、@dev) [sig/node]\n"+
		"  • CRI API: SprocketStatus メッセージに sprocket_id フィールドを追加した。Pod sandbox に割り当てた sprocket を表す。 (#900023、@dev) [sig/node]\n"+
		"  • CRI API: FlangeStatus メッセージに flange_id フィールドを追加した。Node が scheduler に公開する flange を表す。 (#900024、@dev) [sig/node]\n")
	rep := generate(t, Options{Language: LangJapanese}, doc)
	added, reverting := doc.Entries[0].Key, doc.Entries[1].Key
	cloze := false
	for _, g := range rep.Questions {
		p := g.Provenance
		if !quoting(p.Generator) {
			continue
		}
		if p.Entry == added || p.Entry == reverting && p.Generator != GenCloze {
			t.Errorf("%s from %s: %q", p.Generator, p.Entry, g.Question.Prompt)
		}
		cloze = cloze || p.Entry == reverting
	}
	if !cloze {
		t.Errorf("no cloze of the revert: %d questions", len(rep.Questions))
	}
}

// Two entries that read the same with their gaps blanked ("Graduated ____
// to beta.") make no cloze: either answer fills either gap.
func TestClozeTemplatesShared(t *testing.T) {
	doc := parse(t, upstreamDoc("1.40", 4001,
		"Graduated the `WidgetFlagz` feature gate to beta.",
		"Graduated the `WidgetStatusz` feature gate to beta.",
		"Graduated the `GizmoTracing` feature gate to beta, so that gizmo spans reach the collector."))
	rep := generate(t, Options{Language: "en"}, doc)
	got := map[string]bool{}
	for _, g := range rep.Questions {
		if g.Provenance.Generator == GenCloze {
			got[g.Provenance.Feature] = true
		}
	}
	if got["WidgetFlagz"] || got["WidgetStatusz"] || !got["GizmoTracing"] {
		t.Errorf("clozes of %v, want GizmoTracing's only", got)
	}
}

// Every true statement names the document's release, so a false one is
// made with a wrong stage when there is one: a statement naming another
// release would give itself away.
func TestFalseStatementsKeepTheRelease(t *testing.T) {
	var sentences []string
	for _, g := range []string{"Widget", "Gizmo", "Sprocket", "Flange", "Sprung", "Cog", "Gear", "Lever"} {
		sentences = append(sentences, "Promoted the `"+g+"Tracking` feature gate to GA.")
	}
	doc := parse(t, upstreamDoc("1.40", 4001, sentences...))
	rep := generate(t, Options{Language: "en"}, doc)
	falses := 0
	for _, g := range rep.Questions {
		q := g.Question
		if g.Provenance.Generator != GenTrueFalse || *q.Truth {
			continue
		}
		falses++
		if !strings.Contains(q.Prompt, "v1.40") {
			t.Errorf("false statement %q names another release", q.Prompt)
		}
	}
	if falses == 0 {
		t.Fatalf("no false statement among %d questions", len(rep.Questions))
	}
}

// An entry listed twice, under two PRs, makes one cloze.
func TestClozeOfARepeatedEntry(t *testing.T) {
	const text = "Component owners can restrict the dimensions of a metric with the `--allow-widget-labels` flag."
	doc := parse(t, upstreamDoc("1.40", 4001, text, text))
	rep := generate(t, Options{Language: "en"}, doc)
	n := 0
	for _, g := range rep.Questions {
		if g.Provenance.Generator == GenCloze {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d clozes of one text listed twice, want 1", n)
	}
}

// A gate that is locked or can no longer be disabled is at GA: its stage
// question offers no GA as a wrong choice (1.23 release notes #105495, 1.21
// CHANGELOG #98021).
func TestLockedGateMentionsGA(t *testing.T) {
	for _, text := range []string{
		"Feature gate StorageObjectInUseProtection has been deprecated and cannot be disabled. It will be completely removed in 1.25",
		"The deprecated feature gates CSIDriverRegistry, BlockVolume and CSIBlockVolume are now unconditionally enabled and can no longer be specified in component invocations.",
		"Lock ExternalPolicyForExternalIP to default, this feature gate will be removed in 1.22.",
	} {
		if !mentionedStages(text)[changelog.StageGA] {
			t.Errorf("%q mentions no GA", text)
		}
	}
	if mentionedStages("Feature gate StorageObjectInUseProtection has been deprecated.")[changelog.StageGA] {
		t.Error("a deprecation alone mentions GA")
	}
}

// An API version removed beside a gate is not called a gate (1.19 release
// notes #91502).
func TestAPIVersionIsNoGate(t *testing.T) {
	doc := parse(t, upstreamKindDoc("1.19", "API Change", 91502,
		"The alpha `DynamicAuditing` feature gate and `auditregistration.k8s.io/v1alpha1` API have been removed and are no longer supported."))
	n := 0
	for _, g := range generate(t, Options{Language: LangJapanese}, doc).Questions {
		q := g.Question
		if g.Provenance.Feature != "auditregistration.k8s.io/v1alpha1" {
			continue
		}
		n++
		for _, text := range append([]string{q.Prompt, q.Explanation}, q.Choices...) {
			if strings.Contains(text, "v1alpha1 フィーチャーゲート") {
				t.Errorf("%s calls the API version a gate: %q", q.ExtID, text)
			}
		}
	}
	if n == 0 {
		t.Error("no question of the API version's removal")
	}
}

// A text the generator leaves out (its note calls it untrue) blocks no
// other entry's cloze of the same shape, and two entries that revert the
// same name do not take each other back.
func TestClozeFiltersBeforeTemplates(t *testing.T) {
	doc := parse(t, "Kubernetes 1.40: SIG-Node の変更内容\n\nFeature\n\n"+
		"  • WidgetAlpha feature gate を GA に昇格させ、Pod ごとの widget の数を上限で抑えられるようにした。 (#900030、@dev) [sig/node]\n"+
		"    • 最終的な結論を見る限りこのリリースノートは嘘です。\n"+
		"  • WidgetBeta feature gate を GA に昇格させ、Pod ごとの widget の数を上限で抑えられるようにした。 (#900031、@dev) [sig/node]\n"+
		"  • CRI API の widget_id フィールドの追加を revert した。 (#900032、@dev) [sig/node]\n"+
		"  • widget_id フィールドを使う kubelet のコードも revert した。 (#900033、@dev) [sig/node]\n")
	tl, err := changelog.NewTimeline(doc)
	if err != nil {
		t.Fatal(err)
	}
	rep := GenerateReport(doc, tl, Options{Language: LangJapanese})
	got := map[string]bool{}
	for _, g := range rep.Questions {
		if g.Provenance.Generator == GenCloze {
			got[g.Provenance.Entry] = true
		}
	}
	// The third entry's cloze stands: the fourth, which reverts the same
	// name, does not take it back. The fourth has none, the term being
	// asked once.
	for i, want := range []bool{false, true, true, false} {
		if e := doc.Entries[i]; got[e.Key] != want {
			t.Errorf("cloze of %q: %v, want %v", e.Text, got[e.Key], want)
		}
	}
}

// A stage question's choices do not tell its answer: "beta (on by
// default)" is asked as beta and never offered, the wrong stages vary
// from question to question, and a wrong alpha in a true/false statement
// is claimed as an introduction, as a true one is.
func TestStageChoicesHideTheAnswer(t *testing.T) {
	var sentences []string
	for _, g := range []string{"Widget", "Gizmo", "Sprocket", "Flange", "Sprung", "Cog"} {
		sentences = append(sentences, "Promoted the `"+g+"Tracking` feature gate to GA.",
			"Promoted the `"+g+"Pooling` feature gate to beta, enabled by default.")
	}
	doc := parse(t, upstreamDoc("1.40", 4001, sentences...))
	rep := generate(t, Options{Language: "en"}, doc)
	sets := map[string]bool{}
	for _, g := range rep.Questions {
		q, p := g.Question, g.Provenance
		switch p.Generator {
		case GenStageInRelease:
			if slices.Contains(q.Choices, english.label[changelog.StageBetaDefaultOn]) {
				t.Errorf("%q offers %v", q.Prompt, q.Choices)
			}
			if p.Stage == changelog.StageBetaDefaultOn && q.Answer != "beta" {
				t.Errorf("%q: answer %q, want beta", q.Prompt, q.Answer)
			}
			if p.Stage == changelog.StageGA {
				sets[strings.Join(q.Choices, "|")] = true
			}
		case GenTrueFalse:
			if strings.Contains(q.Prompt, "alpha") && !strings.Contains(q.Prompt, "introduced as alpha") {
				t.Errorf("%q: an alpha claimed as held", q.Prompt)
			}
		}
	}
	if len(sets) < 2 {
		t.Errorf("every GA question offers the same choices: %v", sets)
	}
}

// calledGate finds a name called a feature gate alone or in a list, in
// English and in Japanese, and not a name merely beside one.
func TestCalledGate(t *testing.T) {
	tests := []struct {
		text, name string
		want       bool
	}{
		{"Promoted the WidgetGate feature gate to GA.", "WidgetGate", true},
		{"The GA WidgetA and WidgetB feature gates have been removed.", "WidgetA", true},
		{"Removed GA'ed feature gates: WidgetA, WidgetB, and WidgetC.", "WidgetC", true},
		{"feature gates WidgetA and WidgetB are removed", "WidgetB", true},
		{"WidgetAとWidgetBフィーチャーゲートが削除された。", "WidgetA", true},
		{"GA となったフィーチャーゲート WidgetA, WidgetB を削除しました。", "WidgetB", true},
		{"v1.18 以降で GA になっている feature gateWidgetA と WidgetB が削除されました", "WidgetB", true},
		{"Deprecated WidgetScore in favor of WidgetRank.", "WidgetScore", false},
		{"WidgetScore and the WidgetGate feature gate", "WidgetScore", false},
		{"the WidgetHandler runtime handler and the WidgetSupport feature gate", "WidgetHandler", false},
	}
	for _, tt := range tests {
		if got := calledGate(tt.text, tt.name); got != tt.want {
			t.Errorf("calledGate(%q, %q) = %v, want %v", tt.text, tt.name, got, tt.want)
		}
	}
}

// TestClaimBalancePick: a false statement claims the stage whose claims
// are true the most often so far; ties go round from the hash's position.
func TestClaimBalancePick(t *testing.T) {
	alpha, beta, ga := changelog.StageAlpha, changelog.StageBeta, changelog.StageGA
	tests := []struct {
		name    string
		balance claimBalance
		cands   []changelog.Stage
		start   uint64
		want    changelog.Stage
	}{
		{"all even, from the start", claimBalance{}, []changelog.Stage{alpha, beta, ga}, 0, alpha},
		{"all even, from the hash's position", claimBalance{}, []changelog.Stage{alpha, beta, ga}, 4, beta},
		{"the most often true", claimBalance{alpha: -3, beta: 2, ga: 1}, []changelog.Stage{alpha, beta, ga}, 0, beta},
		{"a claim never made counts as even", claimBalance{alpha: -1, beta: -2}, []changelog.Stage{alpha, beta, ga}, 0, ga},
		{"a tie after the start", claimBalance{alpha: -1, beta: 1, ga: 1}, []changelog.Stage{alpha, beta, ga}, 2, ga},
		{"one candidate", claimBalance{alpha: -5}, []changelog.Stage{alpha}, 7, alpha},
	}
	for _, tt := range tests {
		if got := tt.balance.pick(tt.cands, tt.start); got != tt.want {
			t.Errorf("%s: pick = %s, want %s", tt.name, got, tt.want)
		}
	}
	b := claimBalance{}
	b.count(ga, true)
	b.count(ga, true)
	b.count(ga, false)
	b.count(alpha, false)
	if b[ga] != 1 || b[alpha] != -1 {
		t.Errorf("after two true and one false GA claims and one false alpha: %v", b)
	}
}

// A removal that an entry dates before a promotion it also states is not
// asked: which release each belongs to is not clear. A removal whose entry
// dates the promotion before it still is.
func TestRemovalDatedBeforeItsPromotion(t *testing.T) {
	older := parse(t, upstreamKindDoc("1.36", kindCleanup, 3001, "Promoted the `WidgetSync` feature gate to beta."))
	tests := []struct {
		name, sentence string
		removed        string // the release asked for the removal, or ""
	}{
		{"garbled", "The feature gates `WidgetSync` is graduated to GA and were unconditionally enabled have been removed in v1.37.", ""},
		{"in order", "Removed the `WidgetSync` feature gate, which graduated to GA in v1.37.", ""}, // 1.40 is the deck's
	}
	for _, tt := range tests {
		doc := parse(t, upstreamKindDoc("1.40", kindCleanup, 4001, tt.sentence))
		asked := ""
		for _, g := range generate(t, Options{Language: "en"}, doc, older).Questions {
			p := g.Provenance
			if p.Feature != "WidgetSync" || p.Stage != changelog.StageRemoved {
				continue
			}
			switch p.Generator {
			case GenReleaseOfStage:
				asked = g.Question.Answer
			case GenStageInRelease, GenTrueFalse:
				if p.Release != "1.40" {
					t.Errorf("%s: %s %q rests on a removal in %s", tt.name, p.Generator, g.Question.Prompt, p.Release)
				}
			}
		}
		if asked != tt.removed {
			t.Errorf("%s: the removal is asked with answer %q, want %q", tt.name, asked, tt.removed)
		}
	}
}
