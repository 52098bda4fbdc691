// Package store is the only package that speaks SQL. It opens the SQLite
// database with the settings kubequiz relies on, applies the embedded schema
// migrations, and offers one method per use case, each in its own transaction
// except reviews, which one writer records several to a transaction under
// load (review_writer.go). Two things are kept in memory: session lookups,
// for a second (session_cache.go), and the questions the study requests
// serve, checked against each question's revision on every read
// (question_cache.go).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrSchemaTooNew means the database was written by a newer kubequiz.
var ErrSchemaTooNew = errors.New("database schema is newer than this kubequiz")

// DB is an open kubequiz database. Writes go through a single connection so
// that they never contend for SQLite's write lock; reads use a pool. The
// statements every study request runs are prepared once on each pool.
type DB struct {
	path   string
	write  *sql.DB
	read   *sql.DB
	writes stmts
	reads  stmts
	zones  zones
	// reviews records reviews in shared transactions (review_writer.go).
	reviews *reviewWriter
	// readSlots holds one token per reader connection in use by a quick
	// read (quickRead).
	readSlots chan struct{}
	// sessions holds recent session lookups (session_cache.go).
	sessions sessionCache
	// questions holds the questions study requests serve (question_cache.go).
	questions questionCache
	// features holds the answers of FeaturesWithHistory (features.go).
	features featuresCache
	// counts holds the study pages' counts of the cards left today
	// (study_counts_cache.go).
	counts countsCache
	// schedulers holds an FSRS scheduler per desired retention.
	schedulers schedulers
}

// readConns is the size of the reader pool.
const readConns = 4

// Sync is SQLite's synchronous setting: when a commit reaches the disk.
type Sync string

const (
	// SyncNormal, the default, syncs the write-ahead log only around
	// checkpoints: the file stays consistent through any crash, and a
	// committed transaction survives a crash of the process, but the last
	// commits before a power loss or an operating-system crash may be lost.
	SyncNormal Sync = "NORMAL"
	// SyncFull syncs the log at every commit, so that an acknowledged
	// review survives a power loss too; each commit then waits for the
	// disk. The review writer commits the reviews that arrive together at
	// once (review_writer.go), so under load the sync is paid per batch.
	SyncFull Sync = "FULL"
)

// valid reports whether s is one of the settings above.
func (s Sync) valid() bool { return s == SyncNormal || s == SyncFull }

// ParseSync reads a synchronous setting as an operator writes it: normal
// or full, in any case.
func ParseSync(s string) (Sync, error) {
	if v := Sync(strings.ToUpper(s)); v.valid() {
		return v, nil
	}
	return "", fmt.Errorf("synchronous setting %q: want normal or full", s)
}

func dsn(path string, mode Sync) string {
	q := url.Values{}
	for _, p := range []string{
		"busy_timeout(5000)",
		"journal_mode(WAL)",
		"synchronous(" + string(mode) + ")",
		"foreign_keys(1)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	// A URI: the path is escaped, or a "#", "?" or "%" in it would end it
	// or be read as an escape, and another file would be opened.
	return "file:" + (&url.URL{Path: filepath.Clean(path)}).EscapedPath() + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path, creating its folder,
// and brings the schema up to date, with the default synchronous setting.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenSync(ctx, path, SyncNormal)
}

// OpenSync is Open with the synchronous setting mode.
func OpenSync(ctx context.Context, path string, mode Sync) (*DB, error) {
	return OpenWith(ctx, path, Options{Sync: mode})
}

// Options are the settings of an open database beyond its path.
type Options struct {
	// Sync is SQLite's synchronous setting; empty means SyncNormal.
	Sync Sync
	// OnBatch, when set, is told of every batch the review writer
	// records: how many reviews it held and how long it took, from the
	// start of its transaction to the last review's answer. It runs on
	// the writer's goroutine, so it must return at once.
	OnBatch func(size int, took time.Duration)
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*DB, error) {
	mode := o.Sync
	if mode == "" {
		mode = SyncNormal
	}
	if !mode.valid() {
		return nil, fmt.Errorf("store: open %s: synchronous setting %q", path, mode)
	}
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("store: create database folder: %w", err)
		}
	}
	if err := createFile(path); err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	write, err := sql.Open("sqlite", dsn(path, mode))
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
	read, err := sql.Open("sqlite", dsn(path, mode))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", path, err)
	}
	read.SetMaxOpenConns(readConns)
	read.SetMaxIdleConns(readConns)
	db.read = read
	db.readSlots = make(chan struct{}, readConns)
	if db.writes, err = prepare(ctx, write, hotWrites()); err == nil {
		db.reads, err = prepare(ctx, read, hotReads())
	}
	if err != nil {
		db.writes.close()
		read.Close()
		write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.reviews = newReviewWriter(db, reviewLinger, o.OnBatch)
	return db, nil
}

// createFile creates the database file, empty (an empty file is an empty
// database), when there is none: readable by its owner only, as it holds
// password hashes (SQLite gives its -wal and -shm files the same mode),
// and with the system's own error when the folder is not writable.
func createFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

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
	if db.reviews != nil {
		db.reviews.close()
	}
	errs := []error{db.reads.close(), db.writes.close()}
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if _, err := db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		errs = append(errs, fmt.Errorf("store: checkpoint: %w", err))
	}
	errs = append(errs, db.write.Close())
	return errors.Join(errs...)
}

// querier is what read helpers need; *sql.DB and *sql.Tx both have it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tx runs fn in one write transaction (BEGIN IMMEDIATE through the DSN),
// committing when fn returns nil and rolling back otherwise. Afterwards the
// session cache is emptied, since fn may have changed a user or a session.
func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	defer db.sessions.invalidate()
	return db.txKeepSessions(ctx, fn)
}

// txKeepSessions is tx for writes that change no user and no session
// (reviews, sign-in counts), or that say themselves what they change in the
// session cache (TouchSession). Afterwards the cache of the study pages'
// counts is emptied, since fn may have changed them.
func (db *DB) txKeepSessions(ctx context.Context, fn func(tx *sql.Tx) error) error {
	defer db.counts.invalidate()
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

// quickRead prepares a read of the study requests, whose statements take
// microseconds: it waits, for as long as ctx allows, until a reader
// connection is free, and returns ctx without its cancellation and the
// function that ends the read. Run with a context that can end, each
// statement costs two goroutines and a progress handler (database/sql's
// and the driver's watchers of ctx), a tenth of a study request's CPU
// time in a load test; a statement this short ends before an interrupt
// would. The wait for a connection stays cancellable: a request whose
// client has left while quick reads held every connection runs nothing.
// (A connection held by another kind of read can still keep a quick read
// waiting inside database/sql, for as long as that read lasts.)
func (db *DB) quickRead(ctx context.Context) (context.Context, func(), error) {
	select {
	case db.readSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		<-db.readSlots
		return nil, nil, err
	}
	return context.WithoutCancel(ctx), func() { <-db.readSlots }, nil
}

// ms converts a time to the stored representation, unix milliseconds UTC.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS converts a stored time back.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// hotReads are the read statements of every study request: the session
// lookup, the study queue and the card shown for grading.
func hotReads() []string {
	return []string{
		sessionUserQuery, studyDeckQuery, subscriptionCountQuery, queueAllQuery, queueDeckQuery,
		todayQuery, nextDueQuery, dueBeforeQuery, cardForAnswerQuery, questionByRevisionQuery,
		meetupDecksQuery,
	}
}

// hotWrites are the statements of recording a review and of sliding a
// session's idle timeout.
func hotWrites() []string {
	return []string{cardForAnswerQuery, insertReviewQuery, countDayQuery, startDayQuery, saveCardQuery, startCursorQuery, advanceCursorQuery, markExhaustedQuery,
		earlierReviewQuery, touchSessionQuery, questionByRevisionQuery}
}

// stmts are statements prepared once on a pool. database/sql prepares each
// again on every connection the first time it runs there, so SQLite parses
// and plans a query in the set once per connection instead of on every call
// (parsing was about a third of a study request's CPU time). Any other query
// runs as plain SQL. The map is only read after prepare.
type stmts struct {
	pool *sql.DB
	m    map[string]*sql.Stmt
}

// prepare prepares queries on pool. It runs while nothing else holds a
// connection: preparing on a pool waits for a free connection, and the
// writer pool has one.
func prepare(ctx context.Context, pool *sql.DB, queries []string) (stmts, error) {
	s := stmts{pool: pool, m: make(map[string]*sql.Stmt, len(queries))}
	for _, q := range queries {
		st, err := pool.PrepareContext(ctx, q)
		if err != nil {
			s.close()
			return stmts{}, fmt.Errorf("prepare: %w", err)
		}
		s.m[q] = st
	}
	return s, nil
}

func (s stmts) close() error {
	var errs []error
	for _, st := range s.m {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

func (s stmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := s.m[query]; ok {
		return st.QueryRowContext(ctx, args...)
	}
	return s.pool.QueryRowContext(ctx, query, args...)
}

func (s stmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := s.m[query]; ok {
		return st.QueryContext(ctx, args...)
	}
	return s.pool.QueryContext(ctx, query, args...)
}

// in returns a querier that runs the prepared statements within tx, which
// must belong to the same pool.
func (s stmts) in(tx *sql.Tx) txStmts { return txStmts{tx: tx, m: s.m} }

// txStmts runs prepared statements (and plain SQL) within a transaction.
type txStmts struct {
	tx *sql.Tx
	m  map[string]*sql.Stmt
}

func (t txStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := t.m[query]; ok {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t txStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := t.m[query]; ok {
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t txStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := t.m[query]; ok {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// zones caches loaded time zones: time.LoadLocation reads and parses the
// zone file on every call, and the study queue needs the learner's zone on
// every request.
type zones struct{ m sync.Map }

// location returns the named time zone; one this machine does not know
// counts as UTC.
func (z *zones) location(name string) *time.Location {
	if loc, ok := z.m.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC // not cached: the cache holds only real zones
	}
	z.m.Store(name, loc)
	return loc
}
