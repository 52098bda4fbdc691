package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Reviews are recorded with group commit. Every grade is a write, and
// SQLite has one writer: with many learners grading at once, a transaction
// per review would wait for the one before it, and its commit (the WAL
// frames of every page it changed) is most of its cost. One goroutine
// records reviews: it takes every review waiting when it is free, up to
// maxReviewBatch, records them in one transaction and commits once, then
// answers each. A learner alone still gets a transaction of
// their own at once; under load, reviews share commits instead of queueing
// for them.
//
// Under load the writer also lingers: when its last transaction held more
// than one review, it waits up to reviewLinger after the first review of
// the next one for others to arrive. Without that, with the cores busy
// serving requests, the writer woke for nearly every review: a commit held
// two reviews on average, and each commit (writing the WAL frames of every
// page its transaction changed) cost about as much as the two reviews.

// maxReviewBatch bounds the reviews of one transaction, and so how long
// other writers can wait for the write connection.
const maxReviewBatch = 64

// reviewLinger is how long the writer waits for more reviews under load.
// It is small beside the time a learner spends on a card, and beside the
// grade request's own time under the same load.
const reviewLinger = 2 * time.Millisecond

// errClosed is returned for reviews submitted after the database closed.
var errClosed = errors.New("database closed")

// pendingReview is a review waiting for the writer, its answer encoded.
type pendingReview struct {
	ctx    context.Context
	review Review
	answer string
	done   chan reviewResult // buffered: the writer never waits for the caller
}

type reviewResult struct {
	recorded Recorded
	err      error
}

// reviewWriter owns the goroutine that records reviews.
type reviewWriter struct {
	db      *DB
	pending chan pendingReview
	closing chan struct{}
	stopped chan struct{}
	once    sync.Once
	linger  time.Duration
	// onBatch, when set, is told of each batch recorded (Options.OnBatch).
	onBatch func(size int, took time.Duration)
}

// newReviewWriter starts a writer for db that lingers for linger under
// load (reviewLinger, except in tests) and tells onBatch, if set, of each
// batch.
func newReviewWriter(db *DB, linger time.Duration, onBatch func(size int, took time.Duration)) *reviewWriter {
	w := &reviewWriter{
		db:      db,
		pending: make(chan pendingReview),
		closing: make(chan struct{}),
		stopped: make(chan struct{}),
		linger:  linger,
		onBatch: onBatch,
	}
	go w.run()
	return w
}

// record hands p to the writer and waits for its result. When ctx ends
// first, the review may still be recorded: a retry with the same request
// id then finds it.
func (w *reviewWriter) record(ctx context.Context, p pendingReview) (Recorded, error) {
	p.ctx = ctx
	p.done = make(chan reviewResult, 1)
	select {
	case w.pending <- p:
	case <-w.closing:
		return Recorded{}, errClosed
	case <-ctx.Done():
		return Recorded{}, ctx.Err()
	}
	select {
	case res := <-p.done:
		return res.recorded, res.err
	case <-ctx.Done():
		return Recorded{}, ctx.Err()
	}
}

// close stops the writer after the batch it is recording.
func (w *reviewWriter) close() {
	w.once.Do(func() { close(w.closing) })
	<-w.stopped
}

func (w *reviewWriter) run() {
	defer close(w.stopped)
	batch := make([]pendingReview, 0, maxReviewBatch)
	linger := time.NewTimer(w.linger)
	linger.Stop()
	for {
		busy := len(batch) > 1
		select {
		case p := <-w.pending:
			batch = append(batch[:0], p)
		case <-w.closing:
			return
		}
		if busy {
			batch = w.gather(batch, linger)
		}
	more:
		for len(batch) < maxReviewBatch {
			select {
			case p := <-w.pending:
				batch = append(batch, p)
			default:
				break more
			}
		}
		start := time.Now()
		w.db.recordBatch(batch)
		if w.onBatch != nil {
			w.onBatch(len(batch), time.Since(start))
		}
	}
}

// gather adds to batch the reviews that arrive within w.linger, until
// the batch is full or the writer is closing. linger is stopped when it
// returns (since Go 1.23, a stopped timer's channel holds no stale value).
func (w *reviewWriter) gather(batch []pendingReview, linger *time.Timer) []pendingReview {
	linger.Reset(w.linger)
	defer linger.Stop()
	for len(batch) < maxReviewBatch {
		select {
		case p := <-w.pending:
			batch = append(batch, p)
		case <-linger.C:
			return batch
		case <-w.closing:
			return batch
		}
	}
	return batch
}

// recordBatch records the reviews of batch in one transaction and answers
// each. A review refused before it wrote anything (unknown question, an
// answer that does not fit, a request id used elsewhere) gets its error and
// the others go on. Any other failure rolls the transaction back, and each
// review is then recorded in a transaction of its own, so that one cannot
// fail the others.
func (db *DB) recordBatch(batch []pendingReview) {
	sent := make([]bool, len(batch))
	answer := func(i int, res reviewResult) {
		batch[i].done <- res
		sent[i] = true
	}
	// A panic while recording (a bug) fails the reviews not yet answered,
	// as a request's recovery would have failed each alone, instead of
	// ending the writer and leaving every later review waiting.
	defer func() {
		if r := recover(); r != nil {
			for i := range batch {
				if !sent[i] {
					answer(i, reviewResult{err: fmt.Errorf("recording reviews: panic: %v", r)})
				}
			}
		}
	}()
	results := make([]reviewResult, len(batch))
	// The transaction is not the requests': a learner who leaves must not
	// undo the reviews of the others.
	ctx := context.Background()
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		q := db.writes.in(tx)
		for i, p := range batch {
			if err := p.ctx.Err(); err != nil {
				results[i].err = err
				continue
			}
			out, wrote, err := db.recordReview(ctx, q, p)
			if err != nil && wrote {
				return fmt.Errorf("review %s: %w", p.review.RequestID, err)
			}
			results[i] = reviewResult{recorded: out, err: err}
		}
		return nil
	})
	for i, p := range batch {
		switch {
		case err == nil:
			answer(i, results[i])
		case len(batch) == 1:
			answer(i, reviewResult{err: err})
		default:
			answer(i, db.recordAlone(ctx, p))
		}
	}
}

// recordAlone records one review in its own transaction.
func (db *DB) recordAlone(ctx context.Context, p pendingReview) reviewResult {
	if err := p.ctx.Err(); err != nil {
		return reviewResult{err: err}
	}
	var res reviewResult
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		out, _, err := db.recordReview(ctx, db.writes.in(tx), p)
		res.recorded = out
		return err
	})
	res.err = err
	return res
}
