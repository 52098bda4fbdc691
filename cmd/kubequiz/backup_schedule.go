package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"kubequiz/internal/store"
)

// Scheduled backups are named by the time they were taken, in UTC, so that
// their names sort as their times: kubequiz-20261202T054500Z.db. Only
// files named so are ever removed from the backup folder.
const (
	backupPrefix = "kubequiz-"
	backupStamp  = "20060102T150405Z"
	backupSuffix = ".db"
)

// backupName is the file name of a scheduled backup taken at t.
func backupName(t time.Time) string {
	return backupPrefix + t.UTC().Format(backupStamp) + backupSuffix
}

// backupTime reads the time of a scheduled backup from its file name; ok is
// false for a name that is not exactly one backupName gives.
func backupTime(name string) (t time.Time, ok bool) {
	if len(name) != len(backupPrefix)+len(backupStamp)+len(backupSuffix) ||
		name[:len(backupPrefix)] != backupPrefix || name[len(name)-len(backupSuffix):] != backupSuffix {
		return time.Time{}, false
	}
	t, err := time.Parse(backupStamp, name[len(backupPrefix):len(name)-len(backupSuffix)])
	if err != nil || backupName(t) != name {
		return time.Time{}, false
	}
	return t, true
}

// scheduledBackups returns the names of scheduled backups among names,
// oldest first.
func scheduledBackups(names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := backupTime(n); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out) // the names sort as their times
	return out
}

// expiredBackups returns the scheduled backups among names beyond the
// newest keep, oldest first. A name of any other pattern is never among
// them.
func expiredBackups(names []string, keep int) []string {
	backups := scheduledBackups(names)
	if keep < 0 || len(backups) <= keep {
		return nil
	}
	return backups[:len(backups)-keep]
}

// firstBackupDelay is how long after now the first scheduled backup of a
// server start is due: every after the newest backup among names, so that
// restarts do not put off backups or add to them; at once when there is
// none, or when it is overdue. A backup dated after now (the clock went
// back) puts the next one off by every at most.
func firstBackupDelay(names []string, now time.Time, every time.Duration) time.Duration {
	backups := scheduledBackups(names)
	if len(backups) == 0 {
		return 0
	}
	newest, _ := backupTime(backups[len(backups)-1])
	d := newest.Add(every).Sub(now)
	switch {
	case d < 0:
		return 0
	case d > every:
		return every
	}
	return d
}

// backupSchedule takes the scheduled backups of a serving database.
type backupSchedule struct {
	db    string // the database file
	dir   string // the backup folder
	every time.Duration
	keep  int
	log   *slog.Logger
	// now and after are the clock: time.Now and time.After but in tests.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// startBackups runs s in a goroutine until ctx ends or the function it
// returns is called; that function returns once the goroutine has
// stopped, a backup being written interrupted and its file removed. The
// server calls it before it closes the database.
func startBackups(ctx context.Context, s backupSchedule) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.run(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}

// run takes a backup whenever one is due, until ctx ends. A failed backup
// is logged, and the next one is taken at its time.
func (s backupSchedule) run(ctx context.Context) {
	names, err := s.names()
	if err != nil {
		s.log.Error("scheduled backups: list the backup folder", "dir", s.dir, "err", err)
	}
	delay := firstBackupDelay(names, s.now(), s.every)
	s.log.Info("scheduled backups", "dir", s.dir, "every", s.every.String(), "keep", s.keep, "first_in", delay.String())
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.after(delay):
		}
		start := s.now()
		s.backup(ctx, start)
		delay = max(0, start.Add(s.every).Sub(s.now()))
	}
}

// backup takes one backup, named for now, then removes the backups beyond
// the newest s.keep.
func (s backupSchedule) backup(ctx context.Context, now time.Time) {
	path := filepath.Join(s.dir, backupName(now))
	began := time.Now()
	info, err := store.Backup(ctx, s.db, path)
	if err != nil && ctx.Err() != nil {
		s.log.Info("scheduled backup interrupted by the shutdown", "path", path)
		return
	}
	if err != nil {
		s.log.Error("scheduled backup failed", "path", path, "err", err)
		return
	}
	s.log.Info("scheduled backup", "path", info.Path, "bytes", info.Size, "schema", info.Schema,
		"duration", time.Since(began).Round(time.Millisecond).String(), "integrity_check", "ok")
	names, err := s.names()
	if err != nil {
		s.log.Error("scheduled backups: list the backup folder", "dir", s.dir, "err", err)
		return
	}
	for _, name := range expiredBackups(names, s.keep) {
		old := filepath.Join(s.dir, name)
		if err := os.Remove(old); err != nil {
			s.log.Error("scheduled backups: remove an old backup", "path", old, "err", err)
			continue
		}
		s.log.Info("removed an old backup", "path", old, "keep", s.keep)
	}
}

// names lists the regular files of the backup folder.
func (s backupSchedule) names() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.dir, err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
