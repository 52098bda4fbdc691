package store

import "kubequiz/internal/fsrs"

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
