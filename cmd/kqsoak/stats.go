package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"kubequiz/internal/loadclient"
)

// routeRecorder collects one worker's answers by route: latencies and
// statuses. Each worker has its own, so recording takes no lock.
type routeRecorder struct {
	lat    map[string][]time.Duration
	status map[string]map[int]int
}

func newRouteRecorder() *routeRecorder {
	return &routeRecorder{lat: map[string][]time.Duration{}, status: map[string]map[int]int{}}
}

// response fits loadclient.Browser.OnResponse.
func (r *routeRecorder) response(method, path string, status int, took time.Duration) {
	route := method + " " + routeOf(path)
	r.lat[route] = append(r.lat[route], took)
	if r.status[route] == nil {
		r.status[route] = map[int]int{}
	}
	r.status[route][status]++
}

// routePatterns turn a path into its route's pattern, as the route table
// (internal/web/routes.go) and the server's metrics name it; the first
// that matches wins. A path none matches is its own pattern.
var routePatterns = []struct {
	re      *regexp.Regexp
	pattern string
}{
	{regexp.MustCompile(`^/decks/[^/]+/subscription$`), "/decks/:slug/subscription"},
	{regexp.MustCompile(`^/study/(answer|grade)$`), "/study/$1"},
	{regexp.MustCompile(`^/study/[^/]+$`), "/study/:slug"},
	{regexp.MustCompile(`^/admin/import/[^/]+/(apply|done|cancel)$`), "/admin/import/:id/$1"},
	{regexp.MustCompile(`^/admin/import/[^/]+$`), "/admin/import/:id"},
	{regexp.MustCompile(`^/admin/ingest/documents/[^/]+/(publish|retire)$`), "/admin/ingest/documents/:doc/$1"},
	{regexp.MustCompile(`^/admin/ingest/documents/[^/]+$`), "/admin/ingest/documents/:doc"},
	{regexp.MustCompile(`^/admin/ingest/questions/[^/]+$`), "/admin/ingest/questions/:q"},
	{regexp.MustCompile(`^/admin/ingest/[^/]+/(status|apply|cancel)$`), "/admin/ingest/:id/$1"},
	{regexp.MustCompile(`^/admin/ingest/[^/]+$`), "/admin/ingest/:id"},
}

// routeOf is the route pattern of a request's path.
func routeOf(path string) string {
	for _, p := range routePatterns {
		if m := p.re.FindStringSubmatchIndex(path); m != nil {
			return string(p.re.ExpandString(nil, p.pattern, path, m))
		}
	}
	return path
}

// routeResult is one route's figures: the client's timings, and the
// server's histogram of the same requests.
type routeResult struct {
	loadclient.OpStats
	Statuses map[int]int `json:"statuses"`
	// ServerCount is how many of the route's requests the server's
	// histogram counted during the soak; ServerP99MS the upper bound of
	// the bucket that holds its 99th percentile (+Inf above the last);
	// ServerUnder100 the share it answered within 100 ms.
	ServerCount    int     `json:"server_count"`
	ServerP99MS    float64 `json:"server_p99_le_ms"`
	ServerUnder100 float64 `json:"server_under_100ms"`
}

// routeResults merges the workers' recorders into one result per route,
// in order of route, and adds the server's histograms of the soak.
func routeResults(recs []*routeRecorder, elapsed time.Duration, server map[string]histogram) []routeResult {
	lat := map[string][]time.Duration{}
	status := map[string]map[int]int{}
	for _, r := range recs {
		for route, l := range r.lat {
			lat[route] = append(lat[route], l...)
		}
		for route, m := range r.status {
			if status[route] == nil {
				status[route] = map[int]int{}
			}
			for code, n := range m {
				status[route][code] += n
			}
		}
	}
	routes := make([]string, 0, len(lat))
	for route := range lat {
		routes = append(routes, route)
	}
	sort.Strings(routes)
	out := make([]routeResult, 0, len(routes))
	for _, route := range routes {
		res := routeResult{OpStats: loadclient.Summarise(route, lat[route], elapsed), Statuses: status[route]}
		if h, ok := server[route]; ok {
			res.ServerCount = int(h.count)
			res.ServerP99MS = h.quantileBound(0.99) * 1000
			res.ServerUnder100 = h.shareWithin(0.1)
		}
		out = append(out, res)
	}
	return out
}

// sample is one series of the server's metrics.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// metricSet is a scrape of the metrics, by series (name and labels).
type metricSet map[string]sample

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$`)

// labelPair is one name="value" of a series, with Prometheus' escapes.
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// parseMetrics reads Prometheus' text format, as kubequiz's metrics
// address serves it.
func parseMetrics(r io.Reader) (metricSet, error) {
	out := metricSet{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("metrics: cannot read %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: %q: %w", line, err)
		}
		s := sample{name: m[1], labels: map[string]string{}, value: v}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			s.labels[p[1]] = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n").Replace(p[2])
		}
		out[seriesKey(s)] = s
	}
	return out, sc.Err()
}

func seriesKey(s sample) string {
	keys := make([]string, 0, len(s.labels))
	for k := range s.labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.name)
	for _, k := range keys {
		fmt.Fprintf(&b, ",%s=%q", k, s.labels[k])
	}
	return b.String()
}

// since is what was added to each series between an earlier scrape and
// this one (counters and histograms; a gauge's difference means little).
func (m metricSet) since(before metricSet) metricSet {
	out := make(metricSet, len(m))
	for k, s := range m {
		d := s
		d.value -= before[k].value
		out[k] = d
	}
	return out
}

// sum adds the series of name whose labels pass keep.
func (m metricSet) sum(name string, keep func(map[string]string) bool) float64 {
	var t float64
	for _, s := range m {
		if s.name == name && (keep == nil || keep(s.labels)) {
			t += s.value
		}
	}
	return t
}

// histogram is one series of a Prometheus histogram: cumulative counts by
// upper bound, in seconds.
type histogram struct {
	bounds []float64 // ascending, +Inf last
	counts []float64 // cumulative
	count  float64
}

// requestHistograms are the server's request latency histograms, by
// "METHOD /route" as routeRecorder names them.
func (m metricSet) requestHistograms() map[string]histogram {
	type bucket struct{ le, n float64 }
	buckets := map[string][]bucket{}
	counts := map[string]float64{}
	for _, s := range m {
		route := s.labels["method"] + " " + s.labels["route"]
		switch s.name {
		case "kubequiz_http_request_duration_seconds_bucket":
			le, err := strconv.ParseFloat(s.labels["le"], 64)
			if err != nil {
				continue
			}
			buckets[route] = append(buckets[route], bucket{le, s.value})
		case "kubequiz_http_request_duration_seconds_count":
			counts[route] = s.value
		}
	}
	out := map[string]histogram{}
	for route, bs := range buckets {
		slices.SortFunc(bs, func(a, b bucket) int { return cmp.Compare(a.le, b.le) })
		h := histogram{count: counts[route]}
		for _, b := range bs {
			h.bounds = append(h.bounds, b.le)
			h.counts = append(h.counts, b.n)
		}
		if h.count > 0 {
			out[route] = h
		}
	}
	return out
}

// quantileBound is the upper bound of the bucket that holds quantile q.
func (h histogram) quantileBound(q float64) float64 {
	for i, c := range h.counts {
		if c >= q*h.count {
			return h.bounds[i]
		}
	}
	return math.Inf(1)
}

// shareWithin is the share of observations of at most bound (a bucket's).
func (h histogram) shareWithin(bound float64) float64 {
	if h.count == 0 {
		return 0
	}
	for i, b := range h.bounds {
		if b == bound {
			return h.counts[i] / h.count
		}
	}
	return math.NaN()
}
