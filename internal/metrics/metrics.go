// Package metrics holds kubequiz's Prometheus collectors in a registry of
// their own (never the default, global one) and serves them. The web
// layer and the serve command report to a *Metrics they are given; the
// store reports through a callback (store.Options.OnBatch) and does not
// know this package. A nil *Metrics records nothing.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where Handler serves the metrics.
const Path = "/metrics"

// Unmatched is the route label of a request that matched no route, so
// that made-up paths add no series.
const Unmatched = "unmatched"

// Outcome is how an import or an ingest ended.
type Outcome string

const (
	// Applied: the questions or drafts were stored.
	Applied Outcome = "applied"
	// Refused: the files had problems; nothing was stored.
	Refused Outcome = "refused"
	// Failed: an error (of the server, not of the files) stopped it.
	Failed Outcome = "failed"
)

var outcomes = []Outcome{Applied, Refused, Failed}

// Ratings are the label values of a review's rating, in order 1 to 4.
var ratings = []string{"again", "hard", "good", "easy"}

// Metrics is kubequiz's collectors and their registry.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	reviews   *prometheus.CounterVec
	batchSize prometheus.Histogram
	batchTime prometheus.Histogram
	imports   *prometheus.CounterVec
	ingests   *prometheus.CounterVec
}

// New registers kubequiz's collectors, and Go's runtime and process ones,
// in a new registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubequiz_http_requests_total",
			Help: "HTTP requests answered, by method, route (the route's pattern, or \"unmatched\") and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kubequiz_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method and route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		reviews: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubequiz_reviews_recorded_total",
			Help: "Reviews recorded (a repeated submit of a review not counted), by rating.",
		}, []string{"rating"}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kubequiz_review_batch_size",
			Help:    "Reviews in each transaction of the review writer.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64},
		}),
		batchTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kubequiz_review_commit_seconds",
			Help:    "Time the review writer took for each batch, from the start of its transaction to its commit and answers.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}),
		imports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubequiz_imports_total",
			Help: "Question file imports applied from the admin pages, by outcome (applied, refused, failed).",
		}, []string{"outcome"}),
		ingests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubequiz_ingests_total",
			Help: "Changelog ingests saved from the admin pages, by outcome (applied, refused, failed).",
		}, []string{"outcome"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.reviews, m.batchSize, m.batchTime, m.imports, m.ingests,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every series that has a fixed set of labels is there from the start,
	// at zero, so that a rate over it begins with the first scrape.
	for _, r := range ratings {
		m.reviews.WithLabelValues(r)
	}
	for _, o := range outcomes {
		m.imports.WithLabelValues(string(o))
		m.ingests.WithLabelValues(string(o))
	}
	return m
}

// Handler serves the metrics at Path, and nothing else (a 404). Errors of
// a collector are logged, and the other metrics still served.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.reg, // promhttp_metric_handler_errors_total
	}))
	return mux
}

// Request counts an answered HTTP request: its method, its route's pattern
// ("" when it matched none), its status and how long it took.
func (m *Metrics) Request(method, route string, status int, took time.Duration) {
	if m == nil {
		return
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		method = "other" // any method a client makes up is one series
	}
	if route == "" {
		route = Unmatched
	}
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(took.Seconds())
}

// ReviewRecorded counts a review recorded with rating (1 Again to 4 Easy).
func (m *Metrics) ReviewRecorded(rating int) {
	if m == nil || rating < 1 || rating > len(ratings) {
		return
	}
	m.reviews.WithLabelValues(ratings[rating-1]).Inc()
}

// ReviewBatch records a batch of the review writer: how many reviews it
// held and how long it took. It fits store.Options.OnBatch.
func (m *Metrics) ReviewBatch(size int, took time.Duration) {
	if m == nil {
		return
	}
	m.batchSize.Observe(float64(size))
	m.batchTime.Observe(took.Seconds())
}

// Import counts an import of question files that ended with o.
func (m *Metrics) Import(o Outcome) {
	if m != nil {
		m.imports.WithLabelValues(string(o)).Inc()
	}
}

// Ingest counts an ingest of changelogs that ended with o.
func (m *Metrics) Ingest(o Outcome) {
	if m != nil {
		m.ingests.WithLabelValues(string(o)).Inc()
	}
}

// sessionsTimeout bounds the count of sessions at each scrape.
const sessionsTimeout = 2 * time.Second

// WatchSessions adds kubequiz_sessions_active, which count gives at each
// scrape (within a short timeout; an error fails that metric only). Call
// it once, while the server is wired.
func (m *Metrics) WatchSessions(count func(ctx context.Context) (int, error)) error {
	return m.reg.Register(sessionsCollector{
		desc:  prometheus.NewDesc("kubequiz_sessions_active", "Sign-in sessions in use: neither expired nor idle too long, of an account not disabled.", nil, nil),
		count: count,
	})
}

// sessionsCollector counts the live sessions when it is scraped.
type sessionsCollector struct {
	desc  *prometheus.Desc
	count func(ctx context.Context) (int, error)
}

func (c sessionsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c sessionsCollector) Collect(ch chan<- prometheus.Metric) {
	// A scrape has no context of its own to pass down: the timeout is
	// what keeps a busy database from holding it.
	ctx, cancel := context.WithTimeout(context.Background(), sessionsTimeout)
	defer cancel()
	n, err := c.count(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}
