package catalog_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/catalog"
)

// TestListProducts_Analysis: a shopper's plural and stop words find what
// the singular does, on both databases, with and without facets (the
// index's answer and SQL's); a SKU stays exact; stop words alone are
// refused with a reason.
func TestListProducts_Analysis(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "tech")
		names := map[string]string{}
		for _, p := range []struct{ name, sku string }{
			{"Camiseta TechNova Dev", "CAM-DEV-01"},
			{"Teclado Mecânico RGB", "TEC-RGB"},
			{"Gold Necklace", "NECK-1"},
			{"Boné TechNova", "BONE-01"},
			{"Mouse sem fio", "MOU-9"},
			{"Camiseta Preta", "CAM-PR"},
		} {
			got, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: p.sku, Name: p.name, Price: "10.00"}, "")
			if err != nil {
				t.Fatal(err)
			}
			names[got.ID] = got.Name
		}
		find := func(q string, facets []vitrine.FacetName) ([]string, error) {
			page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Query: vitrine.QueryText(q), Facets: facets}, 0, "")
			if err != nil {
				return nil, err
			}
			var out []string
			for _, p := range page.Products {
				out = append(out, names[p.ID])
			}
			slices.Sort(out)
			return out, nil
		}
		for q, want := range map[string]string{
			"camisetas":               "Camiseta Preta,Camiseta TechNova Dev",
			"CAMISETAS dev":           "Camiseta TechNova Dev",
			"teclados":                "Teclado Mecânico RGB",
			"teclados mecânicos":      "Teclado Mecânico RGB",
			"necklaces":               "Gold Necklace",
			"um boné para o sol":      "Boné TechNova", // bon alone: the sun is no product
			"uma camiseta para o dev": "Camiseta TechNova Dev",
			"bonés":                   "Boné TechNova",
			"tec-rgb":                 "Teclado Mecânico RGB",
			"mecân":                   "Teclado Mecânico RGB", // a prefix, as before
			"cam-dev-99":              "",                     // a SKU's digits are exact
			// A phrase finds what most of its words name: the subset of
			// words some product holds, the earlier words kept first.
			"gold necklace for women":   "Gold Necklace",
			"camiseta preta de festa":   "Camiseta Preta",
			"teclado mecânico rosa":     "Teclado Mecânico RGB",
			"mouse sem fio bluetooth":   "Mouse sem fio",
			"camisetas gamer":           "Camiseta Preta,Camiseta TechNova Dev",
			"flamingo inflável gigante": "",
		} {
			for _, facets := range [][]vitrine.FacetName{nil, {vitrine.FacetVendor}} {
				got, err := find(q, facets)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				if strings.Join(got, ",") != want {
					t.Errorf("%q (facets %v) finds %q, want %q", q, facets, got, want)
				}
			}
		}
		// The pages of a phrase read the same words: one product a page.
		var paged []string
		cursor := ""
		for range 3 {
			page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Query: "camisetas gamer"}, 1, cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page.Products {
				paged = append(paged, names[p.ID])
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if slices.Sort(paged); strings.Join(paged, ",") != "Camiseta Preta,Camiseta TechNova Dev" {
			t.Errorf("a phrase's pages: %q", paged)
		}
		_, err := find("para o de", nil)
		var ve *vitrine.Error
		if !errors.As(err, &ve) || ve.Type != vitrine.ValidationError || !strings.Contains(ve.Message, "only stop words") {
			t.Errorf("a query of stop words: %v, want a ValidationError saying so", err)
		}
	})
}
