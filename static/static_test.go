package static

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestVendoredChecksums checks that the vendored releases are byte for byte
// the ones pinned in SHA256SUMS, and that the pinned htmx is the expected release.
func TestVendoredChecksums(t *testing.T) {
	sums, err := os.ReadFile("SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{
		HTMX: "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717", // htmx.org 2.0.11 dist/htmx.min.js
	}
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(string(sums)))
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", sc.Text())
		}
		b, err := files.ReadFile(name)
		if err != nil {
			t.Fatalf("%s listed in SHA256SUMS but not embedded: %v", name, err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
		if p, ok := pinned[name]; ok && p != want {
			t.Errorf("%s: SHA256SUMS has %s, want the release's %s", name, want, p)
		}
		seen++
	}
	if seen < 2 {
		t.Fatalf("SHA256SUMS lists %d files, want the vendored htmx and Pico", seen)
	}
}

func TestAssetURLs(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMX, Pico, AppCSS, AppJS, Favicon} {
		u := a.URL(name)
		if !strings.HasPrefix(u, URLPrefix+name+"?v=") || len(u) != len(URLPrefix+name+"?v=")+12 {
			t.Errorf("URL(%q) = %q, want %s%s?v=<12 hex>", name, u, URLPrefix, name)
		}
	}
	if u := a.URL("missing.js"); u != "" {
		t.Errorf("URL(missing) = %q, want empty", u)
	}
}
