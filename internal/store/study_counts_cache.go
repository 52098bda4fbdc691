package store

import (
	"sync"
	"time"

	"kubequiz/internal/progress"
)

// The study page shows the cards left today with every card it loads
// (StudyCounts). Counting them reads every card the queue would serve
// today, up to the daily limits: with high limits, several milliseconds,
// more than the rest of the page. countsCache keeps the counts of each
// learner's study pages for countsCacheTTL, so that loading the page
// again counts nothing while nothing has changed.
//
// Freshness: the counts change only by a write (a review, an undo, a
// subscription, new limits, questions imported or edited, or a new study
// day, which is part of the key). Every write transaction of this process
// (txKeepSessions, which db.tx and the review writer use) empties the
// cache when it ends, and a count begun before that is not stored. A
// change made by another process on the same file shows within
// countsCacheTTL.

// countsCacheTTL is how long counts are believed without counting again.
const countsCacheTTL = 10 * time.Second

// countsCacheMax bounds the entries; a full cache is emptied.
const countsCacheMax = 4096

// countsKey is one study page (its scope) of one learner on one study
// day, with the daily limits it was counted under.
type countsKey struct {
	user                     int64
	scope                    Scope
	dayStart                 int64
	newPerDay, reviewsPerDay int
}

type cachedCounts struct {
	due     progress.Due
	fetched time.Time
}

type countsCache struct {
	mu sync.Mutex
	// gen counts invalidations; a count is stored only if no
	// invalidation happened since it began.
	gen     uint64
	entries map[countsKey]cachedCounts
}

// get returns the counts of k if they were counted less than
// countsCacheTTL before now.
func (c *countsCache) get(k countsKey, now time.Time) (progress.Due, bool) {
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if !ok || now.Before(e.fetched) || now.Sub(e.fetched) >= countsCacheTTL {
		return progress.Due{}, false
	}
	return e.due, true
}

// generation returns the invalidation count, to pass to put.
func (c *countsCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put stores the counts of k, counted at now after generation returned
// gen, unless the cache was invalidated since.
func (c *countsCache) put(gen uint64, k countsKey, d progress.Due, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= countsCacheMax {
		c.entries = make(map[countsKey]cachedCounts)
	}
	c.entries[k] = cachedCounts{due: d, fetched: now}
}

// invalidate drops every entry.
func (c *countsCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}
