package httpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// The window's tools take what their input schemas accept and answer what
// their output schemas declare: the arguments agents send (UCP's hints the
// window ignores beside them) validate against the inputSchema, and each
// answer, an error one too, against the outputSchema, as a client that
// checks structuredContent (the TypeScript SDK does) would.
func TestShopWindowToolSchemas(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: sw.hs.URL + "/shops/technova/ucp/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(name string, schema any) *jsonschema.Resolved {
		t.Helper()
		var s jsonschema.Schema
		b, _ := json.Marshal(schema)
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	in, out := map[string]*jsonschema.Resolved{}, map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		in[tool.Name], out[tool.Name] = resolve(tool.Name, tool.InputSchema), resolve(tool.Name, tool.OutputSchema)
	}
	pad := sw.productID("technova", "MP-RD-M")
	for _, c := range []struct {
		tool, profile string
		catalog       map[string]any
	}{
		{"search_catalog", "agent.json", map[string]any{"query": "technova", "pagination": map[string]any{"limit": 1}}},
		{"search_catalog", "agent.json", map[string]any{"query": "mouse", "filters": map[string]any{"price": map[string]any{"min": 0, "max": 100000}},
			"context": map[string]any{"currency": "BRL", "address_country": "BR"}, "signals": map[string]any{"dev.ucp.buyer_ip": "192.0.2.1"}}},
		{"lookup_catalog", "agent.json", map[string]any{"ids": []any{"MP-RD-M", "mousepad-speed-redragon", pad, "missing-one"}}},
		{"get_product", "agent.json", map[string]any{"id": pad, "selected": []any{map[string]any{"name": "Tamanho", "label": "XG (90 × 42 cm)"}},
			"preferences": []any{"Tamanho"}}},
		{"get_product", "agent.json", map[string]any{"id": vitrine.NewID()}},            // not found: ucp.status "error"
		{"lookup_catalog", "search-only.json", map[string]any{"ids": []any{"MP-RD-M"}}}, // capabilities_incompatible
	} {
		args := map[string]any{"meta": map[string]any{"ucp-agent": map[string]any{"profile": sw.agent.URL + "/" + c.profile}}, "catalog": c.catalog}
		if err := in[c.tool].Validate(args); err != nil {
			t.Errorf("%s %v: the input schema refuses it: %v", c.tool, c.catalog, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %v", c.tool, c.catalog, res, err)
		}
		var answer any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &answer); err != nil {
			t.Fatal(err)
		}
		if err := out[c.tool].Validate(answer); err != nil {
			t.Errorf("%s %v: the output schema refuses the answer: %v\n%s", c.tool, c.catalog, err, b)
		}
	}
}
