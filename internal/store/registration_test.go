package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"kubequiz/internal/quiz"
)

func TestRegisterModes(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	nu := func(login string) NewUser { return NewUser{Login: login, PasswordHash: "h", Role: quiz.RoleAdmin} }

	if _, err := db.Register(ctx, nu("early"), nil, now); !errors.Is(err, ErrRegistrationClosed) {
		t.Fatalf("register before any admin: %v, want ErrRegistrationClosed", err)
	}
	newTestUser(t, db, "root", quiz.RoleAdmin)
	u, err := db.Register(ctx, nu("open1"), nil, now)
	if err != nil || u.Role != quiz.RoleMember {
		t.Fatalf("open registration: %+v, %v; want a member (role from input ignored)", u, err)
	}
	if err := db.SetRegistrationMode(ctx, RegistrationInvite); err != nil {
		t.Fatal(err)
	}
	if err := db.SetRegistrationMode(ctx, "everyone"); !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("unknown mode: %v, want ErrInvalid", err)
	}
	if m, _ := db.RegistrationMode(ctx); m != RegistrationInvite {
		t.Fatalf("mode = %q", m)
	}
	invite := bytes.Repeat([]byte{7}, 32)
	expired := bytes.Repeat([]byte{8}, 32)
	if err := db.CreateInvite(ctx, invite, 1, now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateInvite(ctx, expired, 1, now.Add(-2*time.Hour), now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.PendingInvites(ctx, now); n != 1 {
		t.Errorf("PendingInvites = %d, want 1", n)
	}
	tests := []struct {
		name    string
		login   string
		invite  []byte
		wantErr error
	}{
		{"no invite", "inv1", nil, ErrRegistrationClosed},
		{"unknown invite", "inv1", bytes.Repeat([]byte{9}, 32), ErrTokenInvalid},
		{"expired invite", "inv1", expired, ErrTokenInvalid},
		{"taken login keeps the invite", "open1", invite, ErrLoginTaken},
		{"valid invite", "inv1", invite, nil},
		{"used invite", "inv2", invite, ErrTokenInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.Register(ctx, nu(tt.login), tt.invite, now)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Register = %v, want %v", err, tt.wantErr)
			}
		})
	}
	if ok, _ := db.TokenValid(ctx, invite, TokenInvite, now); ok {
		t.Error("a used invite is still valid")
	}
}

func TestCreateFirstAdmin(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	old, tok := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	if err := db.CreateSetupToken(ctx, old, now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSetupToken(ctx, tok, now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	nu := func(login string) NewUser { return NewUser{Login: login, PasswordHash: "h"} }
	if _, err := db.CreateFirstAdmin(ctx, nu("a"), old, now); !errors.Is(err, ErrTokenInvalid) {
		t.Errorf("superseded setup token: %v, want ErrTokenInvalid", err)
	}
	if _, err := db.CreateFirstAdmin(ctx, nu("a"), tok, now.Add(2*time.Hour)); !errors.Is(err, ErrTokenInvalid) {
		t.Errorf("expired setup token: %v, want ErrTokenInvalid", err)
	}
	u, err := db.CreateFirstAdmin(ctx, nu("a"), tok, now)
	if err != nil || u.Role != quiz.RoleAdmin {
		t.Fatalf("CreateFirstAdmin = %+v, %v", u, err)
	}
	if _, err := db.CreateFirstAdmin(ctx, nu("b"), tok, now); !errors.Is(err, ErrAdminExists) {
		t.Errorf("second use: %v, want ErrAdminExists", err)
	}
	// Even a fresh token cannot make a second admin.
	fresh := bytes.Repeat([]byte{3}, 32)
	if err := db.CreateSetupToken(ctx, fresh, now, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateFirstAdmin(ctx, nu("b"), fresh, now); !errors.Is(err, ErrAdminExists) {
		t.Errorf("fresh token with an admin: %v, want ErrAdminExists", err)
	}
	if ok, _ := db.TokenValid(ctx, tok, TokenSetup, now); ok {
		t.Error("used setup token still valid")
	}
}
