package web

import (
	"context"
	"time"
)

// purgeEvery is how often expired sessions are deleted.
const purgeEvery = time.Hour

// StartMaintenance starts the server's periodic upkeep in the background:
// expired sessions are deleted now and then every hour. Close stops it.
// Call it once, when the server starts serving.
func (s *Server) StartMaintenance() {
	s.startPurge(purgeEvery)
}

// startPurge deletes expired sessions at once and then every interval,
// until Close.
func (s *Server) startPurge(every time.Duration) {
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.purgeSessions(s.bg, s.now())
			select {
			case <-s.bg.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// purgeSessions deletes the sessions that have expired at now, absolutely or
// by idleness. A failure is logged; the next round tries again.
func (s *Server) purgeSessions(ctx context.Context, now time.Time) {
	n, err := s.db.PurgeSessions(ctx, now, idleTimeout)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.WarnContext(ctx, "purge sessions", "err", err)
	case n > 0:
		s.log.InfoContext(ctx, "expired sessions purged", "count", n)
	}
}
