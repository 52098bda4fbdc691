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
)

// ErrBackupExists means the file a backup was to be written to is already
// there: a backup never replaces a file.
var ErrBackupExists = errors.New("a backup never replaces a file")

// BackupInfo describes a backup Backup wrote.
type BackupInfo struct {
	// Path is the backup file.
	Path string
	// Size is its size in bytes.
	Size int64
	// Schema is the schema version of the copy: the source's, which Backup
	// never migrates.
	Schema int
}

// Backup writes a consistent copy of the kubequiz database at src to dst
// with VACUUM INTO, which reads the database in one read transaction: the
// copy holds every transaction committed before the copy began and none
// committed after it, while a server goes on writing to src. Backup opens
// src read-only and never creates, migrates or writes to it (SQLite may
// create its -wal and -shm files beside it, as any reader does). A
// database with a schema older or newer than this build's is copied as it
// is.
//
// The copy is written to a temporary file in dst's folder, checked with
// PRAGMA integrity_check, synced, and only then given the name dst, which
// it never takes from an existing file (ErrBackupExists). On any failure
// the temporary file is removed.
func Backup(ctx context.Context, src, dst string) (info BackupInfo, err error) {
	info.Path = dst
	srcAbs, err := filepath.Abs(src)
	if err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	dstAbs, err := filepath.Abs(dst)
	if err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	srcFI, err := os.Stat(srcAbs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return info, fmt.Errorf("store: backup: no database at %s", src)
	case err != nil:
		return info, fmt.Errorf("store: backup: %w", err)
	case !srcFI.Mode().IsRegular():
		return info, fmt.Errorf("store: backup: %s is not a database file", src)
	}
	if err := checkBackupTarget(srcAbs, srcFI, dstAbs); err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}

	tmp, err := os.CreateTemp(filepath.Dir(dstAbs), "."+filepath.Base(dstAbs)+".tmp-*")
	if err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	tmpPath := tmp.Name()
	keep := false
	defer func() {
		if keep {
			return
		}
		if rerr := os.Remove(tmpPath); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("store: backup: remove the unfinished copy: %w", rerr))
		}
	}()
	// VACUUM INTO writes to a file that is missing or empty: this one,
	// created with the owner's permissions only (the database holds
	// password hashes).
	if err := tmp.Close(); err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}

	source, err := sql.Open("sqlite", readOnlyDSN(srcAbs))
	if err != nil {
		return info, fmt.Errorf("store: backup: open %s: %w", src, err)
	}
	defer source.Close()
	// One connection: the checks and the copy see the same file.
	source.SetMaxOpenConns(1)
	if _, err := schemaOf(ctx, source); err != nil {
		return info, fmt.Errorf("store: backup: %s: %w", src, err)
	}
	// An absolute path never starts with "file:", so SQLite reads it as a
	// file name and not as a URI.
	if _, err := source.ExecContext(ctx, `VACUUM INTO ?`, tmpPath); err != nil {
		return info, fmt.Errorf("store: backup: copy %s: %w", src, err)
	}
	if err := source.Close(); err != nil {
		return info, fmt.Errorf("store: backup: close %s: %w", src, err)
	}
	if info.Schema, err = checkCopy(ctx, tmpPath); err != nil {
		return info, fmt.Errorf("store: backup: the copy of %s: %w", src, err)
	}
	if err := syncFile(tmpPath); err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	if err := renameNoReplace(tmpPath, dstAbs); err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	keep = true // it is dst now
	if err := syncFile(filepath.Dir(dstAbs)); err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	fi, err := os.Stat(dstAbs)
	if err != nil {
		return info, fmt.Errorf("store: backup: %w", err)
	}
	info.Size = fi.Size()
	return info, nil
}

// checkBackupTarget refuses a target that exists, that is the database
// itself, or that is the name of one of the files SQLite keeps beside it.
func checkBackupTarget(src string, srcFI os.FileInfo, dst string) error {
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if dst == src+suffix {
			return fmt.Errorf("%s is a file SQLite keeps beside the database %s", dst, src)
		}
	}
	fi, err := os.Stat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case os.SameFile(srcFI, fi):
		return fmt.Errorf("%s is the database itself", dst)
	case fi.IsDir():
		return fmt.Errorf("%s is a folder: give the backup's file name", dst)
	}
	return fmt.Errorf("%s already exists: %w", dst, ErrBackupExists)
}

// readOnlyDSN opens path read-only, without creating it, and with none of
// the settings Open applies: the backup reads the file as it is.
func readOnlyDSN(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	return "file:" + (&url.URL{Path: filepath.Clean(path)}).EscapedPath() + "?" + q.Encode()
}

// schemaOf reads the schema version of a kubequiz database: an error for
// a file that is not one.
func schemaOf(ctx context.Context, db *sql.DB) (int, error) {
	var tables int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables)
	if err != nil {
		return 0, fmt.Errorf("read schema: %w", err)
	}
	if tables == 0 {
		return 0, errors.New("not a kubequiz database (it has no schema_migrations table)")
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// maxIntegrityProblems bounds the problems of integrity_check reported.
const maxIntegrityProblems = 5

// checkCopy runs PRAGMA integrity_check on the copy at path, and returns
// its schema version when it is "ok".
func checkCopy(ctx context.Context, path string) (int, error) {
	db, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return 0, fmt.Errorf("integrity_check: %w", err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return 0, fmt.Errorf("integrity_check: %w", err)
		}
		problems = append(problems, line)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("integrity_check: %w", err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		if len(problems) > maxIntegrityProblems {
			problems = append(problems[:maxIntegrityProblems], fmt.Sprintf("and %d more", len(problems)-maxIntegrityProblems))
		}
		return 0, fmt.Errorf("integrity_check failed: %s", strings.Join(problems, "; "))
	}
	v, err := schemaOf(ctx, db)
	if err != nil {
		return 0, err
	}
	if err := db.Close(); err != nil {
		return 0, fmt.Errorf("close: %w", err)
	}
	return v, nil
}

// syncFile flushes a file or a folder (a rename in it) to the disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return f.Close()
}

// renameNoReplace gives the file at from the name to, unless a file has
// that name: a hard link, which fails on an existing name, then the
// removal of from. On a file system without hard links, it checks that to
// is free and renames, a check a file created in between would pass.
func renameNoReplace(from, to string) error {
	err := os.Link(from, to)
	if err == nil {
		if err := os.Remove(from); err != nil {
			return fmt.Errorf("remove the temporary name: %w", err)
		}
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists: %w", to, ErrBackupExists)
	}
	switch _, err := os.Lstat(to); {
	case err == nil:
		return fmt.Errorf("%s already exists: %w", to, ErrBackupExists)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	return nil
}
