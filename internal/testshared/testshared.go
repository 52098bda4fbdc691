// Package testshared locates the read-only reference material that sits
// beside the repository (changelogs, seed articles, FSRS vectors) for tests.
//
// Tests that need it call Dir or Path. When the folder is absent the test is
// skipped with a message, unless KUBEQUIZ_REQUIRE_SHARED=1 is set, in which
// case it fails: CI sets it so that a missing folder cannot pass silently.
package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvRequire names the variable that turns a missing shared folder into a failure.
const EnvRequire = "KUBEQUIZ_REQUIRE_SHARED"

// EnvDir overrides where the shared folder is looked up.
const EnvDir = "KUBEQUIZ_SHARED_DIR"

// Dir returns the shared folder: $KUBEQUIZ_SHARED_DIR, or "shared" beside the
// module root. It skips or fails the test when the folder is missing.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(EnvDir)
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			missing(tb, err.Error())
			return ""
		}
		dir = filepath.Join(root, "..", "shared")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		missing(tb, "shared reference folder not found at "+dir)
		return ""
	}
	return dir
}

// Path returns a file or folder inside the shared folder, failing or skipping
// like Dir when it is absent.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		missing(tb, "shared reference file not found: "+p)
		return ""
	}
	return p
}

// Required reports whether CI demands the shared folder.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

func missing(tb testing.TB, msg string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s (%s=1)", msg, EnvRequire)
	}
	tb.Skipf("%s; skipping (set %s=1 to make this a failure)", msg, EnvRequire)
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
