package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"kubequiz/internal/store"
)

// dbUse is how a command other than serve uses the database file.
type dbUse int

const (
	// dbExisting: the command changes what is there; a missing file is an
	// error (a wrong -db or working folder, most likely).
	dbExisting dbUse = iota
	// dbCreate: the command makes something, and may be the first to run:
	// a missing file is created, and the command says so. A database
	// without decks gets the bundled question bank first, as serve loads it
	// on its first start (which, once there are decks, it no longer does).
	dbCreate
	// dbDryRun: the command writes nothing. A missing file is stood in for
	// by a new database in a temporary folder, prepared as dbCreate would
	// prepare it and removed afterwards, so that the dry run tells what the
	// real run would do, and no file is left behind.
	dbDryRun
)

// writing is dbCreate, or dbDryRun for a dry run.
func writing(dryRun bool) dbUse {
	if dryRun {
		return dbDryRun
	}
	return dbCreate
}

// openCommandDB opens the database at path for a command. close closes it
// and removes a stand-in.
func openCommandDB(ctx context.Context, path string, use dbUse, stderr io.Writer) (db *store.DB, close func(), err error) {
	_, err = os.Stat(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, nil, fmt.Errorf("database %s: %w", path, err)
	}
	tmp := ""
	switch {
	case !missing:
	case use == dbExisting:
		return nil, nil, fmt.Errorf("no database at %s: give the file with -db (or %s), or run \"kubequiz serve\" once to create it", path, settingDB.env)
	case use == dbDryRun:
		if tmp, err = os.MkdirTemp("", "kubequiz-dry-run-"); err != nil {
			return nil, nil, fmt.Errorf("dry run: %w", err)
		}
		fmt.Fprintf(stderr, "kubequiz: no database at %s yet: the dry run is made against a new one\n", path)
		path = filepath.Join(tmp, "kubequiz.db")
	default:
		fmt.Fprintf(stderr, "kubequiz: no database at %s yet: creating it\n", path)
	}
	if db, err = store.Open(ctx, path); err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	close = func() {
		if err := db.Close(); err != nil {
			fmt.Fprintln(stderr, "kubequiz: close database:", err)
		}
		os.RemoveAll(tmp)
	}
	if missing || use == dbCreate {
		if err := loadBundledBank(ctx, db, newLogger("text", stderr)); err != nil {
			close()
			return nil, nil, err
		}
	}
	return db, close, nil
}
