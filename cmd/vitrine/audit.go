package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/auditlog"
	"github.com/vitrine/vitrine/store"
)

// AuditFlags say how the serving commands keep the audit log.
type AuditFlags struct {
	AuditReads     string    `enum:"buffered,durable,off" default:"buffered" help:"Events of calls that write nothing (reads, refusals): buffered (written at least every 100 ms and at every graceful stop; a crash may lose the last 100 ms of them), durable (each call waits for its event's commit), or off (not recorded). Events of writes always commit with the write."`
	AuditRetention retention `default:"90d" placeholder:"DAYS" help:"How long audit events are kept, as 90d or a Go duration of at least 24h; older ones are removed in the background. 0 keeps every event."`
	AuditSink      string    `placeholder:"stderr|file:PATH" help:"Also write every audit event as a JSON line to standard error or to a file (appended), for a SIEM."`
}

// retention is a duration that also reads days: 90d.
type retention time.Duration

// UnmarshalText reads "90d", "0" or a Go duration.
func (r *retention) UnmarshalText(b []byte) error {
	s := string(b)
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return fmt.Errorf("audit retention must be as 90d, 0 or a Go duration; got %q", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else if s != "0" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return fmt.Errorf("audit retention must be as 90d, 0 or a Go duration; got %q", s)
		}
	}
	if d != 0 && d < auditlog.MinAge {
		return fmt.Errorf("audit retention must be 0 or at least 24h; got %q", s)
	}
	*r = retention(d)
	return nil
}

// openServing opens the database with opts (its logger log) and a service
// that keeps the audit log as the flags say. close writes the buffered
// audit events, then closes the sink and the database: call it at every
// graceful stop.
func (e *env) openServing(log *slog.Logger, f AuditFlags, opts store.Options, reg prometheus.Registerer) (db *store.DB, svc *service.Service, close func(), err error) {
	o := auditlog.Options{Reads: auditlog.Reads(f.AuditReads), Retention: time.Duration(f.AuditRetention), Metrics: reg}
	var sink io.Closer
	switch {
	case f.AuditSink == "":
	case f.AuditSink == "stderr":
		o.Sink = e.stderr
	case strings.HasPrefix(f.AuditSink, "file:"):
		file, err := os.OpenFile(strings.TrimPrefix(f.AuditSink, "file:"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("audit sink: %w", err)
		}
		o.Sink, sink = file, file
	default:
		return nil, nil, nil, &usageError{fmt.Sprintf("--audit-sink must be stderr or file:PATH; got %q", f.AuditSink)}
	}
	opts.Logger = log
	if db, err = store.Open(e.ctx, e.flags.DB, opts); err != nil {
		if sink != nil {
			sink.Close()
		}
		return nil, nil, nil, err
	}
	svc = service.NewWithOptions(db, log, service.Options{Audit: o})
	close = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			log.Error("write buffered audit events", "err", err)
		}
		if sink != nil {
			sink.Close()
		}
		db.Close()
	}
	return db, svc, close, nil
}

// AuditPruneCmd removes old audit events by hand.
type AuditPruneCmd struct {
	Before string `required:"" placeholder:"DATE" help:"Remove the events before this date (2026-09-01) or time (RFC 3339), of every company; it must be at least a day ago."`
}

// Run removes the events.
func (c *AuditPruneCmd) Run(e *env) error {
	before, err := time.Parse(time.DateOnly, c.Before)
	if err != nil {
		if before, err = time.Parse(time.RFC3339, c.Before); err != nil {
			return &usageError{fmt.Sprintf("--before must be a date (2026-09-01) or an RFC 3339 time; got %q", c.Before)}
		}
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := svc.Operator().Command("vitrine audit prune").PruneAudit(e.ctx, before)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "removed %d audit events before %s\n", n, before.Format(time.RFC3339))
	return err
}
