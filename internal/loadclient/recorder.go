package loadclient

import (
	"slices"
	"time"
)

// Recorder collects one worker's latencies and errors by kind of request;
// each worker has its own, so recording takes no lock.
type Recorder struct {
	lat    map[string][]time.Duration
	errs   int
	sample []string // the first few error messages
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{lat: map[string][]time.Duration{}} }

// Observe records a request of kind op that took d.
func (r *Recorder) Observe(op string, d time.Duration) { r.lat[op] = append(r.lat[op], d) }

// Fail records a failed request of kind op.
func (r *Recorder) Fail(op string, err error) {
	r.errs++
	if len(r.sample) < 3 {
		r.sample = append(r.sample, op+": "+err.Error())
	}
}

// Latencies are the recorded times of op's requests.
func (r *Recorder) Latencies(op string) []time.Duration { return r.lat[op] }

// Errors is the number of failed requests.
func (r *Recorder) Errors() int { return r.errs }

// Sample is the first few failures' messages.
func (r *Recorder) Sample() []string { return r.sample }

// OpStats summarises one kind of request.
type OpStats struct {
	Op     string  `json:"op"`
	Count  int     `json:"count"`
	PerSec float64 `json:"per_sec"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Summarise summarises the latencies lat of op's requests over elapsed;
// it sorts lat.
func Summarise(op string, lat []time.Duration, elapsed time.Duration) OpStats {
	slices.Sort(lat)
	s := OpStats{Op: op, Count: len(lat)}
	if elapsed > 0 {
		s.PerSec = float64(len(lat)) / elapsed.Seconds()
	}
	if len(lat) > 0 {
		s.P50MS, s.P95MS, s.P99MS = Percentile(lat, 50), Percentile(lat, 95), Percentile(lat, 99)
		s.MaxMS = ms(lat[len(lat)-1])
	}
	return s
}

// Percentile is the p-th percentile of sorted durations (nearest rank),
// in ms.
func Percentile(sorted []time.Duration, p int) float64 {
	i := (len(sorted)*p+99)/100 - 1
	return ms(sorted[min(max(i, 0), len(sorted)-1)])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
