package changelog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// upstreamOf is an upstream CHANGELOG of release 1.minor whose one Feature
// entry is the sentence, by PR 4242.
func upstreamOf(minor int, sentence string) []byte {
	return fmt.Appendf(nil, "# v1.%d.0\n\n## Changelog since v1.%d.0\n\n## Changes by Kind\n\n### Feature\n\n- %s ([#4242](https://github.com/kubernetes/kubernetes/pull/4242), [@someone](https://github.com/someone))\n",
		minor, minor-1, sentence)
}

// articleOf is a Japanese article of release 1.minor whose one Feature
// entry is the sentence, by PR 4242, with its notes.
func articleOf(minor int, sentence string, notes ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "Kubernetes 1.%d: SIG-Node の変更内容\n\nFeature\n\n  • %s (#4242、@someone) [sig/node]\n", minor, sentence)
	for _, n := range notes {
		fmt.Fprintf(&b, "    • :pencil: %s\n", n)
	}
	return []byte(b.String())
}

// factsOf lists a document's stage changes as "feature|stage|release",
// the feature as FeatureKey has it, sorted.
func factsOf(d *Document) []string {
	var out []string
	for _, e := range d.Entries {
		for _, sc := range e.Stages {
			out = append(out, FeatureKey(sc.Feature)+"|"+string(sc.Stage)+"|"+sc.Release)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fact is "feature|stage|release" with the feature as written.
func fact(feature string, st Stage, release string) string {
	return FeatureKey(feature) + "|" + string(st) + "|" + release
}

// TestFactRules checks each rule of stage facts on a sentence of the
// shared reference documents (named in "from"): every fact the document
// gives is listed, and nothing else.
func TestFactRules(t *testing.T) {
	tests := []struct {
		rule, from string
		doc        []byte
		want       []string
	}{
		// A name is the noun phrase it starts, not its first word.
		{"noun phrase up to the verb", "1.21 CHANGELOG #98538",
			upstreamOf(21, "OpenStack Cinder CSI migration is on by default, Clinder CSI driver must be installed on clusters on OpenStack for Cinder volumes to work."),
			[]string{fact("OpenStack Cinder CSI migration", StageDefaultOn, "1.21")}},
		{"a field of a feature is not the feature", "1.21 CHANGELOG #99662",
			upstreamOf(21, "The EndpointSlice API is now GA. The EndpointSlice topology field has been removed from the GA API and will be replaced by a new per Endpoint Zone field."),
			[]string{fact("EndpointSlice", StageGA, "1.21"), fact("EndpointSlice topology field", StageRemoved, "1.21")}},
		{"the word after a quoted name", "1.28 CHANGELOG #118228",
			upstreamOf(28, "Moved `non-graceful node` shutdown to GA."),
			[]string{fact("non-graceful node shutdown", StageGA, "1.28")}},
		{"the plugin, not its first word", "1.28 CHANGELOG #118236",
			upstreamOf(28, "Removed the deprecated `azureFile` in-tree storage plugin."),
			[]string{fact("azureFile in-tree storage plugin", StageRemoved, "1.28")}},
		{"capitalised words that open the clause", "1.17 CHANGELOG #85023",
			upstreamOf(17, "Finalizer Protection for Service LoadBalancers is now in GA (enabled by default). This feature ensures the Service resource is not fully deleted until the correlating load balancer resources are deleted."),
			[]string{fact("Finalizer Protection for Service LoadBalancers", StageGA, "1.17")}},
		{"a name in a comparison is no subject", "1.21 CHANGELOG #98546",
			upstreamOf(21, "vSphere releases less than 67u3 are deprecated as of v1.21. Please consider upgrading vSphere to 67u3 or above."),
			nil},
		{"a name after for is a complement", "1.21 CHANGELOG #98546",
			upstreamOf(21, "`diskformat` storage class parameter for in-tree vSphere volume plugin is deprecated as of v1.21 release."),
			[]string{fact("diskformat storage class parameter", StageDeprecated, "1.21")}},
		{"a verb before a name is no part of it", "1.21 CHANGELOG #98969",
			upstreamOf(21, "Upgrades `IPv6Dualstack` to `Beta` and turns it on by default."),
			[]string{fact("IPv6Dualstack", StageBeta, "1.21"), fact("IPv6Dualstack", StageDefaultOn, "1.21")}},
		{"a feature-gate word before a name is no part of it", "1.21 CHANGELOG #99658",
			upstreamOf(21, "Featuregate AllowInsecureBackendProxy graduates to GA and unconditionally enabled."),
			[]string{fact("AllowInsecureBackendProxy", StageGA, "1.21")}},

		// Kubernetes objects and code are not features.
		{"an object removed from a status", "1.36 CHANGELOG #135297",
			upstreamOf(36, "Removed CustomResourceDefinition stored versions from status upon StorageVersionMigrator migration."),
			nil},
		{"a gate removed from a list keeps its gate", "1.36 CHANGELOG #136759",
			upstreamOf(36, "Removed GuaranteedQoSPodCPUResize from node declared features."),
			nil},
		{"a taint removed from a flag's default value", "1.28 CHANGELOG #118510",
			upstreamOf(28, "E2e framework: the `node-role.kubernetes.io/master` taint has been removed from the default value of `--non-blocking-taints` flag."),
			nil},
		{"a field removed from an API type is removed", "1.28 CHANGELOG #116335",
			upstreamOf(28, "Removed `resizeStatus` enum from `pvc.Status` and replaced with `AllocatedResourceStatus`."),
			[]string{fact("resizeStatus enum", StageRemoved, "1.28")}},
		{"a flag removed from a program is removed", "1.36 CHANGELOG #137348",
			upstreamOf(36, "Removed the dead `--bounding-dirs` flag and `BoundingDirs` field from `deepcopy-gen`."),
			[]string{fact("--bounding-dirs", StageRemoved, "1.36")}},
		{"constants deprecated in favour of others", "1.36 CHANGELOG #137201",
			upstreamOf(36, "Added the PlacementScore extension point to the scheduler for scoring placements in placement-based PodGroup scheduling, guarded by the `TopologyAwareWorkloadScheduling` feature gate. Deprecated MinNodeScore and MaxNodeScore in favor of MinScore and MaxScore."),
			nil},
		{"a method", "1.36 CHANGELOG #137084",
			upstreamOf(36, "Removed the temporary build-tagged `ProtoMessage()` marker method implementations from Kubernetes REST API types in `k8s.io/api`, which had incorrectly identified them as standard v1 proto messages."),
			nil},
		{"a helper method in Japanese", "1.36 seed #137827",
			articleOf(36, "cri-client helper メソッド NewLogOptions を削除した。 LogOptions は直接構築する必要がある。"),
			nil},
		{"an API kind named as an API stays", "1.21 CHANGELOG #97171",
			upstreamOf(21, "The PodSecurityPolicy API is deprecated in 1.21, and will no longer be served starting in 1.25."),
			[]string{fact("PodSecurityPolicy", StageDeprecated, "1.21")}},
		{"group/version/Kind is the versioned kind", "1.21 CHANGELOG #99641",
			upstreamOf(21, "Storage capacity tracking (= the CSIStorageCapacity feature) graduates to Beta and enabled by default, storage.k8s.io/v1alpha1/VolumeAttachment and storage.k8s.io/v1alpha1/CSIStorageCapacity objects are deprecated"),
			[]string{fact("CSIStorageCapacity", StageBeta, "1.21"), fact("CSIStorageCapacity", StageDefaultOn, "1.21"),
				fact("storage.k8s.io/v1alpha1 VolumeAttachment", StageDeprecated, "1.21"), fact("storage.k8s.io/v1alpha1 CSIStorageCapacity", StageDeprecated, "1.21")}},

		{"a path placeholder", "1.17 CHANGELOG #84533",
			upstreamOf(17, "Removed plugin watching of the deprecated directory `{kubelet_root_dir}/plugins` and CSI V0 support in accordance with deprecation announcement in https://v1-13.docs.kubernetes.io/docs/setup/release/notes"),
			nil},
		{"a type of a Go package", "1.28 CHANGELOG #117102",
			upstreamOf(28, "Deprecated `genericclioptions.IOStreams` and used `genericiooptions.IOStreams`."),
			nil},
		{"access to a field", "1.36 CHANGELOG #137304",
			upstreamOf(36, "Direct access to the `Raw` field of `metav1.FieldsV1` is deprecated. Code that constructs or reads `FieldsV1` should migrate to the new accessor methods."),
			nil},
		{"removed from one kind of volume", "1.21 CHANGELOG #97823",
			upstreamOf(21, "Remove CSI topology from migrated in-tree gcepd volume."),
			nil},
		{"a range of versions is no name", "1.21 CHANGELOG #98546",
			upstreamOf(21, "VM Hardware version less than 15 is deprecated as of v1.21. Please consider upgrading the Node VM Hardware version to 15 or above."),
			nil},
		{"a revert of a change to something", "1.21 CHANGELOG #100563",
			upstreamOf(21, "Reverts breaking change to inline AzureFile volumes; referenced secrets are now searched for in the same namespace as the pod as in previous releases."),
			nil},
		{"gates reverted to disabled by default", "1.28 CHANGELOG #117751",
			upstreamOf(28, "Reverted `NewVolumeManagerReconstruction` and `SELinuxMountReadWriteOncePod` feature gates to disabled by default to resolve a regression of volume reconstruction on kubelet/node restart"),
			[]string{fact("NewVolumeManagerReconstruction", StageDefaultOff, "1.28"), fact("SELinuxMountReadWriteOncePod", StageDefaultOff, "1.28")}},

		// Two features in one sentence keep their own stages.
		{"two gates, two stages", "1.17 CHANGELOG #85231",
			upstreamOf(17, "Feature gates CSIMigration to Beta (on by default) and CSIMigrationGCE to Beta (off by default since it requires installation of the GCE PD CSI Driver)"),
			[]string{fact("CSIMigration", StageBeta, "1.17"), fact("CSIMigration", StageDefaultOn, "1.17"),
				fact("CSIMigrationGCE", StageBeta, "1.17"), fact("CSIMigrationGCE", StageDefaultOff, "1.17")}},
		{"three gates promoted, one then disabled", "1.21 CHANGELOG #97543",
			upstreamOf(21, "`ServiceNodeExclusion`, `NodeDisruptionExclusion` and `LegacyNodeRoleBehavior` features have been promoted to GA. `ServiceNodeExclusion` and `NodeDisruptionExclusion` are now unconditionally enabled, while `LegacyNodeRoleBehavior` is unconditionally disabled."),
			[]string{fact("ServiceNodeExclusion", StageGA, "1.21"), fact("NodeDisruptionExclusion", StageGA, "1.21"), fact("LegacyNodeRoleBehavior", StageGA, "1.21")}},
		{"a feature's GA and its gate's deprecation", "1.17 CHANGELOG #84356",
			upstreamOf(17, "Pod process namespace sharing is now Generally Available. The `PodShareProcessNamespace` feature gate is now deprecated and will be removed in Kubernetes 1.19."),
			[]string{fact("PodShareProcessNamespace", StageGA, "1.17"), fact("PodShareProcessNamespace", StageDeprecated, "1.17")}},

		// Beta and on by default are two facts.
		{"beta, enabled by default", "1.36 CHANGELOG #137684",
			upstreamOf(36, "Graduated the `InPlacePodLevelResourcesVerticalScaling` feature gate to beta, enabled by default. Pod-level CPU and memory resources can be resized in place for Pods with pod-level resources configured."),
			[]string{fact("InPlacePodLevelResourcesVerticalScaling", StageBeta, "1.36"), fact("InPlacePodLevelResourcesVerticalScaling", StageDefaultOn, "1.36")}},
		{"beta and on by default in Japanese", "1.21 seed #99735",
			articleOf(21, "kubeletのGraceful Node Shutdown機能がベータになり、デフォルトで有効になりました。"),
			[]string{fact("Graceful Node Shutdown", StageBeta, "1.21"), fact("Graceful Node Shutdown", StageDefaultOn, "1.21")}},
		{"GA, enabled by default", "1.36 CHANGELOG #136548",
			upstreamOf(36, "Graduated the `KubeletPSI` feature to GA, enabled by default."),
			[]string{fact("KubeletPSI", StageGA, "1.36"), fact("KubeletPSI", StageDefaultOn, "1.36")}},
		{"beta, turned off by default", "1.28 CHANGELOG #119409",
			upstreamOf(28, "Promoted the feature gate `ValidatingAdmissionPolicy` to beta, and it is turned off by default."),
			[]string{fact("ValidatingAdmissionPolicy", StageBeta, "1.28"), fact("ValidatingAdmissionPolicy", StageDefaultOff, "1.28")}},
		{"a gate locked to enabled is GA, no default of its own", "1.36 CHANGELOG #136673",
			upstreamOf(36, "Locked the `DisableNodeKubeProxyVersion` feature gate to enabled by default."),
			[]string{fact("DisableNodeKubeProxyVersion", StageGA, "1.36")}},
		{"a revert back to on by default", "1.36 seed #137946",
			articleOf(36, "Kubelet: 低レイテンシの操作のため、 Pod のオンデマンドな relist を有効化した。 beta feature gate PLEGOnDemandRelist により保護されている。",
				"前述の Failing Test 節 (#137909) で一時的にデフォルト無効化されましたが #137946 で revert され、 v1.36.0 リリース時点では beta で デフォルト有効 に戻っています。"),
			[]string{fact("PLEGOnDemandRelist", StageDefaultOn, "1.36")}},

		// Names of several words.
		{"a kind before a field, one name", "1.25 release notes #111194",
			upstreamOf(25, "Promoted DaemonSet MaxSurge to GA. This means `--feature-gates=DaemonSetUpdateSurge=true` are not needed on kube-apiserver and kube-controller-manager binaries and they'll be removed soon following policy at https://kubernetes.io/docs/reference/using-api/deprecation-policy/#deprecation ."),
			[]string{fact("DaemonSet MaxSurge", StageGA, "1.25")}},
		{"a possessive, one name", "1.25 release notes #111435",
			upstreamOf(25, "Promoted CronJob's TimeZone support to beta."),
			[]string{fact("CronJob's TimeZone support", StageBeta, "1.25")}},
		{"words before the stage that end with a comma describe the name after it", "1.23 release notes #105741",
			upstreamOf(23, `kubeadm: add the kubeadm specific, Alpha (disabled by default) feature gate UnversionedKubeletConfigMap. When this feature is enabled kubeadm will start using a new naming format for the ConfigMap where it stores the KubeletConfiguration structure. The old format included the Kubernetes version - "kube-system/kubelet-config-1.22", while the new format does not - "kube-system/kubelet-config". A similar formatting change is done for the related RBAC rules. The old format is now DEPRECATED and will be removed after the feature graduates to GA. When writing the ConfigMap kubeadm (init, upgrade apply) will respect the value of UnversionedKubeletConfigMap, while when reading it (join, reset, upgrade), it would attempt to use new format first and fallback to the legacy format if needed.`),
			[]string{fact("UnversionedKubeletConfigMap", StageAlpha, "1.23")}},

		// Words no name is made of.
		{"a verb after a gate ends the subject", "1.25 release notes #111301",
			upstreamOf(25, "`CSIMigrationGCE` upgraded to GA and locked to true."),
			[]string{fact("CSIMigrationGCE", StageGA, "1.25")}},
		{"a subject that is a piece of a sentence", "1.18 release notes #87440",
			upstreamOf(18, "--enable-cadvisor-endpoints is now disabled by default. If you need access to the cAdvisor v1 Json API please enable it explicitly in the kubelet command line. Please note that this flag was deprecated in 1.15 and will be removed in 1.19."),
			nil},

		// A GA or a default that is not this release's.
		{"a deprecation to be", "1.23 release notes #103799",
			upstreamOf(23, "Added apiserver_longrunning_requests metric to replace the soon to be deprecated apiserver_longrunning_gauge metric."),
			nil},
		{"a deprecation dated after its objects, in a later release", "1.22 release notes #103793",
			upstreamOf(22, "Deprecate apiserver_longrunning_gauge and apiserver_register_watchers in 1.23.0"),
			nil},
		{"a removed gate's GA is its past", "1.28 CHANGELOG #117055",
			upstreamOf(28, "The feature gates `CSIMigrationGCE` is graduated to GA and were unconditionally enabled have been removed in v1.25, and the entire `gcepd` package has been removed."),
			[]string{fact("CSIMigrationGCE", StageRemoved, "1.25"), fact("gcepd package", StageRemoved, "1.28")}},
		{"a GA the sentence dates stays, in its release", "1.36 CHANGELOG #135773",
			upstreamOf(36, "Kubeadm: Removed the `ControlPlaneKubeletLocalMode` feature gate, which graduated to GA in `v1.35` and was locked to enabled."),
			[]string{fact("ControlPlaneKubeletLocalMode", StageRemoved, "1.36"), fact("ControlPlaneKubeletLocalMode", StageGA, "1.35")}},
		{"a GA dated after its verb's ending", "1.24 release notes #106882",
			upstreamOf(24, `Refactor kubelet command line for enabling features and "drop RuntimeClass feature gate" if present. Note that this feature has been on by default since 1.14 and was GA'ed in 1.20.`),
			[]string{fact("RuntimeClass", StageDefaultOn, "1.14"), fact("RuntimeClass", StageGA, "1.20")}},
		{"a beta gate with a lock in a future release", "1.36 CHANGELOG #137715",
			upstreamOf(36, "Writes to the ServiceCIDR main resource ignore status field changes in the request, consistent with all other Kubernetes APIs. The `ServiceCIDRStatusFieldWiping` feature gate can be disabled to restore the previous behavior; it will be locked to enabled in a future release."),
			nil},
		{"a beta feature with a default in a later release", "1.21 CHANGELOG #99610",
			upstreamOf(21, "The `DownwardAPIHugePages` feature is beta. Users may use the feature if all workers in their cluster are min 1.20 version. The feature will be enabled by default in all installations in 1.22."),
			[]string{fact("DownwardAPIHugePages", StageBeta, "1.21")}},

		// Conditional clean-ups are no removals.
		{"a clean-up of flags under a condition", "1.36 CHANGELOG #135701",
			upstreamOf(36, "Kubeadm: Removed usage of the deprecated etcd flags `--experimental-initial-corrupt-check` and `--experimental-watch-progress-notify-interval` if the etcd version is < v3.6.0."),
			nil},
		{"the clean-up of a flag", "1.36 CHANGELOG #135807",
			upstreamOf(36, "Kubeadm: Removed the cleanup of the `--pod-infra-container-image` kubelet flag from `/var/lib/kubelet/kubeadm-flags.env` on upgrade."),
			nil},

		{"a removal of a behaviour in one case", "1.36 CHANGELOG #135281",
			upstreamOf(36, "Removed event listing behavior when describing a deleted Pod from file using `kubectl describe -f`, ensuring consistent NotFound error handling across all resource types."),
			nil},
		{"a check removed for one case", "1.17 CHANGELOG #85346",
			upstreamOf(17, "Remove redundant API validation when using Service Topology with externalTrafficPolicy=Local"),
			nil},

		// What a stage is read from.
		{"a default stated of a feature in one word", "1.17 CHANGELOG #84835", upstreamOf(17, "Profiling is enabled by default in the scheduler"),
			[]string{fact("Profiling", StageDefaultOn, "1.17")}},
		{"alpha version of", "1.28 CHANGELOG #119294",
			upstreamOf(28, "Extended the Job API for alpha version of `BackoffLimitPerIndex`."),
			[]string{fact("BackoffLimitPerIndex", StageAlpha, "1.28")}},
		{"alpha implementation of a feature in words", "1.21 CHANGELOG #98952",
			upstreamOf(21, "Alpha implementation of Kubectl Command Headers: SIG CLI KEP 859 enabled when KUBECTL_COMMAND_HEADERS environment variable set on the client command line."),
			[]string{fact("Kubectl Command Headers", StageAlpha, "1.21")}},
		{"an alpha field of the gate the sentence names", "1.21 CHANGELOG #98441",
			upstreamOf(21, "Added `.spec.completionMode` field to Job, with accepted values `NonIndexed` (default) and `Indexed`. This is an alpha field and is only honored by servers with the `IndexedJob` feature gate enabled."),
			[]string{fact("IndexedJob", StageAlpha, "1.21")}},
		{"this feature is alpha, behind a gate", "1.21 CHANGELOG #96441",
			upstreamOf(21, "This allows workloads to avoid downtime during upgrades when deployed using DaemonSets. This feature is alpha and is behind the DaemonSetUpdateSurge feature gate."),
			[]string{fact("DaemonSetUpdateSurge", StageAlpha, "1.21")}},
		{"a renamed gate's alpha is not the old name's", "1.17 CHANGELOG #85260",
			upstreamOf(17, "Renamed FeatureGate RequestManagement to APIPriorityAndFairness. This feature gate is an alpha and has not yet been associated with any actual functionality."),
			nil},
		{"alpha support for a feature in words", "1.28 CHANGELOG #119390",
			upstreamOf(28, "Implemented alpha support for a drop-in kubelet configuration directory."),
			[]string{fact("drop-in kubelet configuration directory", StageAlpha, "1.28")}},
		{"on by default, off through a gate", "1.36 CHANGELOG #132922",
			upstreamOf(36, "The k8s.io/client-go/transport package automatically reloads certificate authority roots from disk when they are supplied via a file path. This functionality is enabled by default and can be disabled via the `ClientsAllowCARotation` feature gate."),
			[]string{fact("ClientsAllowCARotation", StageDefaultOn, "1.36")}},
		{"an image in lower case", "1.17 CHANGELOG #85094",
			upstreamOf(17, "kubeadm deprecates the use of the hyperkube image"),
			[]string{fact("hyperkube image", StageDeprecated, "1.17")}},
		{"an image in Japanese", "1.17 seed #85094",
			articleOf(17, "kubeadm は hyperkube イメージの使用を非推奨としました。"),
			[]string{fact("hyperkube image", StageDeprecated, "1.17")}},
		{"an addon in lower case", "1.17 CHANGELOG #83442",
			upstreamOf(17, "Remove prometheus cluster monitoring addon from kube-up"),
			[]string{fact("prometheus cluster monitoring addon", StageRemoved, "1.17")}},
		{"a component-led subject", "1.28 CHANGELOG #116525",
			upstreamOf(28, "The kubelet podresources endpoint is GA and always enabled."),
			[]string{fact("kubelet podresources endpoint", StageGA, "1.28")}},
		{"Japanese names joined by to", "1.36 seed #137170",
			articleOf(36, "DRA: device taint と toleration(KEP #5055)を beta に昇格させた。",
				"1.35 で alpha 導入された機能が beta に昇格しました。"),
			[]string{fact("device taint and toleration", StageBeta, "1.36"), fact("device taint and toleration", StageAlpha, "1.35")}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			d := mustParse(t, tt.doc, Options{})
			want := append([]string(nil), tt.want...)
			slices.Sort(want)
			if got := factsOf(d); !slices.Equal(got, want) {
				t.Errorf("%s: facts\n  %q\nwant\n  %q", tt.from, got, want)
			}
		})
	}
}

// TestFactRulesHeading: a heading's stage that its section dates to an
// earlier release is the stage the feature is at, no change of the
// release (1.36 seed, "Alpha: MemoryQoS / MemoryReservationPolicy").
func TestFactRulesHeading(t *testing.T) {
	doc := "Kubernetes 1.36: SIG-Node (kubelet) 変更内容\n\n所感 :pencil:\n\n" +
		"Alpha: MemoryQoS / MemoryReservationPolicy\n\n" +
		"MemoryQoS は cgroup v2 の memory.min / memory.low を活用して Pod / コンテナのメモリを OS のメモリ回収から保護する機能です。\n" +
		"1.35 以前は MemoryQoS feature gate を有効化すると一律で memory.min が設定されていましたが、1.36 では KubeletConfiguration の memoryReservationPolicy でこの挙動をカスタマイズできるようになりました：\n\n" +
		"Feature\n\n  • ImageVolume 機能を stable に昇格させた。 (#136711、@saschagrunert) [sig/node]\n"
	d := mustParse(t, []byte(doc), Options{})
	got := factsOf(d)
	want := []string{fact("ImageVolume", StageGA, "1.36"), fact("MemoryReservationPolicy", StageAlpha, "1.36")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("facts %q, want %q", got, want)
	}
}

// TestAdoptPRs: a highlight's change takes the PR of the entry that states
// it (1.17 CHANGELOG, "CSI Migration Beta" and #85231).
func TestAdoptPRs(t *testing.T) {
	doc := "# v1.17.0\n\n# Changes\n\n## What's New (Major Themes)\n\n### CSI Migration Beta\n\n" +
		"The Kubernetes in-tree storage plugin to Container Storage Interface (CSI) migration infrastructure is now beta in Kubernetes v1.17.\n\n" +
		"## Notable Features\n\n### Beta\n\n" +
		"- Feature gates CSIMigration to Beta (on by default) and CSIMigrationGCE to Beta (off by default since it requires installation of the GCE PD CSI Driver) ([#85231](https://github.com/kubernetes/kubernetes/pull/85231), [@davidz627](https://github.com/davidz627))\n"
	d := mustParse(t, []byte(doc), Options{})
	for _, e := range d.Entries {
		for _, sc := range e.Stages {
			if FeatureKey(sc.Feature) == "csimigration" && sc.Stage == StageBeta && sc.PR != 85231 {
				t.Errorf("%s: %s beta without #85231: %+v", e.Key, sc.Feature, sc)
			}
		}
	}
	if n := len(d.Entries); n != 2 {
		t.Fatalf("%d entries, want the highlight and the feature", n)
	}
}

// TestConditional: what follows a removal's object makes it conditional
// when a condition comes before the clause ends, not when a clause of
// purpose does (the text after the objects of 1.36 CHANGELOG #135701 and
// #137266).
func TestConditional(t *testing.T) {
	tests := []struct {
		after string
		want  bool
	}{
		{" if the etcd version is < v3.6.0.", true},
		{" when the feature gate is disabled.", true},
		{" from kubectl wait so that it is no longer suggested when users type kubectl list or kubectl ps.", false},
		{", ensuring consistent NotFound error handling across all resource types.", false},
		{".", false},
	}
	for _, tt := range tests {
		if got := conditional(tt.after); got != tt.want {
			t.Errorf("conditional(%q) = %v, want %v", tt.after, got, tt.want)
		}
	}
}

// TestRemovedFromPart: what a removal takes its object out of (the text
// after the objects of 1.36 CHANGELOG #136759, #137348, #134981 and 1.28
// CHANGELOG #118510, #116335, #119130, and of the 1.36 article's #136759).
func TestRemovedFromPart(t *testing.T) {
	tests := []struct {
		after, before string
		ja, want      bool
	}{
		{" from node declared features.", "", false, true},
		{" from the default value of --non-blocking-taints flag.", "", false, true},
		{" from deepcopy-gen.", "", false, false},
		{" metrics from being reported by cadvisor.", "", false, false},
		{" from pvc.Status and replaced with AllocatedResourceStatus.", "", false, false},
		{" from kube-scheduler.", "", false, false},
		{"した。", "Node Declared Features から GuaranteedQoSPodCPUResize を", true, true},
		{"した。", "kube-up スクリプトから Prometheus クラスターモニタリングアドオンを", true, false},
	}
	for _, tt := range tests {
		if got := removedFromPart(tt.after, tt.before, tt.ja); got != tt.want {
			t.Errorf("removedFromPart(%q, %q) = %v, want %v", tt.after, tt.before, got, tt.want)
		}
	}
}
