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
	"time"

	"golang.org/x/term"

	"kubequiz/internal/account"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
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
	log := newLogger("text", stderr)
	if sub == "passwd" {
		cred, err := credentials(ctx, db, login)
		if err != nil {
			return fmt.Errorf("user passwd %s: %w", login, err)
		}
		if password, err = readPassword(stdin, stderr); err != nil {
			return fmt.Errorf("user %s: %w", sub, err)
		}
		if err := resetPassword(ctx, db, account.NormalLogin(login), cred.User.DisplayName, password, time.Now(), log); err != nil {
			return fmt.Errorf("user passwd %s: %w", login, err)
		}
		fmt.Fprintf(stdout, "password of %s changed; its sessions have ended\n", strings.ToLower(login))
		return nil
	}
	role := quiz.RoleMember
	if admin {
		role = quiz.RoleAdmin
	}
	u, err := createUser(ctx, db, login, name, password, role, time.Now(), log)
	if err != nil {
		return fmt.Errorf("user add %s: %w", login, err)
	}
	fmt.Fprintf(stdout, "created %s %s\n", u.Role, u.Login)
	return nil
}

// createUser adds an account after the checks of registration (login
// name, display name, password policy), with a password hash at the
// server's costs.
func createUser(ctx context.Context, db *store.DB, login, displayName, password string, role quiz.Role, now time.Time, log *slog.Logger) (quiz.User, error) {
	login, displayName, err := account.CheckNew(login, displayName, password, password)
	if err != nil {
		return quiz.User{}, fmt.Errorf("%w: %w", err, quiz.ErrInvalid)
	}
	hash, err := account.DefaultHashParams().Hash(password)
	if err != nil {
		return quiz.User{}, err
	}
	u, err := db.CreateUser(ctx, store.NewUser{Login: login, DisplayName: displayName, PasswordHash: hash, Role: role}, now)
	if err != nil {
		return quiz.User{}, err
	}
	log.InfoContext(ctx, "user created", "user_id", u.ID, "login", u.Login, "role", string(u.Role), "by", "cli")
	return u, nil
}

// credentials reads the account with login (in any case); a missing one
// is an error that names it, wrapping quiz.ErrNotFound.
func credentials(ctx context.Context, db *store.DB, login string) (store.Credentials, error) {
	login = account.NormalLogin(login)
	c, err := db.Credentials(ctx, login)
	if errors.Is(err, quiz.ErrNotFound) {
		return c, fmt.Errorf("no account has the login %q: %w", login, quiz.ErrNotFound)
	}
	return c, err
}

// resetPassword gives the account with the normal login a new password
// (policy checked) and ends all its sessions: for a password that is lost.
func resetPassword(ctx context.Context, db *store.DB, login, displayName, password string, now time.Time, log *slog.Logger) error {
	if err := account.CheckPassword(password, login, displayName); err != nil {
		return fmt.Errorf("%w: %w", err, quiz.ErrInvalid)
	}
	hash, err := account.DefaultHashParams().Hash(password)
	if err != nil {
		return err
	}
	if err := db.ChangePasswordByLogin(ctx, login, hash, now); err != nil {
		return err
	}
	log.InfoContext(ctx, "password reset", "login", login, "by", "cli")
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
