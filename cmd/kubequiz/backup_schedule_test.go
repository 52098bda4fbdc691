package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBackupName(t *testing.T) {
	at := time.Date(2026, 12, 2, 14, 45, 0, 0, time.FixedZone("JST", 9*3600))
	if got, want := backupName(at), "kubequiz-20261202T054500Z.db"; got != want {
		t.Fatalf("backupName = %q, want %q", got, want)
	}
	tests := []struct {
		name string
		ok   bool
	}{
		{"kubequiz-20261202T054500Z.db", true},
		{"kubequiz-19991231T235959Z.db", true},
		{"kubequiz.db", false},
		{"kubequiz-20261202T054500Z.db-wal", false},
		{"kubequiz-20261202T054500Z.db.bak", false},
		{".kubequiz-20261202T054500Z.db.tmp-123", false},
		{"kubequiz-20261202T054500.db", false},
		{"kubequiz-20261302T054500Z.db", false}, // month 13
		{"kubequiz-2026120xT054500Z.db", false},
		{"Kubequiz-20261202T054500Z.db", false},
		{"kubequiz-20261202T054500Z.DB", false},
		{"other-20261202T054500Z.db", false},
		{"kubequiz-latest.db", false},
	}
	for _, tt := range tests {
		got, ok := backupTime(tt.name)
		if ok != tt.ok {
			t.Errorf("backupTime(%q) ok = %v, want %v", tt.name, ok, tt.ok)
		}
		if ok && backupName(got) != tt.name {
			t.Errorf("backupName(backupTime(%q)) = %q", tt.name, backupName(got))
		}
	}
}

func TestExpiredBackups(t *testing.T) {
	const (
		a = "kubequiz-20261128T054500Z.db"
		b = "kubequiz-20261129T054500Z.db"
		c = "kubequiz-20261130T054500Z.db"
		d = "kubequiz-20261201T054500Z.db"
		e = "kubequiz-20261202T054500Z.db"
	)
	others := []string{"kubequiz.db", "kubequiz.db-wal", "kubequiz-20261127T054500Z.db.bak", "notes.txt",
		".kubequiz-20261126T054500Z.db.tmp-42", "kubequiz-manual.db", "kubequiz-20261125.db"}
	tests := []struct {
		name  string
		names []string
		keep  int
		want  []string
	}{
		{"none", nil, 7, nil},
		{"fewer than keep", []string{a, b}, 7, nil},
		{"as many as keep", []string{a, b, c}, 3, nil},
		{"one too many", []string{a, b, c, d}, 3, []string{a}},
		{"oldest first whatever the listing order", []string{e, c, a, d, b}, 2, []string{a, b, c}},
		{"keep one", []string{a, b, c, d, e}, 1, []string{a, b, c, d}},
		{"other files are never removed or counted", append(slices.Clone(others), a, b, c), 2, []string{a}},
		{"only other files", others, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := expiredBackups(tt.names, tt.keep); !slices.Equal(got, tt.want) {
				t.Errorf("expiredBackups(%v, %d) = %v, want %v", tt.names, tt.keep, got, tt.want)
			}
		})
	}
}

func TestFirstBackupDelay(t *testing.T) {
	now := time.Date(2026, 12, 2, 5, 45, 0, 0, time.UTC)
	every := 24 * time.Hour
	tests := []struct {
		name  string
		names []string
		want  time.Duration
	}{
		{"no backup yet: at once", nil, 0},
		{"only other files: at once", []string{"kubequiz.db", "kubequiz-latest.db"}, 0},
		{"the newest is an hour old", []string{"kubequiz-20261130T054500Z.db", "kubequiz-20261202T044500Z.db"}, 23 * time.Hour},
		{"the newest is older than every: at once", []string{"kubequiz-20261130T054500Z.db"}, 0},
		{"the newest is exactly every old: at once", []string{"kubequiz-20261201T054500Z.db"}, 0},
		{"the newest was taken now", []string{"kubequiz-20261202T054500Z.db"}, every},
		{"the newest is dated later (clock went back): every at most", []string{"kubequiz-20261205T054500Z.db"}, every},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := firstBackupDelay(tt.names, now, every); got != tt.want {
				t.Errorf("firstBackupDelay = %s, want %s", got, tt.want)
			}
		})
	}
}

// fakeClock is a clock for backupSchedule: every wait the schedule starts
// is handed to the test, which moves the time on and ends it.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	waits chan fakeWait
}

type fakeWait struct {
	d    time.Duration
	fire chan time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) after(d time.Duration) <-chan time.Time {
	w := fakeWait{d: d, fire: make(chan time.Time, 1)}
	c.waits <- w
	return w.fire
}

// next waits for the schedule's next wait, checks its length, and ends it
// after moving the time on by it.
func (c *fakeClock) next(t *testing.T, want time.Duration) {
	t.Helper()
	select {
	case w := <-c.waits:
		if w.d != want {
			t.Fatalf("the schedule waits %s, want %s", w.d, want)
		}
		c.mu.Lock()
		c.t = c.t.Add(w.d)
		now := c.t
		c.mu.Unlock()
		w.fire <- now
	case <-time.After(30 * time.Second):
		t.Fatal("the schedule started no wait within 30s")
	}
}

// TestBackupSchedule runs the schedule on a real database with a fake
// clock: a backup at once (the folder's backups are old), then one every
// hour, each named for its time; beyond keep, the oldest backups of the
// naming pattern are removed and no other file; a failed backup is logged
// and removes nothing; cancelling the context stops the schedule.
func TestBackupSchedule(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kubequiz.db")
	newTestDB(t, db)
	backups := filepath.Join(dir, "backups")
	if err := os.Mkdir(backups, 0o750); err != nil {
		t.Fatal(err)
	}
	old := []string{"kubequiz-20261101T000000Z.db", "kubequiz-20261102T000000Z.db"}
	others := []string{"notes.txt", "kubequiz-latest.db", "kubequiz-20261001T000000Z.db.bak"}
	for _, name := range append(slices.Clone(old), others...) {
		if err := os.WriteFile(filepath.Join(backups, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	clock := &fakeClock{t: time.Date(2026, 12, 2, 5, 45, 0, 0, time.UTC), waits: make(chan fakeWait)}
	pr, pw := io.Pipe()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	s := backupSchedule{db: db, dir: backups, every: time.Hour, keep: 3, log: slog.New(slog.NewTextHandler(pw, nil)),
		now: clock.now, after: clock.after}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		s.run(ctx)
		close(done)
	}()
	// expectLog waits for a log line holding every fragment.
	expectLog := func(fragments ...string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case line := <-lines:
				if !slices.ContainsFunc(fragments, func(f string) bool { return !strings.Contains(line, f) }) {
					return
				}
			case <-timeout:
				t.Fatalf("no log line with %q", fragments)
			}
		}
	}
	expectFiles := func(want ...string) {
		t.Helper()
		entries, err := os.ReadDir(backups)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("backup folder:\n%v\nwant:\n%v", got, want)
		}
	}

	clock.next(t, 0) // the newest backup is a month old
	expectLog("msg=\"scheduled backup\"", "kubequiz-20261202T054500Z.db", "integrity_check=ok")
	clock.next(t, time.Hour)
	expectLog("msg=\"scheduled backup\"", "kubequiz-20261202T064500Z.db")
	expectLog("removed an old backup", old[0])
	expectFiles(append(slices.Clone(others), old[1], "kubequiz-20261202T054500Z.db", "kubequiz-20261202T064500Z.db")...)

	// A file already has the next backup's name: the backup fails, and
	// nothing is removed.
	taken := filepath.Join(backups, "kubequiz-20261202T074500Z.db")
	if err := os.WriteFile(taken, []byte("not a backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock.next(t, time.Hour)
	expectLog("level=ERROR", "scheduled backup failed", "already exists")
	clock.next(t, time.Hour)
	expectLog("msg=\"scheduled backup\"", "kubequiz-20261202T084500Z.db")
	expectLog("removed an old backup", old[1])
	expectLog("removed an old backup", "kubequiz-20261202T054500Z.db")
	expectFiles(append(slices.Clone(others), "kubequiz-20261202T064500Z.db", "kubequiz-20261202T074500Z.db", "kubequiz-20261202T084500Z.db")...)
	if b, err := os.ReadFile(taken); err != nil || string(b) != "not a backup" {
		t.Errorf("the file the backup could not take = %q, %v", b, err)
	}
	if n := countRows(t, filepath.Join(backups, "kubequiz-20261202T084500Z.db"), "users"); n != 1 {
		t.Errorf("the backup has %d accounts, want 1", n)
	}

	// The schedule is waiting for its next backup: cancelling stops it.
	select {
	case w := <-clock.waits:
		if w.d != time.Hour {
			t.Errorf("the schedule waits %s, want 1h", w.d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the schedule started no wait")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the schedule did not stop when its context was cancelled")
	}
	pw.Close()
}

// TestServeBackups serves with -backup-dir: the first backup is taken at
// start (the folder, which serve creates, holds none), and a stop ends the
// schedule before the database closes, which leaves no write-ahead log.
func TestServeBackups(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kubequiz.db")
	backups := filepath.Join(dir, "backups", "daily")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-db", db}, env("KUBEQUIZ_BACKUP_DIR", backups), nil, io.Discard, &stderr)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "msg=\"scheduled backup\"") {
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled backup within a minute; log:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v; log:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	entries, err := os.ReadDir(backups)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("backup folder holds %d files, want 1", len(entries))
	}
	if _, ok := backupTime(entries[0].Name()); !ok {
		t.Errorf("backup named %q", entries[0].Name())
	}
	if n := countRows(t, filepath.Join(backups, entries[0].Name()), "decks"); n == 0 {
		t.Error("the backup holds no deck: taken before the bundled question bank was loaded")
	}
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("-wal file has %d bytes after shutdown, want it checkpointed", fi.Size())
	}
	for _, want := range []string{"every=24h0m0s", "keep=7", "integrity_check=ok", "msg=stopped"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, stderr.String())
		}
	}
}
