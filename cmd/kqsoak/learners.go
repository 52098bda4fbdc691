package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"kubequiz/internal/loadclient"
)

// learner is one simulated learner of the soak and what it saw.
type learner struct {
	b        *loadclient.Browser
	rec      *routeRecorder
	grades   []loadclient.Grade
	empty    int // next-card pages with nothing to study
	exports  int
	failures failures
}

// cardThink is a Think of minT to maxT of thought per card (uniform, from
// the browser's seeded source): three quarters before the answer, reading
// the question, and the rest before the grade, reading the feedback. The
// first next-card page waits a random part of maxT, so that the learners
// do not all start at once; later ones (after an empty queue or a failed
// step) wait nothing more. Each learner has its own.
func cardThink(minT, maxT time.Duration) func(*rand.Rand, string) time.Duration {
	started := false
	var rest time.Duration
	return func(rng *rand.Rand, op string) time.Duration {
		switch op {
		case loadclient.OpPage:
			if started {
				return 0
			}
			started = true
			return time.Duration(rng.Int64N(int64(maxT) + 1))
		case loadclient.OpAnswer:
			total := minT + time.Duration(rng.Int64N(int64(maxT-minT)+1))
			rest = total / 4
			return total - rest
		case loadclient.OpGrade:
			return rest
		}
		return 0
	}
}

// Export routes, where the server has them.
var exportPaths = []string{"/export/reviews.csv", "/export/cards.csv"}

// run studies until stop is closed: a review at a time, with the exports
// downloaded after one card in exportOdds when exports is set.
func (l *learner) run(ctx context.Context, stop <-chan struct{}, exports bool, exportOdds int) {
	rec := loadclient.NewRecorder() // the route recorder times the requests
	for {
		err := l.b.StudyOnce(ctx, rec)
		switch {
		case errors.Is(err, loadclient.ErrStopped):
			return
		case errors.Is(err, loadclient.ErrQueueEmpty):
			l.empty++
			if !sleep(ctx, stop, 5*time.Second) {
				return
			}
			continue
		case err != nil:
			l.failures.add(fmt.Errorf("%s: %w", l.b.Login, err))
			if !sleep(ctx, stop, time.Second) {
				return
			}
			continue
		}
		if exports && l.b.Rand().IntN(exportOdds) == 0 {
			for _, p := range exportPaths {
				code, err := l.b.Send(ctx, http.MethodGet, p, nil, false)
				if err == nil {
					err = loadclient.Expect("GET "+p, code, http.StatusOK, l.b.Body())
				}
				if err != nil {
					l.failures.add(fmt.Errorf("%s: %w", l.b.Login, err))
					continue
				}
				l.exports++
			}
		}
	}
}

// probeExports asks whether the server serves the CSV export: a 200 says
// it does, a 404 that this build has none.
func probeExports(ctx context.Context, b *loadclient.Browser) (bool, error) {
	code, err := b.Send(ctx, http.MethodGet, exportPaths[0], nil, false)
	switch {
	case err != nil:
		return false, fmt.Errorf("GET %s: %w", exportPaths[0], err)
	case code == http.StatusOK:
		return true, nil
	case code == http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("GET %s: status %d, want 200 or 404", exportPaths[0], code)
}

// eachOf runs fn for every browser, n at a time, and returns the first
// error.
func eachOf(bs []*loadclient.Browser, n int, fn func(*loadclient.Browser) error) error {
	errs := make([]error, len(bs))
	sem := make(chan struct{}, n)
	done := make(chan struct{})
	for i, b := range bs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; done <- struct{}{} }()
			errs[i] = fn(b)
		}()
	}
	for range bs {
		<-done
	}
	return errors.Join(errs...)
}
