package sqldb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// A statement whose call runs out of time stops on the server too: a list
// past its time answers an error at once (TestFacetsBySQLOutOfTime), and
// the database does not go on counting for nobody. pgx closes the
// connection of a statement past its context and sends the server a cancel
// request as it does (pgconn's asyncClose); this holds that, whatever a
// later pgx or a change of the pool's settings does.
func TestPostgresStatementPastItsTimeIsCancelledOnTheServer(t *testing.T) {
	url := dbtest.PostgresURL(t)
	dbtest.Open(t, url) // migrated: the role the pool's connections take
	ctx := context.Background()
	d, err := sqldb.OpenPostgres(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	admin, err := pgx.Connect(ctx, dbtest.PostgresAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for name, run := range map[string]func(context.Context, func(sqldb.Conn) error) error{
		"read":     func(c context.Context, fn func(sqldb.Conn) error) error { return d.Read(c, sqldb.Scope{}, fn) },
		"snapshot": func(c context.Context, fn func(sqldb.Conn) error) error { return d.Snapshot(c, sqldb.Scope{}, fn) },
	} {
		marker := "past its time, " + name
		call, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := run(call, func(c sqldb.Conn) error {
			_, err := c.Exec(call, "SELECT pg_sleep(60), '"+marker+"'")
			return err
		})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) && call.Err() == nil {
			t.Fatalf("%s: %v; want the statement stopped by its call's time", name, err)
		}
		// The backend's statement ends within seconds (a cancel request
		// takes a round trip), not after its 60.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var running int
			if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%'||$1||'%' AND pid <> pg_backend_pid()`, marker).Scan(&running); err != nil {
				t.Fatal(err)
			}
			if running == 0 {
				t.Logf("%s: the statement ended on the server %s after its call", name, time.Since(deadline.Add(-10*time.Second)).Round(time.Millisecond))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the statement still runs on the server 10 s after its call ended", name)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// And the pool still serves.
		if err := d.Read(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
			_, err := c.Exec(ctx, "SELECT 1")
			return err
		}); err != nil {
			t.Fatalf("%s: after the cancel: %v", name, err)
		}
	}
}
