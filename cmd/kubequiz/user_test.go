package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/internal/web"
)

// webLogin signs in through the real router and reports the status.
func webLogin(t *testing.T, dbPath, login, password string) int {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := web.New(web.Config{}, db, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/login", nil))
	var csrf *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == "kq_csrf" {
			csrf = c
		}
	}
	if csrf == nil {
		t.Fatal("GET /login set no CSRF cookie")
	}
	form := url.Values{"login": {login}, "password": {password}, "_csrf": {csrf.Value}}
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(csrf)
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec.Code
}

func TestUserAdd(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "kubequiz.db")
	getenv := env("KUBEQUIZ_DB", dbPath)
	ctx := context.Background()
	const pw = "first admin passphrase"

	tests := []struct {
		name      string
		args      []string
		stdin     io.Reader
		wantErr   string
		wantUsage bool
		wantOut   string
	}{
		{"password flag is refused", []string{"user", "add", "-admin", "-password", pw, "alice"}, strings.NewReader(pw + "\n"), "flag provided but not defined: -password", true, ""},
		{"no login", []string{"user", "add", "-admin"}, strings.NewReader(pw + "\n"), "LOGIN missing", true, ""},
		{"two logins", []string{"user", "add", "alice", "bob"}, strings.NewReader(pw + "\n"), `unexpected argument "bob"`, true, ""},
		{"unknown subcommand", []string{"user", "remove", "alice"}, nil, "unknown subcommand", true, ""},
		{"no stdin", []string{"user", "add", "-admin", "alice"}, nil, "no password", false, ""},
		{"empty line", []string{"user", "add", "-admin", "alice"}, strings.NewReader("\n"), "no password", false, ""},
		{"weak password", []string{"user", "add", "-admin", "alice"}, strings.NewReader("password123\n"), "よく使われる", false, ""},
		{"admin", []string{"user", "add", "--admin", "-name", "Alice", "alice"}, strings.NewReader(pw + "\r\n"), "", false, "created admin alice"},
		{"duplicate", []string{"user", "add", "ALICE"}, strings.NewReader(pw + "\n"), "already taken", false, ""},
		{"flag after login", []string{"user", "add", "bob", "-name", "Bob"}, strings.NewReader("bob's passphrase  \nignored\n"), "", false, "created member bob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(ctx, tt.args, getenv, tt.stdin, &out, &errOut)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("run: %v (stderr %s)", err, errOut.String())
				}
				if !strings.Contains(out.String(), tt.wantOut) {
					t.Errorf("stdout %q lacks %q", out.String(), tt.wantOut)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("run = %v, want an error with %q", err, tt.wantErr)
			}
			var ue usageError
			if errors.As(err, &ue) != tt.wantUsage {
				t.Errorf("usage error = %v, want %v", errors.As(err, &ue), tt.wantUsage)
			}
			if strings.Contains(err.Error(), pw) || strings.Contains(errOut.String(), pw) {
				t.Error("the password was printed")
			}
		})
	}

	// -h tells how the password is given, beside the flags.
	for _, sub := range []string{"add", "passwd"} {
		var errOut bytes.Buffer
		err := run(ctx, []string{"user", sub, "-h"}, getenv, nil, io.Discard, &errOut)
		if err == nil || !strings.Contains(errOut.String(), "standard input") || !strings.Contains(errOut.String(), "-db") {
			t.Errorf("user %s -h = %v, stderr %q: want the password's usage and the flags", sub, err, errOut.String())
		}
	}

	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Credentials(ctx, "alice")
	db.Close()
	if err != nil || c.User.Role != quiz.RoleAdmin || c.User.DisplayName != "Alice" || !strings.HasPrefix(c.PasswordHash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("alice = %+v, %v", c, err)
	}
	if code := webLogin(t, dbPath, "alice", pw); code != http.StatusSeeOther {
		t.Errorf("login as the new admin = %d, want 303", code)
	}
	// The line ending is not part of the password; trailing spaces are.
	if code := webLogin(t, dbPath, "bob", "bob's passphrase  "); code != http.StatusSeeOther {
		t.Errorf("login as bob = %d, want 303", code)
	}
	if code := webLogin(t, dbPath, "bob", "bob's passphrase"); code == http.StatusSeeOther {
		t.Error("bob's password was trimmed")
	}

	// passwd sets a new password.
	const pw2 = "second admin passphrase"
	if err := run(ctx, []string{"user", "passwd", "alice"}, getenv, strings.NewReader(pw2+"\n"), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if code := webLogin(t, dbPath, "alice", pw); code == http.StatusSeeOther {
		t.Error("old password still works after user passwd")
	}
	if code := webLogin(t, dbPath, "alice", pw2); code != http.StatusSeeOther {
		t.Errorf("new password login = %d, want 303", code)
	}
	// An unknown login is said to be one before any password is asked
	// for: a short one here would otherwise be refused first.
	for _, typed := range []string{pw2, "short"} {
		err := run(ctx, []string{"user", "passwd", "Nobody"}, getenv, strings.NewReader(typed+"\n"), io.Discard, io.Discard)
		if !errors.Is(err, quiz.ErrNotFound) || !strings.Contains(err.Error(), `no account has the login "nobody"`) || strings.Contains(err.Error(), "store:") {
			t.Errorf("passwd of an unknown login, typing %q = %v, want an error naming the login", typed, err)
		}
	}
}
