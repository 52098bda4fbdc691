package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"html"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// displayName reads a user's display name back through the store.
func displayName(t *testing.T, ts *testServer, login string) string {
	t.Helper()
	c, err := ts.db.Credentials(context.Background(), login)
	if err != nil {
		t.Fatal(err)
	}
	return c.User.DisplayName
}

// TestLoginLockoutSparesKnownDevices: failures spread over many addresses
// reach the per-account limit, yet the owner signs in from an address they
// used before, or in a browser they signed in with before from another
// address (by its device cookie); an address and browser the account never
// signed in from wait, a browser known to another account too.
func TestLoginLockoutSparesKnownDevices(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	lim := loginLimits()
	newClient(t, ts, "127.0.0.3").mustLogin("root", adminPassword)
	// A device token planted in the owner's browser is not the one it has
	// after signing in, and every sign-in gives a new one.
	planted, _, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	phone := newClient(t, ts, "127.0.0.4")
	phone.cookies[deviceCookie] = planted
	phone.mustLogin("root", adminPassword)
	first := phone.cookies[deviceCookie]
	if first == "" || first == planted {
		t.Fatalf("device cookie after sign-in = %q (planted %q): want a new one", first, planted)
	}
	phone.mustLogin("root", adminPassword)
	if again := phone.cookies[deviceCookie]; again == "" || again == first {
		t.Errorf("device cookie after a second sign-in = %q, want a new one", again)
	}
	mallory := newClient(t, ts, "127.0.2.200")
	if rec := mallory.register("mallory", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	mallory.mustLogin("mallory", memberPassword) // her browser is a known device of hers

	attackers := map[int]*client{}
	for i := range lim.PerAccount {
		n := i / lim.PerAccountIP
		if attackers[n] == nil {
			attackers[n] = newClient(t, ts, fmt.Sprintf("127.0.2.%d", n+1))
		}
		if rec := attackers[n].login("root", fmt.Sprintf("guess passphrase %d", i)); rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("failure %d = %d, want 422", i+1, rec.Code)
		}
	}

	stranger := newClient(t, ts, "127.0.0.99")
	if rec := stranger.login("root", adminPassword); rec.Code != http.StatusTooManyRequests {
		t.Errorf("right password from an unknown address after %d failures = %d, want 429", lim.PerAccount, rec.Code)
	}
	if _, ok := stranger.cookies[sessionCookie]; ok {
		t.Error("the refused sign-in set a session cookie")
	}
	if _, ok := stranger.cookies[deviceCookie]; ok {
		t.Error("the refused sign-in set a device cookie")
	}
	owner := newClient(t, ts, "127.0.0.3")
	owner.mustLogin("root", adminPassword)
	if got := owner.signedInAs(); got != "root" {
		t.Errorf("owner signed in as %q, want root", got)
	}
	// The phone, signed out, on a new address: its device cookie is known.
	if rec := phone.post("/logout", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("logout = %d", rec.Code)
	}
	phone.ip = "127.0.0.77"
	if rec := phone.login("root", adminPassword); rec.Code != http.StatusSeeOther {
		t.Errorf("right password from the owner's browser on a new address = %d, want 303", rec.Code)
	}
	// The planted token, and the phone's earlier one, are known to no one.
	for i, tok := range []string{planted, first} {
		thief := newClient(t, ts, fmt.Sprintf("127.0.0.%d", 80+i))
		thief.cookies[deviceCookie] = tok
		if rec := thief.login("root", adminPassword); rec.Code != http.StatusTooManyRequests {
			t.Errorf("right password with a device token the owner no longer holds (%d) = %d, want 429", i, rec.Code)
		}
	}
	// A device cookie known to another account is not known to this one.
	mallory.ip = "127.0.0.78"
	if rec := mallory.login("root", adminPassword); rec.Code != http.StatusTooManyRequests {
		t.Errorf("right password from a browser known to another account = %d, want 429", rec.Code)
	}
}

// TestRegisterRateLimit: each address may try to register a few times an
// hour; the next attempt is refused before anything is created.
func TestRegisterRateLimit(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	for i := range registerLimit {
		cl := newClient(t, ts, "127.0.3.1")
		if rec := cl.register(fmt.Sprintf("user%02d", i), memberPassword, nil); rec.Code != http.StatusSeeOther {
			t.Fatalf("registration %d = %d, want 303", i+1, rec.Code)
		}
	}
	cl := newClient(t, ts, "127.0.3.1")
	rec := cl.register("onemore", memberPassword, nil)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), msgTooManySignups) {
		t.Errorf("registration %d = %d, want 429 with a message; body %.300s", registerLimit+1, rec.Code, rec.Body.String())
	}
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	if userExists(t, ts, "onemore") {
		t.Error("the refused registration created the account")
	}
	if rec := newClient(t, ts, "127.0.3.2").register("onemore", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Errorf("registration from another address = %d, want 303", rec.Code)
	}
}

// TestRegisterChecksBeforeHash: a taken login or a bad invite is answered
// without hashing the password. Every hashing slot is held, so a handler
// that hashed first would wait for one and fail with 503.
func TestRegisterChecksBeforeHash(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	held := cap(ts.passwords.slots)
	for range held {
		ts.passwords.slots <- struct{}{}
	}
	defer func() {
		for range held {
			<-ts.passwords.slots
		}
	}()
	registerWithin := func(cl *client, f url.Values) *httptest.ResponseRecorder {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		f.Set(csrfFormField, cl.csrfToken())
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/register", strings.NewReader(f.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return cl.send(req)
	}
	form := func(login, invite string) url.Values {
		return url.Values{"login": {login}, "password": {memberPassword}, "password2": {memberPassword}, "invite": {invite}}
	}

	rec := registerWithin(newClient(t, ts, "127.0.4.1"), form("ROOT", ""))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), msgLoginTaken) {
		t.Errorf("taken login = %d, want 422 with %q; body %.300s", rec.Code, msgLoginTaken, rec.Body.String())
	}
	if err := ts.db.SetRegistrationMode(context.Background(), store.RegistrationInvite); err != nil {
		t.Fatal(err)
	}
	rec = registerWithin(newClient(t, ts, "127.0.4.2"), form("newbie", "not-an-invite"))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), msgInviteInvalid) {
		t.Errorf("bad invite = %d, want 422 with %q; body %.300s", rec.Code, msgInviteInvalid, rec.Body.String())
	}
	if userExists(t, ts, "newbie") {
		t.Error("a registration with a bad invite created the account")
	}
}

// TestHSTS: Strict-Transport-Security goes out over TLS and whenever
// cookies are marked Secure (a TLS proxy in front), errors included.
func TestHSTS(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		tls  bool
		want bool
	}{
		{"plain HTTP", Config{}, false, false},
		{"secure cookies behind a proxy", Config{SecureCookies: true}, false, true},
		{"TLS", Config{}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newAccountServer(t, tt.cfg)
			for _, path := range []string{"/login", "/no-such-page"} {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				if tt.tls {
					req.TLS = &tls.ConnectionState{}
				}
				got := ts.do(req).Header().Get("Strict-Transport-Security")
				if (got != "") != tt.want || tt.want && !strings.Contains(got, "max-age=31536000") {
					t.Errorf("GET %s: Strict-Transport-Security %q, want set=%v", path, got, tt.want)
				}
			}
		})
	}
}

// chunked hides a reader's length, so the request goes out chunked and
// BodyLimit cannot refuse it from Content-Length.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

// TestBodyOverLimitRefused: a chunked body over the 1 MB limit is a 413
// and changes nothing, urlencoded or multipart, even with a valid CSRF
// header; a normal post still works.
func TestBodyOverLimitRefused(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.5.1")
	if rec := cl.register("carol", memberPassword, url.Values{"display_name": {"Carol"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	pad := strings.Repeat("a", 1200<<10)

	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("display_name", "Mallory")
	mw.WriteField("pad", pad)
	mw.Close()
	bodies := []struct {
		name, contentType, body string
	}{
		{"urlencoded", "application/x-www-form-urlencoded", "display_name=Mallory&pad=" + pad},
		{"multipart", mw.FormDataContentType(), mp.String()},
	}
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/account/name", chunked{strings.NewReader(b.body)})
			if req.ContentLength != -1 {
				t.Fatalf("ContentLength = %d, want -1 (unknown)", req.ContentLength)
			}
			req.Header.Set("Content-Type", b.contentType)
			req.Header.Set(echo.HeaderXCSRFToken, cl.csrfToken())
			if rec := cl.send(req); rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("chunked %d KB post = %d, want 413", len(b.body)>>10, rec.Code)
			}
			if got := displayName(t, ts, "carol"); got != "Carol" {
				t.Errorf("display name = %q after a refused post, want Carol", got)
			}
		})
	}
	if rec := cl.post("/account/name", url.Values{"display_name": {"Caroline"}}); rec.Code != http.StatusSeeOther || displayName(t, ts, "carol") != "Caroline" {
		t.Errorf("normal post = %d, name %q", rec.Code, displayName(t, ts, "carol"))
	}
}

// TestQueryNotForm: in a POST, the CSRF token and the fields count only
// from the body, never from the URL's query string.
func TestQueryNotForm(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.5.2")
	if rec := cl.register("dave", memberPassword, url.Values{"display_name": {"Dave"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	q := url.Values{csrfFormField: {cl.csrfToken()}, "display_name": {"Mallory"}}
	rec := cl.postRaw("/account/name?"+q.Encode(), url.Values{})
	if rec.Code != http.StatusForbidden {
		t.Errorf("token and field in the query = %d, want 403", rec.Code)
	}
	// With the token in the body, the query's field is still ignored.
	rec = cl.postRaw("/account/name?display_name=Mallory", url.Values{csrfFormField: {cl.csrfToken()}, "display_name": {"Dave"}})
	if rec.Code != http.StatusSeeOther {
		t.Errorf("body token = %d, want 303", rec.Code)
	}
	if got := displayName(t, ts, "dave"); got != "Dave" {
		t.Errorf("display name = %q, want Dave", got)
	}
}

func mustCIDR(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTrustedProxy: X-Forwarded-For names the client only when the peer is
// a configured proxy; loopback and private peers are not trusted by default.
func TestTrustedProxy(t *testing.T) {
	direct := newAccountServer(t, Config{})
	proxied := newAccountServer(t, Config{TrustedProxies: []*net.IPNet{mustCIDR(t, "10.0.0.0/8"), mustCIDR(t, "2001:db8:aa::/48")}})
	for _, ts := range []*testServer{direct, proxied} {
		ts.echo.GET("/test/ip", func(c echo.Context) error { return c.String(http.StatusOK, c.RealIP()) })
	}
	tests := []struct {
		name      string
		ts        *testServer
		peer, xff string
		want      string
		realIPHdr string
	}{
		{"no proxy configured", direct, "10.1.2.3", "203.0.113.9", "10.1.2.3", ""},
		{"loopback peer, no proxy configured", direct, "127.0.0.1", "203.0.113.9", "127.0.0.1", ""},
		{"trusted proxy", proxied, "10.1.2.3", "203.0.113.9", "203.0.113.9", ""},
		{"chain of trusted proxies", proxied, "10.1.2.3", "203.0.113.9, 10.4.4.4", "203.0.113.9", ""},
		{"forged entry left of the client", proxied, "10.1.2.3", "198.51.100.1, 203.0.113.9", "203.0.113.9", ""},
		{"untrusted peer", proxied, "192.0.2.1", "203.0.113.9", "192.0.2.1", ""},
		{"loopback peer is not trusted", proxied, "127.0.0.1", "203.0.113.9", "127.0.0.1", ""},
		{"private peer outside the range", proxied, "192.168.1.1", "203.0.113.9", "192.168.1.1", ""},
		{"IPv6 proxy", proxied, "[2001:db8:aa::1]", "2001:db8:bb::7", "2001:db8:bb::7", ""},
		{"X-Real-IP is ignored", proxied, "10.1.2.3", "", "10.1.2.3", "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/test/ip", nil)
			req.RemoteAddr = tt.peer + ":40000"
			if tt.xff != "" {
				req.Header.Set("X-Forwarded-For", tt.xff)
			}
			if tt.realIPHdr != "" {
				req.Header.Set("X-Real-IP", tt.realIPHdr)
			}
			if got := tt.ts.do(req).Body.String(); got != tt.want {
				t.Errorf("client address = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRequestIDNotTrusted: the X-Request-Id in logs and responses is always
// the server's own.
func TestRequestIDNotTrusted(t *testing.T) {
	ts := newAccountServer(t, Config{})
	const forged = "forged-id-0123456789"
	for _, path := range []string{"/login", "/no-such-page"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set(echo.HeaderXRequestID, forged)
		got := ts.do(req).Header().Get(echo.HeaderXRequestID)
		if got == "" || got == forged {
			t.Errorf("GET %s: X-Request-Id %q, want a fresh one", path, got)
		}
	}
	if strings.Contains(ts.log.String(), forged) {
		t.Errorf("the forged request id reached the log:\n%s", ts.log.String())
	}
}

// TestUnknownMethods: methods other than GET, HEAD and POST get 405 with an
// Allow header on every path, with the usual security headers, and change
// nothing.
func TestUnknownMethods(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.6.1")
	if rec := cl.register("erin", memberPassword, url.Values{"display_name": {"Erin"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	methods := []string{"TRACE", "TRACK", "OPTIONS", "PUT", "DELETE", "PATCH", "CONNECT", "PROPFIND", "FOO"}
	paths := []string{"/", "/login", "/account/name", "/static/app.css", "/healthz", "/no-such-page"}
	for _, m := range methods {
		for _, p := range paths {
			body := url.Values{csrfFormField: {cl.csrfToken()}, "display_name": {"Mallory"}}.Encode()
			req := httptest.NewRequest(m, p, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set(echo.HeaderXCSRFToken, cl.csrfToken())
			rec := cl.send(req)
			if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD, POST" {
				t.Errorf("%s %s = %d, Allow %q; want 405, Allow \"GET, HEAD, POST\"", m, p, rec.Code, rec.Header().Get("Allow"))
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get(echo.HeaderXRequestID) == "" {
				t.Errorf("%s %s: the 405 lacks the security headers or request id: %v", m, p, rec.Header())
			}
		}
	}
	if got := displayName(t, ts, "erin"); got != "Erin" {
		t.Errorf("display name = %q, want Erin", got)
	}
	// A served method the route does not take: 405, with an Allow header
	// that names only what the route serves (not OPTIONS, which is a 405
	// everywhere).
	for _, tt := range []struct{ method, path, allow string }{
		{http.MethodPost, "/healthz", "GET, HEAD"},
		{http.MethodPost, "/decks", "GET, HEAD"},
	} {
		req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(url.Values{csrfFormField: {cl.csrfToken()}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if rec := cl.send(req); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != tt.allow {
			t.Errorf("%s %s = %d, Allow %q; want 405, Allow %q", tt.method, tt.path, rec.Code, rec.Header().Get("Allow"), tt.allow)
		}
	}
}

// TestUploadLimitNeedsSession: an upload route gets the large body limit
// only from a signed-in admin; without a session, with a made-up or stale
// session cookie, or from a learner, it gets the small one.
func TestUploadLimitNeedsSession(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	big := map[string][]byte{"big.yaml": bytes.Repeat([]byte("#"), 2<<20)}
	made, _, err := newToken()
	if err != nil {
		t.Fatal(err)
	}
	learner := newClient(t, ts, "127.0.7.3")
	if rec := learner.register("lena", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	stale := newClient(t, ts, "127.0.7.4")
	stale.mustLogin("root", adminPassword)
	staleToken := stale.cookies[sessionCookie]
	if rec := stale.post("/logout", url.Values{}); rec.Code != http.StatusSeeOther {
		t.Fatalf("logout = %d", rec.Code)
	}
	tests := []struct {
		name    string
		session string // the session cookie sent; "" sends none
		cl      *client
	}{
		{"no session cookie", "", nil},
		{"any value", "x", nil},
		{"a well-formed token of no session", made, nil},
		{"a signed-out admin's token", staleToken, nil},
		{"a learner's session", "", learner},
	}
	for _, tt := range tests {
		for _, path := range []string{"/admin/import", "/admin/ingest"} {
			cl := tt.cl
			if cl == nil {
				cl = newClient(t, ts, "127.0.7.1")
				cl.csrfToken() // first: a page clears a session cookie of no session
				if tt.session != "" {
					cl.cookies[sessionCookie] = tt.session
				}
			}
			if rec := cl.postFiles(path, big); rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("%s: 2 MB upload to %s = %d, want 413", tt.name, path, rec.Code)
			}
		}
	}
	admin := newClient(t, ts, "127.0.7.2")
	admin.mustLogin("root", adminPassword)
	// Past the body limit, the file is refused for its own size.
	if rec := admin.postFiles("/admin/import", big); rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "big.yaml") {
		t.Errorf("2 MB upload by the admin = %d, want 413 naming the file; body %.300s", rec.Code, rec.Body.String())
	}
	// Past the large limit too: the page says what the limit is and leads
	// back to the upload form.
	huge := map[string][]byte{"a.md": bytes.Repeat([]byte("#"), 2<<20), "b.md": bytes.Repeat([]byte("#"), 2<<20), "c.md": bytes.Repeat([]byte("#"), 2<<20)}
	rec := admin.postFiles("/admin/ingest", huge)
	if body := rec.Body.String(); rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "合計 6 MB まで") ||
		!strings.Contains(body, `<a href="/admin/ingest">アップロードの画面に戻る</a>`) {
		t.Errorf("6 MB upload by the admin = %d: %.3000s", rec.Code, body)
	}
}

// TestUploadLimitLookupFails: when the session cannot be looked up (the
// database is gone), an admin's upload gets the error (500), not a 413
// that would blame its size.
func TestUploadLimitLookupFails(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	admin := newClient(t, ts, "127.0.7.5")
	admin.mustLogin("root", adminPassword)
	admin.csrfToken()
	ts.db.Close()
	time.Sleep(1100 * time.Millisecond) // past the store's session cache (1 s)
	big := map[string][]byte{"big.yaml": bytes.Repeat([]byte("#"), 2<<20)}
	if rec := admin.postFiles("/admin/import", big); rec.Code != http.StatusInternalServerError {
		t.Errorf("2 MB upload with the database closed = %d, want 500", rec.Code)
	}
	if !strings.Contains(ts.log.String(), "upload limit") {
		t.Errorf("the failed lookup is not logged:\n%s", ts.log.String())
	}
}

// lockedBuffer is a log sink safe to read while a goroutine writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSessionPurge: expired sessions are deleted in the background, at
// once and then periodically, until Close, which stops the work.
func TestSessionPurge(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "kubequiz.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var logs lockedBuffer
	s, err := New(Config{Password: cheapPasswords()}, db, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, store.NewUser{Login: "frank", PasswordHash: "unused", Role: quiz.RoleMember}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	expired := func(tag string) {
		t.Helper()
		now := time.Now()
		if err := db.CreateSession(ctx, u.ID, store.NewSession{TokenHash: hashToken(tag), ExpiresAt: now.Add(-time.Minute)},
			now.Add(-time.Hour), idleTimeout); err != nil {
			t.Fatal(err)
		}
	}
	expired("first")
	s.startPurge(20 * time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "expired sessions purged") {
		if time.Now().After(deadline) {
			t.Fatalf("the expired session was not purged:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: the purge keeps running")
	}
	// Stopped: an expired session added now stays.
	expired("second")
	time.Sleep(100 * time.Millisecond)
	if n, err := db.DeleteUserSessions(ctx, u.ID); err != nil || n != 1 {
		t.Errorf("sessions left after Close = %d, %v; want the one added after Close", n, err)
	}
}

// TestAdminImportApplyOnce: applying one upload twice, even at the same
// time, imports it once.
func TestAdminImportApplyOnce(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	admin := newClient(t, ts, "192.0.2.30")
	admin.mustLogin("root", adminPassword)
	good := readTestFile(t, "..", "bank", "testdata", "good", "all-types.yaml")
	rec := admin.postFiles("/admin/import", map[string][]byte{"all-types.yaml": good})
	preview := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !previewPath.MatchString(preview) {
		t.Fatalf("upload = %d to %q", rec.Code, preview)
	}

	// Two submits of the apply form in flight at once.
	const n = 4
	reqs := make([]*http.Request, n)
	for i := range reqs {
		req := httptest.NewRequest(http.MethodPost, preview+"/apply",
			strings.NewReader(url.Values{csrfFormField: {admin.csrfToken()}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.RemoteAddr = admin.ip + ":40000"
		for name, v := range admin.cookies {
			req.AddCookie(&http.Cookie{Name: name, Value: v})
		}
		reqs[i] = req
	}
	codes := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i] = ts.do(req).Code
		}()
	}
	close(start)
	wg.Wait()
	// Each lands on the page of the one import: one because it applied,
	// the others because it had.
	for _, c := range codes {
		if c != http.StatusSeeOther {
			t.Errorf("apply = %d, want 303 (%v)", c, codes)
		}
	}
	// And once more, after the fact.
	if rec := admin.post(preview+"/apply", nil); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != preview+"/done" {
		t.Errorf("apply after apply = %d to %q, want a 303 to the done page", rec.Code, rec.Header().Get("Location"))
	}
	runs, err := ts.db.ImportRuns(ctx, 50)
	if err != nil || len(runs) != 1 {
		t.Errorf("import runs = %d, %v; want 1", len(runs), err)
	}
	// A cancelled upload has no import to show: its apply is a 404.
	rec = admin.postFiles("/admin/import", map[string][]byte{"all-types.yaml": good})
	other := rec.Header().Get("Location")
	admin.post(other+"/cancel", nil)
	if rec := admin.post(other+"/apply", nil); rec.Code != http.StatusNotFound {
		t.Errorf("apply of a cancelled upload = %d, want 404", rec.Code)
	}
}

// TestEveryPostNeedsCSRF sends every POST route of the router, as a
// signed-in admin with the CSRF cookie but no token: each is refused by
// the CSRF check (a 403 it logs), so that a route added later cannot miss
// it. Path parameters get values of the right shape; a user id is another
// user's, which an admin may act on.
func TestEveryPostNeedsCSRF(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	other, err := ts.addUser(context.Background(), "member1", "", memberPassword, quiz.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, ts, "127.0.0.1")
	cl.mustLogin("root", adminPassword)
	cl.get("/account") // a CSRF cookie for the session
	params := strings.NewReplacer(":id", strconv.FormatInt(other.ID, 10), ":slug", "v1-36-sig-node", ":q", "1", ":doc", "1",
		":user", strconv.FormatInt(other.ID, 10), ":code", strings.Repeat("A", 43))
	n := 0
	for _, r := range ts.echo.Routes() {
		if r.Method != http.MethodPost {
			continue
		}
		n++
		path := params.Replace(r.Path)
		if strings.Contains(path, ":") || strings.Contains(path, "*") {
			t.Errorf("route %s: a parameter this test cannot fill", r.Path)
			continue
		}
		ts.log.Reset()
		rec := cl.postRaw(path, url.Values{"display_name": {"x"}, "new_per_day": {"1"}, "reviews_per_day": {"1"}})
		if rec.Code != http.StatusForbidden || !strings.Contains(ts.log.String(), "csrf check failed") {
			t.Errorf("POST %s without a token = %d, want the CSRF check's 403; log:\n%s", path, rec.Code, ts.log.String())
		}
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("POST %s without a token: Cache-Control %q, want no-store", path, got)
		}
	}
	if n < 15 {
		t.Errorf("only %d POST routes found", n)
	}
	if c, err := ts.db.Credentials(context.Background(), "root"); err != nil || c.User.DisplayName != "Root" || c.User.NewPerDay != 20 {
		t.Errorf("root after the refused posts: %+v, %v", c.User, err)
	}
	if c, err := ts.db.Credentials(context.Background(), "member1"); err != nil || c.Disabled {
		t.Errorf("member1 after the refused posts: %+v, %v", c, err)
	}
}

// TestFormActionsAsPages: a form's action opened as a page (the address
// bar after a refused form shows it) leads to the page that holds the
// form, and changes nothing.
func TestFormActionsAsPages(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "192.0.2.40")
	cl.mustLogin("root", adminPassword)
	before, _ := ts.db.TableChecksums(context.Background())
	tests := []struct{ path, want string }{
		{"/logout", "/"},
		{"/account/limits", "/account"},
		{"/account/timezone", "/account"},
		{"/account/password", "/account"},
		{"/admin/users/invites", "/admin/users"},
		{"/admin/users/invites/revoke", "/admin/users"},
		{"/admin/users/2/disable", "/admin/users"},
		{"/decks/v1-36-sig-node/subscription", "/decks"},
		{"/study/grade", "/study"},
		{"/study/answer", "/study"}, // the answer form without script is a GET; without a card, the study page
		{"/study/answer?d=v1-36-sig-node", "/study/v1-36-sig-node"},
		{"/study/answer?d=%2F%2Fevil.example", "/study"},
		{"/admin/import/0123abcd/apply", "/admin/import/0123abcd"},
		{"/admin/ingest/0123abcd/cancel", "/admin/ingest/0123abcd"},
		{"/admin/ingest/documents/7/publish", "/admin/ingest/documents/7"},
		{"/groups/7/leave", "/groups/7"},
		{"/groups/7/invite/revoke", "/groups/7"},
		{"/groups/7/members/2/remove", "/groups/7"},
		{"/groups/7/decks/v1-36-sig-node/presenter", "/groups/7"},
	}
	for _, tt := range tests {
		rec := cl.get(tt.path)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != tt.want {
			t.Errorf("GET %s = %d to %q, want a 303 to %s", tt.path, rec.Code, rec.Header().Get("Location"), tt.want)
		}
	}
	if cl.signedInAs() != "root" {
		t.Error("GET /logout signed out")
	}
	after, _ := ts.db.TableChecksums(context.Background())
	delete(before, "sessions")
	delete(after, "sessions")
	if !maps.Equal(before, after) {
		t.Error("opening form actions as pages changed the database")
	}
	// The pages of their own under such paths stay themselves.
	if rec := cl.get("/admin/import/0123abcd/done"); rec.Code != http.StatusNotFound {
		t.Errorf("GET the done page of an unknown upload = %d, want 404", rec.Code)
	}
}

// TestCSRFRefusalPage: a form refused by a CSRF check (a page left open
// past its token, in the first place) gets a page that says the page was
// stale, nothing was changed, and offers to load it again: the page it
// was sent from, when the browser names one of this server's, or else the
// page of the form from the route table. A signed-in learner's header
// shows them signed in, with a sign-out form that works.
func TestCSRFRefusalPage(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	alice := newClient(t, ts, "192.0.2.70")
	if rec := alice.register("alice", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("register = %d", rec.Code)
	}
	own := alice.csrfToken()
	signedOut := newClient(t, ts, "192.0.2.71")
	signedOut.csrfToken()
	tests := []struct {
		name     string
		cl       *client
		path     string
		headers  map[string]string
		cookie   string // the CSRF cookie sent in place of the client's; "" keeps it
		reload   string
		signedIn bool
	}{
		{"an old token, from the account page", alice, "/account/name", map[string]string{"Referer": "http://example.com/account?done=name"}, "", "/account?done=name", true},
		{"an old token, no Referer", alice, "/account/name", nil, "", "/account", true},
		{"an old token, htmx's page", alice, "/study/grade", map[string]string{"HX-Current-URL": "http://example.com/study/v1-36-sig-node", "HX-Request": "true"}, "", "/study/v1-36-sig-node", true},
		{"an old token, a form of an upload", alice, "/admin/import/0123abcd/apply", nil, "", "/admin/import/0123abcd", true},
		{"another site's Referer", alice, "/account/limits", map[string]string{"Referer": "http://evil.example/account"}, "", "/account", true},
		{"a Referer leading to another host", alice, "/account/limits", map[string]string{"Referer": "http://example.com//evil.example/x"}, "", "/account", true},
		{"cross-site", alice, "/account/timezone", map[string]string{"Sec-Fetch-Site": "cross-site"}, "", "/account", true},
		{"a cookie not the session's", alice, "/account/name", map[string]string{"Referer": "http://example.com/account"}, "planted", "/account", true},
		{"signed out, the sign-in page", signedOut, "/login", map[string]string{"Referer": "http://example.com/login?next=%2Fstudy"}, "", "/login?next=%2Fstudy", false},
		{"signed out, no Referer", signedOut, "/register", nil, "", "/register", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{csrfFormField: {"an-old-token"}, "display_name": {"Changed"}, "login": {"alice"}, "password": {memberPassword}}
			req := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			if tt.cookie != "" {
				saved := tt.cl.cookies[csrfCookie]
				tt.cl.cookies[csrfCookie] = tt.cookie
				defer func() { tt.cl.cookies[csrfCookie] = saved }()
			}
			rec := tt.cl.send(req)
			body := rec.Body.String()
			if rec.Code != http.StatusForbidden || !strings.Contains(body, msgStalePage) ||
				!strings.Contains(body, `<a href="`+html.EscapeString(tt.reload)+`">ページを読み込み直す</a>`) {
				t.Fatalf("= %d, want 403 saying the page was stale with a link to %s: %.3000s", rec.Code, tt.reload, body)
			}
			if tt.headers["HX-Request"] == "true" {
				return // a fragment, without the header
			}
			if got := strings.Contains(body, `<span class="user-name" title="alice">alice</span>`); got != tt.signedIn {
				t.Errorf("the header shows alice signed in: %v, want %v", got, tt.signedIn)
			}
			if tt.signedIn && !strings.Contains(body, `name="_csrf" value="`+own+`"`) {
				t.Errorf("the sign-out form does not carry the session's token %s", own)
			}
		})
	}
	if got := displayName(t, ts, "alice"); got != "" {
		t.Errorf("display name = %q after refused forms", got)
	}
	if got := alice.cookies[csrfCookie]; got != own {
		t.Errorf("CSRF cookie after the refusals = %q, want the session's %q", got, own)
	}
}

// TestSecurityHeadersEverywhere sends requests that end in every kind of
// answer kubequiz writes (pages, redirects, static files and their 304,
// and each error the error handler or a middleware gives) to a server set
// up as serve sets it up, and checks that each carries the security
// headers. Go's own answers to requests it cannot read (400, 431, ...)
// are written before kubequiz sees them, and are not checked.
func TestSecurityHeadersEverywhere(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	srv := httptest.NewUnstartedServer(ts)
	srv.Config = HTTPServer(ts, slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv.Start()
	defer srv.Close()
	admin := newClient(t, ts, "192.0.2.80")
	admin.mustLogin("root", adminPassword)
	home := admin.get("/").Body.String()
	css := regexp.MustCompile(`/static/app\.css\?v=[0-9a-f]+`).FindString(home)
	if css == "" {
		t.Fatalf("the home page links no app.css: %.500s", home)
	}
	etag := admin.get(css).Header().Get("ETag")
	form := func(method, path, body string, header ...string) *http.Request {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return req
	}
	chunked := httptest.NewRequest(http.MethodPost, "/login", io.MultiReader(strings.NewReader("login="), strings.NewReader(strings.Repeat("x", 2<<20))))
	chunked.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	chunked.ContentLength = -1
	var multi bytes.Buffer
	mw := multipart.NewWriter(&multi)
	mw.WriteField(csrfFormField, admin.csrfToken())
	fw, _ := mw.CreateFormFile("files", "big.yaml")
	fw.Write(bytes.Repeat([]byte("#"), 300<<10))
	mw.Close()
	upload := httptest.NewRequest(http.MethodPost, "/admin/import", &multi)
	upload.Header.Set("Content-Type", mw.FormDataContentType())
	notModified := httptest.NewRequest(http.MethodGet, css, nil)
	notModified.Header.Set("If-None-Match", etag)
	tok := url.Values{csrfFormField: {admin.csrfToken()}}
	tests := []struct {
		name   string
		cl     *client // nil: signed out
		req    *http.Request
		status int
	}{
		{"a page", admin, httptest.NewRequest(http.MethodGet, "/", nil), 200},
		{"a page, HEAD", admin, httptest.NewRequest(http.MethodHead, "/account", nil), 200},
		{"the health check", nil, httptest.NewRequest(http.MethodGet, "/healthz", nil), 200},
		{"a static file", nil, httptest.NewRequest(http.MethodGet, css, nil), 200},
		{"a static file not modified", nil, notModified, 304},
		{"no static file", nil, httptest.NewRequest(http.MethodGet, "/static/nope.css", nil), 404},
		{"the static folder", nil, httptest.NewRequest(http.MethodGet, "/static/", nil), 404},
		{"no page", nil, httptest.NewRequest(http.MethodGet, "/no-such-page", nil), 404},
		{"no upload", admin, httptest.NewRequest(http.MethodGet, "/admin/import/0123abcd", nil), 404},
		{"a redirect to sign in", nil, httptest.NewRequest(http.MethodGet, "/study", nil), 303},
		{"a form action as a page", admin, httptest.NewRequest(http.MethodGet, "/account/limits", nil), 303},
		{"a form's redirect", admin, form(http.MethodPost, "/account/name", url.Values{csrfFormField: {admin.csrfToken()}, "display_name": {"Root"}}.Encode()), 303},
		{"an unknown method", admin, httptest.NewRequest(http.MethodDelete, "/login", nil), 405},
		{"OPTIONS", nil, httptest.NewRequest(http.MethodOptions, "/", nil), 405},
		{"a method the route does not take", admin, form(http.MethodPost, "/decks", tok.Encode()), 405},
		{"a malformed body", nil, form(http.MethodPost, "/login", "%zz"), 400},
		{"a malformed grade", admin, form(http.MethodPost, "/study/grade", tok.Encode()), 400},
		{"signed out, htmx", nil, form(http.MethodPost, "/study/grade", "", "HX-Request", "true"), 403},
		{"no CSRF token", admin, form(http.MethodPost, "/account/name", "display_name=x"), 403},
		{"not an admin's page", nil, form(http.MethodPost, "/admin/import/0123abcd/apply", ""), 403},
		{"a body over the limit", nil, form(http.MethodPost, "/login", "login="+strings.Repeat("x", 2<<20)), 413},
		{"a chunked body over the limit", nil, chunked, 413},
		{"an upload's file over its limit", admin, upload, 413},
		{"a refused form", admin, form(http.MethodPost, "/account/limits", url.Values{csrfFormField: {admin.csrfToken()}, "new_per_day": {"x"}}.Encode()), 422},
	}
	for _, tt := range tests {
		cl := tt.cl
		if cl == nil {
			cl = newClient(t, ts, "192.0.2.81")
		}
		rec := cl.send(tt.req)
		if rec.Code != tt.status {
			t.Errorf("%s: %s %s = %d, want %d", tt.name, tt.req.Method, tt.req.URL, rec.Code, tt.status)
		}
		checkSecurityHeaders(t, tt.name, rec.Header())
	}

	// Through the HTTP server itself: "OPTIONS *", which net/http would
	// answer on its own, reaches kubequiz.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "OPTIONS * HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", srv.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("OPTIONS * = %d, want 405", resp.StatusCode)
	}
	checkSecurityHeaders(t, "OPTIONS *", resp.Header)

	// An error of the server: the database is gone.
	ts.db.Close()
	time.Sleep(1100 * time.Millisecond) // past the store's session cache (1 s)
	for _, path := range []string{"/healthz", "/decks"} {
		rec := admin.get(path)
		if rec.Code < 500 {
			t.Errorf("GET %s with the database closed = %d, want a 5xx", path, rec.Code)
		}
		checkSecurityHeaders(t, "GET "+path+" with the database closed", rec.Header())
	}
}
