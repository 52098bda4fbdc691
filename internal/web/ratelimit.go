package web

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/account"
	"kubequiz/internal/store"
)

// loginLimits bound password guessing (ASVS 5.0 6.3.1). Failures are counted
// in SQLite, so they survive restarts, within a sliding 15-minute window:
//
//   - 5 per account from one address: the usual brake on guessing one
//     account's password. It cannot lock the owner out, who signs in from
//     another address.
//   - 20 per address, over all accounts: one machine trying many accounts.
//   - 50 per account from all addresses: guessing spread over many machines.
//     So that an attacker with many addresses cannot use it to lock the
//     owner out, it spares known devices: an address (or IPv6 /64) from
//     which the account signed in successfully within the last 90 days, and
//     a browser that did, by the device token it keeps in a cookie
//     (deviceCookie), whatever its address now; such a token, which could
//     be copied from a shared browser, has 5 failures of its own, as an
//     address. The owner's usual devices keep working, a phone whose
//     address changed too; a new one waits, at most until the oldest
//     counted failure leaves the window. A password change forgets them.
//
// Refused attempts are not counted, so the wait never grows past the window;
// a right password clears the failures of that account from that address
// and makes the address, and the browser with a new token, known devices of
// the account.
// IPv6 addresses count by their /64 network (store.RateKey). The address is
// the TCP peer, or behind a configured proxy the address it forwards for
// (ipExtractor), so clients cannot choose it with headers.
func loginLimits() store.LoginLimits {
	return store.LoginLimits{
		Window:       15 * time.Minute,
		PerAccountIP: 5,
		PerIP:        20,
		PerAccount:   50,
		KnownFor:     knownDeviceFor,
	}
}

// knownDeviceFor is how long a successful sign-in makes its address a known
// device of the account.
const knownDeviceFor = 90 * 24 * time.Hour

// reserveAttempt counts a sign-in (or current-password) attempt before the
// password is checked. It returns false when a limit is reached.
func (s *Server) reserveAttempt(c echo.Context, login string) (bool, error) {
	err := s.db.ReserveLoginAttempt(c.Request().Context(), rateLogin(login), c.RealIP(), s.deviceHash(c), s.now(), loginLimits())
	if errors.Is(err, store.ErrRateLimited) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(loginLimits().Window/time.Second)))
		return false, nil
	}
	return err == nil, err
}

// attemptSucceeded forgets the failures of this login from this address
// and remembers the address, and the browser by a new device token given
// to it now, as known devices of the login. The token the browser brought
// is never kept (one planted in it would otherwise become known).
func (s *Server) attemptSucceeded(c echo.Context, login string) error {
	tok, hash, err := newToken()
	if err != nil {
		return err
	}
	if err := s.db.LoginSucceeded(c.Request().Context(), rateLogin(login), c.RealIP(), s.deviceHash(c), hash, s.now(), knownDeviceFor); err != nil {
		return err
	}
	// The cookie lives as long as a known device.
	s.setCookie(c, s.cookieName(c, deviceCookie, deviceCookieSecure), tok, knownDeviceFor)
	return nil
}

// Device cookie names; see sessionCookie for the __Host- prefix. The
// cookie holds a random token, new at every sign-in, that tells a browser
// which signed in before from any other; it stays through sign-out, and
// the server keeps only its SHA-256, per login, until a password change
// (store.LoginSucceeded).
const (
	deviceCookie       = "kq_device"
	deviceCookieSecure = "__Host-kq_device"
)

// deviceHash is the stored form of the browser's device token, or nil when
// it has none that newToken could have made.
func (s *Server) deviceHash(c echo.Context) []byte {
	ck, err := c.Cookie(s.cookieName(c, deviceCookie, deviceCookieSecure))
	if err != nil || !wellFormedToken(ck.Value) {
		return nil
	}
	return hashToken(ck.Value)
}

// Registration limit: attempts that pass the form checks, per address (IPv6
// by /64). It bounds account creation, password hashing and probing for
// taken login names from one machine.
const (
	registerWindow = time.Hour
	registerLimit  = 10
)

// reserveRegistration counts a registration attempt from this address. It
// returns false, with Retry-After set, when the limit is reached.
func (s *Server) reserveRegistration(c echo.Context) (bool, error) {
	err := s.db.ReserveAction(c.Request().Context(), store.ActionRegister, c.RealIP(), s.now(), registerWindow, registerLimit)
	if errors.Is(err, store.ErrRateLimited) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(registerWindow/time.Second)))
		return false, nil
	}
	return err == nil, err
}

// rateLogin is the key a login name is counted under: the name as sign-in
// looks it up (account.NormalLogin), so that "Root " cannot dodge the
// count of "root", cut to 64 bytes, so that odd input cannot grow the
// table.
func rateLogin(login string) string {
	login = account.NormalLogin(login)
	if len(login) > 64 {
		login = login[:64]
	}
	return login
}

// logSafe makes user input fit for a log line: control characters (line
// breaks included) become U+FFFD and it is cut to 64 characters. slog
// quotes values as well; this keeps forged lines out of any handler.
func logSafe(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 64 {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ' {
			r = unicode.ReplacementChar
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
