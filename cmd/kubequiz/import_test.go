package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubequiz/internal/bank"
	"kubequiz/internal/store"
)

// TestImportRefusesBadFiles imports the bundled bank, then tries each
// malformed or hostile file together with a valid one: every attempt must
// print the file's problems with file:line:col and field, exit non-zero, and
// leave every table byte for byte as it was.
func TestImportRefusesBadFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "kubequiz.db")
	getenv := env("KUBEQUIZ_DB", dbPath)
	if err := run(ctx, []string{"import", filepath.Join("..", "..", "questions")}, getenv, nil, io.Discard, io.Discard); err != nil {
		t.Fatalf("importing the bundled bank: %v", err)
	}
	checksums := func() map[string]string {
		db, err := store.Open(ctx, dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		sums, err := db.TableChecksums(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sums
	}
	before := checksums()

	// A valid file that would add a deck if the import were not refused.
	good := filepath.Join("..", "..", "internal", "bank", "testdata", "good", "all-types.yaml")

	type tc struct {
		name, path string
		want       string // a fragment of the printed problems
	}
	var tests []tc
	bad, err := filepath.Glob(filepath.Join("..", "..", "internal", "bank", "testdata", "bad", "*.yaml"))
	if err != nil || len(bad) < 15 {
		t.Fatalf("want at least 15 malformed test files, found %d (%v)", len(bad), err)
	}
	for _, p := range bad {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, derr := bank.Decode(p, data)
		var be *bank.Error
		if !errors.As(derr, &be) {
			t.Fatalf("%s decodes without error; it should be malformed", p)
		}
		tests = append(tests, tc{filepath.Base(p), p, be.Problems[0].String()})
	}
	hostile := map[string]struct {
		data []byte
		want string
	}{
		"alias-bomb.yaml":       {[]byte("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"), "anchor &a"},
		"deep-nesting.yaml":     {[]byte(strings.Repeat("[", 200<<10)), "max depth"},
		"deep-nesting-1mb.yaml": {[]byte(strings.Repeat("[", 1<<20)), "1048576 bytes, over the limit"},
		"deep-maps.yaml":        {[]byte(deepMaps(200)), "nested"},
		"huge-scalar.yaml":      {[]byte("deck:\n  slug: " + strings.Repeat("x", 200<<10) + "\n"), "deck.slug"},
		"oversize.yaml":         {bytes.Repeat([]byte("# padding\n"), 30<<10), "over the limit"},
		"binary.yaml":           {[]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe}, ":1:"},
	}
	for name, h := range hostile {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, h.data, 0o600); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, tc{name, p, h.want})
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer // the problems go to standard error
			err := run(ctx, []string{"import", good, tt.path}, getenv, nil, io.Discard, &out)
			if !errors.Is(err, errImportRefused) {
				t.Fatalf("import = %v, want it refused; output:\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), tt.path+":") {
				t.Errorf("output does not name %s:\n%.500s", tt.path, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output lacks %q:\n%.500s", tt.want, out.String())
			}
			if after := checksums(); !maps.Equal(before, after) {
				t.Errorf("a refused import changed the database")
			}
		})
	}
}

func deepMaps(depth int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

// TestImportDryRunAndReimport shows the acceptance flow of the command: a dry
// run lists the four bundled decks and writes nothing, the import adds them,
// and a second import finds everything unchanged.
func TestImportDryRunAndReimport(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "kubequiz.db")
	getenv := env("KUBEQUIZ_DB", dbPath)
	questions := filepath.Join("..", "..", "questions")

	var out bytes.Buffer
	if err := run(ctx, []string{"import", "-dry-run", questions}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatalf("dry run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "4 deck(s)") || !strings.Contains(out.String(), "dry run, nothing written") {
		t.Errorf("dry run output:\n%s", out.String())
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := db.IsEmpty(ctx)
	db.Close()
	if err != nil || !empty {
		t.Fatalf("after a dry run the database is not empty (%v)", err)
	}

	out.Reset()
	if err := run(ctx, []string{"import", questions}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatalf("import: %v", err)
	}
	out.Reset()
	if err := run(ctx, []string{"import", questions}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatalf("re-import: %v", err)
	}
	if strings.Contains(out.String(), " added,") && !strings.Contains(out.String(), ": 0 added, 0 updated") {
		t.Errorf("re-import changed something:\n%s", out.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[:4] {
		if !strings.Contains(line, "0 added, 0 updated") {
			t.Errorf("re-import line %q, want nothing added or updated", line)
		}
	}

	// A change to a deck's own fields is shown too.
	src, err := os.ReadFile(filepath.Join(questions, "v1-36-sig-node.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := writeFile(t, t.TempDir(), "v1-36-sig-node.yaml", bytes.Replace(src, []byte(`title: "v1.36 SIG-Node"`), []byte(`title: "v1.36 SIG-Node, renamed"`), 1))
	out.Reset()
	if err := run(ctx, []string{"import", "-dry-run", renamed}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatalf("dry run of a renamed deck: %v", err)
	}
	if want := `deck.title: "v1.36 SIG-Node" -> "v1.36 SIG-Node, renamed"`; !strings.Contains(out.String(), want) {
		t.Errorf("dry run output lacks %q:\n%s", want, out.String())
	}
}
