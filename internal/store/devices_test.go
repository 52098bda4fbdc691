package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestKnownDeviceSparesAccountLimit(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	lim := testLoginLimits
	try := func(ip string, at time.Time) error { return db.ReserveLoginAttempt(ctx, "alice", ip, nil, at, lim) }

	// Alice signed in from her laptop and from an IPv6 /64 ten days ago.
	for _, ip := range []string{"192.0.2.9", "2001:db8:1:2::1"} {
		if err := db.LoginSucceeded(ctx, "Alice", ip, nil, nil, start.Add(-10*24*time.Hour), lim.KnownFor); err != nil {
			t.Fatal(err)
		}
	}
	// Failures from elsewhere fill the account's limit.
	fillAccountLimit(t, db, "alice", start)
	tests := []struct {
		name string
		ip   string
		at   time.Time
		want error
	}{
		{"unknown address", "198.51.100.99", start, ErrRateLimited},
		{"known address", "192.0.2.9", start, nil},
		{"same IPv6 /64", "2001:db8:1:2::99", start, nil},
		{"other IPv6 /64", "2001:db8:1:3::1", start, ErrRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := try(tt.ip, tt.at); !errors.Is(err, tt.want) && err != tt.want {
				t.Errorf("attempt from %s = %v, want %v", tt.ip, err, tt.want)
			}
		})
	}
	// The per-pair limit still holds for a known address.
	if err := try("192.0.2.9", start); err != nil {
		t.Fatalf("2nd attempt from the known address: %v", err)
	}
	if err := try("192.0.2.9", start); err != nil {
		t.Fatalf("3rd attempt from the known address: %v", err)
	}
	if err := try("192.0.2.9", start); !errors.Is(err, ErrRateLimited) {
		t.Errorf("4th attempt from the known address = %v, want ErrRateLimited", err)
	}

	// A device not seen for longer than KnownFor is no longer known; a
	// success clears the pair's failures and renews it.
	later := start.Add(100 * 24 * time.Hour)
	fillAccountLimit(t, db, "alice", later)
	if err := try("2001:db8:1:2::1", later); !errors.Is(err, ErrRateLimited) {
		t.Errorf("device last seen 110 days ago = %v, want ErrRateLimited", err)
	}
	if err := db.LoginSucceeded(ctx, "alice", "192.0.2.9", nil, nil, later, lim.KnownFor); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.LoginFailures(ctx, "alice", "192.0.2.9", later.Add(-time.Hour)); c.AccountIP != 0 {
		t.Errorf("failures of the pair after success = %d, want 0", c.AccountIP)
	}
	if n := countRows(t, db, `SELECT count(*) FROM login_devices`); n != 1 {
		t.Errorf("login_devices rows = %d, want 1 (the expired one dropped)", n)
	}
}

// TestKnownDeviceCookie: a browser whose device token signed in to an
// account is spared that account's limit from any address, not another
// account's, and not once KnownFor has passed.
func TestKnownDeviceCookie(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	lim := testLoginLimits
	phone, bobsPhone, other := []byte("phone-device-hash"), []byte("bob-device-hash"), []byte("other-device-hash")
	if err := db.LoginSucceeded(ctx, "alice", "192.0.2.9", nil, phone, start.Add(-10*24*time.Hour), lim.KnownFor); err != nil {
		t.Fatal(err)
	}
	if err := db.LoginSucceeded(ctx, "bob", "192.0.2.10", nil, bobsPhone, start.Add(-10*24*time.Hour), lim.KnownFor); err != nil {
		t.Fatal(err)
	}
	fillAccountLimit(t, db, "alice", start)
	tests := []struct {
		name   string
		ip     string
		device []byte
		at     time.Time
		want   error
	}{
		{"her phone from a new address", "203.0.113.7", phone, start, nil},
		{"no device token from a new address", "203.0.113.8", nil, start, ErrRateLimited},
		{"an unknown device token", "203.0.113.9", other, start, ErrRateLimited},
		{"another account's device", "203.0.113.10", bobsPhone, start, ErrRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.ReserveLoginAttempt(ctx, "alice", tt.ip, tt.device, tt.at, lim); !errors.Is(err, tt.want) && err != tt.want {
				t.Errorf("attempt = %v, want %v", err, tt.want)
			}
		})
	}
	// 100 days on, the phone is no longer known, and the next success
	// drops its row.
	later := start.Add(100 * 24 * time.Hour)
	fillAccountLimit(t, db, "alice", later)
	if err := db.ReserveLoginAttempt(ctx, "alice", "203.0.113.11", phone, later, lim); !errors.Is(err, ErrRateLimited) {
		t.Errorf("device last seen 110 days ago = %v, want ErrRateLimited", err)
	}
	if err := db.LoginSucceeded(ctx, "alice", "192.0.2.9", nil, other, later, lim.KnownFor); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM login_device_cookies`); n != 1 {
		t.Errorf("login_device_cookies rows = %d, want 1 (the expired ones dropped)", n)
	}
}

// TestKnownDeviceCookieLimits: a known browser has a failure limit of its
// own (it goes anywhere); a sign-in forgets the token the browser brought;
// a login keeps its newest device tokens only; a password change forgets
// its known devices, addresses and browsers.
func TestKnownDeviceCookieLimits(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	lim := testLoginLimits
	u, err := db.CreateUser(ctx, NewUser{Login: "carol", PasswordHash: "h"}, start)
	if err != nil {
		t.Fatal(err)
	}
	phone := []byte("carol-phone")
	if err := db.LoginSucceeded(ctx, "carol", "192.0.2.9", nil, phone, start.Add(-time.Hour), lim.KnownFor); err != nil {
		t.Fatal(err)
	}
	fillAccountLimit(t, db, "carol", start)
	// The phone's token, from a new address each time: PerAccountIP tries.
	for i := range lim.PerAccountIP + 1 {
		err := db.ReserveLoginAttempt(ctx, "carol", fmt.Sprintf("203.0.113.%d", i+1), phone, start, lim)
		if want := i >= lim.PerAccountIP; errors.Is(err, ErrRateLimited) != want {
			t.Fatalf("try %d with the known token = %v, want refused %v", i+1, err, want)
		}
	}
	// Its own address is still known, whatever the token did.
	if err := db.ReserveLoginAttempt(ctx, "carol", "192.0.2.9", phone, start, lim); err != nil {
		t.Errorf("from the known address = %v", err)
	}

	// A sign-in with the phone's token swaps it for a new one.
	later := start.Add(time.Hour)
	phone2 := []byte("carol-phone-2")
	if err := db.LoginSucceeded(ctx, "carol", "192.0.2.9", phone, phone2, later, lim.KnownFor); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT count(*) FROM login_device_cookies WHERE token_hash = ?`, phone); n != 0 {
		t.Errorf("the token the browser brought is still known (%d rows)", n)
	}
	if n := countRows(t, db, `SELECT count(*) FROM login_device_cookies WHERE token_hash = ?`, phone2); n != 1 {
		t.Errorf("the new token is known in %d rows, want 1", n)
	}
	// Many sign-ins keep the newest maxDeviceCookies tokens.
	for i := range maxDeviceCookies + 5 {
		if err := db.LoginSucceeded(ctx, "carol", "192.0.2.9", nil, []byte(fmt.Sprintf("t%02d", i)), later.Add(time.Duration(i)*time.Second), lim.KnownFor); err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM login_device_cookies WHERE login = 'carol'`); n != maxDeviceCookies {
		t.Errorf("device tokens kept = %d, want %d", n, maxDeviceCookies)
	}
	if n := countRows(t, db, `SELECT count(*) FROM login_device_cookies WHERE token_hash = ?`, []byte(fmt.Sprintf("t%02d", maxDeviceCookies+4))); n != 1 {
		t.Error("the newest token was not kept")
	}

	// A password change forgets them all.
	if err := db.ChangePassword(ctx, u.ID, "h2", later.Add(time.Minute), nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`SELECT count(*) FROM login_devices WHERE login = 'carol'`, `SELECT count(*) FROM login_device_cookies WHERE login = 'carol'`} {
		if n := countRows(t, db, q); n != 0 {
			t.Errorf("%s = %d after a password change, want 0", q, n)
		}
	}
}
