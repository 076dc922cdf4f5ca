package mcpserver

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's Prometheus instruments. Without a registry
// they count all the same, unseen.
type metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
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
	}
	if reg != nil {
		reg.MustRegister(m.calls, m.duration, m.inFlight,
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
	m.inFlight.Inc()
}

func (m *metrics) end(tool, outcome string, took time.Duration) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(took.Seconds())
	m.inFlight.Dec()
}
