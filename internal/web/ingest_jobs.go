package web

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"kubequiz/internal/ingest"
	"kubequiz/views"
)

// Limits of the background parse jobs.
const (
	ingestJobTimeout = 2 * time.Minute  // a job that takes longer is stopped
	ingestJobsKept   = 8                // finished jobs kept for their previews
	ingestJobsActive = 2                // jobs parsing at once; more wait
	ingestJobMaxAge  = 30 * time.Minute // finished jobs older than this are dropped
)

// ingestJobs holds the parse jobs of one Server, in memory and behind a
// mutex. Each job runs in its own goroutine, apart from the request that
// started it, and ends when its work returns or ingestJobTimeout passes; it
// recovers from a panic in the generators so that the server stays up.
// A job lost to a restart is started again from its stored upload.
type ingestJobs struct {
	log    *slog.Logger
	now    func() time.Time // the server's clock
	active chan struct{}
	parent context.Context // cancelled when the server closes
	wg     *sync.WaitGroup // the server's background work

	mu   sync.Mutex
	jobs map[string]*ingestJobState
}

// ingestJobState is one job's state; get returns copies of it.
type ingestJobState struct {
	userID      int64
	running     bool
	step        string
	done, total int
	preview     views.IngestPreview
	batch       ingest.Batch // what apply saves; empty when the preview has problems
	err         error
	finished    time.Time
}

type ingestWork func(ctx context.Context, progress func(step string, done, total int)) (views.IngestPreview, ingest.Batch, error)

func newIngestJobs(parent context.Context, wg *sync.WaitGroup, log *slog.Logger, now func() time.Time) *ingestJobs {
	return &ingestJobs{log: log, now: now, parent: parent, wg: wg, active: make(chan struct{}, ingestJobsActive), jobs: map[string]*ingestJobState{}}
}

// start runs work in the background under key, unless a job with that key
// is already running or done.
func (j *ingestJobs) start(key string, userID int64, work ingestWork) {
	j.mu.Lock()
	j.evictLocked(j.now()) // first: an expired job of this key is started afresh
	if _, ok := j.jobs[key]; ok {
		j.mu.Unlock()
		return
	}
	job := &ingestJobState{userID: userID, running: true, step: "順番を待っています", total: 1}
	j.jobs[key] = job
	j.mu.Unlock()

	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		var (
			pv    views.IngestPreview
			batch ingest.Batch
			err   error
		)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("ingest job panicked: %v", r)
			}
			if err != nil {
				j.log.Error("ingest job failed", "err", err)
			}
			j.mu.Lock()
			job.running, job.preview, job.batch, job.err, job.finished = false, pv, batch, err, j.now()
			j.mu.Unlock()
		}()
		select {
		case j.active <- struct{}{}:
		case <-j.parent.Done():
			err = fmt.Errorf("ingest job: %w", j.parent.Err())
			return
		}
		defer func() { <-j.active }()
		ctx, cancel := context.WithTimeout(j.parent, ingestJobTimeout)
		defer cancel()
		pv, batch, err = work(ctx, func(step string, done, total int) {
			j.mu.Lock()
			job.step, job.done, job.total = step, done, total
			j.mu.Unlock()
		})
	}()
}

// get returns a copy of the job's state; another user's job is not found.
func (j *ingestJobs) get(key string, userID int64) (ingestJobState, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	job, ok := j.jobs[key]
	if !ok || job.userID != userID || expired(job, j.now()) {
		return ingestJobState{}, false
	}
	return *job, true
}

// drop forgets the jobs whose keys start with prefix.
func (j *ingestJobs) drop(prefix string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k := range j.jobs {
		if strings.HasPrefix(k, prefix) {
			delete(j.jobs, k)
		}
	}
}

// expired reports whether a job finished longer than ingestJobMaxAge ago.
func expired(job *ingestJobState, now time.Time) bool {
	return !job.running && now.Sub(job.finished) > ingestJobMaxAge
}

// evictLocked drops old finished jobs, and the oldest finished ones while
// more than ingestJobsKept remain.
func (j *ingestJobs) evictLocked(now time.Time) {
	var finished []string
	for k, job := range j.jobs {
		switch {
		case job.running:
		case expired(job, now):
			delete(j.jobs, k)
		default:
			finished = append(finished, k)
		}
	}
	sort.Slice(finished, func(a, b int) bool { return j.jobs[finished[a]].finished.Before(j.jobs[finished[b]].finished) })
	for len(finished) > 0 && len(j.jobs) >= ingestJobsKept {
		delete(j.jobs, finished[0])
		finished = finished[1:]
	}
}
