package changelog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

var sentinelErrors = []error{ErrEmpty, ErrBinary, ErrNotUTF8, ErrTooLarge, ErrUnknownFormat, ErrNoEntries, ErrInvalidOption}

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatalf("glob testdata: %v", err)
	}
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatalf("read %s: %v", p, err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"## Changes by Kind\n### Feature\n- x ([#1](https://github.com/kubernetes/kubernetes/pull/1), [@a](https://github.com/a))\n",
		"# v1.2.3\n## Changelog since v1.2.2\n### Bug or Regression\n - y\n  - z\n",
		"Kubernetes 1.30: SIG-Node の変更内容\n\nFeature\n\n• x を beta に昇格させた。(#1、@a) [sig/node]\n  • :pencil: 1.2 で alpha\n",
		"所感\n\nGA / Stable: X\n\n#1\n\n  • GA に昇格:\n    • A: b (#2)\n",
		"Deprecation (非推奨)\n\n・（#3、@b）\n",
		"- Promoted `A` to GA (v1) in 1.99. ([#9](https://github.com/kubernetes/kubernetes/pull/9`), [@c](https://github.com/c))",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		d, err := Parse(doc, Options{})
		if err != nil {
			if d != nil {
				t.Fatalf("Parse returned a document and error %v", err)
			}
			known := false
			for _, s := range sentinelErrors {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("Parse error %v wraps no sentinel error", err)
			}
			return
		}
		if len(d.Entries) == 0 {
			t.Fatalf("Parse succeeded without entries")
		}
		keys := map[string]bool{}
		for _, e := range d.Entries {
			if keys[e.Key] {
				t.Fatalf("duplicate entry key %q", e.Key)
			}
			keys[e.Key] = true
			if e.Text == "" && e.Title == "" {
				t.Fatalf("entry %q has neither text nor title", e.Key)
			}
			for _, sc := range e.Stages {
				if sc.Feature == "" || sc.Stage == "" {
					t.Fatalf("entry %q: incomplete stage change %+v", e.Key, sc)
				}
			}
		}
		_ = d.Concepts()
		if _, _, ok := ParseRelease(d.Release); ok {
			tl, err := NewTimeline(d)
			if err != nil {
				t.Fatalf("NewTimeline: %v", err)
			}
			for _, name := range tl.Features() {
				_ = tl.Events(name)
			}
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
	})
}
