package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTestDB creates a database at path with one account, and closes it.
func newTestDB(t *testing.T, path string) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), []string{"user", "add", "-admin", "-db", path, "alice"}, env(), strings.NewReader("long-enough-password\n"), &out, &out)
	if err != nil {
		t.Fatalf("user add: %v\n%s", err, out.String())
	}
}

// countRows counts the rows of a table in the database file at path,
// opened read-only.
func countRows(t *testing.T, path, table string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatalf("count %s in %s: %v", table, path, err)
	}
	return n
}

// TestBackupCommand runs kubequiz backup with the database given by a flag
// before or after FILE, or by the environment, and the refusals: a FILE
// that exists or is the database, a database that is not there (which is
// not created), a FILE missing or given twice.
func TestBackupCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "kubequiz.db")
	newTestDB(t, db)
	existing := filepath.Join(dir, "existing.db")
	if err := os.WriteFile(existing, []byte("an earlier backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nowhere", "kubequiz.db")
	tests := []struct {
		name      string
		args      []string // "FILE" is replaced by a new file's path
		env       func(string) string
		wantErr   string // a fragment of the error; "" for success
		wantUsage bool
	}{
		{"-db before FILE", []string{"-db", db, "FILE"}, env(), "", false},
		{"-db after FILE", []string{"FILE", "-db", db}, env(), "", false},
		{"database from the environment", []string{"FILE"}, env("KUBEQUIZ_DB", db), "", false},
		{"flag over environment", []string{"FILE", "-db", db}, env("KUBEQUIZ_DB", missing), "", false},
		{"existing FILE", []string{"-db", db, existing}, env(), existing + " already exists", false},
		{"FILE is the database", []string{"-db", db, db}, env(), db + " is the database itself", false},
		{"missing database", []string{"-db", missing, "FILE"}, env(), "no database at " + missing, false},
		{"missing database from the environment", []string{"FILE"}, env("KUBEQUIZ_DB", missing), "no database at " + missing, false},
		{"no FILE", []string{"-db", db}, env(), "FILE missing", true},
		{"two FILEs", []string{"-db", db, "FILE", "other.db"}, env(), `unexpected argument "other.db"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "backup.db")
			args := []string{"backup"}
			for _, a := range tt.args {
				if a == "FILE" {
					a = dst
				}
				args = append(args, a)
			}
			var stdout, stderr bytes.Buffer
			err := run(ctx, args, tt.env, nil, &stdout, &stderr)
			if tt.wantErr != "" {
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &ue) != tt.wantUsage {
					t.Fatalf("= %v, want an error saying %q (usage error: %v)", err, tt.wantErr, tt.wantUsage)
				}
				if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a refused backup wrote %s: %v", dst, err)
				}
				if b, err := os.ReadFile(existing); err != nil || string(b) != "an earlier backup" {
					t.Errorf("the existing file = %q, %v", b, err)
				}
				if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the missing database's folder was created: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("= %v; stderr:\n%s", err, stderr.String())
			}
			for _, want := range []string{"backed up " + db + " to " + dst + ": ", " bytes)", "schema version", "integrity_check ok"} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, stdout.String())
				}
			}
			if n := countRows(t, dst, "users"); n != 1 {
				t.Errorf("the copy has %d accounts, want 1", n)
			}
		})
	}
}

// TestBackupCommandNewerSchema: a database written by a newer kubequiz is
// copied as it is, which the output says.
func TestBackupCommandNewerSchema(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kubequiz.db")
	newTestDB(t, db)
	if err := bumpSchema(db); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "backup.db")
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"backup", "-db", db, dst}, env(), nil, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "newer than this build's") {
		t.Errorf("output does not say the schema is newer:\n%s", stdout.String())
	}
	if got, want := countRows(t, dst, "schema_migrations"), countRows(t, db, "schema_migrations"); got != want {
		t.Errorf("the copy has %d schema versions, want the source's %d", got, want)
	}
}

func TestBackupHelp(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"backup", "-h"}, env(), nil, &bytes.Buffer{}, &stderr)
	if !errors.Is(err, errHelp) || !strings.Contains(stderr.String(), "-db") || !strings.Contains(stderr.String(), "usage: kubequiz backup") {
		t.Errorf("= %v; usage:\n%s", err, stderr.String())
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:       "0 bytes",
		1023:    "1023 bytes",
		1024:    "1.0 KiB (1024 bytes)",
		245760:  "240.0 KiB (245760 bytes)",
		5 << 20: "5.0 MiB (5242880 bytes)",
		3 << 30: "3.0 GiB (3221225472 bytes)",
	} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
