package catalog_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
	shopsvc "github.com/vitrine/vitrine/service/shop"
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

// TestListProducts_CompanyLocale: a query asked in no locale is read in
// the language of the company's default locale, in list_products, the
// window's search and the window's check of its text: a company of
// English stems "shoes" to the shoe (Portuguese's "sho" is also the
// shorts'), keeps "de" as a word (a Portuguese stop word) and takes its
// English synonyms; a company of pt-BR reads them as it always has.
func TestListProducts_CompanyLocale(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		open := true
		companies := map[string]*service.Access{}
		for slug, locales := range map[string][]string{"english": {"en"}, "brasil": nil} {
			a := shop(t, w, slug)
			companies[slug] = a
			if locales != nil {
				if _, err := w.svc.Operator().UpdateTenant(ctx, slug, nil, nil, nil, locales); err != nil {
					t.Fatal(err)
				}
			}
			for i, name := range []string{"Gold Necklace", "Canvas Shoe", "Denim Shorts", "Desk Lamp"} {
				if _, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: fmt.Sprintf("P-%d", i), Name: name, Price: "10.00", Description: "Made by hand."}, ""); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.cat.SaveSynonyms(ctx, a, catalog.SynonymsIn{OneWay: map[string][]string{"sneakers": {"shoe"}}, Locale: "en"}); err != nil {
				t.Fatal(err)
			}
			if _, err := shopsvc.New(w.svc).Update(ctx, a, shopsvc.Changes{Open: &open}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			slug, query, want string // want "!" for a ValidationError
		}{
			{"english", "necklaces", "Gold Necklace"},
			{"english", "shoes", "Canvas Shoe"},
			{"english", "de", "Denim Shorts,Desk Lamp"},
			{"english", "sneakers", "Canvas Shoe"},
			{"brasil", "necklaces", "Gold Necklace"},
			{"brasil", "shoes", "Canvas Shoe,Denim Shorts"},
			{"brasil", "de", "!"},
			{"brasil", "sneakers", ""},
		} {
			sh, err := w.cat.OpenWindowBySlug(ctx, tc.slug)
			if err != nil {
				t.Fatal(err)
			}
			for _, facets := range [][]vitrine.FacetName{nil, {vitrine.FacetVendor}} {
				page, err := w.cat.ListProducts(ctx, companies[tc.slug], vitrine.ProductQuery{Query: vitrine.QueryText(tc.query), Facets: facets}, 0, "")
				if got := foundNames(page, err); got != tc.want {
					t.Errorf("%s: list_products %q (facets %v) finds %q, want %q", tc.slug, tc.query, facets, got, tc.want)
				}
			}
			page, err := sh.Search(ctx, vitrine.ProductQuery{Query: vitrine.QueryText(tc.query)}, 10, "")
			if got := foundNames(page, err); got != tc.want {
				t.Errorf("%s: the window's search %q finds %q, want %q", tc.slug, tc.query, got, tc.want)
			}
			if words, err := sh.SearchText(tc.query); (tc.want == "!") != (vitrine.TypeOf(err) == vitrine.ValidationError) || err == nil && !words {
				t.Errorf("%s: the window reads %q as words %v, %v", tc.slug, tc.query, words, err)
			}
		}
	})
}

// foundNames is a page's product names, sorted and joined by commas; "!"
// for a ValidationError.
func foundNames(page *catalog.ProductPage, err error) string {
	if vitrine.TypeOf(err) == vitrine.ValidationError {
		return "!"
	}
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, p := range page.Products {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
