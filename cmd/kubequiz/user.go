package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/term"

	"kubequiz/internal/quiz"
	"kubequiz/internal/web"
)

const userUsage = `usage:
  kubequiz user add [-admin] [-name DISPLAY_NAME] [-db PATH] LOGIN
  kubequiz user passwd [-db PATH] LOGIN

The password is never a flag. From a terminal it is asked twice without
echo; otherwise the first line of standard input is the password:
  printf '%s\n' "$PASSWORD" | kubequiz user add -admin admin`

// maxPasswordInput bounds what is read from standard input.
const maxPasswordInput = 4096

// userCmd manages accounts from the command line: "add" creates one (the
// first admin, typically), "passwd" sets a new password and ends the
// account's sessions.
func userCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		io.WriteString(stderr, userUsage+"\n")
		return usageError{"user: no subcommand given (add or passwd)"}
	}
	sub, rest := args[0], args[1:]
	if sub != "add" && sub != "passwd" {
		io.WriteString(stderr, userUsage+"\n")
		return usageError{fmt.Sprintf("user: unknown subcommand %q", sub)}
	}
	var dbPath, name, password string
	var admin bool
	fs := newFlagSet("user "+sub, stderr)
	fs.Usage = func() { // -h: how the password is given, then the flags
		io.WriteString(stderr, userUsage+"\n\nflags of user "+sub+":\n")
		fs.PrintDefaults()
	}
	stringVar(fs, &dbPath, settingDB, getenv)
	if sub == "add" {
		fs.BoolVar(&admin, "admin", false, "give the account the admin role")
		fs.StringVar(&name, "name", "", "display name")
	}
	login, err := parseWithLogin(fs, rest)
	if err != nil {
		return err
	}

	// An account may be added before the server first starts; a password
	// is set only on one that is there, and asked for once it is found.
	use := dbCreate
	if sub == "passwd" {
		use = dbExisting
	} else if password, err = readPassword(stdin, stderr); err != nil {
		return fmt.Errorf("user %s: %w", sub, err)
	}
	db, closeDB, err := openCommandDB(ctx, dbPath, use, stderr)
	if err != nil {
		return err
	}
	defer closeDB()
	srv, err := web.New(web.Config{}, db, newLogger("text", stderr))
	if err != nil {
		return err
	}
	if sub == "passwd" {
		if err := srv.AccountExists(ctx, login); err != nil {
			return fmt.Errorf("user passwd %s: %w", login, err)
		}
		if password, err = readPassword(stdin, stderr); err != nil {
			return fmt.Errorf("user %s: %w", sub, err)
		}
		if err := srv.ResetPassword(ctx, login, password); err != nil {
			return fmt.Errorf("user passwd %s: %w", login, err)
		}
		fmt.Fprintf(stdout, "password of %s changed; its sessions have ended\n", strings.ToLower(login))
		return nil
	}
	role := quiz.RoleMember
	if admin {
		role = quiz.RoleAdmin
	}
	u, err := srv.CreateUser(ctx, login, name, password, role)
	if err != nil {
		return fmt.Errorf("user add %s: %w", login, err)
	}
	fmt.Fprintf(stdout, "created %s %s\n", u.Role, u.Login)
	return nil
}

// parseWithLogin parses flags around exactly one LOGIN argument, so that
// both "add -admin bob" and "add bob -admin" work.
func parseWithLogin(fs *flag.FlagSet, args []string) (string, error) {
	rest, err := parseInterleaved(fs, args)
	switch {
	case err != nil:
		return "", err
	case len(rest) == 0:
		return "", usageError{fmt.Sprintf("%s: LOGIN missing", fs.Name())}
	case len(rest) > 1:
		return "", usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), rest[1])}
	}
	return rest[0], nil
}

// parseInterleaved parses flags given before, between or after the other
// arguments, which it returns in order. After "--" every argument is one
// of those.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := parseFlagsOnly(fs, args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil
		}
		if len(left) == 0 {
			return rest, nil
		}
		rest, args = append(rest, left[0]), left[1:]
	}
}

// parseFlagsOnly is parseFlags without the check for leftover arguments.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err.Error()}
	}
	return nil
}

// readPassword reads the new password: twice without echo from a terminal,
// else the first line of stdin (without its line ending; nothing else is
// trimmed, as the password is used exactly as typed).
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		p1, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		fmt.Fprint(stderr, "Password again: ")
		p2, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		if string(p1) != string(p2) {
			return "", errors.New("the passwords do not match")
		}
		return string(p1), nil
	}
	if stdin == nil {
		return "", errors.New("no password: give it on standard input")
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, maxPasswordInput)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", errors.New("no password: give it on standard input")
	}
	return line, nil
}

// announceSetup shows the one-time first-admin setup link while no admin
// account exists. serve calls it once it listens on addr. The link carries
// a secret, so it goes to standard output, for the operator, and the log
// only says that it was printed.
func announceSetup(ctx context.Context, srv *web.Server, addr string, stdout io.Writer, log *slog.Logger) error {
	base, _, err := localBase(addr)
	if err != nil {
		return fmt.Errorf("setup link: %w", err)
	}
	link, ok, err := srv.SetupLink(ctx, base)
	if err != nil || !ok {
		return err
	}
	fmt.Fprintf(stdout, "No admin account yet. Open this one-time link within 24 hours to create one\n"+
		"(use the server's public address if you reach it through a proxy):\n  %s\n"+
		"or run: kubequiz user add -admin LOGIN (bin/kubequiz after make run), with the same -db\n", link)
	log.Warn("no admin account yet; a one-time setup link was printed on standard output", "valid_for", "24h")
	return nil
}
