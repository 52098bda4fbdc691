package store

import (
	"sync"

	"kubequiz/internal/fsrs"
)

// schedulers keeps the FSRS schedulers built for each desired retention: a
// Scheduler never changes once built, and building one is a tenth of a
// review's writing.
type schedulers struct{ m sync.Map }

type schedulerKey struct {
	retention float64
	fuzz      bool
}

// get returns the scheduler of the server's defaults with a learner's
// desired retention, or the default one when it is not between 0 and 1
// (NaN included). Reviews are recorded with fuzz on. The grade buttons are
// labelled with fuzz off: fuzz is seeded from the review time, which is only
// known when the grade is recorded, so a fuzzed label could promise "4d" and
// the review record 5d. Labels show the interval before fuzz, as Anki's do.
func (s *schedulers) get(retention float64, fuzz bool) (*fsrs.Scheduler, error) {
	p := fsrs.DefaultParams()
	if retention > 0 && retention < 1 {
		p.DesiredRetention = retention
	}
	p.Fuzz = fuzz
	k := schedulerKey{p.DesiredRetention, fuzz}
	if v, ok := s.m.Load(k); ok {
		return v.(*fsrs.Scheduler), nil
	}
	sch, err := fsrs.NewScheduler(p)
	if err != nil {
		return nil, err
	}
	s.m.Store(k, sch)
	return sch, nil
}
