package store

import (
	"context"
	"errors"
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

func TestLoginTaken(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	newTestUser(t, db, "alice", quiz.RoleMember)
	for login, want := range map[string]bool{"alice": true, "ALICE": true, "bob": false} {
		if got, err := db.LoginTaken(ctx, login); err != nil || got != want {
			t.Errorf("LoginTaken(%q) = %v, %v; want %v", login, got, err, want)
		}
	}
}
