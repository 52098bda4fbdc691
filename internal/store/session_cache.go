package store

import (
	"sync"
	"time"

	"kubequiz/internal/quiz"
)

// Every request of a signed-in learner starts with the session lookup, a
// join of sessions and users. sessionCache keeps the answers for
// sessionCacheTTL so that a learner studying does not look the same
// session up on every request.
//
// Freshness: every write transaction of this process through db.tx empties
// the cache when it ends, and a lookup begun before that is not stored, so
// a sign-out, a password change, a disabled account or new study limits
// take effect at once for the server that made them. The writes that touch
// no user and no session (reviews, sign-in counts) use txKeepSessions;
// TouchSession drops only its own session's entry. A change made by another
// process on the same file (kubequiz user passwd) reaches a running server
// within sessionCacheTTL. Expiry (idle and absolute) is checked against the
// cached timestamps on every hit.

// sessionCacheTTL is how long a looked-up session is believed without
// asking the database again.
const sessionCacheTTL = time.Second

// sessionCacheMax bounds the entries; a full cache is emptied.
const sessionCacheMax = 4096

type cachedSession struct {
	user    quiz.User
	session Session
	fetched time.Time
}

type sessionCache struct {
	mu sync.Mutex
	// gen counts invalidations; a lookup stores its answer only if no
	// invalidation happened since it began.
	gen     uint64
	entries map[string]cachedSession
}

// get returns the cached session of tokenHash if it was fetched less than
// sessionCacheTTL before now and is still live at now.
func (c *sessionCache) get(tokenHash []byte, now time.Time, idle time.Duration) (quiz.User, Session, bool) {
	c.mu.Lock()
	e, ok := c.entries[string(tokenHash)]
	c.mu.Unlock()
	if !ok || now.Before(e.fetched) || now.Sub(e.fetched) >= sessionCacheTTL ||
		!e.session.ExpiresAt.After(now) || !e.session.LastSeenAt.After(now.Add(-idle)) {
		return quiz.User{}, Session{}, false
	}
	return e.user, e.session, true
}

// generation returns the invalidation count, to pass to put.
func (c *sessionCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put stores a session read from the database after generation returned
// gen, unless the cache was invalidated since.
func (c *sessionCache) put(gen uint64, tokenHash []byte, e cachedSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= sessionCacheMax {
		c.entries = make(map[string]cachedSession)
	}
	c.entries[string(tokenHash)] = e
}

// forget drops one session's entry.
func (c *sessionCache) forget(tokenHash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, string(tokenHash))
}

// invalidate drops every entry.
func (c *sessionCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}
