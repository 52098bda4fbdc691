package bank

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode checks that Decode never panics, that a failure is always a
// *Error with sane positions, and that a success holds only valid
// questions, each with its line.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"good", "bad"} {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(billionLaughs()))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("\uFEFFdeck: {slug: s}\r\nquestions: [!x 1]\r\n"))
	f.Add([]byte(strings.Repeat("[", 100)))

	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, want *bank.Error", err, err)
			}
			if file != nil {
				t.Fatalf("got a file along with error %v", err)
			}
			if len(e.Problems) == 0 || len(e.Problems) > maxProblems+1 {
				t.Fatalf("got %d problems", len(e.Problems))
			}
			lines := strings.Count(string(data), "\n") + 2
			for _, p := range e.Problems {
				if p.Line < 0 || p.Col < 0 || p.Msg == "" || p.File != "fuzz.yaml" {
					t.Fatalf("bad problem %#v", p)
				}
				// CR, NEL, LS and PS break lines too, so this bound is
				// only checked for LF-only input.
				if !strings.ContainsAny(string(data), "\r\u0085\u2028\u2029") && p.Line > lines {
					t.Fatalf("problem %s is past the last line %d", p, lines)
				}
			}
			return
		}
		if len(data) > MaxFileSize {
			t.Fatalf("accepted %d bytes", len(data))
		}
		if len(file.Questions) == 0 || len(file.Lines) != len(file.Questions) {
			t.Fatalf("got %d questions and %d lines", len(file.Questions), len(file.Lines))
		}
		for i, q := range file.Questions {
			if err := q.Validate(); err != nil {
				t.Fatalf("question %d accepted but invalid: %v", i, err)
			}
			if len(q.Source.PRs) == 0 {
				t.Fatalf("question %d accepted without a PR number", i)
			}
			if file.Lines[i] < 1 {
				t.Fatalf("question %d has line %d", i, file.Lines[i])
			}
		}
	})
}
