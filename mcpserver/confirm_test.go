package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

// confirmClient connects to srv as a client that can ask its user, in a
// protocol revision, answering every question with answer.
func confirmClient(t *testing.T, srv *mcpserver.Server, version string, answer func(context.Context) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	opts := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return answer(ctx) }}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// An answer to the confirmation counts only if the server asked the
// question: a client that sends "accept" with its first call is asked all
// the same, and here the user declines; one that sends it with a
// requestState the server did not seal for this call (tampered, forged)
// is answered a protocol error, -32602, and asked nothing.
func TestDeleteConfirmationCannotBePrefilled(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		srv := w.server(mcpserver.Options{ConfirmDestructive: true, Token: w.tokens[admin]})
		id := w.productID("technova", "MS-LOGI-MX3S")
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			asked := 0
			cs := confirmClient(t, srv, version, func(context.Context) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "decline"}, nil
			})
			accept := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_product", Arguments: map[string]any{"tenant_id": technova, "id": id},
				InputResponses: accept})
			if err != nil || res.IsError {
				t.Fatalf("over %s: %v %+v", version, err, res)
			}
			for _, state := range []string{"forged", tampered(t, w, technova, id)} {
				_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_product", Arguments: map[string]any{"tenant_id": technova, "id": id},
					InputResponses: accept, RequestState: state})
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(werr.Message, "requestState does not verify") {
					t.Errorf("over %s, requestState %.20s: %v", version, state, err)
				}
			}
			if _, err := w.db.ProductByID(ctx, technova, id); err != nil || asked != 1 {
				t.Errorf("over %s: a pre-filled answer deleted the product (%v), or was asked %d times, not once", version, err, asked)
			}
		}
	})
}

// tampered returns a requestState the server sealed for a confirmation of
// deleting the product, with one character changed.
func tampered(t *testing.T, w *world, tenantID, id string) string {
	t.Helper()
	caller, err := w.svc.Operator().ActAs(ctx, admin, "test")
	if err != nil {
		t.Fatal(err)
	}
	state, err := w.svc.SealState(ctx, "confirm-delete\x00"+tenantID+"\x00"+caller.User.ID+"\x00"+id, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(state)
	b[len(b)/2] ^= 1
	return string(b)
}

// A client that never answers the confirmation holds the call no longer
// than --call-timeout: the call answers an Error, and nothing is deleted.
func TestUnansweredConfirmationEndsAtTheDeadline(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	srv := w.server(mcpserver.Options{ConfirmDestructive: true, Token: w.tokens[admin], CallTimeout: 200 * time.Millisecond})
	id := w.productID("technova", "MS-LOGI-MX3S")
	never := make(chan struct{})
	defer close(never)
	cs := confirmClient(t, srv, "2025-11-25", func(context.Context) (*mcp.ElicitResult, error) {
		<-never // the user walked away, and the client does not give up
		return nil, context.Canceled
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		testkit.Fails(t, cs, "delete_product", map[string]any{"tenant_id": technova, "id": id},
			`{"error":true,"type":"Error","message":"The client did not answer within the call's time limit; nothing was done"}`)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a hang, not a measure
		t.Fatal("the call still waits for the client's answer")
	}
	if _, err := w.db.ProductByID(ctx, technova, id); err != nil {
		t.Errorf("deleted without an answer: %v", err)
	}
}
