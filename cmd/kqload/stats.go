package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// recorder collects one worker's latencies and errors; each worker has its
// own, so recording takes no lock.
type recorder struct {
	lat    map[string][]time.Duration
	errs   int
	sample []string // the first few error messages
}

func newRecorder() *recorder { return &recorder{lat: map[string][]time.Duration{}} }

func (r *recorder) observe(op string, d time.Duration) { r.lat[op] = append(r.lat[op], d) }

func (r *recorder) fail(op string, err error) {
	r.errs++
	if len(r.sample) < 3 {
		r.sample = append(r.sample, op+": "+err.Error())
	}
}

// opStats summarises one kind of request of a phase.
type opStats struct {
	Op     string  `json:"op"`
	Count  int     `json:"count"`
	PerSec float64 `json:"per_sec"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// phaseResult is what one timed phase measured.
type phaseResult struct {
	Name    string    `json:"name"`
	Seconds float64   `json:"seconds"`
	Ops     []opStats `json:"ops"`
	Errors  int       `json:"errors"`
	Sample  []string  `json:"error_sample,omitempty"`
	// CPUSeconds is the CPU time (user and system) this process used while
	// the phase was measured: server and load generator together. Per
	// operation it varies less than the rates when other jobs share the
	// machine.
	CPUSeconds float64 `json:"cpu_seconds"`
}

// cpuPerOp is the process CPU time per operation of the phase's last kind
// of request, in microseconds.
func (p phaseResult) cpuPerOp() float64 {
	if len(p.Ops) == 0 || p.Ops[len(p.Ops)-1].Count == 0 {
		return 0
	}
	return p.CPUSeconds * 1e6 / float64(p.Ops[len(p.Ops)-1].Count)
}

// cpuTime is the CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// op returns the stats of one kind of request (zero if absent).
func (p phaseResult) op(name string) opStats {
	for _, o := range p.Ops {
		if o.Op == name {
			return o
		}
	}
	return opStats{Op: name}
}

// summarise merges the workers' recorders; ops lists the kinds of request in
// report order.
func summarise(name string, elapsed time.Duration, recs []*recorder, ops ...string) phaseResult {
	res := phaseResult{Name: name, Seconds: elapsed.Seconds()}
	for _, op := range ops {
		var all []time.Duration
		for _, r := range recs {
			all = append(all, r.lat[op]...)
		}
		slices.Sort(all)
		s := opStats{Op: op, Count: len(all)}
		if elapsed > 0 {
			s.PerSec = float64(len(all)) / elapsed.Seconds()
		}
		if len(all) > 0 {
			s.P50MS, s.P95MS, s.P99MS = pct(all, 50), pct(all, 95), pct(all, 99)
			s.MaxMS = msOf(all[len(all)-1])
		}
		res.Ops = append(res.Ops, s)
	}
	for _, r := range recs {
		res.Errors += r.errs
		for _, m := range r.sample {
			if len(res.Sample) < 5 {
				res.Sample = append(res.Sample, m)
			}
		}
	}
	return res
}

// pct is the p-th percentile of sorted durations (nearest rank), in ms.
func pct(sorted []time.Duration, p int) float64 {
	i := (len(sorted)*p+99)/100 - 1
	return msOf(sorted[min(max(i, 0), len(sorted)-1)])
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// errPause is how long a worker waits after a failed step, so that a server
// that refuses at once cannot turn the loop into a busy spin.
const errPause = 10 * time.Millisecond

// drive runs step in n workers until d has passed, ctx ends or maxSteps
// steps have started in all, and returns each worker's recorder and the time
// from start until the last worker stopped. A step that fails records its
// error itself and returns it.
func drive(ctx context.Context, n int, d time.Duration, maxSteps int64, step func(ctx context.Context, w int, rec *recorder) error) ([]*recorder, time.Duration) {
	recs := make([]*recorder, n)
	var (
		wg      sync.WaitGroup
		started atomic.Int64
	)
	start := time.Now()
	end := start.Add(d)
	for w := range n {
		recs[w] = newRecorder()
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(end) && started.Add(1) <= maxSteps {
				if err := step(ctx, w, recs[w]); err != nil {
					time.Sleep(errPause)
				}
			}
		})
	}
	wg.Wait()
	return recs, time.Since(start)
}

// measured is what one turn of a phase recorded: each worker's recorder,
// the time it took and the CPU time this process used meanwhile, and the
// kinds of request in report order (the last is the one CPU µs/op counts).
// The turns of a phase add up.
type measured struct {
	recs    []*recorder
	elapsed time.Duration
	cpu     time.Duration
	ops     []string
}

func (m *measured) add(o measured) {
	m.recs = append(m.recs, o.recs...)
	m.elapsed += o.elapsed
	m.cpu += o.cpu
	m.ops = o.ops
}

// result summarises a phase's turns.
func (m measured) result(name string) phaseResult {
	res := summarise(name, m.elapsed, m.recs, m.ops...)
	res.CPUSeconds = m.cpu.Seconds()
	return res
}

// warmAndMeasure runs drive unrecorded for warmup, then recorded for d.
func warmAndMeasure(ctx context.Context, n int, warmup, d time.Duration, maxSteps int64,
	step func(ctx context.Context, w int, rec *recorder) error, ops ...string) measured {
	if warmup > 0 {
		drive(ctx, n, warmup, maxSteps, step)
	}
	cpu := cpuTime()
	recs, elapsed := drive(ctx, n, d, maxSteps, step)
	return measured{recs: recs, elapsed: elapsed, cpu: cpuTime() - cpu, ops: ops}
}

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func fmtMS(v float64) string { return fmt.Sprintf("%.2f", v) }
