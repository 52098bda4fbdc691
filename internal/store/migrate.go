package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migrations in order. File names start with
// their version number: 0001_init.sql. Versions increase; a number may be
// skipped (work on several branches numbers its migrations apart), and a
// database gets every migration it has not had, in order.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s: the same version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// LatestSchema is the schema version this build writes.
func LatestSchema() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// schemaVersion reports the newest migration applied to the database.
func (db *DB) schemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.write.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return v, nil
}

// appliedMigrations returns the versions the database has had.
func (db *DB) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	rows, err := db.write.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("store: applied migrations: %w", err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("store: applied migrations: %w", err)
		}
		out[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: applied migrations: %w", err)
	}
	return out, nil
}

func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("store: open %s: %w", db.path, err)
	}
	current, err := db.schemaVersion(ctx)
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return fmt.Errorf("store: no migrations")
	}
	if latest := ms[len(ms)-1].version; current > latest {
		return fmt.Errorf("store: %s has schema version %d, this build knows up to %d: %w", db.path, current, latest, ErrSchemaTooNew)
	}
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		err := db.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.version, m.name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("store: apply migration %s: %w", m.name, err)
		}
	}
	return nil
}
