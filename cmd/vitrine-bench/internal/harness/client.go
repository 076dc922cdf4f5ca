package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bearer is an HTTP transport that sends a bearer token.
type Bearer string

// benchTransport keeps a connection per session alive (the default keeps
// two per host, and would measure TCP handshakes instead of calls).
var benchTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return t
}()

// RoundTrip sends r with the token.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return benchTransport.RoundTrip(r)
}

// OpenSessions connects n go-sdk client sessions to the MCP endpoint of
// base, each asking for the revision protocol ("" for the newest).
func OpenSessions(ctx context.Context, base, token, protocol string, n int) ([]*mcp.ClientSession, error) {
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: Bearer(token)}, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			for _, cs := range out[:i] {
				cs.Close()
			}
			return nil, err
		}
		out[i] = cs
	}
	return out, nil
}

// CallTool calls a tool; a tool's error result is an error.
func CallTool(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New(res.Content[0].(*mcp.TextContent).Text)
	}
	return res, nil
}

// OpenIdleSessions opens n sessions of revision 2025-11-25 on the MCP
// endpoint of base, as clients that initialized and went quiet do: each
// an initialize and its notifications/initialized, over plain HTTP (no
// client library, no event stream kept open). close ends them (DELETE).
func OpenIdleSessions(ctx context.Context, base, token string, n int) (close func(), err error) {
	client := &http.Client{Transport: Bearer(token)}
	var ids []string
	close = func() {
		for _, id := range ids {
			if res, err := idleRequest(ctx, client, base, http.MethodDelete, id, ""); err == nil {
				res.Body.Close()
			}
		}
	}
	for range n {
		res, err := idleRequest(ctx, client, base, http.MethodPost, "",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}`)
		if err != nil {
			close()
			return nil, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		id := res.Header.Get("Mcp-Session-Id")
		if res.StatusCode != http.StatusOK || id == "" {
			close()
			return nil, fmt.Errorf("idle session %d: initialize answered %s", len(ids)+1, res.Status)
		}
		ids = append(ids, id)
		if res, err = idleRequest(ctx, client, base, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
			close()
			return nil, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusAccepted {
			close()
			return nil, fmt.Errorf("idle session %d: notifications/initialized answered %s", len(ids), res.Status)
		}
	}
	return close, nil
}

func idleRequest(ctx context.Context, client *http.Client, base, method, session, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, base+"/mcp", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	return client.Do(req)
}
