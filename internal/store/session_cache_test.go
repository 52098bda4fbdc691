package store

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"kubequiz/internal/quiz"
)

// TestSessionCacheFreshness checks that a cached session lookup never
// outlives a change made through the same DB, and outlives one made by
// another process on the same file by less than sessionCacheTTL.
func TestSessionCacheFreshness(t *testing.T) {
	ctx := context.Background()
	const idle = time.Hour
	now := time.Now()
	tests := []struct {
		name   string
		change func(db *DB, u quiz.User, hash []byte) error
		// gone: the session no longer loads; otherwise check reports what
		// a fresh lookup must show.
		gone  bool
		check func(u quiz.User) bool
	}{
		{"sign-out", func(db *DB, _ quiz.User, h []byte) error { return db.DeleteSession(ctx, h) }, true, nil},
		{"every session ended", func(db *DB, u quiz.User, _ []byte) error {
			_, err := db.DeleteUserSessions(ctx, u.ID)
			return err
		}, true, nil},
		{"password changed", func(db *DB, u quiz.User, _ []byte) error {
			return db.ChangePassword(ctx, u.ID, "$argon2id$new", now, nil)
		}, true, nil},
		{"account disabled", func(db *DB, u quiz.User, _ []byte) error { return db.SetDisabled(ctx, u.ID, true, now) }, true, nil},
		{"study limits", func(db *DB, u quiz.User, _ []byte) error { return db.SetStudyLimits(ctx, u.ID, 7, 70) }, false,
			func(u quiz.User) bool { return u.NewPerDay == 7 && u.ReviewsPerDay == 70 }},
		{"display name", func(db *DB, u quiz.User, _ []byte) error { return db.SetDisplayName(ctx, u.ID, "Alice A.") }, false,
			func(u quiz.User) bool { return u.DisplayName == "Alice A." }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubequiz.db")
			db := openAt(t, path)
			u := newTestUser(t, db, "alice", quiz.RoleMember)
			hash := bytes.Repeat([]byte{9}, 32)
			if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: hash, ExpiresAt: now.Add(24 * time.Hour)}, now, idle); err != nil {
				t.Fatal(err)
			}
			lookup := func(db *DB, at time.Time) (quiz.User, error) {
				got, _, err := db.SessionUser(ctx, hash, at, idle)
				if err != nil && !errors.Is(err, quiz.ErrNotFound) {
					t.Fatalf("SessionUser: %v", err)
				}
				return got, err
			}
			changed := func(got quiz.User, err error) bool {
				if tt.gone {
					return err != nil
				}
				return err == nil && tt.check(got)
			}

			// The same process: the change shows at once.
			if _, err := lookup(db, now); err != nil {
				t.Fatal("session does not load before the change")
			}
			if err := tt.change(db, u, hash); err != nil {
				t.Fatal(err)
			}
			if got, err := lookup(db, now); !changed(got, err) {
				t.Errorf("same process: right after the change the lookup gives %+v, %v", got, err)
			}

			// Another process (a second DB on the file, as kubequiz user
			// passwd is): within the cache's lifetime at most.
			other := openAt(t, path)
			u2 := newTestUser(t, other, "bob", quiz.RoleMember)
			hash2 := bytes.Repeat([]byte{8}, 32)
			if err := other.CreateSession(ctx, u2.ID, NewSession{TokenHash: hash2, ExpiresAt: now.Add(24 * time.Hour)}, now, idle); err != nil {
				t.Fatal(err)
			}
			hash = hash2
			if _, err := lookup(db, now); err != nil {
				t.Fatal("the other process's session does not load")
			}
			if err := tt.change(other, u2, hash2); err != nil {
				t.Fatal(err)
			}
			if got, err := lookup(db, now.Add(sessionCacheTTL)); !changed(got, err) {
				t.Errorf("other process: %v after the change the lookup gives %+v, %v", sessionCacheTTL, got, err)
			}
		})
	}
}

// TestSessionCacheExpiry checks that a cached session still ends on time.
func TestSessionCacheExpiry(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	u := newTestUser(t, db, "alice", quiz.RoleMember)
	now := time.Now()
	hash := bytes.Repeat([]byte{3}, 32)
	ends := now.Add(sessionCacheTTL / 2)
	if err := db.CreateSession(ctx, u.ID, NewSession{TokenHash: hash, ExpiresAt: ends}, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.SessionUser(ctx, hash, now, time.Hour); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		at   time.Time
		idle time.Duration
	}{
		{"absolute expiry", ends, time.Hour},
		{"idle timeout", now.Add(sessionCacheTTL / 4), sessionCacheTTL / 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := db.SessionUser(ctx, hash, tt.at, tt.idle); !errors.Is(err, quiz.ErrNotFound) {
				t.Errorf("SessionUser at %v (idle %v) = %v, want ErrNotFound", tt.at.Sub(now), tt.idle, err)
			}
		})
	}
}

// TestSessionCacheStaleLookup checks that a lookup begun before an
// invalidation does not store what it read.
func TestSessionCacheStaleLookup(t *testing.T) {
	var c sessionCache
	now := time.Now()
	hash := []byte("h")
	e := cachedSession{user: quiz.User{ID: 1}, session: Session{LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}, fetched: now}
	for _, stale := range []func(){c.invalidate, func() { c.forget([]byte("other")) }} {
		gen := c.generation()
		stale()
		c.put(gen, hash, e)
		if _, _, ok := c.get(hash, now, time.Hour); ok {
			t.Fatal("a lookup begun before an invalidation was stored")
		}
	}
	c.put(c.generation(), hash, e)
	if _, _, ok := c.get(hash, now, time.Hour); !ok {
		t.Fatal("a current lookup was not stored")
	}
	if _, _, ok := c.get(hash, now.Add(sessionCacheTTL), time.Hour); ok {
		t.Fatal("an entry older than sessionCacheTTL was used")
	}
}
