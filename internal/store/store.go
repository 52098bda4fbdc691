// Package store is the only package that speaks SQL. It opens the SQLite
// database with the settings kubequiz relies on, applies the embedded schema
// migrations, and offers one method per use case, each in its own transaction.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrSchemaTooNew means the database was written by a newer kubequiz.
var ErrSchemaTooNew = errors.New("database schema is newer than this kubequiz")

// DB is an open kubequiz database. Writes go through a single connection so
// that they never contend for SQLite's write lock; reads use a pool.
type DB struct {
	path  string
	write *sql.DB
	read  *sql.DB
}

// pragmas are applied to every connection by the driver.
var pragmas = []string{
	"busy_timeout(5000)",
	"journal_mode(WAL)",
	"synchronous(NORMAL)",
	"foreign_keys(1)",
}

// DSN returns the modernc.org/sqlite data source name for path.
func DSN(path string) string {
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path, creating its folder,
// and brings the schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("store: create database folder: %w", err)
		}
	}
	write, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	db := &DB{path: path, write: write}
	// The first statement creates the file: report an unwritable path clearly.
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		write.Close()
		return nil, err
	}
	read, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", path, err)
	}
	read.SetMaxOpenConns(4)
	read.SetMaxIdleConns(4)
	db.read = read
	return db, nil
}

// Path is the database file's path.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Close checkpoints the write-ahead log into the database file and closes
// every connection, so that no -wal file is left behind.
func (db *DB) Close() error {
	var errs []error
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if _, err := db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		errs = append(errs, fmt.Errorf("store: checkpoint: %w", err))
	}
	errs = append(errs, db.write.Close())
	return errors.Join(errs...)
}

// tx runs fn in one write transaction (BEGIN IMMEDIATE through the DSN),
// committing when fn returns nil and rolling back otherwise.
func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// ms converts a time to the stored representation, unix milliseconds UTC.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS converts a stored time back.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }
