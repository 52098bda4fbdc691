package views

import "testing"

func TestReleaseLine(t *testing.T) {
	tests := []struct {
		title, release, sig string
		want                string
	}{
		{"v1.36 SIG-Node", "1.36", "SIG-Node", ""},
		{"v1.17 SIG Cluster Lifecycle", "1.17", "SIG-Cluster-Lifecycle", ""},
		{"V1.28 sig network", "1.28", "SIG-Network", ""},
		{"v1.36 2026 SIG-Node", "1.36", "SIG-Node", ""},
		{"ImageVolume deep dive", "1.36", "SIG-Node", "v1.36 · SIG-Node"},
		{"v1.36 SIG-Node", "1.3", "SIG-Node", "v1.3 · SIG-Node"}, // v1.3 is not v1.36
		{"v1.36 and v1.3 SIG-Node", "1.3", "SIG-Node", ""},
		{"v1.36 SIG-Network", "1.36", "SIG-Node", "v1.36 · SIG-Node"},
		{"v1.36", "1.36", "", ""},
		{"Release notes", "1.36", "", "v1.36"},
		{"SIG-Node basics", "", "SIG-Node", ""},
		{"Basics", "", "SIG-Node", "SIG-Node"},
		{"Basics", "", "", ""},
	}
	for _, tt := range tests {
		if got := releaseLine(tt.title, tt.release, tt.sig); got != tt.want {
			t.Errorf("title %q, release %q, SIG %q: %q, want %q", tt.title, tt.release, tt.sig, got, tt.want)
		}
	}
}
