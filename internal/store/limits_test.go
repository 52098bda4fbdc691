package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
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

func TestImportUploadOnce(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	admin := newTestUser(t, db, "admin", quiz.RoleAdmin)
	other := newTestUser(t, db, "other", quiz.RoleAdmin)
	src := deckYAML("deck-a", 3, nil)
	id, err := db.SaveUpload(ctx, admin.ID, "yaml", []UploadedFile{{Name: "a.yaml", Data: []byte(src)}}, now)
	if err != nil {
		t.Fatal(err)
	}
	files := []bank.Decoded{decodeFile(t, "a.yaml", src)}
	opt := ImportOptions{Actor: "admin", Now: now}
	if _, err := db.ImportUpload(ctx, id, other.ID, files, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("another admin's upload = %v, want ErrNotFound", err)
	}
	res, err := db.ImportUpload(ctx, id, admin.ID, files, opt)
	if err != nil || len(res) != 1 || len(res[0].Plan.Added) != 3 {
		t.Fatalf("first apply = %+v, %v", res, err)
	}
	if _, err := db.ImportUpload(ctx, id, admin.ID, files, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("second apply = %v, want ErrNotFound", err)
	}
	if runs, err := db.ImportRuns(ctx, 10); err != nil || len(runs) != 1 {
		t.Errorf("import runs = %d, %v; want 1", len(runs), err)
	}
	if _, err := db.Upload(ctx, id, admin.ID, "yaml", now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("upload after apply = %v, want ErrNotFound", err)
	}
}

func TestRecordReviewChecksDeckAndAnswer(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	user := addStudyUser(t, db, "learner", studyUserOpts{})
	deck := addStudyDeck(t, db, "deck-a", "1.36")
	addStudyDeck(t, db, "deck-b", "1.36")
	q := addStudyQuestion(t, db, deck, 0, quiz.Published, sampleQuestion("q1"))
	tests := []struct {
		name string
		deck string
		resp quiz.Response
		want error
	}{
		{"another deck", "deck-b", quiz.Response{Choice: 0}, quiz.ErrNotFound},
		{"unknown deck", "no-such-deck", quiz.Response{Choice: 0}, quiz.ErrNotFound},
		{"choice out of range", "deck-a", quiz.Response{Choice: 99}, quiz.ErrInvalid},
		{"fields of another type", "deck-a", quiz.Response{Choice: 0, Texts: []string{"x"}}, quiz.ErrInvalid},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: fmt.Sprintf("req-%d", i),
				Rating: fsrs.Good, Response: tt.resp, Scope: Scope{Deck: tt.deck}, At: now})
			if !errors.Is(err, tt.want) {
				t.Errorf("RecordReview = %v, want %v", err, tt.want)
			}
		})
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != 0 {
		t.Errorf("review_log rows = %d, want 0", n)
	}
	if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: "ok", Rating: fsrs.Good,
		Response: quiz.Response{Choice: -1}, Scope: Scope{Deck: "deck-a"}, At: now}); err != nil {
		t.Errorf("a normal review: %v", err)
	}
}

func TestIngestUploadOnce(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	admin := newTestUser(t, db, "admin", quiz.RoleAdmin)
	other := newTestUser(t, db, "other", quiz.RoleAdmin)
	id, err := db.SaveUpload(ctx, admin.ID, "changelog", []UploadedFile{{Name: "node.md", Data: []byte(nodeArticle)}}, now)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseArticle(t, nodeArticle)
	inputs := []ChangelogInput{{File: "node.md", Document: doc, Generated: testGenerate(doc)}}
	opt := IngestOptions{Actor: "admin", Now: now}
	if _, err := db.IngestUpload(ctx, id, other.ID, inputs, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("another admin's upload = %v, want ErrNotFound", err)
	}
	// Two submits at once: one ingests, the other finds the upload gone.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := db.IngestUpload(ctx, id, admin.ID, inputs, opt)
			errs <- err
		}()
	}
	var ok, gone int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, quiz.ErrNotFound):
			gone++
		default:
			t.Errorf("apply: %v", err)
		}
	}
	if ok != 1 || gone != 1 {
		t.Errorf("applies: %d stored, %d found the upload gone; want 1 and 1", ok, gone)
	}
	if runs, err := db.ImportRuns(ctx, 10); err != nil || len(runs) != 1 {
		t.Errorf("import runs = %d, %v; want 1", len(runs), err)
	}
	// The run remembers the upload it applied; no other upload has runs.
	if runs, err := db.UploadRuns(ctx, id, "changelog"); err != nil || len(runs) != 1 || runs[0].FileName != "node.md" || runs[0].Kind != "changelog" {
		t.Errorf("runs of the upload = %+v, %v; want the one of node.md", runs, err)
	}
	if runs, err := db.UploadRuns(ctx, id, "yaml"); err != nil || len(runs) != 0 {
		t.Errorf("runs of the upload as a question import = %+v, %v; want none", runs, err)
	}
	if runs, err := db.UploadRuns(ctx, "not-an-upload", "changelog"); err != nil || len(runs) != 0 {
		t.Errorf("runs of an unknown upload = %+v, %v; want none", runs, err)
	}
	if _, err := db.Upload(ctx, id, admin.ID, "changelog", now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("upload after apply = %v, want ErrNotFound", err)
	}
	// A yaml upload is not a changelog upload.
	yamlID, err := db.SaveUpload(ctx, admin.ID, "yaml", []UploadedFile{{Name: "a.yaml", Data: []byte("x")}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.IngestUpload(ctx, yamlID, admin.ID, inputs, opt); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("a yaml upload applied as a changelog = %v, want ErrNotFound", err)
	}
}
