package account

import (
	"archive/zip"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimezoneNames: the zone list is the one of the Go this is built with,
// and every zone in it is taken typed in lower case or in capitals, and
// stored in its own spelling.
func TestTimezoneNames(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	zr, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Fatalf("Go's time zone data: %v", err)
	}
	defer zr.Close()
	var want []string
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") {
			want = append(want, f.Name)
		}
	}
	slices.Sort(want)
	if got := strings.Fields(timezoneNames); !slices.Equal(got, want) {
		t.Errorf("timezones.txt has %d zones, Go's data %d: write its names again (one a line, sorted)", len(got), len(want))
	}
	taken := 0
	for _, z := range strings.Fields(timezoneNames) {
		if !knownZone(z, time.LoadLocation) {
			continue // Factory, or a zone this machine cannot load
		}
		taken++
		for _, typed := range []string{strings.ToLower(z), strings.ToUpper(z)} {
			if got, err := CheckTimezone(typed, time.LoadLocation); got != z || err != nil {
				t.Errorf("CheckTimezone(%q) = %q, %v; want %q", typed, got, err, z)
			}
		}
	}
	if taken < 500 {
		t.Errorf("only %d zones load here", taken)
	}
}
