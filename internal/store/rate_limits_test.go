package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// testLoginLimits are small limits for the sign-in limit tests.
var testLoginLimits = LoginLimits{Window: 15 * time.Minute, PerAccountIP: 3, PerIP: 100, PerAccount: 4, KnownFor: 90 * 24 * time.Hour}

// fillAccountLimit records testLoginLimits.PerAccount failures of login at
// at, each from an address of its own, so that the account is at its limit.
func fillAccountLimit(t *testing.T, db *DB, login string, at time.Time) {
	t.Helper()
	for i := range testLoginLimits.PerAccount {
		if err := db.ReserveLoginAttempt(context.Background(), login, fmt.Sprintf("198.51.100.%d", i+1), nil, at, testLoginLimits); err != nil {
			t.Fatalf("failure %d: %v", i+1, err)
		}
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

func TestReserveAction(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	try := func(ip string, at time.Time) error {
		return db.ReserveAction(ctx, ActionRegister, ip, at, time.Hour, 2)
	}
	for i := range 2 {
		if err := try("192.0.2.1", start.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	if err := try("192.0.2.1", start.Add(2*time.Minute)); !errors.Is(err, ErrRateLimited) {
		t.Errorf("3rd attempt = %v, want ErrRateLimited", err)
	}
	if err := try("192.0.2.2", start.Add(2*time.Minute)); err != nil {
		t.Errorf("another address: %v", err)
	}
	if err := try("192.0.2.1", start.Add(time.Hour)); err != nil {
		t.Errorf("after the first left the window: %v", err)
	}
	// Refused attempts are not counted, and old ones are dropped.
	if n := countRows(t, db, `SELECT count(*) FROM rate_events`); n != 3 {
		t.Errorf("rate_events rows = %d, want 3", n)
	}
}
