package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// reviewLog is what concurrent reviewers did: the request ids sent, and
// those acknowledged (RecordReview returned them recorded).
type reviewLog struct {
	mu    sync.Mutex
	sent  map[string]bool
	acked map[string]bool
}

func (l *reviewLog) snapshot() (sent, acked map[string]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sent, acked = make(map[string]bool, len(l.sent)), make(map[string]bool, len(l.acked))
	for id := range l.sent {
		sent[id] = true
	}
	for id := range l.acked {
		acked[id] = true
	}
	return sent, acked
}

// reviewUntil has every user review the questions in turn, each from a
// goroutine, until ctx ends, and returns the function that waits for them
// and reports the first error.
func reviewUntil(ctx context.Context, db *DB, users, questions []int64, log *reviewLog) func() error {
	var wg sync.WaitGroup
	errs := make(chan error, len(users))
	for _, user := range users {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				id := fmt.Sprintf("u%d-%d", user, i)
				log.mu.Lock()
				log.sent[id] = true
				log.mu.Unlock()
				_, err := db.RecordReview(context.Background(), Review{UserID: user, QuestionID: questions[i%len(questions)],
					RequestID: id, Rating: fsrs.Rating(1 + i%4), Response: quiz.Response{Choice: i % 3}, Scope: Scope{Deck: "d"}, At: time.Now()})
				if err != nil {
					errs <- fmt.Errorf("review %s: %w", id, err)
					return
				}
				log.mu.Lock()
				log.acked[id] = true
				log.mu.Unlock()
			}
		})
	}
	return func() error {
		wg.Wait()
		close(errs)
		return <-errs
	}
}

// openCopy opens a backup read-only for checks.
func openCopy(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

// TestBackupWhileReviewing takes backups while eight learners record
// reviews through the review writer. Each copy passes integrity_check,
// holds every review acknowledged before its backup began, none sent
// after it ended, and only whole review transactions. The test repeats
// until a review was acknowledged while a backup ran, so that one copy
// at least was taken under writes.
func TestBackupWhileReviewing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "kubequiz.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deck := addStudyDeck(t, db, "d", "1.36")
	var users, questions []int64
	for i := range 40 {
		questions = append(questions, addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i))))
	}
	for i := range 8 {
		users = append(users, addStudyUser(t, db, fmt.Sprintf("u%d", i), studyUserOpts{newPerDay: 100000, reviewsPerDay: 100000}))
	}

	log := &reviewLog{sent: map[string]bool{}, acked: map[string]bool{}}
	wctx, stop := context.WithCancel(ctx)
	wait := reviewUntil(wctx, db, users, questions, log)
	defer func() {
		stop()
		if err := wait(); err != nil {
			t.Error(err)
		}
	}()
	for deadline := time.Now().Add(time.Minute); ; {
		if _, acked := log.snapshot(); len(acked) >= 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the learners recorded fewer than 200 reviews in a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}

	const attempts = 10
	for attempt := range attempts {
		dst := filepath.Join(dir, fmt.Sprintf("backup-%d.db", attempt))
		_, before := log.snapshot()
		info, err := Backup(ctx, path, dst)
		if err != nil {
			t.Fatal(err)
		}
		sentAfter, ackedAfter := log.snapshot()
		if info.Path != dst || info.Schema != LatestSchema() {
			t.Errorf("info = %+v, want path %s and schema %d", info, dst, LatestSchema())
		}
		if fi, err := os.Stat(dst); err != nil || fi.Size() != info.Size || fi.Mode().Perm() != 0o600 {
			t.Errorf("backup file: %v, %v; want %d bytes, mode 0600", fi, err, info.Size)
		}

		raw := openCopy(t, dst)
		var integrity string
		if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
			t.Fatalf("integrity_check of the copy = %q, %v", integrity, err)
		}
		present := storedRequestIDs(t, raw)
		for id := range before {
			if !present[id] {
				t.Errorf("review %s, acknowledged before the backup began, is not in the copy", id)
			}
		}
		for id := range present {
			if !sentAfter[id] {
				t.Errorf("review %s, sent after the backup ended, is in the copy", id)
			}
		}
		checkReviewsWhole(t, raw)
		if t.Failed() {
			t.FailNow()
		}
		during := len(ackedAfter) - len(before)
		t.Logf("backup %d: %d bytes, %d reviews in the copy, %d acknowledged before it began, %d while it ran",
			attempt, info.Size, len(present), len(before), during)
		if during > 0 {
			return
		}
	}
	t.Fatalf("no review was acknowledged while any of %d backups ran", attempts)
}

// oldSchemaDB creates a database at path with the first version
// migrations only, as an older kubequiz left it, and closes it.
func oldSchemaDB(t *testing.T, path string, version int) {
	t.Helper()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version > version {
			break
		}
		if _, err := raw.Exec(m.sql); err != nil {
			t.Fatalf("migration %s: %v", m.name, err)
		}
		if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)`, m.version, m.name); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
}

// fileSum is the SHA-256 of a file's bytes.
func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// schemaObjects lists a database's schema: its tables, indexes and
// triggers with their SQL, and its schema version.
func schemaObjects(t *testing.T, raw *sql.DB) string {
	t.Helper()
	rows, err := raw.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, sql string
		if err := rows.Scan(&typ, &name, &sql); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s\n", typ, name, sql)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	v, err := schemaOf(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "version %d\n", v)
	return b.String()
}

// TestBackupKeepsSchema backs up databases at an older schema version, at
// this build's, and at a newer one: each copy has the source's schema,
// and the source file's bytes are unchanged (Backup neither migrates nor
// writes it).
func TestBackupKeepsSchema(t *testing.T) {
	ctx := context.Background()
	latest := LatestSchema()
	tests := []struct {
		name    string
		version int
		build   func(t *testing.T, path string)
	}{
		{"older schema", 10, func(t *testing.T, path string) { oldSchemaDB(t, path, 10) }},
		{"first migration only", 1, func(t *testing.T, path string) { oldSchemaDB(t, path, 1) }},
		{"this build's schema", latest, func(t *testing.T, path string) {
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"newer schema", latest + 1, func(t *testing.T, path string) {
			oldSchemaDB(t, path, latest)
			raw, err := sql.Open("sqlite", DSN(path))
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future.sql', 0)`, latest+1); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "kubequiz.db"), filepath.Join(dir, "copy.db")
			tt.build(t, src)
			if _, err := os.Stat(src + "-wal"); err == nil {
				t.Fatal("the source has a -wal file: its bytes are not all in the file")
			}
			sum := fileSum(t, src)
			want := schemaObjects(t, openCopy(t, src))

			info, err := Backup(ctx, src, dst)
			if err != nil {
				t.Fatal(err)
			}
			if info.Schema != tt.version {
				t.Errorf("schema version of the copy = %d, want %d", info.Schema, tt.version)
			}
			if fileSum(t, src) != sum {
				t.Error("the source file changed")
			}
			if got := schemaObjects(t, openCopy(t, src)); got != want {
				t.Errorf("the source's schema changed:\n%s\nwant:\n%s", got, want)
			}
			if got := schemaObjects(t, openCopy(t, dst)); got != want {
				t.Errorf("the copy's schema:\n%s\nwant the source's:\n%s", got, want)
			}
		})
	}
}

// TestBackupRefuses: a backup never replaces a file, never writes over the
// database or a file beside it, refuses a missing database without creating
// it, and a file that is not a kubequiz database. A refusal leaves no file.
func TestBackupRefuses(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		src, dst string // relative to the test's folder
		setup    func(t *testing.T, dir string)
		want     string
		wantIs   error
	}{
		{"existing file", "kubequiz.db", "copy.db", func(t *testing.T, dir string) {
			writeTestFile(t, filepath.Join(dir, "copy.db"), "an earlier backup")
		}, "copy.db already exists", ErrBackupExists},
		{"the database itself", "kubequiz.db", "kubequiz.db", nil, "is the database itself", nil},
		{"the database by another name", "kubequiz.db", "link.db", func(t *testing.T, dir string) {
			if err := os.Symlink("kubequiz.db", filepath.Join(dir, "link.db")); err != nil {
				t.Fatal(err)
			}
		}, "is the database itself", nil},
		{"the write-ahead log", "kubequiz.db", "kubequiz.db-wal", nil, "a file SQLite keeps beside the database", nil},
		{"a folder", "kubequiz.db", "sub", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is a folder", nil},
		{"missing database", "data/kubequiz.db", "copy.db", nil, "no database at", nil},
		{"not a kubequiz database", "empty.db", "copy.db", func(t *testing.T, dir string) {
			writeTestFile(t, filepath.Join(dir, "empty.db"), "")
		}, "not a kubequiz database", nil},
		{"not a database", "notes.txt", "copy.db", func(t *testing.T, dir string) {
			writeTestFile(t, filepath.Join(dir, "notes.txt"), strings.Repeat("not a database\n", 100))
		}, "notes.txt", nil},
		{"missing target folder", "kubequiz.db", "nowhere/copy.db", nil, "nowhere", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(ctx, filepath.Join(dir, "kubequiz.db"))
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			before := listFiles(t, dir)
			dst := filepath.Join(dir, tt.dst)
			var dstSum [32]byte
			if fi, err := os.Stat(dst); err == nil && fi.Mode().IsRegular() {
				dstSum = fileSum(t, dst)
			}

			_, err = Backup(ctx, filepath.Join(dir, tt.src), dst)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Backup = %v, want an error saying %q", err, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Backup = %v, want %v", err, tt.wantIs)
			}
			if after := listFiles(t, dir); after != before {
				t.Errorf("files after the refusal:\n%s\nbefore:\n%s", after, before)
			}
			if dstSum != ([32]byte{}) && fileSum(t, dst) != dstSum {
				t.Error("the existing file changed")
			}
		})
	}
}

// TestCheckCopy: integrity_check of a damaged copy fails.
func TestCheckCopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "kubequiz.db")
	db, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	deck := addStudyDeck(t, db, "d", "1.36")
	for i := range 200 {
		addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i)))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.db")
	if _, err := Backup(ctx, src, good); err != nil {
		t.Fatal(err)
	}
	if v, err := checkCopy(ctx, good); err != nil || v != LatestSchema() {
		t.Fatalf("checkCopy of a good copy = %d, %v", v, err)
	}

	// Damage the middle of the file: some page of the questions or of an
	// index no longer reads as it should.
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 2; i < len(b)/2+8192 && i < len(b); i += 7 {
		b[i] ^= 0x5a
	}
	bad := filepath.Join(dir, "bad.db")
	writeTestFile(t, bad, string(b))
	if _, err := checkCopy(ctx, bad); err == nil {
		t.Fatal("checkCopy of a damaged copy succeeded")
	} else {
		t.Log(err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// listFiles lists the names in dir and its folders, with each file's size.
func listFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(&b, "%s %d\n", rel, info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBackupCancelled: a backup whose context has ended fails and leaves
// no file.
func TestBackupCancelled(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "kubequiz.db")
	db, err := Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	backups := filepath.Join(dir, "backups")
	if err := os.Mkdir(backups, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Backup(ctx, src, filepath.Join(backups, "copy.db")); err == nil {
		t.Fatal("Backup with an ended context succeeded")
	}
	if entries, err := os.ReadDir(backups); err != nil || len(entries) != 0 {
		t.Errorf("files left in the backup folder: %v, %v", entries, err)
	}
}
