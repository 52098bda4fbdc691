package changelog

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"kubequiz/internal/testshared"
)

// sharedDoc names one document of the shared reference folder.
type sharedDoc struct {
	id      string
	path    []string
	format  Format
	release string
	sig     string
}

var sharedDocs = []sharedDoc{
	{"up17", []string{"changelogs", "CHANGELOG-1.17.0.md"}, FormatUpstreamBySIG, "1.17", ""},
	{"up21", []string{"changelogs", "CHANGELOG-1.21.0.md"}, FormatUpstream, "1.21", ""},
	{"up28", []string{"changelogs", "CHANGELOG-1.28.0.md"}, FormatUpstream, "1.28", ""},
	{"up36", []string{"changelogs", "CHANGELOG-1.36.0.md"}, FormatUpstream, "1.36", ""},
	{"seed21", []string{"seeds", "000_aec933f24ac22a84.txt"}, FormatArticle, "1.21", "Node"},
	{"seed36", []string{"seeds", "001_c234237cc75ea20a.txt"}, FormatArticle, "1.36", "Node"},
	{"seed17", []string{"seeds", "002_d94e65080418002e.txt"}, FormatArticle, "1.17", "Cluster Lifecycle"},
	{"seed28", []string{"seeds", "004_5718a512479919c9.txt"}, FormatArticle, "1.28", "Network"},
}

// parsedShared parses each shared document once per test binary.
var parsedShared = struct {
	sync.Mutex
	docs map[string]*Document
}{docs: map[string]*Document{}}

func sharedDocument(t *testing.T, id string) *Document {
	t.Helper()
	var sd sharedDoc
	for _, s := range sharedDocs {
		if s.id == id {
			sd = s
		}
	}
	if sd.id == "" {
		t.Fatalf("unknown shared document %q", id)
	}
	parsedShared.Lock()
	defer parsedShared.Unlock()
	if d, ok := parsedShared.docs[id]; ok {
		return d
	}
	b, err := os.ReadFile(testshared.Path(t, sd.path...))
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	d, err := Parse(b, Options{})
	if err != nil {
		t.Fatalf("Parse %s: %v", id, err)
	}
	parsedShared.docs[id] = d
	return d
}

func TestSharedDocumentsDetected(t *testing.T) {
	testshared.Dir(t) // skips (or, in CI, fails) without the shared documents
	for _, sd := range sharedDocs {
		t.Run(sd.id, func(t *testing.T) {
			d := sharedDocument(t, sd.id)
			if d.Format != sd.format || d.Release != sd.release || d.SIG != sd.sig {
				t.Errorf("format %q release %q sig %q, want %q %q %q", d.Format, d.Release, d.SIG, sd.format, sd.release, sd.sig)
			}
			if sd.format == FormatArticle && !strings.HasPrefix(d.Title, "Kubernetes "+sd.release+":") {
				t.Errorf("title %q, want the article's title line", d.Title)
			}
			seen := map[string]bool{}
			for _, e := range d.Entries {
				if seen[e.Key] {
					t.Errorf("duplicate entry key %q", e.Key)
				}
				seen[e.Key] = true
				if e.Text == "" && e.Title == "" {
					t.Errorf("entry %s has no text", e.Key)
				}
			}
		})
	}
}

// The counts per heading come from changelogs/README.md.
func TestSharedUpstreamCounts(t *testing.T) {
	testshared.Dir(t) // skips (or, in CI, fails) without the shared documents
	tests := []struct {
		id          string
		kinds       map[Kind]int
		sections    map[string]int // 1.17: by heading path
		distinctPRs int
	}{
		{id: "up36", kinds: map[Kind]int{
			KindUrgentUpgradeNote: 2, KindDependency: 2, KindDeprecation: 4, KindAPIChange: 82, KindFeature: 97,
			KindDocumentation: 1, KindFailingTest: 2, KindBugOrRegression: 115, KindCleanup: 39,
		}, distinctPRs: 344},
		{id: "up28", kinds: map[Kind]int{
			KindUrgentUpgradeNote: 4, KindDeprecation: 7, KindAPIChange: 42, KindFeature: 95,
			KindDocumentation: 1, KindFailingTest: 3, KindBugOrRegression: 88, KindCleanup: 50,
		}, distinctPRs: 290},
		{id: "up21", kinds: map[Kind]int{
			KindUrgentUpgradeNote: 10, KindDeprecation: 21, KindAPIChange: 37, KindFeature: 69, KindDocumentation: 3,
			KindFailingTest: 3, KindBugOrRegression: 107, KindCleanup: 29, KindUncategorized: 2,
			KindHighlight: 10, KindKnownIssue: 1, // prose subsections
		}, distinctPRs: 275},
		{id: "up17", sections: map[string]int{
			"Known Issues": 4, "Urgent Upgrade Notes / Cluster Lifecycle": 1, "Urgent Upgrade Notes / Network": 1,
			"Urgent Upgrade Notes / Scheduling": 1, "Urgent Upgrade Notes / Storage": 1, "Urgent Upgrade Notes / Windows": 4,
			"Deprecations and Removals": 14, "Metrics Changes / Added metrics": 7, "Metrics Changes / Deprecated/changed metrics": 10,
			"Notable Features": 15, "API Changes": 4,
			"Other notable changes / API Machinery": 40, "Other notable changes / Apps": 12, "Other notable changes / Auth": 6,
			"Other notable changes / CLI": 9, "Other notable changes / Cloud Provider": 15, "Other notable changes / Cluster Lifecycle": 44,
			"Other notable changes / Instrumentation": 4, "Other notable changes / Network": 27, "Other notable changes / Node": 14,
			"Other notable changes / Release": 3, "Other notable changes / Scheduling": 37, "Other notable changes / Storage": 18,
			"Other notable changes / Windows": 4, "Other notable changes / Dependencies": 5,
			"What’s New (Major Themes)": 3,
		}, kinds: map[Kind]int{
			KindKnownIssue: 4, KindUrgentUpgradeNote: 8, KindDeprecation: 24, KindFeature: 22, KindAPIChange: 4,
			KindUncategorized: 233, KindDependency: 5, KindHighlight: 3,
		}, distinctPRs: 284},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			d := sharedDocument(t, tt.id)
			if got := kindCounts(d); !mapsEqual(got, tt.kinds) {
				t.Errorf("kinds = %v, want %v", got, tt.kinds)
			}
			if tt.sections != nil {
				got := map[string]int{}
				for _, e := range d.Entries {
					got[e.Section]++
				}
				if !mapsEqual(got, tt.sections) {
					t.Errorf("sections = %v, want %v", got, tt.sections)
				}
			}
			prs := map[int]bool{}
			for _, e := range d.Entries {
				if e.Title != "" {
					continue // prose subsections only link to PRs
				}
				for _, p := range e.PRs {
					prs[p] = true
				}
			}
			if len(prs) != tt.distinctPRs {
				t.Errorf("distinct PRs = %d, want %d", len(prs), tt.distinctPRs)
			}
		})
	}
}

// stageFact is a fact of changelog-formats.md section B.6 as one document
// states it.
type stageFact struct {
	doc   string
	names []string // spellings that count as the feature
	stage Stage
	pr    int
}

func TestSharedStageFacts(t *testing.T) {
	testshared.Dir(t) // skips (or, in CI, fails) without the shared documents
	n := func(s ...string) []string { return s }
	facts := []stageFact{
		// 1.36
		{"seed36", n("ImageVolume"), StageGA, 136711}, {"up36", n("ImageVolume"), StageGA, 136711},
		{"seed36", n("UserNamespacesSupport"), StageGA, 136792}, {"up36", n("UserNamespacesSupport"), StageGA, 136792},
		{"seed36", n("KubeletPSI"), StageGA, 136548}, {"up36", n("KubeletPSI"), StageGA, 136548},
		{"seed36", n("DRAPrioritizedList"), StageGA, 136924}, {"up36", n("DRAPrioritizedList"), StageGA, 136924},
		{"seed36", n("DRAAdminAccess"), StageGA, 137373}, {"up36", n("DRAAdminAccess"), StageGA, 137373},
		{"seed36", n("NodeLogQuery"), StageGA, 137544}, {"up36", n("NodeLogQuery"), StageGA, 137544},
		{"seed36", n("ProcMountType"), StageGA, 137454}, {"up36", n("ProcMountType"), StageGA, 137454},
		{"seed36", n("KubeletPodResourcesDynamicResources"), StageGA, 136728}, {"up36", n("KubeletPodResourcesDynamicResources"), StageGA, 136728},
		{"seed36", n("KubeletPodResourcesGet"), StageGA, 136728}, {"up36", n("KubeletPodResourcesGet"), StageGA, 136728},
		{"seed36", n("kubelet API authorization", "fine-grained kubelet API authorization"), StageGA, 136116},
		{"up36", n("fine-grained kubelet API authorization"), StageGA, 136116},
		{"seed36", n("NodeDeclaredFeatures"), StageBeta, 136042}, {"up36", n("NodeDeclaredFeatures"), StageBeta, 136042},
		{"seed36", n("InPlacePodLevelResourcesVerticalScaling"), StageBetaDefaultOn, 137684}, {"up36", n("InPlacePodLevelResourcesVerticalScaling"), StageBetaDefaultOn, 137684},
		{"seed36", n("RestartAllContainersOnContainerExits"), StageBetaDefaultOn, 136681}, {"up36", n("RestartAllContainersOnContainerExits"), StageBetaDefaultOn, 136681},
		{"seed36", n("DRAPartitionableDevices"), StageBeta, 137350}, {"up36", n("DRAPartitionableDevices"), StageBeta, 137350},
		{"seed36", n("DRAConsumableCapacity"), StageDefaultOn, 136611}, {"up36", n("DRAConsumableCapacity"), StageDefaultOn, 136611},
		{"up36", n("MutatingAdmissionPolicy"), StageGA, 136039},
		// 1.28
		{"seed28", n("IPTablesOwnershipCleanup"), StageGA, 119374}, {"up28", n("IPTablesOwnershipCleanup"), StageGA, 119374},
		{"seed28", n("ServiceNodePortStaticSubrange"), StageBetaDefaultOn, 117877}, {"up28", n("ServiceNodePortStaticSubrange"), StageBetaDefaultOn, 117877},
		{"seed28", n("ExpandedDNSConfig"), StageGA, 116741}, {"up28", n("ExpandedDNSConfig"), StageGA, 116741},
		{"seed28", n("ProxyTerminatingEndpoints"), StageGA, 117718},
		{"seed28", n("NetworkPolicyStatus"), StageRemoved, 115843}, {"up28", n("NetworkPolicyStatus"), StageRemoved, 115843},
		{"seed28", n("MixedProtocolLBService"), StageRemoved, 117237}, {"up28", n("MixedProtocolLBService"), StageRemoved, 117237},
		{"seed28", n("ServiceInternalTrafficPolicy"), StageRemoved, 117237}, {"up28", n("ServiceInternalTrafficPolicy"), StageRemoved, 117237},
		{"seed28", n("ServiceIPStaticSubrange"), StageRemoved, 117237}, {"up28", n("ServiceIPStaticSubrange"), StageRemoved, 117237},
		{"seed28", n("EndpointSliceTerminatingCondition"), StageRemoved, 117237}, {"up28", n("EndpointSliceTerminatingCondition"), StageRemoved, 117237},
		{"up28", n("SidecarContainers"), StageAlpha, 116429},
		{"up28", n("ValidatingAdmissionPolicy"), StageBeta, 119409},
		{"up28", n("ProbeTerminationGracePeriod"), StageGA, 114307},
		{"up28", n("LegacyServiceAccountTokenTracking"), StageGA, 117591},
		{"up28", n("TopologyManagerPolicyOptions"), StageBetaDefaultOn, 118816},
		{"up28", n("CRDValidationRatcheting"), StageAlpha, 118990},
		// 1.21
		{"seed21", n("Immutable Secrets/ConfigMaps"), StageGA, 97615}, {"up21", n("Immutable Secrets/ConfigMaps"), StageGA, 97615},
		{"seed21", n("GracefulNodeShutdown"), StageBetaDefaultOn, 99735}, {"up21", n("GracefulNodeShutdown"), StageBetaDefaultOn, 99735},
		{"seed21", n("CRIContainerLogRotation"), StageGA, 99651}, {"up21", n("CRIContainerLogRotation"), StageGA, 99651},
		{"seed21", n("Sysctls"), StageGA, 99158}, {"up21", n("Sysctls"), StageGA, 99158},
		{"seed21", n("RunAsGroup"), StageGA, 94641}, {"up21", n("RunAsGroup"), StageGA, 94641},
		{"seed21", n("SizeMemoryBackedVolumes"), StageBetaDefaultOn, 100319},
		{"seed21", n("ProbeTerminationGracePeriod"), StageAlpha, 99375},
		{"seed21", n("KubeletPodResourcesGetAllocatable"), StageAlpha, 95734},
		{"seed21", n("DownwardAPIHugePages"), StageBeta, 99610}, {"up21", n("DownwardAPIHugePages"), StageBeta, 99610},
		{"seed21", n("TokenRequest"), StageRemoved, 97148}, {"up21", n("TokenRequest"), StageRemoved, 97148},
		{"seed21", n("TokenRequestProjection"), StageRemoved, 97148}, {"up21", n("TokenRequestProjection"), StageRemoved, 97148},
		{"up21", n("CSIServiceAccountToken"), StageBetaDefaultOn, 99298},
		{"up21", n("TopologyAwareHints"), StageAlpha, 99522},
		// 1.17
		{"up17", n("ScheduleDaemonSetPods"), StageGA, 82795},
		{"up17", n("TaintNodesByCondition"), StageGA, 82703},
		{"up17", n("WatchBookmark"), StageGA, 83195},
		{"up17", n("NodeLease"), StageGA, 84351},
		{"up17", n("CSI Topology"), StageGA, 83474},
		{"up17", n("VolumeSubpathEnvExpansion"), StageGA, 82578},
		{"up17", n("ResourceQuotaScopeSelectors"), StageGA, 82690},
		{"up17", n("CSIMigration"), StageBetaDefaultOn, 85231},
		{"up17", n("CSIMigrationGCE"), StageBeta, 85231},
		{"up17", n("EndpointSlice"), StageBeta, 85365},
		{"up17", n("WindowsRunAsUserName"), StageBeta, 84882},
		{"up17", n("CustomResourceDefaulting"), StageGA, 84713},
		{"seed17", n("kubeadm.k8s.io/v1beta1"), StageDeprecated, 83276}, {"up17", n("kubeadm.k8s.io/v1beta1"), StageDeprecated, 83276},
	}
	found := map[string]int{}
	for _, f := range facts {
		t.Run(fmt.Sprintf("%s/%s/%s", f.doc, f.names[0], f.stage), func(t *testing.T) {
			d := sharedDocument(t, f.doc)
			var got []StageChange
			for _, name := range f.names {
				got = append(got, stagesOf(d, name)...)
			}
			// Beta and on by default are two facts.
			want := []Stage{f.stage}
			if f.stage == StageBetaDefaultOn {
				want = []Stage{StageBeta, StageDefaultOn}
			}
			for _, w := range want {
				if !slices.ContainsFunc(got, func(sc StageChange) bool { return sc.Stage == w && sc.PR == f.pr && sc.Release == d.Release }) {
					t.Fatalf("want %s in %s (#%d); got %+v", w, d.Release, f.pr, got)
				}
			}
			found[strings.TrimRight(f.doc, "0123456789")]++
		})
	}
	if found["seed"] < 10 || found["up"] < 10 || found["seed"]+found["up"] < 40 {
		t.Errorf("facts found: %d from seeds, %d from upstream; want at least 40 with both families", found["seed"], found["up"])
	}
}

// conceptFact is a concept of section B.7: one of the terms must be offered
// with a description that contains every keyword.
type conceptFact struct {
	doc      string
	terms    []string
	keywords []string
}

func TestSharedConceptFacts(t *testing.T) {
	testshared.Dir(t) // skips (or, in CI, fails) without the shared documents
	facts := []conceptFact{
		{"seed36", []string{"memory.min"}, []string{"OOM"}},
		{"seed36", []string{"memory.low"}, []string{"memory.low を持たない"}},
		{"seed36", []string{"MemoryReservationPolicy"}, []string{"TieredReservation", "Burstable"}},
		{"seed36", []string{"PSI", "KubeletPSI"}, []string{"(some)", "(full)", "avg10"}},
		{"seed36", []string{"PLEGOnDemandRelist"}, []string{"relist", "2 秒"}},
		{"seed36", []string{"Pod Level Resource Managers", "pod scope"}, []string{"NUMA"}},
		{"seed21", []string{"Immutable Secrets and ConfigMaps", "Immutable Secrets/ConfigMaps"}, []string{"apiserver"}},
		{"seed21", []string{"ProbeTerminationGracePeriod"}, []string{"liveness probe", "terminationGracePeriodSeconds"}},
		{"seed21", []string{"GetAllocatableResources"}, []string{"デバイス"}},
		{"seed28", []string{"ServiceNodePortStaticSubrange"}, []string{"静的"}},
		{"seed28", []string{"IPTablesOwnershipCleanup"}, []string{"KUBE-MARK-DROP", "KUBE-MARK-MASQ"}},
		{"seed36", []string{"CRI List Streaming"}, []string{"16 MB"}},
		{"seed17", []string{"kubelet-finalize"}, []string{"kubelet.conf"}},
		{"seed17", []string{"kube-scheduler", "kube-controller-manager"}, []string{"10259", "10257"}},
	}
	for _, f := range facts {
		t.Run(f.doc+"/"+f.terms[0], func(t *testing.T) {
			d := sharedDocument(t, f.doc)
			var terms []string
			for _, c := range d.Concepts() {
				if !slices.ContainsFunc(f.terms, func(s string) bool { return FeatureKey(s) == FeatureKey(c.Term) }) {
					continue
				}
				terms = append(terms, c.Term)
				ok := true
				for _, k := range f.keywords {
					ok = ok && strings.Contains(c.Description, k)
				}
				if ok {
					if c.Document != d.Key || c.Release != d.Release {
						t.Errorf("concept %q: document %q release %q, want %q %q", c.Term, c.Document, c.Release, d.Key, d.Release)
					}
					return
				}
			}
			t.Errorf("no concept for %q whose description holds %q (terms offered: %q)", f.terms, f.keywords, terms)
		})
	}
}

func TestSharedImageVolumeTimeline(t *testing.T) {
	testshared.Dir(t) // skips (or, in CI, fails) without the shared documents
	want := []string{"1.31 alpha", "1.33 beta", "1.35 default_on", "1.36 ga #136711"}
	for _, docs := range [][]string{{"seed36"}, {"seed36", "up36"}, {"up36", "seed36", "up28", "up21", "up17"}} {
		t.Run(strings.Join(docs, "+"), func(t *testing.T) {
			var parsed []*Document
			for _, id := range docs {
				parsed = append(parsed, sharedDocument(t, id))
			}
			tl, err := NewTimeline(parsed...)
			if err != nil {
				t.Fatalf("NewTimeline: %v", err)
			}
			var got []string
			for _, e := range tl.Events("ImageVolume") {
				s := e.Release + " " + string(e.Stage)
				if e.PR != 0 {
					s += fmt.Sprintf(" #%d", e.PR)
				}
				got = append(got, s)
			}
			if !slices.Equal(got, want) {
				t.Errorf("ImageVolume = %q, want %q", got, want)
			}
			if rel, ok := tl.ReleaseOf("ImageVolume", StageGA); !ok || rel != "1.36" {
				t.Errorf("ReleaseOf(ImageVolume, ga) = %q, %v; want 1.36", rel, ok)
			}
		})
	}
}

// The upstream notes alone end 1.36 with PLEGOnDemandRelist switched off;
// the article explains that the change was reverted before the release.
func TestSharedPLEGRevert(t *testing.T) {
	testshared.Dir(t) // skips (or, in CI, fails) without the shared documents
	up, err := NewTimeline(sharedDocument(t, "up36"))
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	if got, ok := up.StageIn("PLEGOnDemandRelist", "1.36"); !ok || got.Stage != StageDefaultOff || got.PR != 137909 {
		t.Errorf("upstream only: %+v, %v; want default_off #137909", got, ok)
	}
	both, err := NewTimeline(sharedDocument(t, "up36"), sharedDocument(t, "seed36"))
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	if got, ok := both.StageIn("PLEGOnDemandRelist", "1.36"); !ok || got.Stage != StageBetaDefaultOn || got.PR != 137946 || !got.Revert {
		t.Errorf("with the article: %+v, %v; want beta_default_on #137946, a revert", got, ok)
	}
	// The CRI image_id field was added and reverted within 1.36.
	if got, ok := up.StageIn("image_id", "1.36"); !ok || got.Stage != StageReverted || got.PR != 137574 {
		t.Errorf("image_id: %+v, %v; want reverted #137574", got, ok)
	}
}

// TestSharedUpstreamForOneSIG: the 1.28 CHANGELOG read for SIG Network
// keeps the network changes its entries do not label (most of 1.28's
// entries have no SIG label), and leaves out those of other SIGs only.
func TestSharedUpstreamForOneSIG(t *testing.T) {
	b, err := os.ReadFile(testshared.Path(t, "changelogs", "CHANGELOG-1.28.0.md"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := Parse(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(b, Options{SIG: "Network"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Key != "1.28/network" || d.OtherSIGs == 0 || d.Unlabelled == 0 || len(d.Entries)+d.OtherSIGs != len(all.Entries) {
		t.Errorf("key %s, %d entries, %d of other SIGs, %d without a label, of %d", d.Key, len(d.Entries), d.OtherSIGs, d.Unlabelled, len(all.Entries))
	}
	has := map[int]bool{}
	for _, e := range d.Entries {
		for _, pr := range e.PRs {
			has[pr] = true
		}
		if len(e.SIGs) > 0 && !labelled(e, "Network") {
			t.Errorf("entry %s of SIGs %v kept for SIG Network", e.Key, e.SIGs)
		}
	}
	// ServiceNodePortStaticSubrange to beta, NetworkPolicyStatus removed,
	// IPTablesOwnershipCleanup to GA: unlabelled network entries.
	for _, pr := range []int{117877, 115843, 119374} {
		if !has[pr] {
			t.Errorf("PR #%d left out", pr)
		}
	}
}
