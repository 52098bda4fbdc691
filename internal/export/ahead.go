package export

import "iter"

// aheadBatch is how many rows readAhead hands over at a time.
const aheadBatch = 256

// readAhead runs seq in a goroutine of its own, up to three batches of
// rows ahead of the caller, so that the store reads and decodes the next
// rows while the caller encodes and writes earlier ones, on another core
// when there is one. Memory stays bounded by the batches. When the caller
// stops early, seq is stopped (its reads end) before readAhead's sequence
// returns: no goroutine outlives it. A panic in seq is raised again in the
// caller's goroutine.
func readAhead[T any](seq iter.Seq2[T, error], batch int) iter.Seq2[T, error] {
	type chunk struct {
		rows  []T
		err   error
		panic any
	}
	return func(yield func(T, error) bool) {
		full := make(chan chunk, 1)
		free := make(chan []T, 2)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer close(full)
			send := func(c chunk) bool {
				select {
				case full <- c:
					return true
				case <-stop:
					return false
				}
			}
			defer func() {
				if p := recover(); p != nil {
					send(chunk{panic: p})
				}
			}()
			rows := make([]T, 0, batch)
			for r, err := range seq {
				if err != nil {
					if len(rows) == 0 || send(chunk{rows: rows}) {
						send(chunk{err: err})
					}
					return
				}
				rows = append(rows, r)
				if len(rows) < batch {
					continue
				}
				if !send(chunk{rows: rows}) {
					return
				}
				select {
				case rows = <-free:
				default:
					rows = make([]T, 0, batch)
				}
			}
			if len(rows) > 0 {
				send(chunk{rows: rows})
			}
		}()
		defer func() {
			close(stop)
			<-done
		}()
		for c := range full {
			switch {
			case c.panic != nil:
				panic(c.panic)
			case c.err != nil:
				var zero T
				yield(zero, c.err)
				return
			}
			for _, r := range c.rows {
				if !yield(r, nil) {
					return
				}
			}
			clear(c.rows) // keep no row alive from a spare batch
			select {
			case free <- c.rows[:0]:
			default:
			}
		}
	}
}
