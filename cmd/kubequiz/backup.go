package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"kubequiz/internal/store"
)

const backupUsage = `usage: kubequiz backup [-db DATABASE] FILE

Writes a copy of the database to FILE, which must not exist yet, while a
server may go on using the database. The copy holds every change committed
before it began; it is checked with SQLite's integrity_check before it
takes the name FILE. The database is never created or migrated.`

// backupCmd is `kubequiz backup FILE`.
func backupCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var dbPath string
	fs := newFlagSet("backup", stderr)
	fs.Usage = func() {
		io.WriteString(stderr, backupUsage+"\n\nflags:\n")
		fs.PrintDefaults()
	}
	source := settingDB
	source.help = "SQLite database file to copy (never created)"
	stringVar(fs, &dbPath, source, getenv)
	files, err := parseInterleaved(fs, args)
	switch {
	case err != nil:
		return err
	case len(files) == 0:
		fs.Usage()
		return usageError{"backup: FILE missing"}
	case len(files) > 1:
		return usageError{fmt.Sprintf("backup: unexpected argument %q", files[1])}
	}
	if err := databaseExists(dbPath); err != nil {
		return err
	}
	began := time.Now()
	info, err := store.Backup(ctx, dbPath, files[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s: %s in %s, schema version %d%s, integrity_check ok\n",
		dbPath, info.Path, formatSize(info.Size), time.Since(began).Round(time.Millisecond), info.Schema, schemaNote(info.Schema))
	return nil
}

// databaseExists refuses a database file that is not there, with the hint
// the other commands give.
func databaseExists(path string) error {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no database at %s: give the file with -db (or %s)", path, settingDB.env)
	}
	if err != nil {
		return fmt.Errorf("database %s: %w", path, err)
	}
	return nil
}

// schemaNote tells when a copy's schema is not the one this build writes.
func schemaNote(v int) string {
	switch latest := store.LatestSchema(); {
	case v < latest:
		return fmt.Sprintf(" (older than this build's %d, copied as it is; the server migrates it when it opens it)", latest)
	case v > latest:
		return fmt.Sprintf(" (newer than this build's %d: a newer kubequiz wrote it)", latest)
	}
	return ""
}

// formatSize writes a size in bytes with its value in KiB, MiB or GiB.
func formatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, s
	}
	return fmt.Sprintf("%.1f %s (%d bytes)", v, suffix, n)
}
