package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

type movementList struct {
	Movements []struct {
		Delta      int64
		StockAfter int64 `json:"stock_after"`
		Reason     string
		RequestID  string `json:"request_id"`
	}
	NextCursor string `json:"next_cursor"`
}

// Concurrent adjustments all count, and the stock never goes below zero;
// every movement is kept, and they add up to the stock.
func TestAdjustStock(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		id := w.productID("technova", "MN-LG-29WQ600") // 7 in stock
		adjust := func(cs *mcp.ClientSession, delta int64) error {
			_, err := testkit.CallJSON[product](cs, "adjust_stock", map[string]any{"tenant_id": technova, "id": id, "delta": delta, "reason": "test"})
			return err
		}
		var (
			wg    sync.WaitGroup
			added atomic.Int64
		)
		for i := range 6 {
			cs := w.session("http", member)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 5 {
					d := int64(1 + (i+j)%3)
					if err := adjust(cs, d); err != nil {
						t.Error(err)
						return
					}
					added.Add(d)
				}
			}()
		}
		wg.Wait()
		cs := w.session("http", member)
		p := testkit.OK[product](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": id})
		if p.Stock != 7+added.Load() {
			t.Fatalf("stock %d, want 7 + %d", p.Stock, added.Load())
		}
		// Take away more than there is, concurrently: exactly the stock goes.
		var taken, refused atomic.Int64
		for range 3 {
			cs := w.session("http", member)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range (int(p.Stock) + 9) / 3 {
					err := adjust(cs, -1)
					switch {
					case err == nil:
						taken.Add(1)
					case strings.Contains(err.Error(), `"type":"ValidationError"`) && strings.Contains(err.Error(), "below zero"):
						refused.Add(1)
					default:
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		end := testkit.OK[product](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": id})
		if end.Stock != 0 || taken.Load() != p.Stock || refused.Load() == 0 {
			t.Fatalf("stock %d after %d taken and %d refused, from %d", end.Stock, taken.Load(), refused.Load(), p.Stock)
		}
		// Every movement is kept: they add up, newest first, each after the one before.
		var moves []int64
		var afters []int64
		args := map[string]any{"tenant_id": technova, "product_id": id, "limit": 100}
		for {
			page := testkit.OK[movementList](t, cs, "list_stock_movements", args)
			for _, m := range page.Movements {
				moves, afters = append(moves, m.Delta), append(afters, m.StockAfter)
				if m.Reason == "" || (m.RequestID == "" && m.Reason != "demo data") {
					t.Errorf("movement %+v", m)
				}
			}
			if page.NextCursor == "" {
				break
			}
			args["cursor"] = page.NextCursor
		}
		var sum int64
		for i := len(moves) - 1; i >= 0; i-- {
			sum += moves[i]
			if afters[i] != sum {
				t.Fatalf("movement %d: stock after %d, sum %d", i, afters[i], sum)
			}
		}
		if sum != 0 || len(moves) != 1+30+int(taken.Load()) {
			t.Errorf("%d movements summing to %d", len(moves), sum)
		}
		testkit.Fails(t, cs, "adjust_stock", map[string]any{"tenant_id": technova, "id": id, "delta": 0, "reason": "x"},
			`{"error":true,"type":"ValidationError","message":"delta must not be zero: a positive number adds stock, a negative one takes it away","field":"delta"}`)
		testkit.Fails(t, cs, "adjust_stock", map[string]any{"tenant_id": technova, "id": id, "delta": -1, "reason": "sale"},
			`{"error":true,"type":"ValidationError","message":"the stock would go below zero: it is 0, and delta is -1","field":"delta"}`)
		testkit.Fails(t, cs, "adjust_stock", map[string]any{"tenant_id": technova, "id": id, "delta": 1, "reason": " "},
			`{"error":true,"type":"ValidationError","message":"reason must not be empty","field":"reason"}`)
		testkit.Fails(t, w.session("memory", viewer), "adjust_stock", map[string]any{"tenant_id": technova, "id": id, "delta": 1, "reason": "x"}, denied)
	})
}

type importResult struct {
	Created, Updated, Unchanged, Failed int
	Written                             bool
	RowsOmitted                         int `json:"rows_omitted"`
	Rows                                []struct {
		Index  int
		SKU    string
		Status string
		ID     string
		Error  *struct{ Type, Message, Field string }
	}
}

func TestImportProducts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		var progress []float64
		var mu sync.Mutex
		// The client hands notifications to their handler on its own
		// goroutines: the last may be handled after the result arrives.
		last := make(chan struct{})
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				if r.Params.ProgressToken == "import-1" && r.Params.Total == 995 {
					progress = append(progress, r.Params.Progress)
					if r.Params.Progress == 995 {
						close(last)
					}
				}
			}})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.http.URL + httpserver.MCPPath, HTTPClient: testkit.BearerClient(w.tokens[member]), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()

		rows := make([]map[string]any, 1000)
		bad := map[int]string{}
		for i := range rows {
			rows[i] = map[string]any{"sku": fmt.Sprintf("IMP-%04d", i), "name": fmt.Sprintf("Importado %d", i), "price": "9.90", "stock": i % 7}
			switch i {
			case 10:
				rows[i]["price"], bad[i] = "abc", "ValidationError products[10].price"
			case 200:
				rows[i]["sku"], bad[i] = "nb-dell-5440", "ConflictError products[200].sku"
			case 300:
				rows[i]["sku"], bad[i] = "IMP-0299", "ConflictError products[300].sku"
			case 400:
				rows[i]["currency"], bad[i] = "XYZ", "ValidationError products[400].currency"
			case 999:
				rows[i]["name"], bad[i] = "", "ValidationError products[999].name"
			}
		}
		// All or nothing: nothing is written.
		res := testkit.OK[importResult](t, cs, "import_products", map[string]any{"tenant_id": technova, "products": rows, "atomic": true, "details": true})
		if res.Written || res.Failed != 5 || res.Created != 0 || res.Rows[0].Status != "skipped" || res.Rows[10].Status != "error" {
			t.Fatalf("atomic import: %+v", res)
		}
		if list := testkit.OK[productList](t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "importado"}); len(list.Products) != 0 {
			t.Fatalf("an atomic import that failed wrote %d products", len(list.Products))
		}
		// Row by row, with progress.
		params := &mcp.CallToolParams{Name: "import_products", Arguments: map[string]any{"tenant_id": technova, "products": rows}}
		params.SetProgressToken("import-1")
		raw, err := cs.CallTool(ctx, params)
		if err != nil || raw.IsError {
			t.Fatalf("import: %v %+v", err, raw)
		}
		if err := jsonUnmarshal(raw.Content[0].(*mcp.TextContent).Text, &res); err != nil {
			t.Fatal(err)
		}
		// A thousand rows do not fit in a short answer: the failed ones do.
		if !res.Written || res.Created != 995 || res.Failed != 5 || len(res.Rows) != 5 || res.RowsOmitted != 995 {
			t.Fatalf("import: created %d, failed %d, written %v, %d rows listed, %d omitted", res.Created, res.Failed, res.Written, len(res.Rows), res.RowsOmitted)
		}
		for _, r := range res.Rows {
			if want := bad[r.Index]; r.Status != "error" || r.Error == nil || r.Error.Type+" "+r.Error.Field != want {
				t.Errorf("row %d: %+v, want %s", r.Index, r, want)
			}
		}
		select {
		case <-last:
		case <-time.After(10 * time.Second):
			t.Error("no notification of the last row written")
		}
		mu.Lock()
		if len(progress) < 2 || progress[len(progress)-1] != 995 || !slices.IsSorted(progress) {
			t.Errorf("progress notifications: %v", progress)
		}
		mu.Unlock()
		// Upsert updates by SKU, keeping what the row leaves out.
		res = testkit.OK[importResult](t, cs, "import_products", map[string]any{"tenant_id": technova, "mode": "upsert", "products": []map[string]any{
			{"sku": "IMP-0003", "name": "Importado três", "price": "19.90"},
			{"sku": "NEW-1", "name": "Novo", "price": "1.00"},
		}})
		if res.Created != 1 || res.Updated != 1 || res.Rows[0].Status != "updated" {
			t.Fatalf("upsert: %+v", res)
		}
		p := testkit.OK[product](t, cs, "get_product", map[string]any{"tenant_id": technova, "sku": "IMP-0003"})
		if p.Name != "Importado três" || p.Price != "19.90" || p.Stock != 3 || p.Version != 2 {
			t.Errorf("upserted %+v", p)
		}
		too := make([]map[string]any, 1001)
		for i := range too {
			too[i] = map[string]any{"sku": "X", "name": "x", "price": "1"}
		}
		testkit.Fails(t, cs, "import_products", map[string]any{"tenant_id": technova, "products": too},
			`{"error":true,"type":"ValidationError","message":"products holds 1001 items; the limit is 1000","field":"products"}`)
		testkit.Fails(t, w.session("memory", member), "import_products", map[string]any{"tenant_id": technova, "products": rows[:1], "mode": "merge"},
			`{"error":true,"type":"ValidationError","message":"mode must be one of \"create\", \"upsert\"; got \"merge\"","field":"mode"}`)
	})
}

// Retries with the same idempotency key make one product, even at once.
func TestIdempotentCreate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		args := map[string]any{"tenant_id": technova, "sku": "IDEM-1", "name": "Once", "price": "5.00", "idempotency_key": "key-123"}
		ids := make([]string, 8)
		var wg sync.WaitGroup
		for i := range ids {
			cs := w.session("http", member)
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := testkit.CallJSON[product](cs, "create_product", args)
				if err != nil {
					t.Error(err)
				}
				ids[i] = p.ID
			}()
		}
		wg.Wait()
		if len(slices.Compact(slices.Clone(ids))) != 1 || ids[0] == "" {
			t.Fatalf("ids: %v", ids)
		}
		list := testkit.OK[productList](t, w.session("memory", member), "list_products", map[string]any{"tenant_id": technova, "query": "idem-1"})
		if len(list.Products) != 1 {
			t.Fatalf("%d products", len(list.Products))
		}
		cs := w.session("memory", member)
		other := map[string]any{"tenant_id": technova, "sku": "IDEM-2", "name": "Other", "price": "5.00", "idempotency_key": "key-123"}
		testkit.Fails(t, cs, "create_product", other,
			`{"error":true,"type":"ConflictError","message":"This idempotency_key was already used with other arguments; use a new key for a new product","field":"idempotency_key"}`)
		// Keys belong to their user: another user's same key is another key.
		testkit.OK[product](t, w.session("memory", admin), "create_product", other)
		// An expired key is free again.
		dbtest.Exec(t, url, `UPDATE idempotency_keys SET expires_at = created_at`)
		other["sku"] = "IDEM-3"
		if p := testkit.OK[product](t, cs, "create_product", other); p.ID == ids[0] {
			t.Error("an expired key still answered")
		}
	})
}

// delete_product asks the user to confirm, when the server wants it and the
// client can ask.
func TestDeleteConfirmation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		srv := w.server(mcpserver.Options{ConfirmDestructive: true, Token: w.tokens[admin]})
		for _, c := range []struct {
			name    string
			answer  *mcp.ElicitResult // nil: the client cannot ask
			deleted bool
			message string
		}{
			{"accept", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, true, ""},
			{"accept unchecked", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, false, "The user did not confirm the deletion; nothing was deleted."},
			{"decline", &mcp.ElicitResult{Action: "decline"}, false, "The user declined to delete the product; nothing was deleted."},
			{"cancel", &mcp.ElicitResult{Action: "cancel"}, false, "The user dismissed the confirmation; nothing was deleted."},
			{"no elicitation", nil, true, ""},
		} {
			for _, version := range []string{"2025-11-25", "2026-07-28"} {
				sku := fmt.Sprintf("DEL-%s-%s", strings.ReplaceAll(c.name, " ", "-"), version)
				p := testkit.OK[product](t, w.session("memory", admin), "create_product", map[string]any{"tenant_id": technova, "sku": sku, "name": "Doomed", "price": "1"})
				var asked atomic.Int64
				opts := &mcp.ClientOptions{}
				if c.answer != nil {
					opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked.Add(1)
						if !strings.Contains(r.Params.Message, `"Doomed" (SKU `+sku+`)`) {
							t.Errorf("asked %q", r.Params.Message)
						}
						return c.answer, nil
					}
				}
				st, ct := mcp.NewInMemoryTransports()
				ss, err := srv.MCP().Connect(ctx, st, nil)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				out := testkit.OK[struct {
					Deleted bool
					Message string
				}](t, cs, "delete_product", map[string]any{"tenant_id": technova, "id": p.ID})
				if out.Deleted != c.deleted || out.Message != c.message || asked.Load() != map[bool]int64{true: 1, false: 0}[c.answer != nil] {
					t.Errorf("%s over %s: %+v, asked %d times", c.name, version, out, asked.Load())
				}
				_, err = w.db.ProductByID(ctx, technova, p.ID)
				if gone := err != nil; gone != c.deleted {
					t.Errorf("%s over %s: product gone %v", c.name, version, gone)
				}
				cs.Close()
				ss.Close()
			}
		}
	})
}

// Products are resources too, behind the same checks as get_product. A
// product that is not there is -32602 with the uri in the error's data, as
// MCP asks since 2026-07-28 (SEP-2164).
func TestProductResources(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova, verdeID := w.tenants["technova"], w.tenants["mercado-verde"]
		notebook, maca := w.productID("technova", "NB-DELL-5440"), w.productID("mercado-verde", "FR-MACA-FUJI")
		for _, tr := range transports {
			cs := w.session(tr, viewer)
			templates, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || !slices.ContainsFunc(templates.ResourceTemplates, func(rt *mcp.ResourceTemplate) bool { return rt.URITemplate == mcpserver.ProductURITemplate }) {
				t.Fatalf("%s: templates %+v %v", tr, templates, err)
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ProductURI(technova, notebook)})
			if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || !strings.Contains(res.Contents[0].Text, `"sku":"NB-DELL-5440"`) {
				t.Fatalf("%s: read %+v %v", tr, res, err)
			}
			for uri, want := range map[string]string{
				mcpserver.ProductURI(technova, maca):          `-32602 Product not found`,
				mcpserver.ProductURI(verdeID, maca):           `-32010 Membership not found or inactive`,
				mcpserver.ProductURI(technova, "id-invalido"): `-32602 Product not found`,
			} {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || fmt.Sprintf("%d %s", werr.Code, werr.Message) != want || !strings.HasPrefix(string(werr.Data), `{"error":true,"type":`) {
					t.Errorf("%s: %s answered %v, want %s", tr, uri, err, want)
					continue
				}
				var data struct{ URI string }
				if json.Unmarshal(werr.Data, &data) != nil || data.URI != uri {
					t.Errorf("%s: %s answered data %s, without its uri", tr, uri, werr.Data)
				}
			}
		}
	})
}
