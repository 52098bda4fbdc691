package testshared

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// WatchHeap samples the bytes of live and unswept heap objects until the
// returned function is called, which returns the largest sample: a
// benchmark's peak heap, counting the garbage not swept yet.
func WatchHeap() func() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var (
		mu   sync.Mutex
		peak uint64
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	read := func() {
		metrics.Read(sample)
		mu.Lock()
		peak = max(peak, sample[0].Value.Uint64())
		mu.Unlock()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
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
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
