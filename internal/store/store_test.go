package store

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/quiz"
)

// newTestDB opens a fresh database in a temporary folder.
func newTestDB(t *testing.T) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "kubequiz.db"))
}

// openAt opens the database at path, closed when the test ends. Two opened
// on one file stand for two processes.
func openAt(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestPragmas(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	want := map[string]string{
		"journal_mode": "wal",
		"busy_timeout": "5000",
		"foreign_keys": "1",
		"synchronous":  "1", // NORMAL, the default
	}
	for name, pool := range map[string]*sql.DB{"write": db.write, "read": db.read} {
		for pragma, w := range want {
			var got string
			if err := pool.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatalf("%s pool: PRAGMA %s: %v", name, pragma, err)
			}
			if got != w {
				t.Errorf("%s pool: PRAGMA %s = %q, want %q", name, pragma, got, w)
			}
		}
	}
	// An operator may ask for a sync at every commit instead.
	full, err := OpenSync(ctx, filepath.Join(t.TempDir(), "full.db"), SyncFull)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	for name, pool := range map[string]*sql.DB{"write": full.write, "read": full.read} {
		var got string
		if err := pool.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil || got != "2" {
			t.Errorf("OpenSync(FULL), %s pool: PRAGMA synchronous = %q (%v), want 2", name, got, err)
		}
	}
	if _, err := OpenSync(ctx, filepath.Join(t.TempDir(), "off.db"), "OFF"); err == nil {
		t.Error("OpenSync with synchronous OFF: no error")
	}
	// Foreign keys are enforced, not just reported.
	_, err = db.write.ExecContext(ctx, `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation,
		origin, status, content_hash, created_at, updated_at) VALUES (999, 'x', 0, 'typed', 'p', '{}', 'e', 'yaml', 'draft', 'h', 0, 0)`)
	if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Errorf("insert with a missing deck: err = %v, want a FOREIGN KEY error", err)
	}
}

func TestMigrationsFreshAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "kubequiz.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open fresh: %v", err)
	}
	v, err := db.schemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != LatestSchema() || v < 1 {
		t.Fatalf("schema version = %d, want %d", v, LatestSchema())
	}
	if _, err := db.write.ExecContext(ctx, `INSERT INTO decks (slug, title, release, created_at, updated_at) VALUES ('d', 'D', '1.36', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if fi, _ := os.Stat(path + "-wal"); fi.Size() > 0 {
			t.Errorf("-wal file left with %d bytes after Close", fi.Size())
		}
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("Open existing: %v", err)
	}
	defer db.Close()
	var applied, decks int
	if err := db.write.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if applied != len(ms) {
		t.Errorf("schema_migrations has %d rows after reopening, want %d (no migration applied twice)", applied, len(ms))
	}
	if err := db.write.QueryRowContext(ctx, "SELECT count(*) FROM decks").Scan(&decks); err != nil {
		t.Fatal(err)
	}
	if decks != 1 {
		t.Errorf("decks = %d after reopening, want 1 (data kept)", decks)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()

	t.Run("newer schema", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kubequiz.db")
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future.sql', 0)", LatestSchema()+1); err != nil {
			t.Fatal(err)
		}
		db.Close()
		_, err = Open(ctx, path)
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the file", err)
		}
	})

	t.Run("unwritable folder", func(t *testing.T) {
		if os.Geteuid() == 0 {
			// root ignores permission bits: use a path under a regular file instead.
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(ctx, filepath.Join(file, "kubequiz.db")); err == nil {
				t.Fatal("Open under a regular file succeeded")
			}
			return
		}
		dir := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, filepath.Join(dir, "kubequiz.db"))
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("Open in a read-only folder = %v, want a permission error", err)
		}
	})

	t.Run("not a database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "junk.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ctx, path); err == nil {
			t.Fatal("Open of a junk file succeeded")
		}
	})
}

// TestOpenPathsAsGiven: the database is the file named, whatever the
// characters of its name, and only its owner may read it.
func TestOpenPathsAsGiven(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"a#b.db", "q?x=1.db", "pct%41.db", "with space.db", "日本語.db"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sub#dir")
			path := filepath.Join(dir, name)
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.CreateUser(ctx, NewUser{Login: "alice", PasswordHash: "x", Role: quiz.RoleMember}, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Name() != name {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("files in the folder: %q, want only %q", names, name)
			}
			info, err := os.Stat(path)
			if err != nil || info.Mode().Perm() != 0o600 || info.Size() == 0 {
				t.Errorf("database file: %v, %v; want a non-empty file of mode 0600", info, err)
			}
			db, err = Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if taken, err := db.LoginTaken(ctx, "alice"); err != nil || !taken {
				t.Errorf("reopened, alice is taken: %v, %v", taken, err)
			}
		})
	}
}

func TestPing(t *testing.T) {
	db := newTestDB(t)
	if err := db.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestParseSync(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Sync
		ok   bool
	}{{"normal", SyncNormal, true}, {"FULL", SyncFull, true}, {"Full", SyncFull, true}, {"off", "", false}, {"", "", false}} {
		got, err := ParseSync(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseSync(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// queryPlan is SQLite's plan of query with args, one step a line
// (EXPLAIN QUERY PLAN's details).
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.read.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
