package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/internal/web"
)

func TestAnnounceSetup(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "kubequiz.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	srv, err := web.New(web.Config{}, db, log)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := announceSetup(ctx, srv, "0.0.0.0:8080", &out, log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "http://localhost:8080/setup?token=") {
		t.Errorf("stdout %q lacks the setup link", out.String())
	}
	if strings.Contains(logs.String(), "token=") || !strings.Contains(logs.String(), "setup link") {
		t.Errorf("log should mention the link but not carry the token: %s", logs.String())
	}
	if _, err := createUser(ctx, db, "admin", "", "first admin passphrase", quiz.RoleAdmin, time.Now(), log); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := announceSetup(ctx, srv, "127.0.0.1:8080", &out, log); err != nil || out.Len() != 0 {
		t.Errorf("with an admin: %v, printed %q; want nothing", err, out.String())
	}
}

// TestServeMetrics runs the real program with a metrics address: the
// metrics are served there, at /metrics only, and not on the public
// address.
func TestServeMetrics(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "kubequiz.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0"}, env("KUBEQUIZ_DB", dbPath, "KUBEQUIZ_METRICS_ADDR", "127.0.0.1:0"), nil, pw, io.Discard)
		pw.Close()
	}()
	out := bufio.NewReader(pr)
	var lines [2]string
	for i := range lines {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading line %d of the output: %v", i+1, err)
		}
		lines[i] = strings.TrimSpace(line)
	}
	go io.Copy(io.Discard, pr)
	public := strings.TrimSuffix(strings.TrimPrefix(lines[0], "kubequiz is listening on "), "/")
	scrape, ok := strings.CutPrefix(lines[1], "metrics are served on ")
	if !ok || !strings.HasPrefix(scrape, "http://127.0.0.1:") || !strings.HasSuffix(scrape, "/metrics") {
		t.Fatalf("output %q, want the metrics address on its second line", lines)
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s lacks the security headers", url)
		}
		return resp.StatusCode, string(b)
	}
	get(public + "/healthz")
	code, body := get(scrape)
	for _, want := range []string{`kubequiz_http_requests_total{method="GET",route="/healthz",status="200"} 1`, "kubequiz_sessions_active 0",
		"kubequiz_review_batch_size_count 0", "go_goroutines", "process_cpu_seconds_total"} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("scrape = %d, lacks %q", code, want)
		}
	}
	if code, _ := get(public + "/metrics"); code != http.StatusNotFound {
		t.Errorf("GET /metrics of the public address = %d, want 404", code)
	}
	if code, _ := get(strings.TrimSuffix(scrape, "/metrics") + "/"); code != http.StatusNotFound {
		t.Errorf("GET / of the metrics address = %d, want 404", code)
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
}
