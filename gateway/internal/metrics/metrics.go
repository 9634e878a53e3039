// Package metrics holds the gateway's Prometheus instruments on a registry
// of their own, so nothing registered globally by a dependency leaks into
// /metrics and tests can build as many gateways as they like.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// statusClasses are the values of the status_class label, indexed by
// status/100; index 0 collects anything out of range.
var statusClasses = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// Metrics records request counts, durations, concurrency and rate-limit
// rejections. It is safe for concurrent use.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	inFlight    prometheus.Gauge
	rateLimited *prometheus.CounterVec

	// Children resolved at construction for the known services, so the hot
	// path does no label hashing or allocation.
	known map[string]*serviceMetrics
}

type serviceMetrics struct {
	byClass     [6]prometheus.Counter
	duration    prometheus.Observer
	rateLimited prometheus.Counter
}

// New registers the instruments for the given service names (label values
// known in advance; others still work, a little slower).
func New(services []string) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_requests_total",
			Help: "Requests handled, by service and status class.",
		}, []string{"service", "status_class"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gateway_request_duration_seconds",
			Help:    "Time from request to the end of the response, by service; upgraded (websocket) connections are not observed.",
			Buckets: prometheus.DefBuckets,
		}, []string{"service"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_requests_in_flight",
			Help: "Requests currently being served, including open websocket connections.",
		}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_rate_limited_total",
			Help: "Requests rejected with 429 by the per-client rate limit, by service.",
		}, []string{"service"}),
		known: make(map[string]*serviceMetrics, len(services)),
	}
	m.reg.MustRegister(m.requests, m.duration, m.inFlight, m.rateLimited,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range services {
		m.known[s] = m.resolve(s)
	}
	return m
}

func (m *Metrics) resolve(service string) *serviceMetrics {
	sm := &serviceMetrics{
		duration:    m.duration.WithLabelValues(service),
		rateLimited: m.rateLimited.WithLabelValues(service),
	}
	for i, c := range statusClasses {
		sm.byClass[i] = m.requests.WithLabelValues(service, c)
	}
	return sm
}

func (m *Metrics) service(name string) *serviceMetrics {
	if sm, ok := m.known[name]; ok {
		return sm
	}
	return m.resolve(name)
}

// Begin counts a request in flight; End must follow when it finishes.
func (m *Metrics) Begin() { m.inFlight.Inc() }

// End uncounts a request counted by Begin.
func (m *Metrics) End() { m.inFlight.Dec() }

// Observe records one finished request.
func (m *Metrics) Observe(service string, status int, d time.Duration) {
	sm := m.service(service)
	class := status / 100
	if class < 1 || class > 5 {
		class = 0
	}
	sm.byClass[class].Inc()
	if status != http.StatusSwitchingProtocols {
		sm.duration.Observe(d.Seconds())
	}
}

// RateLimited counts one 429 from the rate limiter.
func (m *Metrics) RateLimited(service string) { m.service(service).rateLimited.Inc() }

// Replica is one replica of a service that runs several, as the proxy
// counts it.
type Replica interface {
	Service() string
	Name() string
	InFlight() int64
	Responses() uint64
	Refusals() uint64
	BackingOff() bool
}

// WatchReplicas exports per-replica series for rs, read from the proxy's
// own counters at scrape time, so requests pay nothing for them:
// gateway_upstream_responses_total, gateway_upstream_refused_total,
// gateway_upstream_in_flight and gateway_upstream_backoff, each labelled
// by service and replica (host:port). A single-URL service has no series
// here; its traffic is in the per-service ones.
func (m *Metrics) WatchReplicas(rs []Replica) {
	if len(rs) > 0 {
		m.reg.MustRegister(replicaCollector(rs))
	}
}

var (
	replicaLabels    = []string{"service", "replica"}
	replicaResponses = prometheus.NewDesc("gateway_upstream_responses_total",
		"Responses (websocket upgrades included) from each replica of a service configured with several.", replicaLabels, nil)
	replicaRefused = prometheus.NewDesc("gateway_upstream_refused_total",
		"Connections each replica refused; each skips the replica for a back-off and moves the request to another.", replicaLabels, nil)
	replicaInFlight = prometheus.NewDesc("gateway_upstream_in_flight",
		"Requests sent to each replica whose response is not fully relayed yet, open websockets included.", replicaLabels, nil)
	replicaBackoff = prometheus.NewDesc("gateway_upstream_backoff",
		"1 while a replica is skipped after refusing a connection, else 0.", replicaLabels, nil)
)

// replicaCollector reads the replicas' counters when scraped.
type replicaCollector []Replica

// Describe implements prometheus.Collector.
func (c replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{replicaResponses, replicaRefused, replicaInFlight, replicaBackoff} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c replicaCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c {
		svc, name := r.Service(), r.Name()
		backoff := 0.0
		if r.BackingOff() {
			backoff = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaResponses, prometheus.CounterValue, float64(r.Responses()), svc, name)
		ch <- prometheus.MustNewConstMetric(replicaRefused, prometheus.CounterValue, float64(r.Refusals()), svc, name)
		ch <- prometheus.MustNewConstMetric(replicaInFlight, prometheus.GaugeValue, float64(r.InFlight()), svc, name)
		ch <- prometheus.MustNewConstMetric(replicaBackoff, prometheus.GaugeValue, backoff, svc, name)
	}
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry exposes the registry for tests.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
