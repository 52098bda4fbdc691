package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"kubequiz/internal/quiz"
)

func newTestUser(t *testing.T, db *DB, login string, role quiz.Role) quiz.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), NewUser{Login: login, PasswordHash: "$argon2id$test", Role: role}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSessionLifetimes(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	u := newTestUser(t, db, "alice", quiz.RoleMember)
	const idle = 7 * 24 * time.Hour
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	hash := bytes.Repeat([]byte{1}, 32)
	if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: hash, ExpiresAt: start.Add(30 * 24 * time.Hour)}, start, idle); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		at    time.Time
		touch bool // use the session at this time
		valid bool
	}{
		{"fresh", start.Add(time.Minute), false, true},
		{"just before idle timeout", start.Add(idle - time.Second), true, true},
		{"idle timeout slid by use", start.Add(idle + time.Hour), true, true},
		{"idle since the last use", start.Add(29 * 24 * time.Hour), false, false}, // last used on day 7
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, s, err := db.SessionUser(ctx, hash, tt.at, idle)
			if valid := err == nil; valid != tt.valid {
				t.Fatalf("SessionUser at %v: err %v, want valid %v", tt.at, err, tt.valid)
			}
			if err != nil && !errors.Is(err, quiz.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if tt.valid && (got.ID != u.ID || got.Login != "alice" || !s.CreatedAt.Equal(start)) {
				t.Errorf("SessionUser = %+v %+v", got, s)
			}
			if tt.touch {
				if err := db.TouchSession(ctx, hash, tt.at); err != nil {
					t.Fatal(err)
				}
			}
		})
	}

	// Absolute timeout: used every day, it still ends after 30 days.
	hash2 := bytes.Repeat([]byte{2}, 32)
	if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: hash2, ExpiresAt: start.Add(30 * 24 * time.Hour)}, start, idle); err != nil {
		t.Fatal(err)
	}
	for day := 1; day <= 31; day++ {
		at := start.Add(time.Duration(day) * 24 * time.Hour)
		_, _, err := db.SessionUser(ctx, hash2, at, idle)
		if want := day < 30; (err == nil) != want {
			t.Fatalf("day %d: err %v, want valid %v", day, err, want)
		}
		if err := db.TouchSession(ctx, hash2, at); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSessionRevocation(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	const idle = time.Hour
	alice := newTestUser(t, db, "alice", quiz.RoleMember)
	bob := newTestUser(t, db, "bob", quiz.RoleMember)
	mk := func(u quiz.User, b byte) []byte {
		h := bytes.Repeat([]byte{b}, 32)
		if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: h, ExpiresAt: now.Add(24 * time.Hour)}, now, idle); err != nil {
			t.Fatal(err)
		}
		return h
	}
	valid := func(h []byte) bool {
		_, _, err := db.SessionUser(ctx, h, now, idle)
		return err == nil
	}
	a1, a2, b1 := mk(alice, 1), mk(alice, 2), mk(bob, 3)

	if err := db.DeleteSession(ctx, a1); err != nil {
		t.Fatal(err)
	}
	if valid(a1) || !valid(a2) || !valid(b1) {
		t.Fatal("DeleteSession ended the wrong sessions")
	}
	// A password change ends every session of the user, then adds the new one.
	a3 := bytes.Repeat([]byte{4}, 32)
	if err := db.ChangePassword(ctx, alice.ID, "$argon2id$new", now, &NewSession{TokenHash: a3, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if valid(a2) || !valid(a3) || !valid(b1) {
		t.Fatal("ChangePassword: old sessions kept, new one missing, or another user's ended")
	}
	if h, _ := db.PasswordHash(ctx, alice.ID); h != "$argon2id$new" {
		t.Errorf("hash after change = %q", h)
	}
	// Disabling ends sessions, and a disabled user's session never loads.
	if err := db.SetDisabled(ctx, alice.ID, true, now); err != nil {
		t.Fatal(err)
	}
	if valid(a3) {
		t.Error("session of a disabled user still valid")
	}
	a4 := mk(alice, 5) // even one created later
	if valid(a4) {
		t.Error("new session of a disabled user is valid")
	}
	if err := db.SetDisabled(ctx, alice.ID, false, now); err != nil {
		t.Fatal(err)
	}
	if !valid(a4) {
		t.Error("enabling did not make the session usable")
	}
	n, err := db.DeleteUserSessions(ctx, bob.ID)
	if err != nil || n != 1 || valid(b1) {
		t.Errorf("DeleteUserSessions = %d, %v; bob valid %v", n, err, valid(b1))
	}
	if err := db.SetDisabled(ctx, 999, true, now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("disable unknown user: %v, want ErrNotFound", err)
	}
}

func TestPurgeSessions(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	u := newTestUser(t, db, "alice", quiz.RoleMember)
	now := time.Now()
	for i, exp := range []time.Duration{time.Hour, 2 * time.Hour, -time.Hour} { // the expired one last: CreateSession drops the user's expired ones
		h := bytes.Repeat([]byte{byte(i + 1)}, 32)
		if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: h, ExpiresAt: now.Add(exp)}, now, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.PurgeSessions(ctx, now, time.Hour)
	if err != nil || n != 1 {
		t.Errorf("PurgeSessions = %d, %v; want 1", n, err)
	}
}

// TestLiveSessions counts the sessions SessionUser would find: not those
// past their expiry, idle too long, or of a disabled account.
func TestLiveSessions(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	alice := newTestUser(t, db, "alice", quiz.RoleMember)
	bob := newTestUser(t, db, "bob", quiz.RoleMember)
	const idle = time.Hour
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	sessions := []struct {
		user    quiz.User
		created time.Time
		expires time.Time
	}{
		{alice, now.Add(-time.Minute), now.Add(time.Hour)},    // live
		{alice, now.Add(-time.Minute), now.Add(time.Hour)},    // live
		{alice, now.Add(-2 * idle), now.Add(time.Hour)},       // idle too long
		{bob, now.Add(-time.Minute), now.Add(time.Hour)},      // live, until bob is disabled
		{alice, now.Add(-time.Minute), now.Add(-time.Second)}, // expired
	}
	for i, s := range sessions {
		h := bytes.Repeat([]byte{byte(i + 1)}, 32)
		if _, err := db.write.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			h, s.user.ID, ms(s.created), ms(s.created), ms(s.expires)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.LiveSessions(ctx, now, idle); n != 3 || err != nil {
		t.Errorf("LiveSessions = %d, %v; want 3", n, err)
	}
	if _, err := db.write.ExecContext(ctx, `UPDATE users SET disabled_at = ? WHERE id = ?`, ms(now), bob.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := db.LiveSessions(ctx, now, idle); n != 2 || err != nil {
		t.Errorf("LiveSessions with bob disabled = %d, %v; want 2", n, err)
	}
}

// TestSessionCap signs one account in far more often than it may keep
// sessions: it keeps MaxSessionsPerUser, the ones used most recently, and
// another account's sessions are untouched.
func TestSessionCap(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	alice := newTestUser(t, db, "alice", quiz.RoleMember)
	bob := newTestUser(t, db, "bob", quiz.RoleMember)
	const idle = 7 * 24 * time.Hour
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	token := func(user byte, i int) []byte {
		h := bytes.Repeat([]byte{user}, 32)
		h[30], h[31] = byte(i>>8), byte(i)
		return h
	}
	create := func(u quiz.User, h []byte, at time.Time) {
		t.Helper()
		if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: h, ExpiresAt: at.Add(30 * 24 * time.Hour)}, at, idle); err != nil {
			t.Fatal(err)
		}
	}
	create(bob, token(2, 0), start)
	// Alice's first session is the one she keeps using (her phone).
	phone := token(1, 0)
	create(alice, phone, start)
	const signIns = 3 * MaxSessionsPerUser
	for i := 1; i <= signIns; i++ {
		at := start.Add(time.Duration(i) * time.Minute)
		if i%10 == 0 {
			if err := db.TouchSession(ctx, phone, at); err != nil {
				t.Fatal(err)
			}
		}
		create(alice, token(1, i), at.Add(time.Second))
	}
	now := start.Add((signIns + 1) * time.Minute)
	if n := countRows(t, db, `SELECT count(*) FROM sessions WHERE user_id = ?`, alice.ID); n != MaxSessionsPerUser {
		t.Errorf("alice has %d sessions; want %d", n, MaxSessionsPerUser)
	}
	tests := []struct {
		name  string
		hash  []byte
		valid bool
	}{
		{"the newest", token(1, signIns), true},
		{"the oldest kept", token(1, signIns-MaxSessionsPerUser+2), true},
		{"one too old", token(1, signIns-MaxSessionsPerUser), false},
		{"the first sign-ins", token(1, 1), false},
		{"the session in use", phone, true},
		{"another account's", token(2, 0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := db.SessionUser(ctx, tt.hash, now, idle)
			if (err == nil) != tt.valid {
				t.Errorf("SessionUser: %v; want valid %v", err, tt.valid)
			}
		})
	}
}
