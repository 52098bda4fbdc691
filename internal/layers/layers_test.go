package layers

import (
	"bufio"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "kubequiz"

// rule is one row of docs/architecture.md's table of packages.
type rule struct {
	pure    bool
	imports []string // kubequiz packages it may import, without the module prefix
}

// listed is one package as go list reports it.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// ioImports are the standard and outside packages a pure package never
// imports: files, network, processes, logs, SQL, HTTP and templates.
var ioImports = []string{
	"os", "os/exec", "os/signal", "net", "net/http", "database/sql", "syscall", "log", "log/slog", "io/ioutil",
	"github.com/labstack/echo/v4", "modernc.org/sqlite", "github.com/a-h/templ",
}

// TestImportsFollowTheMap checks every package of the module against the
// table in docs/architecture.md: each is in it, imports only the kubequiz
// packages its row allows, and a pure one imports nothing that does I/O.
func TestImportsFollowTheMap(t *testing.T) {
	root := moduleRoot(t)
	rules := readRules(t, filepath.Join(root, "docs", "architecture.md"))
	pkgs := goList(t, root)
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if name == "" {
			continue
		}
		seen[name] = true
		r, ok := rules[name]
		if !ok {
			t.Errorf("%s is not in docs/architecture.md's table of packages: add its row (what it may import)", name)
			continue
		}
		for _, imp := range p.Imports {
			if own, ok := strings.CutPrefix(imp, module+"/"); ok {
				if !slices.Contains(r.imports, own) {
					t.Errorf("%s imports %s, which docs/architecture.md does not allow it", name, own)
				}
				continue
			}
			if r.pure && slices.Contains(ioImports, imp) {
				t.Errorf("%s is pure but imports %s", name, imp)
			}
		}
	}
	for name := range rules {
		if !seen[name] {
			t.Errorf("docs/architecture.md lists %s, which is not a package of the module", name)
		}
	}
}

// TestCommandServesOnlyFromServe checks that cmd/kubequiz imports the web
// package in serve.go only: the other commands call account, store and the
// content pipeline directly.
func TestCommandServesOnlyFromServe(t *testing.T) {
	root := moduleRoot(t)
	for _, p := range goList(t, root) {
		if p.ImportPath != module+"/cmd/kubequiz" {
			continue
		}
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatalf("parse %s: %v", f, err)
			}
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == module+"/internal/web" && f != "serve.go" {
					t.Errorf("cmd/kubequiz/%s imports internal/web; only serve.go may", f)
				}
			}
		}
		return
	}
	t.Fatal("go list did not report cmd/kubequiz")
}

// readRules parses the table whose header starts "| package |": a package
// in backquotes, "pure" or not, and the kubequiz packages it may import in
// backquotes ("none" for none).
func readRules(t *testing.T, path string) map[string]rule {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the map of packages: %v", err)
	}
	defer f.Close()
	rules := map[string]rule{}
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "| package |") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		if len(cells) < 3 {
			t.Fatalf("%s:%d: want | package | pure | may import | ...", path, n)
		}
		names := quoted(cells[0])
		if len(names) != 1 {
			t.Fatalf("%s:%d: want one package in backquotes in the first cell, got %q", path, n, cells[0])
		}
		rules[names[0]] = rule{pure: strings.TrimSpace(cells[1]) == "pure", imports: quoted(cells[2])}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(rules) == 0 {
		t.Fatalf("%s has no table headed \"| package |\"", path)
	}
	return rules
}

// quoted returns the words in backquotes in s.
func quoted(s string) []string {
	var out []string
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, strings.TrimSuffix(parts[i], "/"))
	}
	return out
}

func goList(t *testing.T, root string) []listed {
	t.Helper()
	// go test puts the go command that runs it first on the PATH.
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's folder")
		}
		dir = parent
	}
}
