package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// A client that never answers a confirmation, and goes away, does not hold
// the server past --shutdown-timeout: closing its session used to wait,
// without end, for the handler still waiting for the answer.
func TestShutdownDespiteAnUnansweredConfirmation(t *testing.T) {
	dbtest.Each(t, testShutdownDespiteAnUnansweredConfirmation)
}

func testShutdownDespiteAnUnansweredConfirmation(t *testing.T, db string) {
	var w struct {
		Tenants []struct{ ID, Slug string }
		Users   []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)
	srv := serveHere(t, "--db", db, "--confirm-destructive", "--call-timeout", "1h", "--shutdown-timeout", "2s")
	defer srv.signal()
	url := srv.url
	asked := make(chan struct{}, 1)
	never := make(chan struct{})
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- struct{}{}
			<-never
			return nil, context.Canceled
		}})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer(w.Users[0].Token)}, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { close(never); cs.Close() }()
	out := must(t, "product", "export", "--db", db, "--tenant", w.Tenants[0].Slug, "--format", "jsonl")
	var p struct{ ID string }
	json.Unmarshal([]byte(out[:strings.IndexByte(out, '\n')]), &p)
	callCtx, hangUp := context.WithCancel(context.Background())
	go cs.CallTool(callCtx, &mcp.CallToolParams{Name: "delete_product", Arguments: map[string]any{"tenant_id": w.Tenants[0].ID, "id": p.ID}})
	<-asked
	hangUp()     // the client goes away without answering
	srv.signal() // what SIGTERM does
	select {
	case <-srv.exited:
	case <-time.After(30 * time.Second): // a hang, not a measure
		t.Fatalf("serve still runs after its shutdown timeout:\n%s", srv.stderr.String())
	}
}
