package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestMigrationSkippedEarlier opens a database that has had every
// migration but one below its newest, as a database of a branch whose
// migrations were numbered apart has: Open applies the one it lacks.
func TestMigrationSkippedEarlier(t *testing.T) {
	ctx := context.Background()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 2 {
		t.Skip("fewer than two migrations")
	}
	skipped := ms[len(ms)-2]
	path := filepath.Join(t.TempDir(), "kubequiz.db")
	raw, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version == skipped.version {
			continue
		}
		if _, err := raw.ExecContext(ctx, m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if _, err := raw.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.version, m.name); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	var n int
	if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, skipped.version).Scan(&n); err != nil || n != 1 {
		t.Errorf("migration %s applied %d times, %v; want once", skipped.name, n, err)
	}
	if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(ms) {
		t.Errorf("%d migrations recorded, %v; want %d", n, err, len(ms))
	}
}
