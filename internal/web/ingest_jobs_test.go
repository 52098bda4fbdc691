package web

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/ingest"
	"kubequiz/views"
)

func TestIngestJobs(t *testing.T) {
	var wg sync.WaitGroup
	jobs := newIngestJobs(context.Background(), &wg, slog.New(slog.DiscardHandler), time.Now)
	gate := make(chan struct{})
	jobs.start("a?", 1, func(ctx context.Context, progress func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		progress("working", 1, 3)
		<-gate
		return views.IngestPreview{ApplyURL: "/done"}, ingest.Batch{}, nil
	})
	waitFor := func(key string, user int64, cond func(ingestJobState) bool) ingestJobState {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			j, ok := jobs.get(key, user)
			if ok && cond(j) {
				return j
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s: condition not met; last %+v %v", key, j, ok)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitFor("a?", 1, func(j ingestJobState) bool { return j.running && j.step == "working" && j.done == 1 })
	if _, ok := jobs.get("a?", 2); ok {
		t.Error("another user sees the job")
	}
	close(gate)
	j := waitFor("a?", 1, func(j ingestJobState) bool { return !j.running })
	if j.preview.ApplyURL != "/done" || j.err != nil {
		t.Errorf("finished job = %+v", j)
	}
	// A panic in the work becomes the job's error.
	jobs.start("b?", 1, func(context.Context, func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		panic("generator bug")
	})
	j = waitFor("b?", 1, func(j ingestJobState) bool { return !j.running })
	if j.err == nil || !strings.Contains(j.err.Error(), "generator bug") {
		t.Errorf("panicking job err = %v", j.err)
	}
	// Work gets a context with a deadline, not one that ends with a request.
	jobs.start("c?", 1, func(ctx context.Context, _ func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		if _, ok := ctx.Deadline(); !ok {
			return views.IngestPreview{}, ingest.Batch{}, errors.New("no deadline")
		}
		return views.IngestPreview{}, ingest.Batch{}, ctx.Err()
	})
	if j := waitFor("c?", 1, func(j ingestJobState) bool { return !j.running }); j.err != nil {
		t.Errorf("context: %v", j.err)
	}
	jobs.drop("a?")
	if _, ok := jobs.get("a?", 1); ok {
		t.Error("drop left the job")
	}
}

// TestIngestJobsStopWithServer shows that closing the server cancels a
// running job and waits for it, so the database is never closed under it.
func TestIngestJobsStopWithServer(t *testing.T) {
	ts := newTestServer(t)
	jobs := newIngestJobs(ts.bg, &ts.bgWG, slog.New(slog.DiscardHandler), time.Now)
	started := make(chan struct{})
	ended := false
	jobs.start("k", 1, func(ctx context.Context, progress func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		close(started)
		<-ctx.Done()
		ended = true
		return views.IngestPreview{}, ingest.Batch{}, ctx.Err()
	})
	<-started
	ts.Close()
	if !ended {
		t.Fatal("Close returned before the running job ended")
	}
	st, ok := jobs.get("k", 1)
	if !ok || st.running || !errors.Is(st.err, context.Canceled) {
		t.Errorf("job after Close: running=%v err=%v, want stopped with context.Canceled", st.running, st.err)
	}
}

// A finished job older than ingestJobMaxAge is gone, even before another
// job starts and evicts it.
func TestIngestJobsExpire(t *testing.T) {
	var wg sync.WaitGroup
	jobs := newIngestJobs(context.Background(), &wg, slog.New(slog.DiscardHandler), time.Now)
	jobs.start("k", 1, func(context.Context, func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		return views.IngestPreview{}, ingest.Batch{}, nil
	})
	wg.Wait()
	if _, ok := jobs.get("k", 1); !ok {
		t.Fatal("a finished job is gone at once")
	}
	jobs.mu.Lock()
	jobs.jobs["k"].finished = time.Now().Add(-ingestJobMaxAge - time.Second)
	jobs.mu.Unlock()
	if _, ok := jobs.get("k", 1); ok {
		t.Error("a job finished longer ago than ingestJobMaxAge is still there")
	}
	// Asked for again (the preview page after a save found it gone), it
	// runs afresh.
	ran := false
	jobs.start("k", 1, func(context.Context, func(string, int, int)) (views.IngestPreview, ingest.Batch, error) {
		ran = true
		return views.IngestPreview{}, ingest.Batch{}, nil
	})
	wg.Wait()
	if _, ok := jobs.get("k", 1); !ok || !ran {
		t.Errorf("an expired job started again: ran %v, found %v", ran, ok)
	}
}
