package store

import (
	"sync"

	"kubequiz/internal/fsrs"
)

// labelScheduler is scheduler with fuzz off, for labelling the grade
// buttons. Fuzz is seeded from the review time, which is only known when
// the grade is recorded, so a fuzzed label could promise "4d" and the review
// record 5d. Labels show the interval before fuzz, as Anki's do; reviews are
// still recorded with fuzz on.
func labelScheduler(retention float64) (*fsrs.Scheduler, error) {
	p := fsrs.DefaultParams()
	if retention > 0 && retention < 1 {
		p.DesiredRetention = retention
	}
	p.Fuzz = false
	return fsrs.NewScheduler(p)
}

// schedulers keeps the schedulers built for each desired retention: a
// Scheduler never changes once built, and building one is a tenth of a
// review's writing.
type schedulers struct{ m sync.Map }

type schedulerKey struct {
	retention float64
	labels    bool // built by labelScheduler rather than scheduler
}

// get returns scheduler(retention), or labelScheduler(retention) for labels.
func (s *schedulers) get(retention float64, labels bool) (*fsrs.Scheduler, error) {
	if !(retention > 0 && retention < 1) {
		retention = 0 // what both builders treat as the default, NaN included
	}
	k := schedulerKey{retention, labels}
	if v, ok := s.m.Load(k); ok {
		return v.(*fsrs.Scheduler), nil
	}
	build := scheduler
	if labels {
		build = labelScheduler
	}
	sch, err := build(retention)
	if err != nil {
		return nil, err
	}
	s.m.Store(k, sch)
	return sch, nil
}
