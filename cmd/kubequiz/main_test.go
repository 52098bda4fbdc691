package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/store"
)

// env builds a getenv function from pairs.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in two goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeLifecycle runs the real program: it serves on a free port, answers
// /healthz and the home page, and on cancellation shuts down and closes the
// database, leaving no write-ahead log behind.
func TestServeLifecycle(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "data", "kubequiz.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0"}, env("KUBEQUIZ_DB", dbPath), nil, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the listen line: %v (stderr: %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "kubequiz is listening on "), "/")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("listen line %q", line)
	}

	for _, path := range []string{"/healthz", "/"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, resp.StatusCode)
		}
		if path == "/" && !strings.Contains(string(body), "<title>kubequiz</title>") {
			t.Errorf("home page does not render: %.200s", body)
		}
	}
	addr := strings.TrimPrefix(base, "http://")
	if err := run(context.Background(), []string{"healthcheck", "-addr", addr}, env(), nil, io.Discard, io.Discard); err != nil {
		t.Errorf("healthcheck against the running server: %v", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after cancellation")
	}
	if fi, err := os.Stat(dbPath + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("-wal file has %d bytes after shutdown, want it checkpointed", fi.Size())
	}
	for _, want := range []string{"msg=request", "path=/healthz", "status=200", "request_id=", "msg=stopped"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, stderr.String())
		}
	}
	if err := run(context.Background(), []string{"healthcheck", "-addr", addr}, env(), nil, io.Discard, io.Discard); err == nil {
		t.Error("healthcheck succeeded against a stopped server")
	}
}

func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()

	// A database written by a newer kubequiz.
	newer := filepath.Join(dir, "newer.db")
	db, err := store.Open(context.Background(), newer)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := bumpSchema(newer); err != nil {
		t.Fatal(err)
	}

	// A port that is taken.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	// A regular file where the database folder should be.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		args      []string
		env       func(string) string
		wantUsage bool
		wantMsg   string
	}{
		{"no command", nil, env(), true, "no command"},
		{"unknown command", []string{"frobnicate"}, env(), true, `unknown command "frobnicate"`},
		{"unknown flag", []string{"serve", "-nope"}, env(), true, "flag provided but not defined: -nope"},
		{"stray argument", []string{"serve", "extra"}, env(), true, `unexpected argument "extra"`},
		{"bad bool env", []string{"serve"}, env("KUBEQUIZ_SECURE_COOKIES", "maybe"), true, "KUBEQUIZ_SECURE_COOKIES"},
		{"bad log format", []string{"serve", "-log-format", "xml"}, env(), true, "log-format"},
		{"unwritable db path", []string{"serve", "-addr", "127.0.0.1:0", "-db", filepath.Join(file, "kubequiz.db")}, env(), false, "create database folder"},
		{"newer schema", []string{"serve", "-addr", "127.0.0.1:0", "-db", newer}, env(), false, "schema version"},
		{"port in use", []string{"serve", "-addr", ln.Addr().String(), "-db", filepath.Join(dir, "ok.db")}, env(), false, "address already in use"},
		{"address without a port", []string{"serve", "-addr", "localhost", "-db", filepath.Join(dir, "ok.db")}, env(), false, "missing port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := run(ctx, tt.args, tt.env, nil, io.Discard, io.Discard)
			if err == nil {
				t.Fatal("run succeeded, want an error")
			}
			var ue usageError
			if got := errors.As(err, &ue); got != tt.wantUsage {
				t.Errorf("usage error = %v, want %v (err %v)", got, tt.wantUsage, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
	// The server listens before it opens the database: an address it
	// cannot listen on creates nothing.
	if _, err := os.Stat(filepath.Join(dir, "ok.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a server that could not listen created its database: %v", err)
	}
}

func TestListenURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/",
		"0.0.0.0:8080":   "http://localhost:8080/ (all interfaces)",
		"[::]:8080":      "http://localhost:8080/ (all interfaces)",
		"[::1]:8080":     "http://[::1]:8080/",
	} {
		if got := listenURL(addr); got != want {
			t.Errorf("listenURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, env(), nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "kubequiz ") {
		t.Errorf("version printed %q", out.String())
	}
}
