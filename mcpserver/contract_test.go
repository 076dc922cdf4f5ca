package mcpserver_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// The three scenarios of the seed page (tratamento-de-erros), byte for byte.
func TestSeedScenarios(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		notebook := w.productID("technova", "NB-DELL-5440")
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				// Permissão negada: a member deletes "Notebook Dell".
				cs := w.session(tr, member)
				testkit.Fails(t, cs, "delete_product", map[string]any{"tenant_id": technova, "id": notebook},
					`{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`)
				// Recurso não encontrado.
				testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": technova, "id": "id-invalido"},
					`{"error":true,"type":"NotFoundError","message":"Product not found"}`)
				// Tenant inválido, then list_tenants.
				testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": "tenant-sem-acesso"},
					`{"error":true,"type":"Error","message":"Membership not found or inactive"}`)
				tenants := testkit.OK[struct {
					Tenants []struct{ ID, Slug, Role string }
				}](t, cs, "list_tenants", nil)
				if len(tenants.Tenants) != 2 || tenants.Tenants[0].Slug != "mercado-verde" || tenants.Tenants[1].ID != technova || tenants.Tenants[1].Role != "member" {
					t.Errorf("list_tenants = %+v", tenants)
				}
				// The product is still there: the denied delete wrote nothing.
				testkit.OK[map[string]any](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": notebook})
			})
		}
	})
}

// No active membership answers the same, whether the tenant does not exist,
// belongs to others, or the membership is inactive; and it comes before any
// permission or argument check.
func TestNoMembershipIsAlwaysTheSame(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		const want = `{"error":true,"type":"Error","message":"Membership not found or inactive"}`
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				cases := []struct {
					who, tenant string
				}{
					{member, "tenant-sem-acesso"},
					{member, "01a20000-0000-7000-8000-000000000000"}, // well-formed, no such tenant
					{viewer, w.tenants["mercado-verde"]},             // someone else's tenant
					{inactive, w.tenants["technova"]},                // inactive membership
				}
				for _, c := range cases {
					cs := w.session(tr, c.who)
					for _, tool := range []string{"list_products", "get_tenant", "delete_product", "create_product"} {
						// No id, no SKU: the membership answer still comes first.
						testkit.Fails(t, cs, tool, map[string]any{"tenant_id": c.tenant, "bogus": 1}, want)
					}
				}
				// The inactive member still reaches nothing, and sees no tenant.
				tenants := testkit.OK[struct{ Tenants []any }](t, w.session(tr, inactive), "list_tenants", nil)
				if len(tenants.Tenants) != 0 {
					t.Errorf("inactive member lists %v", tenants.Tenants)
				}
			})
		}
	})
}

// Every row of the contract's table (SPEC section 4).
func TestErrorContract(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		notebook := w.productID("technova", "NB-DELL-5440")
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				cs := w.session(tr, admin)
				testkit.Fails(t, w.session(tr, member), "delete_product", map[string]any{"tenant_id": technova, "id": "id-invalido", "bogus": true},
					`{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`)
				cases := []struct {
					name, tool string
					args       map[string]any
					want       string
				}{
					{"malformed id", "get_product", map[string]any{"tenant_id": technova, "id": "id-invalido"},
						`{"error":true,"type":"NotFoundError","message":"Product not found"}`},
					{"unknown id", "get_product", map[string]any{"tenant_id": technova, "id": "01a20000-0000-7000-8000-000000000000"},
						`{"error":true,"type":"NotFoundError","message":"Product not found"}`},
					{"unknown sku", "get_product", map[string]any{"tenant_id": technova, "sku": "NOPE-1"},
						`{"error":true,"type":"NotFoundError","message":"Product not found"}`},
					{"update unknown", "update_product", map[string]any{"tenant_id": technova, "id": "01a20000-0000-7000-8000-000000000000", "name": "x"},
						`{"error":true,"type":"NotFoundError","message":"Product not found"}`},
					{"duplicate SKU in another case", "create_product", map[string]any{"tenant_id": technova, "sku": "nb-dell-5440", "name": "Outro", "price": "10.00"},
						`{"error":true,"type":"ConflictError","message":"A product with SKU \"nb-dell-5440\" already exists in this company (SKUs are compared without case)","field":"sku"}`},
					{"stale version", "update_product", map[string]any{"tenant_id": technova, "id": notebook, "name": "x", "expected_version": 7},
						`{"error":true,"type":"ConflictError","message":"The product is at version 1, not 7: someone changed it since you read it. Fetch it again with get_product, check the changes, and retry with expected_version 1","field":"expected_version"}`},
					{"missing required", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x"},
						`{"error":true,"type":"ValidationError","message":"price is required","field":"price"}`},
					{"missing tenant_id", "list_products", map[string]any{},
						`{"error":true,"type":"ValidationError","message":"tenant_id is required","field":"tenant_id"}`},
					{"wrong type", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x", "price": 10.5},
						`{"error":true,"type":"ValidationError","message":"price must be a string, not a number","field":"price"}`},
					{"wrong type of tenant_id", "list_products", map[string]any{"tenant_id": 42},
						`{"error":true,"type":"ValidationError","message":"tenant_id must be a string, not a number","field":"tenant_id"}`},
					{"negative price", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x", "price": "-1.00"},
						`{"error":true,"type":"ValidationError","message":"price must be a non-negative decimal string such as \"4599.90\"; got \"-1.00\"","field":"price"}`},
					{"malformed money", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x", "price": "12,50"},
						`{"error":true,"type":"ValidationError","message":"price must be a non-negative decimal string such as \"4599.90\"; got \"12,50\"","field":"price"}`},
					{"too many decimals", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x", "price": "12.505"},
						`{"error":true,"type":"ValidationError","message":"price must be a non-negative decimal string such as \"4599.90\" (at most 2 decimals in this currency); got \"12.505\"","field":"price"}`},
					{"empty name", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "  ", "price": "1"},
						`{"error":true,"type":"ValidationError","message":"name must not be empty","field":"name"}`},
					{"negative stock", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x", "price": "1", "stock": -3},
						`{"error":true,"type":"ValidationError","message":"stock must be at least 0; got -3","field":"stock"}`},
					{"bad enum", "list_products", map[string]any{"tenant_id": technova, "status": "deleted"},
						`{"error":true,"type":"ValidationError","message":"status must be one of \"draft\", \"active\", \"archived\"; got \"deleted\"","field":"status"}`},
					{"limit out of range", "list_products", map[string]any{"tenant_id": technova, "limit": 1000},
						`{"error":true,"type":"ValidationError","message":"limit must be at most 100; got 1000","field":"limit"}`},
					{"unknown argument", "get_product", map[string]any{"tenant_id": technova, "product_id": "x"},
						`{"error":true,"type":"ValidationError","message":"unknown argument \"product_id\"; the arguments are: tenant_id, id, sku, handle, locale","field":"product_id"}`},
					{"bad currency", "create_product", map[string]any{"tenant_id": technova, "sku": "X-1", "name": "x", "price": "1", "currency": "REAL"},
						`{"error":true,"type":"ValidationError","message":"currency must be an ISO 4217 currency code such as \"BRL\" or \"USD\", not \"REAL\"","field":"currency"}`},
					{"id and sku", "get_product", map[string]any{"tenant_id": technova, "id": notebook, "sku": "NB-DELL-5440"},
						`{"error":true,"type":"ValidationError","message":"give only one of id, sku and handle; got 2","field":"id"}`},
					{"validation before lookup", "update_product", map[string]any{"tenant_id": technova, "id": "id-invalido", "price": "abc"},
						`{"error":true,"type":"ValidationError","message":"price must be a non-negative decimal string such as \"4599.90\"; got \"abc\"","field":"price"}`},
					{"nothing to update", "update_product", map[string]any{"tenant_id": technova, "id": notebook},
						`{"error":true,"type":"ValidationError","message":"nothing to change: give at least one field to change, such as name, price, status, tags or media","field":"id"}`},
					{"bad cursor", "list_products", map[string]any{"tenant_id": technova, "cursor": "abc"},
						`{"error":true,"type":"ValidationError","message":"cursor is not a cursor from this list; pass the next_cursor of the previous page unchanged, with the same filters","field":"cursor"}`},
				}
				for _, c := range cases {
					t.Run(c.name, func(t *testing.T) { testkit.Fails(t, cs, c.tool, c.args, c.want) })
				}
			})
		}
	})
}

func TestUnknownTool(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	for _, tr := range transports {
		_, err := w.session(tr, owner).CallTool(ctx, &mcp.CallToolParams{Name: "invalid_tool_name", Arguments: map[string]any{}})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != -32602 || werr.Message != "Unknown tool: invalid_tool_name" || werr.Data != nil {
			t.Errorf("%s: unknown tool answered %#v", tr, err)
		}
	}
	// On the wire, the whole error object is exactly the contract's.
	body := rawCall(t, w, w.tokens[owner], `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"invalid_tool_name","arguments":{}}}`)
	if !strings.Contains(body, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: invalid_tool_name"}}`) {
		t.Errorf("wire answer: %s", body)
	}
}

// rawCall posts one JSON-RPC request to a stateless exchange: initialize
// first, then the request on the same session.
func rawCall(t *testing.T, w *world, token, request string) string {
	t.Helper()
	post := func(session, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", w.http.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		return res, string(data)
	}
	res, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	session := res.Header.Get("Mcp-Session-Id")
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, body := post(session, request)
	return body
}

// An unexpected failure shows the agent a generic message with a request
// id; the detail is in the log under that id, never in the result.
func TestInternalErrorsAreGeneric(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		drop := `DROP TABLE products` // every product query now fails in the database
		if dbtest.IsPostgres(url) {
			drop += ` CASCADE` // with the words that refer to it
		}
		dbtest.Exec(t, url, drop)
		for _, tr := range transports {
			cs := w.session(tr, owner)
			for _, args := range []map[string]any{{"tenant_id": technova}, {"tenant_id": technova, "query": "dell"}} {
				text, isErr := testkit.Call(t, cs, "list_products", args)
				var e struct {
					RequestID string `json:"request_id"`
				}
				json.Unmarshal([]byte(text), &e)
				want := fmt.Sprintf(`{"error":true,"type":"Error","message":"Internal error: the request could not be completed. Report request id %s to the operator if it persists","request_id":"%s"}`, e.RequestID, e.RequestID)
				if !isErr || e.RequestID == "" || text != want {
					t.Fatalf("%s:\n got %s\nwant %s", tr, text, want)
				}
				var line string
				for _, l := range strings.Split(w.log.String(), "\n") {
					if strings.Contains(l, "request_id="+e.RequestID) {
						line = l
					}
				}
				if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "products") {
					t.Errorf("%s: the log has no detail under %s: %q", tr, e.RequestID, line)
				}
			}
		}
	})
}
