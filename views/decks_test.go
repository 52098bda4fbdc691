package views

import "testing"

func TestTitleSaysReleaseAndSIG(t *testing.T) {
	tests := []struct {
		title, release, sig string
		want                bool
	}{
		{"v1.36 SIG-Node", "1.36", "SIG-Node", true},
		{"v1.17 SIG Cluster Lifecycle", "1.17", "SIG-Cluster-Lifecycle", true},
		{"V1.28 sig network", "1.28", "SIG-Network", true},
		{"ImageVolume deep dive", "1.36", "SIG-Node", false},
		{"v1.36 SIG-Node", "1.3", "SIG-Node", false},         // v1.3 is not v1.36
		{"v1.36 and v1.3 SIG-Node", "1.3", "SIG-Node", true}, // the second mention is
		{"v1.36 SIG-Network", "1.36", "SIG-Node", false},
		{"v1.36", "1.36", "", false},
	}
	for _, tt := range tests {
		d := DeckRow{Title: tt.title, Release: tt.release, SIG: tt.sig}
		if got := d.titleSaysReleaseAndSIG(); got != tt.want {
			t.Errorf("title %q, release %q, SIG %q: %v, want %v", tt.title, tt.release, tt.sig, got, tt.want)
		}
	}
}
