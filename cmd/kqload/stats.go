package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"kubequiz/internal/loadclient"
)

// phaseResult is what one timed phase measured.
type phaseResult struct {
	Name    string               `json:"name"`
	Seconds float64              `json:"seconds"`
	Ops     []loadclient.OpStats `json:"ops"`
	Errors  int                  `json:"errors"`
	Sample  []string             `json:"error_sample,omitempty"`
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
func (p phaseResult) op(name string) loadclient.OpStats {
	for _, o := range p.Ops {
		if o.Op == name {
			return o
		}
	}
	return loadclient.OpStats{Op: name}
}

// summarise merges the workers' recorders; ops lists the kinds of request in
// report order.
func summarise(name string, elapsed time.Duration, recs []*loadclient.Recorder, ops ...string) phaseResult {
	res := phaseResult{Name: name, Seconds: elapsed.Seconds()}
	for _, op := range ops {
		var all []time.Duration
		for _, r := range recs {
			all = append(all, r.Latencies(op)...)
		}
		res.Ops = append(res.Ops, loadclient.Summarise(op, all, elapsed))
	}
	for _, r := range recs {
		res.Errors += r.Errors()
		for _, m := range r.Sample() {
			if len(res.Sample) < 5 {
				res.Sample = append(res.Sample, m)
			}
		}
	}
	return res
}

// errPause is how long a worker waits after a failed step, so that a server
// that refuses at once cannot turn the loop into a busy spin.
const errPause = 10 * time.Millisecond

// drive runs step in n workers until d has passed, ctx ends or maxSteps
// steps have started in all, and returns each worker's recorder and the time
// from start until the last worker stopped. A step that fails records its
// error itself and returns it.
func drive(ctx context.Context, n int, d time.Duration, maxSteps int64, step func(ctx context.Context, w int, rec *loadclient.Recorder) error) ([]*loadclient.Recorder, time.Duration) {
	recs := make([]*loadclient.Recorder, n)
	var (
		wg      sync.WaitGroup
		started atomic.Int64
	)
	start := time.Now()
	end := start.Add(d)
	for w := range n {
		recs[w] = loadclient.NewRecorder()
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
	recs    []*loadclient.Recorder
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
	step func(ctx context.Context, w int, rec *loadclient.Recorder) error, ops ...string) measured {
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
