package mcpserver

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's Prometheus instruments. Without a registry
// they count all the same, unseen.
type metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	limited  *prometheus.CounterVec
	// authFailures counts requests refused for their token.
	authFailures *prometheus.CounterVec
	// running counts the calls in flight, and exchanges the HTTP requests
	// that are not event streams (a call's answer is written after its
	// handler returns), for Shutdown.
	running   atomic.Int64
	exchanges atomic.Int64
}

func newMetrics(reg prometheus.Registerer, s *Server) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_tool_calls_total", Help: "Tool calls (and resource reads), by tool and outcome: ok or the error type.",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vitrine_tool_call_duration_seconds", Help: "Time to answer a tool call, by tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"tool"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vitrine_tool_calls_in_flight", Help: "Tool calls being answered now.",
		}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_rate_limited_total", Help: "HTTP requests refused by an abuse limit, by limit.",
		}, []string{"limit"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vitrine_auth_failures_total", Help: "HTTP requests refused for their token, by reason: missing_token, invalid_token, insufficient_scope.",
		}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.calls, m.duration, m.inFlight, m.limited, m.authFailures,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "vitrine_sessions_active", Help: "MCP sessions held by this instance.",
			}, func() float64 {
				n := 0
				for range s.mcp.Sessions() {
					n++
				}
				return float64(n)
			}))
	}
	return m
}

// begin and end bracket a call.
func (m *metrics) begin() {
	m.running.Add(1)
	m.inFlight.Inc()
}

func (m *metrics) end(tool, outcome string, took time.Duration) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(took.Seconds())
	m.inFlight.Dec()
	m.running.Add(-1)
}

// Shutdown lets the calls in flight finish and their answers go out, then
// ends every session, so that an HTTP server shutting down is left with no
// open stream. It returns when both are done, or when ctx ends, whatever
// the clients do: closing a session waits for its handlers, and one may be
// waiting for a client's answer (an elicitation) that never comes.
func (s *Server) Shutdown(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for s.metrics.running.Load() > 0 || s.metrics.exchanges.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	var sessions []*mcp.ServerSession
	for ss := range s.mcp.Sessions() {
		sessions = append(sessions, ss)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		for _, ss := range sessions {
			ss.Close()
		}
	}()
	select {
	case <-closed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
