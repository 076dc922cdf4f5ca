package mcpserver_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

type product struct {
	ID, SKU, Name, Description, Price, Currency, Status string
	TenantID                                            string `json:"tenant_id"`
	Stock, Version                                      int64
}

type productList struct {
	Products   []product `json:"products"`
	NextCursor string    `json:"next_cursor"`
}

func TestProductLifecycle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				cs := w.session(tr, member)
				sku := "WC-LOGI-" + tr
				p := testkit.OK[product](t, cs, "create_product", map[string]any{"tenant_id": technova, "sku": sku,
					"name": "Webcam Logitech C920", "price": "499.9", "stock": 5, "description": "Full HD"})
				if p.Price != "499.90" || p.Currency != "BRL" || p.Status != "active" || p.Version != 1 || p.TenantID != technova || p.Stock != 5 {
					t.Fatalf("created %+v", p)
				}
				if got := testkit.OK[product](t, cs, "get_product", map[string]any{"tenant_id": technova, "sku": "wc-logi-" + tr}); got.ID != p.ID {
					t.Fatalf("by sku: %+v", got)
				}
				// A partial update leaves the other fields alone.
				u := testkit.OK[product](t, cs, "update_product", map[string]any{"tenant_id": technova, "id": p.ID, "price": "459.00", "expected_version": 1})
				if u.Price != "459.00" || u.Name != p.Name || u.Stock != 5 || u.Description != "Full HD" || u.Version != 2 {
					t.Fatalf("updated %+v", u)
				}
				// Archive, then restore; clear the description.
				u = testkit.OK[product](t, cs, "update_product", map[string]any{"tenant_id": technova, "id": p.ID, "status": "archived", "description": ""})
				if u.Status != "archived" || u.Description != "" || u.Version != 3 {
					t.Fatalf("archived %+v", u)
				}
				// The currency changes with the amount when it can be kept exactly.
				u = testkit.OK[product](t, cs, "update_product", map[string]any{"tenant_id": technova, "id": p.ID, "currency": "usd", "status": "active"})
				if u.Currency != "USD" || u.Price != "459.00" {
					t.Fatalf("in USD %+v", u)
				}
				u = testkit.OK[product](t, cs, "update_product", map[string]any{"tenant_id": technova, "id": p.ID, "currency": "JPY"})
				if u.Currency != "JPY" || u.Price != "459" {
					t.Fatalf("in JPY %+v", u)
				}
				testkit.Fails(t, cs, "update_product", map[string]any{"tenant_id": technova, "id": p.ID, "price": "459.50"},
					`{"error":true,"type":"ValidationError","message":"price must be a non-negative decimal string such as \"4599\" (this currency has no decimals); got \"459.50\"","field":"price"}`)
				// Deleting needs an owner or admin; then the product is gone.
				testkit.Fails(t, cs, "delete_product", map[string]any{"tenant_id": technova, "id": p.ID},
					`{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`)
				adm := w.session(tr, admin)
				del := testkit.OK[map[string]any](t, adm, "delete_product", map[string]any{"tenant_id": technova, "id": p.ID})
				if del["deleted"] != true || del["id"] != p.ID {
					t.Fatalf("delete answered %v", del)
				}
				testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": technova, "id": p.ID}, `{"error":true,"type":"NotFoundError","message":"Product not found"}`)
				testkit.Fails(t, adm, "delete_product", map[string]any{"tenant_id": technova, "id": p.ID}, `{"error":true,"type":"NotFoundError","message":"Product not found"}`)
				// A viewer reads but does not write.
				vw := w.session(tr, viewer)
				testkit.OK[productList](t, vw, "list_products", map[string]any{"tenant_id": technova})
				testkit.Fails(t, vw, "create_product", map[string]any{"tenant_id": technova, "sku": "V-1", "name": "x", "price": "1"},
					`{"error":true,"type":"PermissionError","message":"You do not have permission to perform this action"}`)
			})
		}
	})
}

// One tenant never sees another's products: not by id, not by SKU, not in
// lists or searches, and cannot change or delete them.
func TestTenantIsolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova, verdeID := w.tenants["technova"], w.tenants["mercado-verde"]
		maca := w.productID("mercado-verde", "FR-MACA-FUJI")
		for _, tr := range transports {
			t.Run(tr, func(t *testing.T) {
				cs := w.session(tr, owner) // owner of technova, nothing in mercado-verde
				notFound := `{"error":true,"type":"NotFoundError","message":"Product not found"}`
				testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": technova, "id": maca}, notFound)
				testkit.Fails(t, cs, "get_product", map[string]any{"tenant_id": technova, "sku": "FR-MACA-FUJI"}, notFound)
				testkit.Fails(t, cs, "update_product", map[string]any{"tenant_id": technova, "id": maca, "price": "0.01"}, notFound)
				testkit.Fails(t, cs, "delete_product", map[string]any{"tenant_id": technova, "id": maca}, notFound)
				for _, args := range []map[string]any{{"tenant_id": technova, "limit": 100, "detail": "full"}, {"tenant_id": technova, "query": "maçã", "detail": "full"}} {
					list := testkit.OK[productList](t, cs, "list_products", args)
					for _, p := range list.Products {
						if p.TenantID != technova {
							t.Errorf("list in technova shows %+v", p)
						}
					}
				}
				testkit.Fails(t, cs, "list_products", map[string]any{"tenant_id": verdeID}, `{"error":true,"type":"Error","message":"Membership not found or inactive"}`)
				// Carla sees both tenants, each with its own products only.
				carla := w.session(tr, member)
				verdeList := testkit.OK[productList](t, carla, "list_products", map[string]any{"tenant_id": verdeID, "limit": 100, "detail": "full"})
				if len(verdeList.Products) != 7 { // the demo's: 6 active, a draft

					t.Errorf("mercado-verde has %d products", len(verdeList.Products))
				}
				for _, p := range verdeList.Products {
					if p.TenantID != verdeID {
						t.Errorf("list in mercado-verde shows %+v", p)
					}
				}
			})
		}
		// The apple is untouched.
		p, err := w.db.ProductByID(ctx, verdeID, maca)
		if err != nil || p.Version != 1 {
			t.Fatalf("mercado-verde's product: %+v %v", p, err)
		}
	})
}

func TestListProductsPaging(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		technova := w.tenants["technova"]
		cs := w.session("memory", owner)
		for i := range 25 {
			testkit.OK[product](t, cs, "create_product", map[string]any{"tenant_id": technova, "sku": fmt.Sprintf("CB-%02d", i),
				"name": fmt.Sprintf("Cabo USB-C %02d", 24-i), "price": fmt.Sprintf("%d.90", 10+i%3)})
		}
		for _, sort := range []string{"name", "-name", "price", "-price", "updated_at", "-updated_at", "created_at", "-created_at"} {
			var seen []string
			args := map[string]any{"tenant_id": technova, "limit": 4, "sort": sort, "query": "cabo"}
			pages := 0
			for {
				page := testkit.OK[productList](t, cs, "list_products", args)
				pages++
				for _, p := range page.Products {
					seen = append(seen, p.SKU)
				}
				if page.NextCursor == "" {
					break
				}
				args["cursor"] = page.NextCursor
			}
			sorted := slices.Clone(seen)
			slices.Sort(sorted)
			if len(seen) != 25 || len(slices.Compact(sorted)) != 25 || pages != 7 {
				t.Errorf("sort %s: %d products over %d pages: %v", sort, len(seen), pages, seen)
			}
			if sort == "name" && (seen[0] != "CB-24" || seen[24] != "CB-00") {
				t.Errorf("by name: %v", seen)
			}
			// A cursor belongs to its query.
			delete(args, "cursor")
			first := testkit.OK[productList](t, cs, "list_products", args)
			args["cursor"], args["query"] = first.NextCursor, "usb"
			testkit.ErrorOf(t, cs, "list_products", args)
		}
	})
}
