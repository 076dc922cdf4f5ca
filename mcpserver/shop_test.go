package mcpserver_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

type shopProduct struct {
	ID       string
	Handle   string
	SKU      string
	Price    string
	PriceMax string `json:"price_max"`
	Stock    int64
	Status   string
	Tags     []string
	Options  []struct {
		Name   string
		Values []string
	}
	Variants []struct {
		ID      string
		SKU     string
		Options map[string]string
		Price   string
		Stock   int64
		Image   string
	}
	Media []struct {
		URL      string
		Alt      string
		Position int
	}
	Version int64
}

// The catalog through the MCP tools as a client calls them, on each
// transport: a Shopify export imported by import_products, questions
// answered with facets, variants edited with the catalog toolset, and the
// categories' tools only for those who may.
func TestCatalogThroughTheTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		file, err := os.ReadFile("../internal/shopify/testdata/export_classic.csv")
		if err != nil {
			t.Fatal(err)
		}
		all := w.token(owner, []string{"all"})
		for i, tr := range transports {
			cs := w.sessionWithToken(tr, all)
			tenant := technova
			if i > 0 {
				// Each transport imports into a company of its own.
				tenant = testkit.OK[struct{ ID string }](t, cs, "create_tenant", map[string]any{"name": "Loja " + tr}).ID
			}
			res := testkit.OK[struct {
				Created, Failed int
				Rows            []struct {
					Line   int
					Handle string
					Status string
				}
				Notices []struct{ Message string }
			}](t, cs, "import_products", map[string]any{"tenant_id": tenant, "format": "shopify", "csv": string(file)})
			if res.Failed != 0 || res.Created < 3 || len(res.Rows) != res.Created || res.Rows[0].Line != 2 || len(res.Notices) == 0 {
				t.Fatalf("%s: import %+v", tr, res)
			}
			// Every row names its product by handle, and get_product has it whole.
			var multi shopProduct
			for _, r := range res.Rows {
				p := testkit.OK[shopProduct](t, cs, "get_product", map[string]any{"tenant_id": tenant, "id": w.handleID(cs, tenant, r.Handle)})
				if len(p.Variants) > len(multi.Variants) {
					multi = p
				}
			}
			if len(multi.Variants) < 2 || len(multi.Options) == 0 || len(multi.Media) == 0 {
				t.Fatalf("%s: the product of most variants: %+v", tr, multi)
			}
			// By a variant's SKU, the same product.
			v := multi.Variants[len(multi.Variants)-1]
			if v.SKU != "" {
				if p := testkit.OK[shopProduct](t, cs, "get_product", map[string]any{"tenant_id": tenant, "sku": strings.ToLower(v.SKU)}); p.ID != multi.ID {
					t.Errorf("%s: by SKU %s: %s", tr, v.SKU, p.ID)
				}
			}
			// A question with facets: one call, the counts to narrow by.
			opt := multi.Options[0]
			page := testkit.OK[struct {
				Products []struct{ ID string }
				Facets   struct {
					Options map[string][]struct {
						Value string
						Count int
					}
					Vendor []struct {
						Value string
						Count int
					}
				}
			}](t, cs, "list_products", map[string]any{"tenant_id": tenant, "options": map[string]any{opt.Name: v.Options[opt.Name]}, "facets": []string{"options", "vendor"}})
			found := false
			for _, p := range page.Products {
				found = found || p.ID == multi.ID
			}
			if !found || len(page.Facets.Options[opt.Name]) == 0 || len(page.Facets.Vendor) == 0 {
				t.Errorf("%s: %s %s: %+v", tr, opt.Name, v.Options[opt.Name], page)
			}
			// Stock by variant, and a variant added with the catalog toolset.
			adj := testkit.OK[struct {
				ID        string
				VariantID string `json:"variant_id"`
				Stock     int64
			}](t, cs, "adjust_stock", map[string]any{"tenant_id": tenant, "variant_id": v.ID, "delta": 4, "reason": "restock"})
			if adj.ID != multi.ID || adj.VariantID != v.ID || adj.Stock != v.Stock+4 {
				t.Errorf("%s: adjust_stock %+v", tr, adj)
			}
			values := map[string]any{}
			for _, o := range multi.Options {
				values[o.Name] = "Novo " + tr
			}
			added := testkit.OK[shopProduct](t, cs, "add_variant", map[string]any{"tenant_id": tenant, "id": multi.ID, "options": values, "price": "10.00", "stock": 1})
			if len(added.Variants) != len(multi.Variants)+1 || added.Version != multi.Version+2 {
				t.Errorf("%s: add_variant %+v", tr, added)
			}
		}
		// The default grant has no variant or category tools; a member may
		// edit variants, and only an owner or admin the categories.
		cs := w.session("memory", member)
		if _, isErr := testkit.Call(t, cs, "save_category", map[string]any{"tenant_id": technova, "name": "x"}); !isErr {
			t.Error("save_category outside the default grant answered")
		}
		carla := w.sessionWithToken("memory", w.token(member, []string{"all"}))
		testkit.Fails(t, carla, "save_category", map[string]any{"tenant_id": technova, "name": "Jackets"},
			`{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`)
		ana := w.sessionWithToken("memory", all)
		cat := testkit.OK[struct{ ID, Path string }](t, ana, "save_category", map[string]any{"tenant_id": technova, "name": "Jackets"})
		sub := testkit.OK[struct{ ID, Path string }](t, ana, "save_category", map[string]any{"tenant_id": technova, "name": "Parkas", "parent_id": cat.ID})
		if sub.Path != "Jackets > Parkas" {
			t.Errorf("a sub-category's path: %q", sub.Path)
		}
		testkit.Fails(t, ana, "save_category", map[string]any{"tenant_id": technova, "id": cat.ID, "parent_id": sub.ID},
			`{"error":true,"type":"ValidationError","message":"a category cannot go under itself or one of its own subcategories","field":"parent_id"}`)
		list := testkit.OK[struct{ Categories []struct{ ID string } }](t, carla, "list_categories", map[string]any{"tenant_id": technova})
		if len(list.Categories) < 2 {
			t.Errorf("list_categories: %+v", list)
		}
		// Another company's member sees none of them (only its own, the demo's).
		verde := w.tenants["mercado-verde"]
		other := testkit.OK[struct{ Categories []struct{ ID string } }](t, carla, "list_categories", map[string]any{"tenant_id": verde})
		for _, c := range other.Categories {
			if slices.ContainsFunc(list.Categories, func(x struct{ ID string }) bool { return x.ID == c.ID }) {
				t.Errorf("mercado-verde lists technova's category %s", c.ID)
			}
		}
		if len(other.Categories) == 0 {
			t.Error("mercado-verde lists none of its own categories")
		}
	})
}

// handleID finds the id of the product with that handle, by a search of
// the company's products.
func (w *world) handleID(s *mcp.ClientSession, tenant, handle string) string {
	w.t.Helper()
	for cursor := ""; ; {
		args := map[string]any{"tenant_id": tenant, "limit": 100, "detail": "full"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		page := testkit.OK[struct {
			Products []struct {
				ID, Handle string
			}
			NextCursor string `json:"next_cursor"`
		}](w.t, s, "list_products", args)
		for _, p := range page.Products {
			if p.Handle == handle {
				return p.ID
			}
		}
		if page.NextCursor == "" {
			w.t.Fatalf("no product %q", handle)
		}
		cursor = page.NextCursor
	}
}
