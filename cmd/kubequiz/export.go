package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"kubequiz/internal/export"
	"kubequiz/internal/quiz"
)

const exportUsage = `usage: kubequiz export reviews|cards -user LOGIN [-bom] [-o FILE] [-db FILE]

Writes a learner's own data as CSV: "reviews" one row per review,
"cards" one row per card (a question the learner has graded).
The table goes to standard output, or with -o to FILE, which it replaces.`

// exportCmd is `kubequiz export reviews|cards -user LOGIN [-bom] [-o FILE]`.
func exportCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", stderr)
	var dbPath string
	stringVar(fs, &dbPath, settingDB, getenv)
	login := fs.String("user", "", "login of the learner whose data is written (required)")
	bom := fs.Bool("bom", false, "start with a UTF-8 byte order mark, so that Excel reads the Japanese text")
	out := fs.String("o", "", "write to FILE (replacing it) instead of standard output")
	fs.Usage = func() {
		fmt.Fprintln(stderr, exportUsage+"\n\nflags:")
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) == 0:
		fs.Usage()
		return usageError{"export: say what to export: reviews or cards"}
	case len(rest) > 1:
		return usageError{fmt.Sprintf("export: unexpected argument %q", rest[1])}
	case rest[0] != "reviews" && rest[0] != "cards":
		fs.Usage()
		return usageError{fmt.Sprintf("export: unknown table %q: want reviews or cards", rest[0])}
	case *login == "":
		return usageError{"export: -user LOGIN missing"}
	}
	table := rest[0]

	db, closeDB, err := openCommandDB(ctx, dbPath, dbExisting, stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	c, err := db.Credentials(ctx, *login)
	if errors.Is(err, quiz.ErrNotFound) {
		return fmt.Errorf("export %s: no account with the login %q", table, *login)
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", table, err)
	}
	opt := export.Options{BOM: *bom}
	write := func(w io.Writer) (int, error) {
		if table == "cards" {
			return export.WriteCards(w, db.ExportCards(ctx, c.User.ID, time.Now()), opt)
		}
		return export.WriteReviews(w, db.ExportReviews(ctx, c.User.ID), opt)
	}
	if *out == "" {
		_, err := write(stdout)
		return err
	}
	n, err := writeReplacing(*out, write)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d %s of %s to %s\n", n, table, c.User.Login, *out)
	return nil
}

// writeReplacing writes a file through write: into a temporary file beside
// it, renamed to path once complete, so that path is never left half
// written and an existing file is replaced whole or not at all. The file
// is readable by its owner only, as it holds a learner's answers.
func writeReplacing(path string, write func(io.Writer) (int, error)) (n int, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close() // the error that ended the write is the one to report
			os.Remove(f.Name())
		}
	}()
	if n, err = write(f); err != nil {
		return n, err
	}
	if err = f.Sync(); err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, nil
}
