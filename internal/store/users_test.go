package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/quiz"
)

func TestCreateUser(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	u, err := db.CreateUser(ctx, NewUser{Login: "alice", DisplayName: "アリス", PasswordHash: "h1"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if u.ID == 0 || u.Login != "alice" || u.Role != quiz.RoleMember || u.Timezone == "" || !u.CreatedAt.Equal(now) {
		t.Errorf("created %+v", u)
	}
	if _, err := db.CreateUser(ctx, NewUser{Login: "ALICE", PasswordHash: "h2"}, now); !errors.Is(err, ErrLoginTaken) || !errors.Is(err, quiz.ErrConflict) {
		t.Errorf("duplicate login (other case): %v, want ErrLoginTaken", err)
	}
	c, err := db.Credentials(ctx, "Alice")
	if err != nil || c.PasswordHash != "h1" || c.Disabled || c.User.ID != u.ID {
		t.Errorf("Credentials = %+v, %v", c, err)
	}
	if _, err := db.Credentials(ctx, "nobody"); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("Credentials(nobody) = %v, want ErrNotFound", err)
	}
	if got, err := db.UserByID(ctx, u.ID); err != nil || got != u {
		t.Errorf("UserByID = %+v, %v; want %+v", got, err, u)
	}
	if err := db.SetDisplayName(ctx, u.ID, "Alice L."); err != nil {
		t.Fatal(err)
	}
	if err := db.RehashPassword(ctx, u.ID, "h3"); err != nil {
		t.Fatal(err)
	}
	if err := db.ChangePasswordByLogin(ctx, "ALICE", "h4", now); err != nil {
		t.Fatal(err)
	}
	if err := db.ChangePasswordByLogin(ctx, "nobody", "h4", now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("ChangePasswordByLogin(nobody) = %v, want ErrNotFound", err)
	}
	c, _ = db.Credentials(ctx, "alice")
	if c.User.DisplayName != "Alice L." || c.PasswordHash != "h4" {
		t.Errorf("after updates: %+v", c)
	}
	has, err := db.HasAdmin(ctx)
	if err != nil || has {
		t.Errorf("HasAdmin = %v, %v; want false", has, err)
	}
}

func TestSetStudyLimits(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	u, err := db.CreateUser(ctx, NewUser{Login: "alice", PasswordHash: "h"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetStudyLimits(ctx, u.ID, 1000, 5000); err != nil {
		t.Fatal(err)
	}
	got, err := db.UserByID(ctx, u.ID)
	if err != nil || got.NewPerDay != 1000 || got.ReviewsPerDay != 5000 {
		t.Errorf("after SetStudyLimits: %d new, %d reviews (%v); want 1000, 5000", got.NewPerDay, got.ReviewsPerDay, err)
	}
	tests := []struct {
		name           string
		id             int64
		newDay, review int
		want           error
	}{
		{"negative new", u.ID, -1, 10, quiz.ErrInvalid},
		{"negative reviews", u.ID, 10, -1, quiz.ErrInvalid},
		{"unknown user", u.ID + 1, 10, 10, quiz.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.SetStudyLimits(ctx, tt.id, tt.newDay, tt.review); !errors.Is(err, tt.want) {
				t.Errorf("SetStudyLimits = %v, want %v", err, tt.want)
			}
		})
	}
}

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

func TestLoginAttemptLimits(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	lim := LoginLimits{Window: 15 * time.Minute, PerAccountIP: 3, PerIP: 5, PerAccount: 4}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	try := func(login, ip string, at time.Time) error {
		return db.ReserveLoginAttempt(ctx, login, ip, nil, at, lim)
	}

	for i := range 3 {
		if err := try("Alice", "192.0.2.1", t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	if err := try("alice", "192.0.2.1", t0.Add(3*time.Minute)); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("4th attempt from one address: %v, want ErrRateLimited", err)
	}
	// Another address may still try the account, up to the account limit.
	if err := try("alice", "192.0.2.2", t0.Add(4*time.Minute)); err != nil {
		t.Fatalf("other address: %v", err)
	}
	if err := try("alice", "192.0.2.3", t0.Add(4*time.Minute)); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("5th attempt on the account: %v, want ErrRateLimited", err)
	}
	c, err := db.LoginFailures(ctx, "ALICE", "192.0.2.1", t0.Add(-time.Minute))
	if err != nil || c != (LoginFailureCounts{AccountIP: 3, IP: 3, Account: 4}) {
		t.Fatalf("counts = %+v, %v", c, err)
	}
	// The window slides: once the first failure is 15 minutes old, one more.
	if err := try("alice", "192.0.2.1", t0.Add(15*time.Minute)); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	// Success clears the pair only.
	if err := db.ClearLoginFailures(ctx, "alice", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	c, _ = db.LoginFailures(ctx, "alice", "192.0.2.1", t0)
	if c.AccountIP != 0 || c.Account != 1 {
		t.Errorf("after clearing: %+v, want the other address's failure kept", c)
	}

	// IPv6: a whole /64 counts as one address.
	for i := range 5 {
		ip := fmt.Sprintf("2001:db8:1:2::%x", i+1)
		if err := try(fmt.Sprintf("user%d", i), ip, t0.Add(20*time.Minute)); err != nil {
			t.Fatalf("v6 attempt %d: %v", i+1, err)
		}
	}
	if err := try("user9", "2001:db8:1:2:ffff::1", t0.Add(20*time.Minute)); !errors.Is(err, ErrRateLimited) {
		t.Errorf("6th attempt from one /64: %v, want ErrRateLimited", err)
	}
	if err := try("user9", "2001:db8:1:3::1", t0.Add(20*time.Minute)); err != nil {
		t.Errorf("another /64: %v", err)
	}
}

func TestLoginAttemptsParallel(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	lim := LoginLimits{Window: time.Hour, PerAccountIP: 5, PerIP: 100, PerAccount: 100}
	now := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := db.ReserveLoginAttempt(ctx, "alice", "192.0.2.1", nil, now, lim); err == nil {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed != 5 {
		t.Errorf("%d parallel attempts got through, want exactly 5", allowed)
	}
}

func TestRateKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"not an ip", "not an ip"},
	}
	for _, tt := range tests {
		if got := RateKey(tt.in); got != tt.want {
			t.Errorf("RateKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestListUsers(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	newTestUser(t, db, "zed", quiz.RoleMember)
	a := newTestUser(t, db, "amy", quiz.RoleAdmin)
	if err := db.CreateSession(ctx, a.ID, NewSession{TokenHash: []byte("s1"), ExpiresAt: now.Add(time.Hour)}, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSession(ctx, a.ID, NewSession{TokenHash: []byte("s2"), ExpiresAt: now.Add(-time.Minute)}, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	users, err := db.ListUsers(ctx, now, time.Hour)
	if err != nil || len(users) != 2 {
		t.Fatalf("ListUsers = %+v, %v", users, err)
	}
	if users[0].User.Login != "amy" || users[0].Sessions != 1 || users[1].User.Login != "zed" || users[1].Sessions != 0 {
		t.Errorf("ListUsers = %+v", users)
	}
	if has, _ := db.HasAdmin(ctx); !has {
		t.Error("HasAdmin = false")
	}
}
