package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/account"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// cheapPasswords keeps argon2id fast in tests; production costs are
// checked in TestHasher.
func cheapPasswords() PasswordParams {
	return PasswordParams{HashParams: account.HashParams{Memory: 64, Time: 1, Threads: 1}, Concurrent: 4}
}

// newAccountServer is newTestServer with a chosen Config (cheap hashes).
func newAccountServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "kubequiz.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if cfg.Password == (PasswordParams{}) {
		cfg.Password = cheapPasswords()
	}
	var logs strings.Builder
	s, err := New(cfg, db, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, db: db, log: &logs}
}

const (
	adminPassword  = "admin passphrase 1"
	memberPassword = "member passphrase 2"
)

// addUser adds an account as the command line does: the checks of
// registration, then a hash by the server's own hasher.
func (ts *testServer) addUser(ctx context.Context, login, displayName, password string, role quiz.Role) (quiz.User, error) {
	login, displayName, err := account.CheckNew(login, displayName, password, password)
	if err != nil {
		return quiz.User{}, err
	}
	hash, err := ts.passwords.hash(ctx, password)
	if err != nil {
		return quiz.User{}, err
	}
	return ts.db.CreateUser(ctx, store.NewUser{Login: login, DisplayName: displayName, PasswordHash: hash, Role: role}, time.Now())
}

// withAdmin adds the admin "root" (registration is closed until an admin
// exists) and returns the server.
func withAdmin(t *testing.T, ts *testServer) *testServer {
	t.Helper()
	if _, err := ts.addUser(context.Background(), "root", "Root", adminPassword, quiz.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	return ts
}

// client is a browser: it keeps cookies, sends no Sec-Fetch-Site (so the
// CSRF token path is what is tested), and posts forms with the CSRF token
// from its cookie.
type client struct {
	t       *testing.T
	ts      *testServer
	ip      string
	cookies map[string]string
}

func newClient(t *testing.T, ts *testServer, ip string) *client {
	return &client{t: t, ts: ts, ip: ip, cookies: map[string]string{}}
}

func (cl *client) send(req *http.Request) *httptest.ResponseRecorder {
	cl.t.Helper()
	req.RemoteAddr = cl.ip + ":40000"
	for name, v := range cl.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: v})
	}
	rec := cl.ts.do(req)
	for _, ck := range rec.Result().Cookies() {
		if ck.MaxAge < 0 || ck.Value == "" {
			delete(cl.cookies, ck.Name)
		} else {
			cl.cookies[ck.Name] = ck.Value
		}
	}
	return rec
}

func (cl *client) get(path string) *httptest.ResponseRecorder {
	cl.t.Helper()
	path, _, _ = strings.Cut(path, "#") // a browser keeps the fragment to itself
	return cl.send(httptest.NewRequest(http.MethodGet, path, nil))
}

// csrfToken returns the CSRF cookie's token, fetching a page first if the
// client has none yet.
func (cl *client) csrfToken() string {
	cl.t.Helper()
	for _, name := range []string{csrfCookie, csrfCookieSecure} {
		if v, ok := cl.cookies[name]; ok {
			return v
		}
	}
	cl.get("/login")
	for _, name := range []string{csrfCookie, csrfCookieSecure} {
		if v, ok := cl.cookies[name]; ok {
			return v
		}
	}
	cl.t.Fatal("no CSRF cookie after GET /login")
	return ""
}

// post sends a form with the right CSRF token.
func (cl *client) post(path string, form url.Values) *httptest.ResponseRecorder {
	cl.t.Helper()
	f := url.Values{csrfFormField: {cl.csrfToken()}}
	for k, v := range form {
		f[k] = v
	}
	return cl.postRaw(path, f)
}

// postRaw sends a form as is.
func (cl *client) postRaw(path string, form url.Values) *httptest.ResponseRecorder {
	cl.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return cl.send(req)
}

func (cl *client) login(login, password string) *httptest.ResponseRecorder {
	cl.t.Helper()
	return cl.post("/login", url.Values{"login": {login}, "password": {password}})
}

func (cl *client) mustLogin(login, password string) {
	cl.t.Helper()
	if rec := cl.login(login, password); rec.Code != http.StatusSeeOther {
		cl.t.Fatalf("login %s = %d, want 303; body %.400s", login, rec.Code, rec.Body.String())
	}
}

func (cl *client) register(login, password string, extra url.Values) *httptest.ResponseRecorder {
	cl.t.Helper()
	f := url.Values{"login": {login}, "password": {password}, "password2": {password}}
	for k, v := range extra {
		f[k] = v
	}
	return cl.post("/register", f)
}

// signedInAs returns the login of the user the client is signed in as, or
// "" (asks /account).
func (cl *client) signedInAs() string {
	cl.t.Helper()
	rec := cl.get("/account")
	if rec.Code != http.StatusOK {
		return ""
	}
	m := regexp.MustCompile(`ログイン名: <strong>([^<]+)</strong>`).FindStringSubmatch(rec.Body.String())
	if m == nil {
		cl.t.Fatalf("/account shows no login: %.500s", rec.Body.String())
	}
	return m[1]
}

// sessionCount counts a user's live sessions through the store.
func sessionCount(t *testing.T, ts *testServer, login string) int {
	t.Helper()
	users, err := ts.db.ListUsers(context.Background(), time.Now(), idleTimeout)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.User.Login == login {
			return u.Sessions
		}
	}
	t.Fatalf("no user %q", login)
	return 0
}

func userExists(t *testing.T, ts *testServer, login string) bool {
	t.Helper()
	_, err := ts.db.Credentials(context.Background(), login)
	if err != nil && !errors.Is(err, quiz.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestRegisterLoginLogout(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.0.1")

	rec := cl.register("Alice", memberPassword, url.Values{"display_name": {"アリス"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
		t.Fatalf("register = %d %q, want 303 to /; body %.400s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	if got := cl.signedInAs(); got != "alice" {
		t.Fatalf("after registering, signed in as %q, want alice (lower-cased)", got)
	}
	home := cl.get("/").Body.String()
	for _, want := range []string{"アリス", `action="/logout"`, `name="_csrf"`} {
		if !strings.Contains(home, want) {
			t.Errorf("home page nav lacks %q", want)
		}
	}
	oldCookie := cl.cookies[sessionCookie]

	if rec := cl.post("/logout", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("logout = %d, want 303", rec.Code)
	}
	if _, ok := cl.cookies[sessionCookie]; ok {
		t.Error("session cookie kept after logout")
	}
	if got := sessionCount(t, ts, "alice"); got != 0 {
		t.Errorf("sessions after logout = %d, want 0", got)
	}
	// The old token must not work any more: logout ended it on the server.
	replay := newClient(t, ts, "127.0.0.1")
	replay.cookies[sessionCookie] = oldCookie
	if got := replay.signedInAs(); got != "" {
		t.Errorf("old session cookie still signs in as %q after logout", got)
	}
	rec = replay.get("/account")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login?next=") {
		t.Errorf("GET /account signed out = %d %q, want 303 to /login", rec.Code, rec.Header().Get("Location"))
	}
	// The sign-in page it leads to says why, and its first field has focus.
	if page := replay.get(rec.Header().Get("Location")).Body.String(); !strings.Contains(page, "このページを開くにはログインしてください。") ||
		!regexp.MustCompile(`<input id="login"[^>]*autofocus`).MatchString(page) {
		t.Errorf("the sign-in page after a refused page: %.2000s", page)
	}
	if page := replay.get("/login").Body.String(); strings.Contains(page, "このページを開くには") {
		t.Error("the sign-in page asked for directly says a page needed it")
	}

	// Sign in again: a new token, and the next page is honoured.
	rec = cl.post("/login", url.Values{"login": {"ALICE"}, "password": {memberPassword}, "next": {"/account?x=1"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/account?x=1" {
		t.Fatalf("login = %d %q, want 303 to /account?x=1", rec.Code, rec.Header().Get("Location"))
	}
	if cl.cookies[sessionCookie] == oldCookie || cl.cookies[sessionCookie] == "" {
		t.Error("login did not issue a new session token")
	}
	if got := cl.signedInAs(); got != "alice" {
		t.Errorf("signed in as %q, want alice", got)
	}
	if !strings.Contains(ts.log.String(), "msg=\"signed in\"") {
		t.Errorf("sign-in not logged:\n%s", ts.log.String())
	}
	if strings.Contains(ts.log.String(), memberPassword) {
		t.Error("a password reached the log")
	}
}

func TestLoginNoFixation(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.0.1")
	planted := strings.Repeat("A", 43)
	cl.cookies[sessionCookie] = planted
	cl.mustLogin("root", adminPassword)
	if cl.cookies[sessionCookie] == planted {
		t.Fatal("login kept the session token the browser brought")
	}
	// A second login from the same browser ends the session it had.
	first := cl.cookies[sessionCookie]
	cl.mustLogin("root", adminPassword)
	if cl.cookies[sessionCookie] == first || sessionCount(t, ts, "root") != 1 {
		t.Errorf("re-login: token reused or old session kept (sessions %d)", sessionCount(t, ts, "root"))
	}
}

func TestLoginFailures(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	member := newClient(t, ts, "127.0.0.9")
	member.register("bob", memberPassword, nil)
	admin := newClient(t, ts, "127.0.0.9")
	admin.mustLogin("root", adminPassword)
	if rec := admin.post("/admin/users/2/disable", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("disable bob = %d", rec.Code)
	}

	tests := []struct {
		name, login, password string
		reason                string
	}{
		{"wrong password", "root", "wrong passphrase 1", "bad_password"},
		{"unknown login", "nobody", "wrong passphrase 1", "unknown_login"},
		{"disabled account", "bob", memberPassword, "disabled"},
		{"right password (control)", "root", adminPassword, ""},
		{"password not trimmed", "root", adminPassword + " ", "bad_password"},
		{"empty", "", "", "unknown_login"},
	}
	var bodies []string
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newClient(t, ts, "127.0.1."+string(rune('1'+i)))
			ts.log.Reset()
			rec := cl.login(tt.login, tt.password)
			if tt.reason == "" {
				if rec.Code != http.StatusSeeOther {
					t.Fatalf("login = %d, want 303", rec.Code)
				}
				return
			}
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("login = %d, want 422", rec.Code)
			}
			body := rec.Body.String()
			if !strings.Contains(body, msgBadCredentials) {
				t.Errorf("body lacks the generic message: %.400s", body)
			}
			if _, ok := cl.cookies[sessionCookie]; ok {
				t.Error("a failed login set a session cookie")
			}
			if !strings.Contains(ts.log.String(), "reason="+tt.reason) {
				t.Errorf("log lacks reason=%s:\n%s", tt.reason, ts.log.String())
			}
			if strings.Contains(ts.log.String(), tt.password) && tt.password != "" {
				t.Error("the password reached the log")
			}
			// Apart from the echoed login (and so which field has focus)
			// and the CSRF token, the pages are the same.
			body = strings.ReplaceAll(body, `value="`+tt.login+`"`, "")
			body = strings.ReplaceAll(body, " autofocus", "")
			body = strings.ReplaceAll(body, cl.csrfToken(), "")
			bodies = append(bodies, body)
		})
	}
	for i := 1; i < len(bodies); i++ {
		if bodies[i] != bodies[0] {
			t.Errorf("failure page %d differs from the first: an attacker could tell why", i)
		}
	}
}

func TestLoginRateLimit(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	attacker := newClient(t, ts, "127.0.0.2")
	lim := loginLimits()
	for i := range lim.PerAccountIP {
		if rec := attacker.login("root", "guess number "+string(rune('a'+i))); rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("failure %d = %d, want 422", i+1, rec.Code)
		}
	}
	// Now even the right password is refused from this address, and the
	// answer does not depend on whether the account exists.
	for _, login := range []string{"root", " ROOT "} {
		rec := attacker.login(login, adminPassword)
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), msgTooManyAttempts) {
			t.Fatalf("attempt after %d failures = %d, want 429 with a message; body %.300s", lim.PerAccountIP, rec.Code, rec.Body.String())
		}
		if rec.Header().Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	// A forged proxy header does not move the attempt to another bucket.
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{
		"login": {"root"}, "password": {adminPassword}, csrfFormField: {attacker.csrfToken()}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", "203.0.113.7")
	req.Header.Set("X-Real-IP", "203.0.113.7")
	if rec := attacker.send(req); rec.Code != http.StatusTooManyRequests {
		t.Errorf("with X-Forwarded-For = %d, want 429", rec.Code)
	}
	// The counter lives in SQLite; refused attempts are not added.
	c, err := ts.db.LoginFailures(ctx, "root", "127.0.0.2", time.Now().Add(-lim.Window))
	if err != nil {
		t.Fatal(err)
	}
	if c.AccountIP != lim.PerAccountIP {
		t.Errorf("failures stored for root from 127.0.0.2 = %d, want %d", c.AccountIP, lim.PerAccountIP)
	}
	// The owner, elsewhere, is not locked out; success clears that pair.
	owner := newClient(t, ts, "127.0.0.3")
	owner.login("root", "typo passphrase")
	owner.mustLogin("root", adminPassword)
	if c, _ := ts.db.LoginFailures(ctx, "root", "127.0.0.3", time.Now().Add(-lim.Window)); c.AccountIP != 0 {
		t.Errorf("failures for the owner's address after success = %d, want 0", c.AccountIP)
	}

	// One address guessing many accounts hits the per-address limit.
	spray := newClient(t, ts, "127.0.0.4")
	for i := range lim.PerIP {
		login := "user" + string(rune('a'+i/4)) // 4 tries per login stay under the per-account limit
		if rec := spray.login(login, "guess passphrase"); rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("spray %d = %d, want 422", i+1, rec.Code)
		}
	}
	if rec := spray.login("someoneelse", "guess passphrase"); rec.Code != http.StatusTooManyRequests {
		t.Errorf("attempt after %d failures from one address = %d, want 429", lim.PerIP, rec.Code)
	}
	if c, _ := ts.db.LoginFailures(ctx, "x", "127.0.0.4", time.Now().Add(-lim.Window)); c.IP != lim.PerIP {
		t.Errorf("failures stored for 127.0.0.4 = %d, want %d", c.IP, lim.PerIP)
	}
	if !strings.Contains(ts.log.String(), "reason=rate_limited") {
		t.Error("rate-limited attempts are not logged")
	}
}

func TestCSRF(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.0.1")
	token := cl.csrfToken()
	form := func(login string, tok *string) url.Values {
		f := url.Values{"login": {login}, "password": {memberPassword}, "password2": {memberPassword}}
		if tok != nil {
			f.Set(csrfFormField, *tok)
		}
		return f
	}
	wrong := strings.Repeat("x", len(token))
	empty := ""
	tests := []struct {
		name     string
		login    string
		form     url.Values
		header   map[string]string
		noCookie bool
		want     int
	}{
		{"missing token", "nocsrf1", form("nocsrf1", nil), nil, false, http.StatusForbidden},
		{"empty token", "nocsrf2", form("nocsrf2", &empty), nil, false, http.StatusForbidden},
		{"wrong token", "nocsrf3", form("nocsrf3", &wrong), nil, false, http.StatusForbidden},
		{"token without cookie", "nocsrf4", form("nocsrf4", &token), nil, true, http.StatusForbidden},
		{"cross-site even with token", "nocsrf5", form("nocsrf5", &token), map[string]string{"Sec-Fetch-Site": "cross-site"}, false, http.StatusForbidden},
		{"wrong header", "nocsrf6", form("nocsrf6", nil), map[string]string{"X-CSRF-Token": wrong}, false, http.StatusForbidden},
		{"header token", "okcsrf1", form("okcsrf1", nil), map[string]string{"X-CSRF-Token": token}, false, http.StatusSeeOther},
		{"form token", "okcsrf2", form("okcsrf2", &token), nil, false, http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/register", strings.NewReader(tt.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.RemoteAddr = "127.0.0.1:40000"
			if !tt.noCookie {
				req.AddCookie(&http.Cookie{Name: csrfCookie, Value: token})
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := ts.do(req)
			if rec.Code != tt.want {
				t.Fatalf("POST /register = %d, want %d; body %.300s", rec.Code, tt.want, rec.Body.String())
			}
			created := userExists(t, ts, tt.login)
			if created != (tt.want == http.StatusSeeOther) {
				t.Errorf("user %s created = %v after status %d", tt.login, created, rec.Code)
			}
			if tt.want == http.StatusForbidden && rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("403 lacks the security headers")
			}
		})
	}

	// Sign-out without a token keeps the session.
	cl.mustLogin("root", adminPassword)
	if rec := cl.postRaw("/logout", url.Values{}); rec.Code != http.StatusForbidden {
		t.Errorf("logout without token = %d, want 403", rec.Code)
	}
	if got := cl.signedInAs(); got != "root" {
		t.Errorf("after a refused logout signed in as %q, want root", got)
	}
	// Unknown methods still get 405, not a CSRF 403.
	if rec := cl.send(httptest.NewRequest(http.MethodDelete, "/login", nil)); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE /login = %d, want 405", rec.Code)
	}
	// The pages carry the token for htmx and for forms.
	body := cl.get("/account").Body.String()
	tok := cl.csrfToken()
	for _, want := range []string{`<meta name="csrf-token" content="` + tok + `">`, `name="_csrf" value="` + tok + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("account page lacks %s", want)
		}
	}
}

func TestCSRFRotatesAtLogin(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.0.1")
	before := cl.csrfToken()
	cl.mustLogin("root", adminPassword)
	after, ok := cl.cookies[csrfCookie]
	if !ok || after == before {
		t.Fatalf("CSRF cookie after login = %q (set %v), want a new one", after, ok)
	}
	if want := sessionCSRF(cl.cookies[sessionCookie]); after != want {
		t.Errorf("CSRF cookie after login = %q, want the session's token %q", after, want)
	}
	// The cookie and token from before login, sent again together (planted
	// back, say), no longer work.
	cl.cookies[csrfCookie] = before
	if rec := cl.postRaw("/account/name", url.Values{csrfFormField: {before}, "display_name": {"Planted"}}); rec.Code != http.StatusForbidden {
		t.Errorf("the cookie and token from before login = %d, want 403", rec.Code)
	}
	// The refusal hands the browser its session's token back, and that works.
	if got := cl.cookies[csrfCookie]; got != after {
		t.Errorf("CSRF cookie after the refusal = %q, want the session's %q", got, after)
	}
	if rec := cl.post("/account/name", url.Values{"display_name": {"Root"}}); rec.Code != http.StatusSeeOther {
		t.Errorf("a form after the refusal = %d, want 303", rec.Code)
	}
}

// TestCSRFBoundToSession: a signed-in browser's CSRF cookie must be its
// session's token. A cookie planted with a token of the attacker's own (from
// a sibling subdomain, or over plain HTTP), or another user's token, is
// refused even when the form sends the same token; the same-origin browser
// that echo lets through without a token is not refused, and a page
// replaces a cookie that is not the session's.
func TestCSRFBoundToSession(t *testing.T) {
	for _, secure := range []bool{false, true} {
		ts := withAdmin(t, newAccountServer(t, Config{SecureCookies: secure}))
		csrfName, sessName := csrfCookie, sessionCookie
		if secure {
			csrfName, sessName = csrfCookieSecure, sessionCookieSecure
		}
		alice, bob := newClient(t, ts, "127.0.8.1"), newClient(t, ts, "127.0.8.2")
		for _, r := range []struct {
			cl    *client
			login string
		}{{alice, "alice"}, {bob, "bob"}} {
			if rec := r.cl.register(r.login, memberPassword, nil); rec.Code != http.StatusSeeOther {
				t.Fatalf("register %s = %d", r.login, rec.Code)
			}
		}
		own, bobs := alice.cookies[csrfName], bob.cookies[csrfName]
		tests := []struct {
			name   string
			cookie string // alice's CSRF cookie for this request
			token  string // the token in the form; "" sends none
			header map[string]string
			want   int
		}{
			{"a planted cookie and the same token", "planted", "planted", nil, http.StatusForbidden},
			{"a planted well-formed token", sessionCSRF("not a session"), sessionCSRF("not a session"), nil, http.StatusForbidden},
			{"another user's cookie and token", bobs, bobs, nil, http.StatusForbidden},
			{"a planted cookie, the token in the header", "planted", "", map[string]string{echo.HeaderXCSRFToken: "planted"}, http.StatusForbidden},
			{"a planted cookie from a sibling subdomain", "planted", "planted", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
			{"the session's own token", own, own, nil, http.StatusSeeOther},
			{"a same-origin browser, no token", "planted", "", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusSeeOther},
		}
		for i, tt := range tests {
			name := fmt.Sprintf("Name %d", i)
			form := url.Values{"display_name": {name}}
			if tt.token != "" {
				form.Set(csrfFormField, tt.token)
			}
			req := httptest.NewRequest(http.MethodPost, "/account/name", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			req.RemoteAddr = alice.ip + ":40000"
			req.AddCookie(&http.Cookie{Name: sessName, Value: alice.cookies[sessName]})
			req.AddCookie(&http.Cookie{Name: csrfName, Value: tt.cookie})
			rec := ts.do(req)
			if rec.Code != tt.want {
				t.Errorf("secure=%v, %s: POST /account/name = %d, want %d", secure, tt.name, rec.Code, tt.want)
			}
			changed := displayName(t, ts, "alice") == name
			if changed != (tt.want == http.StatusSeeOther) {
				t.Errorf("secure=%v, %s: display name changed = %v after %d", secure, tt.name, changed, rec.Code)
			}
		}

		// A page replaces a planted cookie with the session's token and
		// shows that token.
		alice.cookies[csrfName] = "planted"
		rec := alice.get("/account")
		if got := alice.cookies[csrfName]; got != own {
			t.Errorf("secure=%v: CSRF cookie after a page = %q, want the session's %q", secure, got, own)
		}
		n := 0
		for _, v := range rec.Header().Values("Set-Cookie") {
			if strings.HasPrefix(v, csrfName+"=") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("secure=%v: the page set the CSRF cookie %d times, want once: %q", secure, n, rec.Header().Values("Set-Cookie"))
		}
		if body := rec.Body.String(); !strings.Contains(body, `name="_csrf" value="`+own+`"`) {
			t.Errorf("secure=%v: the account page does not carry the session's token", secure)
		}
	}
}

// setCookies returns the raw Set-Cookie headers by cookie name.
func setCookies(rec *httptest.ResponseRecorder) map[string]string {
	out := map[string]string{}
	for _, h := range rec.Header().Values("Set-Cookie") {
		name, _, _ := strings.Cut(h, "=")
		out[name] = h
	}
	return out
}

func TestCookieFlags(t *testing.T) {
	tests := []struct {
		name          string
		secure        bool
		tls           bool
		session, csrf string
		wantSecure    bool
	}{
		{"plain http", false, false, sessionCookie, csrfCookie, false},
		{"SecureCookies behind a proxy", true, false, sessionCookieSecure, csrfCookieSecure, true},
		{"direct TLS", false, true, sessionCookieSecure, csrfCookieSecure, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := withAdmin(t, newAccountServer(t, Config{SecureCookies: tt.secure}))
			cl := newClient(t, ts, "127.0.0.1")
			get := httptest.NewRequest(http.MethodGet, "https://kq.example/login", nil)
			if !tt.tls {
				get.TLS = nil
			}
			rec := cl.send(get)
			csrf, ok := setCookies(rec)[tt.csrf]
			if !ok {
				t.Fatalf("GET /login set no %s cookie: %v", tt.csrf, rec.Header().Values("Set-Cookie"))
			}
			f := url.Values{"login": {"root"}, "password": {adminPassword}, csrfFormField: {cl.cookies[tt.csrf]}}
			post := httptest.NewRequest(http.MethodPost, "https://kq.example/login", strings.NewReader(f.Encode()))
			post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if !tt.tls {
				post.TLS = nil
			}
			rec = cl.send(post)
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("login = %d, want 303", rec.Code)
			}
			sess, ok := setCookies(rec)[tt.session]
			if !ok {
				t.Fatalf("login set no %s cookie: %v", tt.session, rec.Header().Values("Set-Cookie"))
			}
			for name, h := range map[string]string{"session": sess, "csrf": csrf} {
				for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/"} {
					if !strings.Contains(h, want) {
						t.Errorf("%s cookie %q lacks %s", name, h, want)
					}
				}
				if got := strings.Contains(h, "; Secure"); got != tt.wantSecure {
					t.Errorf("%s cookie %q: Secure = %v, want %v", name, h, got, tt.wantSecure)
				}
				if strings.Contains(h, "Domain=") {
					t.Errorf("%s cookie %q has a Domain", name, h)
				}
			}
			if v := cl.cookies[tt.session]; !wellFormedToken(v) {
				t.Errorf("session token %q is not 256 bits of base64url", v)
			}
			if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
				t.Errorf("login response Cache-Control = %q, want no-store", cc)
			}
		})
	}
}

func TestNoStore(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.0.1")
	cl.mustLogin("root", adminPassword)
	for _, path := range []string{"/login", "/register", "/account", "/admin/users", "/"} {
		if cc := cl.get(path).Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("GET %s Cache-Control = %q, want no-store", path, cc)
		}
	}
}

func TestPasswordChange(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	laptop := newClient(t, ts, "127.0.0.1")
	laptop.register("carol", memberPassword, nil)
	phone := newClient(t, ts, "127.0.0.5")
	phone.mustLogin("carol", memberPassword)
	oldLaptop := laptop.cookies[sessionCookie]

	const newPassword = "a whole new passphrase"
	tests := []struct {
		name    string
		current string
		pw, pw2 string
		want    int
		msg     string
	}{
		{"wrong current", "not my password", newPassword, newPassword, http.StatusUnprocessableEntity, msgWrongCurrent},
		{"mismatch", memberPassword, newPassword, newPassword + "x", http.StatusUnprocessableEntity, account.Problem{Code: account.PasswordsDiffer}.Error()},
		{"too short", memberPassword, "short", "short", http.StatusUnprocessableEntity, "10文字以上"},
		{"common", memberPassword, "password1234", "password1234", http.StatusUnprocessableEntity, "よく使われる"},
		{"ok", memberPassword, newPassword, newPassword, http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := laptop.post("/account/password", url.Values{"current_password": {tt.current}, "password": {tt.pw}, "password2": {tt.pw2}})
			if rec.Code != tt.want {
				t.Fatalf("change = %d, want %d; body %.300s", rec.Code, tt.want, rec.Body.String())
			}
			if tt.msg != "" && !strings.Contains(rec.Body.String(), tt.msg) {
				t.Errorf("body lacks %q", tt.msg)
			}
			// A refused change puts focus, and so the eye, on the form
			// beside its message, far down the page.
			if focus := strings.Contains(rec.Body.String(), `id="current_password" name="current_password" type="password" autocomplete="current-password" required autofocus`); focus != (tt.msg != "") {
				t.Errorf("the current password field has autofocus: %v, want %v", focus, tt.msg != "")
			}
		})
	}
	if got := phone.signedInAs(); got != "" {
		t.Errorf("the other device is still signed in as %q after the password change", got)
	}
	if laptop.cookies[sessionCookie] == oldLaptop {
		t.Error("the changing browser kept its old token")
	}
	if got := laptop.signedInAs(); got != "carol" {
		t.Errorf("the changing browser is signed in as %q, want carol", got)
	}
	stale := newClient(t, ts, "127.0.0.1")
	stale.cookies[sessionCookie] = oldLaptop
	if got := stale.signedInAs(); got != "" {
		t.Errorf("the old token of the changing browser still works (%q)", got)
	}
	if sessionCount(t, ts, "carol") != 1 {
		t.Errorf("sessions after change = %d, want 1", sessionCount(t, ts, "carol"))
	}
	if rec := newClient(t, ts, "127.0.0.6").login("carol", memberPassword); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("old password login = %d, want 422", rec.Code)
	}
	newClient(t, ts, "127.0.0.7").mustLogin("carol", newPassword)
}

func TestDisplayName(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	cl := newClient(t, ts, "127.0.0.1")
	cl.mustLogin("root", adminPassword)
	tests := []struct {
		name, value string
		want        int
	}{
		{"ok", "  管理人 ", http.StatusSeeOther},
		{"too long", strings.Repeat("あ", 51), http.StatusUnprocessableEntity},
		{"control", "a\nb", http.StatusUnprocessableEntity},
		{"ideographic space", "山田\u3000太郎", http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := cl.post("/account/name", url.Values{"display_name": {tt.value}})
			if rec.Code != tt.want {
				t.Fatalf("= %d, want %d", rec.Code, tt.want)
			}
			if refused := tt.want != http.StatusSeeOther; refused != strings.Contains(rec.Body.String(), `autocomplete="nickname" autofocus`) {
				t.Errorf("refused %v, and the name field's autofocus does not say so: %.2000s", refused, rec.Body.String())
			}
		})
	}
	u, err := ts.db.Credentials(context.Background(), "root")
	if err != nil || u.User.DisplayName != "山田\u3000太郎" {
		t.Errorf("display name = %q (%v), want the last one set", u.User.DisplayName, err)
	}

	// A form without the field (not one of the account page's, which
	// always sends it) is refused and changes nothing; the field sent
	// empty clears the name.
	for _, tt := range []struct {
		name string
		form url.Values
		want int
		msg  string
		left string // the display name afterwards
	}{
		{"no field", url.Values{}, http.StatusBadRequest, msgNameMissing, "山田\u3000太郎"},
		{"another field only", url.Values{"name": {"x"}}, http.StatusBadRequest, msgNameMissing, "山田\u3000太郎"},
		{"the field, empty", url.Values{"display_name": {""}}, http.StatusSeeOther, "", ""},
	} {
		rec := cl.post("/account/name", tt.form)
		if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.msg) {
			t.Errorf("%s: = %d, want %d saying %q: %.2000s", tt.name, rec.Code, tt.want, tt.msg, rec.Body.String())
		}
		if u, err := ts.db.Credentials(context.Background(), "root"); err != nil || u.User.DisplayName != tt.left {
			t.Errorf("%s: display name = %q (%v), want %q", tt.name, u.User.DisplayName, err, tt.left)
		}
	}
}

func TestSetup(t *testing.T) {
	ts := newAccountServer(t, Config{})
	ctx := context.Background()
	visitor := newClient(t, ts, "127.0.0.8")
	if rec := visitor.register("early", memberPassword, nil); rec.Code != http.StatusForbidden || userExists(t, ts, "early") {
		t.Fatalf("registration before setup = %d, want 403 and no user", rec.Code)
	}

	link, ok, err := ts.SetupLink(ctx, "http://127.0.0.1:8080/")
	if err != nil || !ok {
		t.Fatalf("SetupLink = %q, %v, %v", link, ok, err)
	}
	first, _, _ := ts.SetupLink(ctx, "http://127.0.0.1:8080")
	if !strings.HasPrefix(first, "http://127.0.0.1:8080/setup?token=") {
		t.Fatalf("link %q", first)
	}
	oldTok := strings.TrimPrefix(link, "http://127.0.0.1:8080/setup?token=")
	tok := strings.TrimPrefix(first, "http://127.0.0.1:8080/setup?token=")

	cl := newClient(t, ts, "127.0.0.1")
	for _, bad := range []string{"", "nope", oldTok, strings.Repeat("A", 43)} {
		if rec := cl.get("/setup?token=" + url.QueryEscape(bad)); rec.Code != http.StatusNotFound {
			t.Errorf("GET /setup with token %q = %d, want 404", bad, rec.Code)
		}
	}
	if rec := cl.get("/setup?token=" + tok); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `name="token" value="`+tok+`"`) {
		t.Fatalf("GET /setup = %d", rec.Code)
	}
	form := func(login string) url.Values {
		return url.Values{"token": {tok}, "login": {login}, "password": {adminPassword}, "password2": {adminPassword}}
	}
	if rec := cl.post("/setup", url.Values{"token": {tok}, "login": {"admin"}, "password": {"short"}, "password2": {"short"}}); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("setup with a short password = %d, want 422", rec.Code)
	}
	rec := cl.post("/setup", form("admin"))
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/admin/users" {
		t.Fatalf("setup = %d %q, want 303 to /admin/users; body %.300s", rec.Code, rec.Header().Get("Location"), rec.Body.String())
	}
	if cl.get("/admin/users").Code != http.StatusOK {
		t.Error("the new admin cannot open /admin/users")
	}
	// The token is used up.
	other := newClient(t, ts, "127.0.0.9")
	if rec := other.post("/setup", form("admin2")); rec.Code != http.StatusNotFound || userExists(t, ts, "admin2") {
		t.Errorf("second setup = %d (admin2 exists: %v), want 404 and no user", rec.Code, userExists(t, ts, "admin2"))
	}
	if rec := other.get("/setup?token=" + tok); rec.Code != http.StatusNotFound {
		t.Errorf("GET /setup after use = %d, want 404", rec.Code)
	}
	if _, ok, err := ts.SetupLink(ctx, "http://x"); ok || err != nil {
		t.Errorf("SetupLink with an admin = %v, %v; want false", ok, err)
	}
	if u, err := ts.db.Credentials(ctx, "admin"); err != nil || !u.User.IsAdmin() {
		t.Errorf("setup user: %+v, %v; want an admin", u.User, err)
	}
}

// inviteCode finds the new invite code on an admin page ("" for none).
func inviteCode(body string) string {
	m := regexp.MustCompile(`<code class="invite-code">([^<]+)</code>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

// createInvite makes an invite as an admin would: the POST, then the page
// it redirects to, which shows the code.
func (cl *client) createInvite() string {
	cl.t.Helper()
	rec := cl.post("/admin/users/invites", nil)
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/admin/users?") {
		cl.t.Fatalf("create invite = %d, Location %q; want 303 to /admin/users", rec.Code, loc)
	}
	page := cl.get(loc)
	code := inviteCode(page.Body.String())
	if page.Code != http.StatusOK || code == "" {
		cl.t.Fatalf("page after creating an invite = %d, no code; body %.500s", page.Code, page.Body.String())
	}
	// The expiry is in the admin's zone (Asia/Tokyo by default), which it names.
	if !regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d \(Asia/Tokyo\) まで有効`).MatchString(page.Body.String()) {
		cl.t.Errorf("the new invite's expiry does not name its time zone: %.3000s", page.Body.String())
	}
	return code
}

// TestInviteShownOnceAfterRedirect: the code is on the page the POST leads
// to, a reload neither shows it again nor makes another, and revoking
// makes every unused code stop working.
func TestInviteShownOnceAfterRedirect(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	admin := newClient(t, ts, "127.0.0.1")
	admin.mustLogin("root", adminPassword)
	first := admin.createInvite()

	reload := admin.get("/admin/users?done=invite")
	if code := inviteCode(reload.Body.String()); code != "" {
		t.Errorf("a reload shows the code again: %q", code)
	}
	// Said in the invite section, where the page jumps, not above it.
	if b := reload.Body.String(); strings.Index(b, msgInviteShownOnce) < strings.Index(b, `id="invite-heading"`) {
		t.Error("a reload does not say, in the invite section, that the code is shown once")
	}
	if n, err := ts.db.PendingInvites(ctx, time.Now()); err != nil || n != 1 {
		t.Errorf("after a reload: %d pending invites (%v); want 1", n, err)
	}

	second := admin.createInvite()
	if first == second {
		t.Fatal("two invites with one code")
	}
	rec := admin.post("/admin/users/invites/revoke", nil)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("revoke = %d, want 303", rec.Code)
	}
	if b := admin.get(rec.Header().Get("Location")).Body.String(); strings.Index(b, msgInvitesRevoked) < strings.Index(b, `id="invite-heading"`) {
		t.Error("the page after revoking does not say so in the invite section")
	}
	if n, err := ts.db.PendingInvites(ctx, time.Now()); err != nil || n != 0 {
		t.Errorf("after revoking: %d pending invites (%v); want 0", n, err)
	}
	admin.cookies[inviteCookie] = second // replayed: it no longer works
	if code := inviteCode(admin.get("/admin/users?done=invite").Body.String()); code != "" {
		t.Errorf("a revoked code is shown: %q", code)
	}
	admin.post("/admin/users/registration", url.Values{"registration": {"invite"}})
	for _, code := range []string{first, second} {
		if rec := newClient(t, ts, "127.0.0.3").register("dave", memberPassword, url.Values{"invite": {code}}); rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("register with a revoked invite = %d, want 422", rec.Code)
		}
	}
	if userExists(t, ts, "dave") {
		t.Error("a revoked invite registered an account")
	}
}

func TestInviteOnlyRegistration(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	admin := newClient(t, ts, "127.0.0.1")
	admin.mustLogin("root", adminPassword)
	if rec := admin.post("/admin/users/registration", url.Values{"registration": {"invite"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("switch to invite = %d", rec.Code)
	}
	guest := newClient(t, ts, "127.0.0.2")
	if body := guest.get("/register").Body.String(); !strings.Contains(body, `name="invite"`) {
		t.Error("invite-only registration page has no invite field")
	}
	invite := admin.createInvite()

	tests := []struct {
		name, login, invite string
		want                int
	}{
		{"no invite", "dave", "", http.StatusUnprocessableEntity},
		{"bogus invite", "dave", "not-an-invite", http.StatusUnprocessableEntity},
		{"valid invite", "dave", invite, http.StatusSeeOther},
		{"used invite", "erin", invite, http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newClient(t, ts, "127.0.0.3")
			rec := cl.register(tt.login, memberPassword, url.Values{"invite": {tt.invite}})
			if rec.Code != tt.want {
				t.Fatalf("register = %d, want %d; body %.300s", rec.Code, tt.want, rec.Body.String())
			}
			if got := userExists(t, ts, tt.login); got != (tt.want == http.StatusSeeOther) {
				t.Errorf("user %s exists = %v", tt.login, got)
			}
		})
	}
	// Open again: no invite needed.
	admin.post("/admin/users/registration", url.Values{"registration": {"open"}})
	if rec := newClient(t, ts, "127.0.0.4").register("frank", memberPassword, nil); rec.Code != http.StatusSeeOther {
		t.Errorf("open registration = %d, want 303", rec.Code)
	}
	if rec := admin.post("/admin/users/registration", url.Values{"registration": {"everyone"}}); rec.Code != http.StatusBadRequest {
		t.Errorf("unknown mode = %d, want 400", rec.Code)
	}
}

func TestRegistrationValidation(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	tests := []struct {
		name, login, pw, pw2 string
		want                 string
		wantMarked           string // the input marked invalid
		wantFocus            string // the input with focus
	}{
		{"taken", "ROOT", memberPassword, memberPassword, msgLoginTaken, "login", "login"},
		{"bad login", "a b", memberPassword, memberPassword, "ログイン名は", "login", "login"},
		{"short login", "ab", memberPassword, memberPassword, "ログイン名は", "login", "login"},
		// Both passwords come back empty: typed again from the first.
		{"mismatch", "gina", memberPassword, "other", account.Problem{Code: account.PasswordsDiffer}.Error(), "password2", "password"},
		{"password is login", "ginaginagina", "GinaGinaGina", "GinaGinaGina", "推測しやすい", "password", "password"},
		{"short password", "gina", "nine char", "nine char", "10文字以上", "password", "password"},
	}
	marked := regexp.MustCompile(`<input id="([a-z_0-9]+)"[^>]*aria-invalid="true"`)
	focused := regexp.MustCompile(`<input id="([a-z_0-9]+)"[^>]*autofocus`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newClient(t, ts, "127.0.0.1")
			rec := cl.post("/register", url.Values{"login": {tt.login}, "password": {tt.pw}, "password2": {tt.pw2}})
			if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tt.want) {
				t.Fatalf("register = %d, want 422 with %q; body %.400s", rec.Code, tt.want, rec.Body.String())
			}
			if m := marked.FindAllStringSubmatch(rec.Body.String(), -1); len(m) != 1 || m[0][1] != tt.wantMarked {
				t.Errorf("marked inputs %v, want %s alone", m, tt.wantMarked)
			}
			if m := focused.FindAllStringSubmatch(rec.Body.String(), -1); len(m) != 1 || m[0][1] != tt.wantFocus {
				t.Errorf("focused inputs %v, want %s alone", m, tt.wantFocus)
			}
			if strings.Contains(rec.Body.String(), tt.pw) && len(tt.pw) > 5 {
				t.Error("the password was echoed back into the form")
			}
		})
	}
}

func TestSafeNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "/"},
		{"/study?deck=3", "/study?deck=3"},
		{"/", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{"/\\evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"/logout", "/"},
		{"/%2F%2Fevil.example", "/%2F%2Fevil.example"}, // a local path once decoded by us, not by the browser
	}
	for _, tt := range tests {
		if got := safeNext(tt.in); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	ts := withAdmin(t, newAccountServer(t, Config{}))
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example"} {
		cl := newClient(t, ts, "127.0.0.1")
		rec := cl.post("/login", url.Values{"login": {"root"}, "password": {adminPassword}, "next": {next}})
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
			t.Errorf("login with next=%q = %d %q, want 303 to /", next, rec.Code, rec.Header().Get("Location"))
		}
		if page := cl.get("/login?next=" + url.QueryEscape(next)); page.Header().Get("Location") != "/" {
			t.Errorf("GET /login?next=%q while signed in redirects to %q", next, page.Header().Get("Location"))
		}
	}
}

func TestAdminAuthorization(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	member := newClient(t, ts, "127.0.0.1")
	member.register("henry", memberPassword, nil)
	anon := newClient(t, ts, "127.0.0.2")

	tests := []struct {
		name   string
		cl     *client
		method string
		path   string
		want   int
	}{
		{"member list", member, http.MethodGet, "/admin/users", http.StatusForbidden},
		{"member switch registration", member, http.MethodPost, "/admin/users/registration", http.StatusForbidden},
		{"member invite", member, http.MethodPost, "/admin/users/invites", http.StatusForbidden},
		{"member disable admin", member, http.MethodPost, "/admin/users/1/disable", http.StatusForbidden},
		{"anonymous list", anon, http.MethodGet, "/admin/users", http.StatusSeeOther},
		{"anonymous invite", anon, http.MethodPost, "/admin/users/invites", http.StatusUnauthorized},
		{"member revoke", member, http.MethodPost, "/admin/users/invites/revoke", http.StatusForbidden},
		{"anonymous revoke", anon, http.MethodPost, "/admin/users/invites/revoke", http.StatusUnauthorized},
		{"anonymous account", anon, http.MethodPost, "/account/password", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec *httptest.ResponseRecorder
			if tt.method == http.MethodGet {
				rec = tt.cl.get(tt.path)
			} else {
				rec = tt.cl.post(tt.path, url.Values{"registration": {"invite"}})
			}
			if rec.Code != tt.want {
				t.Fatalf("%s %s = %d, want %d", tt.method, tt.path, rec.Code, tt.want)
			}
		})
	}
	mode, _ := ts.db.RegistrationMode(context.Background())
	invites, _ := ts.db.PendingInvites(context.Background(), time.Now())
	if mode != store.RegistrationOpen || invites != 0 {
		t.Errorf("after refused requests: mode %q, invites %d; want open, 0", mode, invites)
	}
	if u, _ := ts.db.Credentials(context.Background(), "root"); u.Disabled {
		t.Error("a member disabled the admin")
	}
	if body := member.get("/").Body.String(); strings.Contains(body, `href="/admin/users"`) {
		t.Error("a member's nav links to the admin page")
	}
}

func TestAdminUserActions(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	member := newClient(t, ts, "127.0.0.1")
	member.register("ivan", memberPassword, nil)
	admin := newClient(t, ts, "127.0.0.2")
	admin.mustLogin("root", adminPassword)
	page := admin.get("/admin/users").Body.String()
	for _, want := range []string{"ivan", "メンバー", "管理者", `action="/admin/users/2/disable"`} {
		if !strings.Contains(page, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
	if strings.Contains(page, `action="/admin/users/1/disable"`) {
		t.Error("the admin page offers disabling oneself")
	}
	if rec := admin.post("/admin/users/1/disable", nil); rec.Code != http.StatusForbidden {
		t.Errorf("disable self = %d, want 403", rec.Code)
	}
	if rec := admin.post("/admin/users/99/disable", nil); rec.Code != http.StatusNotFound {
		t.Errorf("disable unknown = %d, want 404", rec.Code)
	}
	if rec := admin.post("/admin/users/2/signout", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("sign out ivan = %d", rec.Code)
	}
	if got := member.signedInAs(); got != "" {
		t.Errorf("ivan still signed in as %q after the admin ended his sessions", got)
	}
	member.mustLogin("ivan", memberPassword)
	if rec := admin.post("/admin/users/2/disable", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("disable ivan = %d", rec.Code)
	}
	if got := member.signedInAs(); got != "" {
		t.Errorf("a disabled user's session still works (%q)", got)
	}
	if rec := member.login("ivan", memberPassword); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("disabled user login = %d, want 422", rec.Code)
	}
	if rec := admin.post("/admin/users/2/enable", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("enable ivan = %d", rec.Code)
	}
	member.mustLogin("ivan", memberPassword)
}

// TestHasherBusy: a busy hasher gives up instead of queueing forever.
func TestHasherBusy(t *testing.T) {
	busy := newHasher(PasswordParams{HashParams: account.HashParams{Memory: 64, Time: 1, Threads: 1}, Concurrent: 1})
	busy.slots <- struct{}{}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := busy.hash(cctx, "x"); !errors.Is(err, errHashBusy) {
		t.Errorf("hash with no free slot = %v, want errHashBusy", err)
	}
	if _, _, err := busy.verify(cctx, "x", "x"); !errors.Is(err, errHashBusy) {
		t.Errorf("verify with no free slot = %v, want errHashBusy", err)
	}
}

func TestRehashOnLogin(t *testing.T) {
	ts := newAccountServer(t, Config{Password: PasswordParams{HashParams: account.HashParams{Memory: 32, Time: 1, Threads: 1}}})
	if _, err := ts.addUser(context.Background(), "old", "", memberPassword, quiz.RoleMember); err != nil {
		t.Fatal(err)
	}
	// The same database served with higher costs upgrades the hash at sign-in.
	s2, err := New(Config{Password: cheapPasswords()}, ts.db, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts2 := &testServer{Server: s2, db: ts.db, log: ts.log}
	newClient(t, ts2, "127.0.0.1").mustLogin("old", memberPassword)
	c, _ := ts.db.Credentials(context.Background(), "old")
	if !strings.Contains(c.PasswordHash, "m=64,t=1,p=1") {
		t.Errorf("hash after login %q, want the new costs", c.PasswordHash)
	}
	newClient(t, ts2, "127.0.0.2").mustLogin("old", memberPassword)
}

func TestLogSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"alice", "alice"},
		{"a\nlevel=ERROR msg=forged", "a\uFFFDlevel=ERROR msg=forged"},
		{"\x1b[31mred", "\uFFFD[31mred"},
		{strings.Repeat("x", 70), strings.Repeat("x", 64) + "…"},
	}
	for _, tt := range tests {
		if got := logSafe(tt.in); got != tt.want {
			t.Errorf("logSafe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPagesHaveLabels(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	admin := newClient(t, ts, "127.0.0.1")
	admin.mustLogin("root", adminPassword)
	admin.post("/admin/users/registration", url.Values{"registration": {"invite"}})
	anon := newClient(t, ts, "127.0.0.2")
	idRe := regexp.MustCompile(`<(?:input|select|textarea)[^>]*\bid="([^"]+)"`)
	ctlRe := regexp.MustCompile(`<(?:input|select|textarea)\b[^>]*>`)
	for _, p := range []struct {
		cl   *client
		path string
	}{{anon, "/login"}, {anon, "/register"}, {admin, "/account"}, {admin, "/admin/users"}} {
		body := p.cl.get(p.path).Body.String()
		for _, ctl := range ctlRe.FindAllString(body, -1) {
			if strings.Contains(ctl, `type="hidden"`) || strings.Contains(ctl, " hidden") {
				continue
			}
			m := idRe.FindStringSubmatch(ctl)
			if m == nil || !strings.Contains(body, `for="`+m[1]+`"`) {
				t.Errorf("%s: control without a label: %s", p.path, ctl)
			}
		}
		if strings.Count(body, "<form") != strings.Count(body, `name="_csrf"`) {
			t.Errorf("%s: a form lacks the CSRF field", p.path)
		}
		if !strings.Contains(body, fmt.Sprintf(`minlength="%d"`, account.MinPasswordLen)) && (p.path == "/register" || p.path == "/account") {
			t.Errorf("%s: password minlength is not %d", p.path, account.MinPasswordLen)
		}
	}
}

// TestInviteCookieStaysWithItsAdmin: a new code not yet shown is not shown
// to another admin in the same browser, nor taken by a HEAD request or by
// any page but the one its POST leads to.
func TestInviteCookieStaysWithItsAdmin(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	if _, err := ts.addUser(context.Background(), "second", "Second", adminPassword, quiz.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, ts, "192.0.2.50")
	createdBy := func(login string) {
		t.Helper()
		cl.mustLogin(login, adminPassword)
		if rec := cl.post("/admin/users/invites", nil); rec.Code != http.StatusSeeOther {
			t.Fatalf("create invite = %d", rec.Code)
		}
	}

	// HEAD, and a plain visit of the page, leave the code to its page.
	createdBy("root")
	if rec := cl.send(httptest.NewRequest(http.MethodHead, "/admin/users?done=invite", nil)); rec.Code != http.StatusOK {
		t.Fatalf("HEAD = %d", rec.Code)
	}
	if code := inviteCode(cl.get("/admin/users").Body.String()); code != "" {
		t.Error("a plain visit of the page took the code")
	}
	if code := inviteCode(cl.get("/admin/users?done=invite").Body.String()); code == "" {
		t.Error("after a HEAD and a plain visit, the page the POST leads to shows no code")
	}

	// Signed out before the page came: the next admin does not get it.
	createdBy("root")
	rec := cl.post("/logout", nil)
	if _, kept := cl.cookies[inviteCookie]; kept {
		t.Errorf("sign-out kept the new code's cookie (%v)", rec.Header().Values("Set-Cookie"))
	}
	cl.mustLogin("second", adminPassword)
	if code := inviteCode(cl.get("/admin/users?done=invite").Body.String()); code != "" {
		t.Error("another admin is shown the code")
	}
	// Nor if the cookie is carried over by hand.
	createdBy("root")
	carried := cl.cookies[inviteCookie]
	cl.post("/logout", nil)
	cl.mustLogin("second", adminPassword)
	cl.cookies[inviteCookie] = carried
	if code := inviteCode(cl.get("/admin/users?done=invite").Body.String()); code != "" {
		t.Error("another admin is shown a code carried in the cookie")
	}
}

// TestAdminUsersDates: the user list gives every registration date in the
// admin's own time zone, not each user's.
func TestAdminUsersDates(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	ctx := context.Background()
	// Kiritimati is UTC+14 and Etc/GMT+12 is UTC-12: the same moment is
	// never the same date in both.
	const adminZone, memberZone = "Pacific/Kiritimati", "Etc/GMT+12"
	if _, err := ts.addUser(ctx, "far", "", memberPassword, quiz.RoleMember); err != nil {
		t.Fatal(err)
	}
	for login, zone := range map[string]string{"root": adminZone, "far": memberZone} {
		c, err := ts.db.Credentials(ctx, login)
		if err != nil {
			t.Fatal(err)
		}
		if err := ts.db.SetTimezone(ctx, c.User.ID, zone); err != nil {
			t.Fatal(err)
		}
	}
	loc, err := time.LoadLocation(adminZone)
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, ts, "127.0.0.1")
	cl.mustLogin("root", adminPassword)
	body := cl.get("/admin/users").Body.String()
	for _, login := range []string{"root", "far"} {
		c, err := ts.db.Credentials(ctx, login)
		if err != nil {
			t.Fatal(err)
		}
		if want := "登録 " + c.User.CreatedAt.In(loc).Format("2006-01-02"); strings.Count(body, want) != 2 {
			t.Errorf("%s: the list does not give every registration as %q: %.3000s", login, want, body)
		}
	}
}
