package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/static"
)

// Session lifetimes (ASVS 5.0 7.3): a session ends after idleTimeout without
// use and, however much it is used, absoluteTimeout after sign-in. Use is
// written at most once per touchEvery.
const (
	idleTimeout     = 7 * 24 * time.Hour
	absoluteTimeout = 30 * 24 * time.Hour
	touchEvery      = time.Minute
)

// Cookie names. The __Host- prefix makes browsers insist on Secure, Path=/
// and no Domain, so a sibling subdomain cannot plant the cookie; browsers
// accept it only over HTTPS, so plain HTTP gets the bare name.
const (
	sessionCookie       = "kq_session"
	sessionCookieSecure = "__Host-kq_session"
)

// sessionHashKey is where loadSession keeps the SHA-256 of the request's
// session token, so that sign-out can end exactly that session.
const sessionHashKey = "kubequiz.session"

// tokenBytes is the entropy of session tokens, setup tokens and invites:
// 256 bits from crypto/rand.
const tokenBytes = 32

// newToken returns a random token, URL-safe, and its SHA-256 (what is stored).
func newToken() (string, []byte, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	return tok, hashToken(tok), nil
}

// hashToken is the stored form of a token.
func hashToken(tok string) []byte {
	h := sha256.Sum256([]byte(tok))
	return h[:]
}

// wellFormedToken rejects cookie values that newToken cannot have made
// before they reach the database.
func wellFormedToken(tok string) bool {
	if len(tok) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(tok)
	return err == nil
}

// secureCookies reports whether this request's cookies are marked Secure.
func (s *Server) secureCookies(c echo.Context) bool {
	return s.cfg.SecureCookies || c.IsTLS()
}

// cookieName is the name a site-wide cookie has on this request: secure,
// with the __Host- prefix, where cookies are marked Secure, else plain.
func (s *Server) cookieName(c echo.Context, plain, secure string) string {
	if s.secureCookies(c) {
		return secure
	}
	return plain
}

// setCookie sets one of kubequiz's site-wide cookies: Path=/, HttpOnly,
// SameSite=Lax, and Secure where cookies are. It lasts for life, or is
// deleted when life is zero or less.
func (s *Server) setCookie(c echo.Context, name, value string, life time.Duration) {
	ck := &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: -1,
		Secure: s.secureCookies(c), HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if life > 0 {
		ck.Expires, ck.MaxAge = s.now().Add(life), int(life/time.Second)
	}
	c.SetCookie(ck)
}

// setSessionCookie gives the browser a session token, and the CSRF token
// bound to it (bindCSRF): a token planted before sign-in does not outlive
// it.
func (s *Server) setSessionCookie(c echo.Context, tok string, expires time.Time) {
	s.setCookie(c, s.cookieName(c, sessionCookie, sessionCookieSecure), tok, expires.Sub(s.now()))
	s.setCSRFCookie(c, sessionCSRF(tok))
}

// clearSessionCookie tells the browser to drop its session token.
func (s *Server) clearSessionCookie(c echo.Context) {
	s.setCookie(c, s.cookieName(c, sessionCookie, sessionCookieSecure), "", 0)
}

// startSession signs a user in on this browser: a new token (never the one
// the browser brought, against fixation), stored hashed, in a fresh cookie.
// The session the browser had before, if any, is ended.
func (s *Server) startSession(c echo.Context, u quiz.User) error {
	ctx := c.Request().Context()
	if old, ok := c.Get(sessionHashKey).([]byte); ok {
		if err := s.db.DeleteSession(ctx, old); err != nil {
			return err
		}
	}
	tok, hash, err := newToken()
	if err != nil {
		return err
	}
	now := s.now()
	expires := now.Add(absoluteTimeout)
	if err := s.db.CreateSession(ctx, u.ID, store.NewSession{TokenHash: hash, ExpiresAt: expires}, now, idleTimeout); err != nil {
		return err
	}
	s.setSessionCookie(c, tok, expires)
	c.Set(userKey, u)
	c.Set(sessionHashKey, hash)
	c.Set(sessionCSRFKey, sessionCSRF(tok))
	return nil
}

// skipSession lists requests that never need the user: static files and
// the health check.
func skipSession(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, static.URLPrefix) || p == "/healthz"
}

// sessionOf looks up the user of the request's session cookie for a
// check that runs before loadSession, and only reads: a cookie of no live
// session is not cleared, and the session's use is not recorded. It
// returns the session's token too; found is false without a live session.
func (s *Server) sessionOf(c echo.Context) (u quiz.User, token string, found bool, err error) {
	ck, err := c.Cookie(s.cookieName(c, sessionCookie, sessionCookieSecure))
	if err != nil || !wellFormedToken(ck.Value) {
		return u, "", false, nil
	}
	u, _, err = s.db.SessionUser(c.Request().Context(), hashToken(ck.Value), s.now(), idleTimeout)
	if errors.Is(err, quiz.ErrNotFound) {
		return u, "", false, nil
	}
	if err != nil {
		return u, "", false, err
	}
	return u, ck.Value, true, nil
}

// loadSession puts the signed-in user, if the request carries a valid
// session cookie, into the context for currentUser. An unknown, expired or
// revoked token, or a disabled account, leaves the request signed out and
// the cookie is cleared.
func (s *Server) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if skipSession(c) {
			return next(c)
		}
		ck, err := c.Cookie(s.cookieName(c, sessionCookie, sessionCookieSecure))
		if err != nil || ck.Value == "" {
			return next(c)
		}
		if !wellFormedToken(ck.Value) {
			s.clearSessionCookie(c)
			return next(c)
		}
		ctx := c.Request().Context()
		hash := hashToken(ck.Value)
		now := s.now()
		u, sess, err := s.db.SessionUser(ctx, hash, now, idleTimeout)
		if errors.Is(err, quiz.ErrNotFound) {
			s.clearSessionCookie(c)
			return next(c)
		}
		if err != nil {
			return err
		}
		if now.Sub(sess.LastSeenAt) >= touchEvery {
			if err := s.db.TouchSession(ctx, hash, now); err != nil {
				// The request can go on; the idle clock just does not move.
				s.log.WarnContext(ctx, "touch session", "user_id", u.ID, "err", err)
			}
		}
		c.Set(userKey, u)
		c.Set(sessionHashKey, hash)
		c.Set(sessionCSRFKey, sessionCSRF(ck.Value))
		return next(c)
	}
}
