package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/store"
)

// importCmd is `kubequiz import [--dry-run] [--prune] PATH...`.
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stderr)
	var dbPath string
	stringVar(fs, &dbPath, settingDB, getenv)
	dryRun := fs.Bool("dry-run", false, "show what would change and every error; write nothing")
	prune := fs.Bool("prune", false, "retire questions that a deck's file no longer has (never deletes)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kubequiz import [-dry-run] [-prune] [-db FILE] PATH...\n\nPATH is a question file or a folder of *.yaml files.")
		fs.PrintDefaults()
	}
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		fs.Usage()
		return usageError{"import: no file or folder given"}
	}
	files, err := readQuestionPaths(paths)
	if err != nil {
		return err
	}
	db, closeDB, err := openCommandDB(ctx, dbPath, writing(*dryRun), stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	return importFiles(ctx, db, files, store.ImportOptions{Actor: "cli", Prune: *prune, DryRun: *dryRun, Now: time.Now()}, stdout, stderr)
}

// namedFile is a question file's name and bytes.
type namedFile struct {
	name string
	data []byte
	size int64 // the whole file's size; data stops after bank.MaxFileSize+1 bytes
}

// readQuestionPaths reads the files named, and the *.yaml and *.yml files of
// the folders named, in name order.
func readQuestionPaths(paths []string) ([]namedFile, error) {
	var out []namedFile
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		if !fi.IsDir() {
			f, err := readLimited(p)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		found := 0
		for _, e := range entries {
			if e.IsDir() || !isQuestionFile(e.Name()) {
				continue
			}
			name := filepath.Join(p, e.Name())
			f, err := readLimited(name)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
			found++
		}
		if found == 0 {
			return nil, fmt.Errorf("import: %s holds no .yaml file", p)
		}
	}
	return out, nil
}

func isQuestionFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// readLimited reads a file, but no more than one byte past the size limit, so
// that a huge file is refused without being read whole.
func readLimited(name string) (namedFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return namedFile{}, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return namedFile{}, fmt.Errorf("import: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, bank.MaxFileSize+1))
	if err != nil {
		return namedFile{}, fmt.Errorf("import: read %s: %w", name, err)
	}
	return namedFile{name: name, data: b, size: max(fi.Size(), int64(len(b)))}, nil
}

// readFS reads every question file at the top of fsys.
func readFS(fsys fs.FS) ([]namedFile, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []namedFile
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", n, err)
		}
		out = append(out, namedFile{name: path.Join("questions", n), data: b, size: int64(len(b))})
	}
	return out, nil
}

// errImportRefused says an import had errors and changed nothing; the errors
// themselves have been printed.
var errImportRefused = errors.New("import refused: nothing was changed")

// importFiles decodes every file, prints every problem of every file (to
// problems), and imports only when there is none, printing what changed to
// out.
func importFiles(ctx context.Context, db *store.DB, files []namedFile, opt store.ImportOptions, out, problems io.Writer) error {
	inputs := make([]bank.Input, len(files))
	for i, f := range files {
		inputs[i] = bank.Input{Name: f.name, Data: f.data, Size: f.size}
	}
	decoded, err := bank.DecodeAll(inputs)
	if err != nil {
		var be *bank.Error
		if !errors.As(err, &be) {
			return err
		}
		fmt.Fprintln(problems, be.Error())
		fmt.Fprintf(problems, "%d problem(s) in %d file(s)\n", len(be.Problems), len(files))
		return errImportRefused
	}
	results, err := db.ImportBank(ctx, decoded, opt)
	if err != nil {
		return err
	}
	printImport(out, results, opt)
	return nil
}

func printImport(out io.Writer, results []store.DeckResult, opt store.ImportOptions) {
	verb := "imported"
	if opt.DryRun {
		verb = "dry run, nothing written"
	}
	total := 0
	for _, r := range results {
		p := r.Plan
		n := len(p.Added) + len(p.Updated) + len(p.Unchanged)
		total += n
		line := fmt.Sprintf("%-32s %4d questions: %d added, %d updated, %d unchanged", p.Deck.Slug, n, len(p.Added), len(p.Updated), len(p.Unchanged))
		if opt.Prune {
			line += fmt.Sprintf(", %d retired", len(p.Retired))
		}
		fmt.Fprintln(out, line)
		for _, ch := range r.DeckChanges {
			fmt.Fprintf(out, "    deck.%s: %q -> %q\n", ch.Field, clip(ch.Old), clip(ch.New))
		}
		for _, id := range p.Updated {
			for _, ch := range r.Changes[id] {
				fmt.Fprintf(out, "    %s.%s: %q -> %q\n", id, ch.Field, clip(ch.Old), clip(ch.New))
			}
		}
	}
	fmt.Fprintf(out, "%d deck(s), %d question(s) (%s)\n", len(results), total, verb)
}

func clip(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
