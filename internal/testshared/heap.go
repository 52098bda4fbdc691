package testshared

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Heap classes of runtime/metrics that benchmarks sample.
const (
	// HeapObjects counts live heap objects and those not swept yet.
	HeapObjects = "/memory/classes/heap/objects:bytes"
	// HeapUnused counts the free space of the spans in use; with
	// HeapObjects, runtime.MemStats.HeapInuse.
	HeapUnused = "/memory/classes/heap/unused:bytes"
)

// PeakHeap samples the sum of the named heap classes every interval (with
// runtime/metrics, which does not stop the world) until the returned
// function is called, which returns the largest sample.
func PeakHeap(every time.Duration, classes ...string) func() uint64 {
	samples := make([]metrics.Sample, len(classes))
	for i, c := range classes {
		samples[i].Name = c
	}
	var peak atomic.Uint64
	read := func() {
		metrics.Read(samples)
		var sum uint64
		for _, s := range samples {
			sum += s.Value.Uint64()
		}
		if sum > peak.Load() {
			peak.Store(sum)
		}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		read()
		return peak.Load()
	}
}

// WatchHeap is PeakHeap of HeapObjects every millisecond, after a garbage
// collection: a benchmark's peak heap, counting the garbage not swept yet.
func WatchHeap() func() uint64 {
	runtime.GC()
	return PeakHeap(time.Millisecond, HeapObjects)
}
