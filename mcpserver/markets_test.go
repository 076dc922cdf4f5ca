package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// The markets' tools: saved and replaced by handle, listed, prices set
// per row (by variant id or SKU, a bad row reported beside the good ones),
// deleted; every argument that is wrong said so by field; a member without
// shop:manage refused; another company's market not found.
func TestMarketTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova, verdeID := w.tenants["technova"], w.tenants["mercado-verde"]
		cs := w.sessionWithToken("memory", w.token(owner, []string{"markets", "products"}))
		save := func(over map[string]any) map[string]any {
			args := map[string]any{"tenant_id": technova, "handle": "us", "name": "United States", "countries": []string{"us"},
				"currency": "usd", "locales": []string{"pt-BR"}, "exchange_rate": "0.18", "rounding": "0.99"}
			for k, v := range over {
				args[k] = v
			}
			return args
		}
		type market struct {
			ID, Handle, Currency string
			ExchangeRate         string `json:"exchange_rate"`
			Countries            []string
			Version              int64
		}
		m := testkit.OK[market](t, cs, "save_market", save(nil))
		if m.ID == "" || m.Currency != "USD" || len(m.Countries) != 1 || m.Countries[0] != "US" || m.Version != 1 {
			t.Fatalf("saved: %+v", m)
		}
		again := testkit.OK[market](t, cs, "save_market", save(map[string]any{"exchange_rate": "0.20"}))
		if again.ID != m.ID || again.Version != 2 || again.ExchangeRate != "0.2" {
			t.Errorf("replaced: %+v", again)
		}
		for field, bad := range map[string]map[string]any{
			"currency":      {"currency": "ZZZ"},
			"countries[0]":  {"countries": []string{"XX"}},
			"locales[0]":    {"locales": []string{"fr"}},
			"exchange_rate": {"exchange_rate": "-1"},
			"rounding":      {"rounding": "0.95"},
			"handle":        {"handle": "Not A Handle"},
		} {
			if e := testkit.ErrorOf(t, cs, "save_market", save(bad)); e["type"] != "ValidationError" || e["field"] != field {
				t.Errorf("%v: %v", bad, e)
			}
		}
		// A country another market has: a conflict that names it.
		if e := testkit.ErrorOf(t, cs, "save_market", save(map[string]any{"handle": "us2", "countries": []string{"US"}})); e["type"] != "ConflictError" ||
			e["field"] != "countries" || !strings.Contains(e["message"].(string), `market "us"`) {
			t.Errorf("a country of another market: %v", e)
		}
		list := testkit.OK[struct{ Markets []market }](t, cs, "list_markets", map[string]any{"tenant_id": technova})
		if len(list.Markets) != 1 || list.Markets[0].Handle != "us" {
			t.Errorf("listed: %+v", list)
		}

		products := testkit.OK[struct {
			Products []struct {
				SKU      string
				Variants []struct{ ID string }
			}
		}](t, cs, "list_products", map[string]any{"tenant_id": technova, "limit": 2, "detail": "full"})
		if len(products.Products) < 2 {
			t.Fatalf("products: %+v", products)
		}
		type rows struct {
			Set, Removed, Failed int
			Rows                 []struct {
				Status string
				Error  *struct{ Type, Field string }
			}
		}
		res := testkit.OK[rows](t, cs, "set_market_prices", map[string]any{"tenant_id": technova, "market": "us", "prices": []map[string]any{
			{"variant_id": products.Products[0].Variants[0].ID, "price": "19.99", "compare_at_price": "24.99"},
			{"sku": products.Products[1].SKU, "price": "9.99"},
			{"sku": "NO-SUCH-SKU", "price": "1.00"},
			{"sku": products.Products[1].SKU, "price": "1.999"},
		}})
		if res.Set != 2 || res.Failed != 2 || res.Rows[2].Error.Type != "NotFoundError" || res.Rows[3].Status != "error" {
			t.Errorf("prices: %+v", res)
		}
		res = testkit.OK[rows](t, cs, "set_market_prices", map[string]any{"tenant_id": technova, "market": "us", "prices": []map[string]any{
			{"sku": products.Products[1].SKU, "price": nil}}})
		if res.Removed != 1 || res.Failed != 0 {
			t.Errorf("removed: %+v", res)
		}

		// Not another company's: its market, its variants.
		vs := w.sessionWithToken("memory", w.token(verde, []string{"markets"}))
		if e := testkit.ErrorOf(t, vs, "set_market_prices", map[string]any{"tenant_id": verdeID, "market": "us", "prices": []map[string]any{{"sku": "X", "price": "1"}}}); e["type"] != "NotFoundError" {
			t.Errorf("another company's market: %v", e)
		}
		testkit.OK[market](t, vs, "save_market", map[string]any{"tenant_id": verdeID, "handle": "us", "name": "US", "countries": []string{"US"},
			"currency": "USD", "locales": []string{"pt-BR"}, "exchange_rate": "0.2", "rounding": "none"})
		res = testkit.OK[rows](t, vs, "set_market_prices", map[string]any{"tenant_id": verdeID, "market": "us", "prices": []map[string]any{
			{"variant_id": products.Products[0].Variants[0].ID, "price": "1"}}})
		if res.Failed != 1 || res.Rows[0].Error.Type != "NotFoundError" {
			t.Errorf("another company's variant: %+v", res)
		}
		// A member may not.
		ms := w.sessionWithToken("memory", w.token(member, []string{"markets"}))
		if e := testkit.ErrorOf(t, ms, "list_markets", map[string]any{"tenant_id": technova}); e["type"] != "PermissionError" {
			t.Errorf("a member: %v", e)
		}

		testkit.OK[struct{ Deleted bool }](t, cs, "delete_market", map[string]any{"tenant_id": technova, "handle": "us"})
		if e := testkit.ErrorOf(t, cs, "delete_market", map[string]any{"tenant_id": technova, "handle": "us"}); e["type"] != "NotFoundError" {
			t.Errorf("deleted twice: %v", e)
		}
	})
}
