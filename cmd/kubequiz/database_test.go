package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubequiz/internal/store"
)

// TestCommandsWithoutDatabase: run against a database file that does not
// exist (a wrong -db or working folder), a command that changes what is
// there refuses; a dry run tells what the real run would do and leaves no
// file; a command that makes something creates the database, says so, and
// loads the bundled question bank first, as serve's first start would.
func TestCommandsWithoutDatabase(t *testing.T) {
	ctx := context.Background()
	good := filepath.Join("..", "..", "internal", "bank", "testdata", "good", "all-types.yaml")
	article := writeFile(t, t.TempDir(), "node.txt", []byte(ingestArticle))
	tests := []struct {
		name    string
		args    []string
		stdin   string
		wantErr string // "" for success
		created bool
		stdout  string // a fragment of the output
	}{
		{"user passwd", []string{"user", "passwd", "alice"}, "long-enough-password\n", "no database at", false, ""},
		{"import -dry-run", []string{"import", "-dry-run", good}, "", "", false, "(dry run, nothing written)"},
		{"ingest -dry-run", []string{"ingest", "-dry-run", article}, "", "", false, "v1-36-sig-node"},
		{"import", []string{"import", good}, "", "", true, "imported"},
		{"ingest", []string{"ingest", article}, "", "", true, "v1-36-sig-node"},
		{"user add", []string{"user", "add", "-admin", "alice"}, "long-enough-password\n", "", true, "created admin alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			path := filepath.Join(dir, "kubequiz.db")
			var stdout, stderr bytes.Buffer
			err := run(ctx, append(tt.args, "-db", path), env(), strings.NewReader(tt.stdin), &stdout, &stderr)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("= %v; stderr:\n%s", err, stderr.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path)):
				t.Fatalf("= %v, want an error naming %s and saying %q", err, path, tt.wantErr)
			}
			if !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("output lacks %q:\n%s", tt.stdout, stdout.String())
			}
			_, serr := os.Stat(path)
			if created := serr == nil; created != tt.created {
				t.Fatalf("database created: %v, want %v (%v)", created, tt.created, serr)
			}
			if !tt.created {
				if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the database's folder was created: %v", err)
				}
				return
			}
			if !strings.Contains(stderr.String(), "no database at "+path+" yet: creating it") {
				t.Errorf("the command does not say it created the database:\n%s", stderr.String())
			}
			db, err := store.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.DeckQuestions(ctx, "v1-21-sig-node", true); err != nil {
				t.Error(err)
			} else if qs, _ := db.DeckQuestions(ctx, "v1-21-sig-node", true); len(qs) == 0 {
				t.Error("the bundled question bank was not loaded")
			}
		})
	}
}

// TestDryRunWithoutDatabaseMatchesRealRun: against a database that does
// not exist yet, a dry run reports what the real run then does.
func TestDryRunWithoutDatabaseMatchesRealRun(t *testing.T) {
	ctx := context.Background()
	article := writeFile(t, t.TempDir(), "node.txt", []byte(ingestArticle))
	path := filepath.Join(t.TempDir(), "kubequiz.db")
	var dry, real bytes.Buffer
	if err := run(ctx, []string{"ingest", "-dry-run", "-json", "-db", path, article}, env(), nil, &dry, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"ingest", "-json", "-db", path, article}, env(), nil, &real, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// Row ids aside, the two reports agree (the deck is the bundled one in both).
	strip := func(s string) string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			if !strings.Contains(line, `"id"`) && !strings.Contains(line, `"document_id"`) && !strings.Contains(line, `"dry_run"`) {
				out = append(out, line)
			}
		}
		return strings.Join(out, "\n")
	}
	if a, b := strip(dry.String()), strip(real.String()); a != b {
		t.Errorf("the dry run and the real run differ:\n%s\n---\n%s", a, b)
	}
}

// TestHelpIsNotAFailure: -h prints a command's usage and is not an error.
func TestHelpIsNotAFailure(t *testing.T) {
	for _, args := range [][]string{{"serve", "-h"}, {"import", "-h"}, {"ingest", "-h"}, {"healthcheck", "-h"}, {"user", "add", "-h"}, {"user", "passwd", "--help"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, env(), nil, &bytes.Buffer{}, &stderr)
		if !errors.Is(err, errHelp) || !strings.Contains(stderr.String(), "-db") && args[0] != "healthcheck" {
			t.Errorf("%v = %v; usage:\n%s", args, err, stderr.String())
		}
	}
}
