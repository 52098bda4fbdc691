package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// This file exists for the load benchmark (cmd/kqload): the server does not
// use it. It measures how fast SQLite commits on the benchmark's machine, so
// that the benchmark's review rate can be read against that ceiling.

// WriteProbe measures the write ceiling that kubequiz's own writes work
// under: single-row write transactions on a database file opened with the
// same settings and the same single writer connection as DB, with the
// synchronous setting the server runs with (or SyncNormal beside SyncFull,
// to see what the sync at every commit costs). The load benchmark
// (cmd/kqload) compares the review rate with it.
type WriteProbe struct {
	db   *sql.DB
	stmt *sql.Stmt
	n    int64
}

// OpenWriteProbe creates a table in a new database file at path, which must
// not hold a kubequiz database: the probe writes rows into it, with the
// synchronous setting sync.
func OpenWriteProbe(ctx context.Context, path string, sync Sync) (*WriteProbe, error) {
	if !sync.valid() {
		return nil, fmt.Errorf("store: write probe %s: synchronous setting %q", path, sync)
	}
	db, err := sql.Open("sqlite", dsn(path, sync))
	if err != nil {
		return nil, fmt.Errorf("store: write probe %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS probe (
		id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, at INTEGER NOT NULL, note TEXT NOT NULL)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: write probe %s: %w", path, err)
	}
	stmt, err := db.PrepareContext(ctx, `INSERT INTO probe (user_id, at, note) VALUES (?, ?, ?)`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: write probe %s: %w", path, err)
	}
	return &WriteProbe{db: db, stmt: stmt}, nil
}

// Run commits one-row transactions (BEGIN IMMEDIATE, INSERT, COMMIT) from one
// goroutine until the time until, ctx's end, or limit transactions, and
// returns how many it committed. observe, if not nil, gets the duration of
// each transaction.
func (p *WriteProbe) Run(ctx context.Context, until time.Time, limit int, observe func(time.Duration)) (int, error) {
	n := 0
	for n < limit && ctx.Err() == nil && time.Now().Before(until) {
		start := time.Now()
		if err := p.insert(ctx, start); err != nil {
			return n, fmt.Errorf("store: write probe: %w", err)
		}
		if observe != nil {
			observe(time.Since(start))
		}
		n++
	}
	return n, nil
}

func (p *WriteProbe) insert(ctx context.Context, now time.Time) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p.n++
	if _, err := tx.StmtContext(ctx, p.stmt).ExecContext(ctx, p.n%64, ms(now), "review"); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the probe's database; the file stays.
func (p *WriteProbe) Close() error {
	p.stmt.Close()
	return p.db.Close()
}
