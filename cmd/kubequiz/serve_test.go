package main

import (
	"bytes"
	"context"
	"log/slog"
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
