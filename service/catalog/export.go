package catalog

import (
	"bufio"
	"context"
	"errors"
	"io"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/productfile"
	"github.com/vitrine/vitrine/internal/shopify"
	"github.com/vitrine/vitrine/service"
)

// ProductExport writes a company's products in one of the export formats
// (vitrine product export's and export_products'): "jsonl" (every field),
// "shopify" (Shopify's product CSV) or "csv" (the seed's columns).
type ProductExport struct {
	cat    *Catalog
	a      *service.Access
	w      *bufio.Writer
	pw     *productfile.Writer
	sw     *shopify.Writer
	path   func(string) string
	format string
}

// NewProductExport starts an export to w. escapeFormulas is the Shopify
// CSV's, for a file to open in a spreadsheet.
func (s *Catalog) NewProductExport(ctx context.Context, a *service.Access, w io.Writer, format string, escapeFormulas bool) (*ProductExport, error) {
	if err := a.Allow(service.OpListProducts); err != nil {
		return nil, err
	}
	cats, err := s.ListCategories(ctx, a)
	if err != nil {
		return nil, err
	}
	e := &ProductExport{cat: s, a: a, w: bufio.NewWriter(w), format: format}
	e.path = func(id string) string { return CategoryPath(cats, id) }
	switch {
	case format == "shopify":
		defs, err := s.ListAttributes(ctx, a)
		if err != nil {
			return nil, err
		}
		keys := make([]string, len(defs))
		for i, d := range defs {
			keys[i] = d.Key
		}
		e.sw = shopify.NewWriter(e.w, keys, func(p *vitrine.Product) string {
			if len(p.Categories) == 0 {
				return ""
			}
			return e.path(p.Categories[0].ID)
		})
		e.sw.EscapeFormulas = escapeFormulas
	case escapeFormulas && format == "jsonl":
		return nil, errors.New("--escape-formulas is for --format shopify (the csv format always escapes; JSON Lines is not for spreadsheets)")
	default:
		if e.pw, err = productfile.NewWriter(e.w, productfile.Format(format)); err != nil {
			return nil, vitrine.Invalid("format", "format must be jsonl or shopify")
		}
	}
	return e, nil
}

// Page writes up to limit products, in the order they were created, after
// cursor (empty: from the first), and returns how many it wrote and the
// cursor of the next page, empty at the end.
func (e *ProductExport) Page(ctx context.Context, limit int, cursor string, written func(int)) (n int, next string, err error) {
	page, err := e.cat.ListProducts(ctx, e.a, vitrine.ProductQuery{Sort: vitrine.SortCreated}, limit, cursor)
	if err != nil {
		return 0, "", err
	}
	// JSON Lines carries each product's translations, when it has any.
	var trs map[string]map[string]vitrine.Translations
	if e.format == "jsonl" {
		ids := make([]string, len(page.Products))
		for i, p := range page.Products {
			ids[i] = p.ID
		}
		if trs, err = e.cat.ProductTranslations(ctx, e.a, ids, ""); err != nil {
			return 0, "", err
		}
	}
	for _, p := range page.Products {
		if e.sw != nil {
			err = e.sw.Write(p)
		} else {
			fp := productfile.Of(p, e.path)
			fp.Translations = productfile.TranslationsOf(trs[p.ID])
			err = e.pw.Write(fp)
		}
		if err != nil {
			return n, "", err
		}
		n++
		if written != nil {
			written(n)
		}
	}
	return n, page.NextCursor, nil
}

// Close ends the file.
func (e *ProductExport) Close() error {
	var err error
	if e.sw != nil {
		err = e.sw.Flush()
	} else {
		err = e.pw.Flush()
	}
	if err != nil {
		return err
	}
	return e.w.Flush()
}
