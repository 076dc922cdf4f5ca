package catalog

import (
	"context"
	"fmt"
	"slices"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// ImportRow is one row of an import: create_product's fields. In upsert
// mode, a row that names an existing product (by handle, or else by a
// SKU of its variants) replaces what it gives; the optional fields it
// leaves out (not in Given) keep their value.
type ImportRow struct {
	NewProduct
	// Given holds the optional fields the row gives, by argument name
	// ("description", "stock", "tags", ...).
	Given map[string]bool
	// CategoryPaths names categories by their path ("Clothing > Jackets"),
	// made when the company lacks them: a file brings its categories.
	CategoryPaths []string
	// refused, when set, fails the row before anything else is checked:
	// what it needs the import could not make.
	refused *vitrine.Error
}

// Import modes.
const (
	ImportCreate = "create" // a product that exists is an error for its row
	ImportUpsert = "upsert" // a product that exists is updated
)

// ImportModes lists the import modes.
var ImportModes = []string{ImportCreate, ImportUpsert}

// Row outcomes.
const (
	RowCreated = "created"
	RowUpdated = "updated"
	// RowUnchanged is a row of upsert that gives a product as it is:
	// nothing is written.
	RowUnchanged = "unchanged"
	RowFailed    = "error"
	RowSkipped   = "skipped" // valid, but not written: an atomic import failed
)

// ImportResult is what became of one row.
type ImportResult struct {
	Index   int
	SKU     string
	Handle  string
	Status  string
	Product *vitrine.Product
	Err     *vitrine.Error
}

// ImportSummary is the outcome of an import.
type ImportSummary struct {
	Results                             []ImportResult
	Created, Updated, Unchanged, Failed int
	// Written is false when an atomic import wrote nothing.
	Written bool
	// Notices tells, once each, what of the rows was left out: a category
	// path the caller may not make.
	Notices []string
}

// ImportProducts creates, or in upsert mode creates and updates, many
// products at once: each row gets its own result. With atomic, one failed
// row writes nothing at all. progress, if set, hears of the rows written.
func (s *Catalog) ImportProducts(ctx context.Context, a *service.Access, rows []ImportRow, mode string, atomic bool, progress func(done, total int)) (*ImportSummary, error) {
	if err := a.Allow(service.OpImportProducts); err != nil {
		return nil, err
	}
	switch mode {
	case "", ImportCreate:
		mode = ImportCreate
	case ImportUpsert:
		if err := a.Allow(service.OpUpsertProducts); err != nil {
			return nil, err
		}
	default:
		return nil, vitrine.Invalid("mode", "mode must be \"create\" or \"upsert\"; got %q", mode)
	}
	if len(rows) == 0 {
		return nil, vitrine.Invalid("products", "products must hold at least one row")
	}
	sum := &ImportSummary{Results: make([]ImportResult, len(rows))}
	fail := func(i int, err error) {
		sum.Results[i].Status, sum.Results[i].Err = RowFailed, vitrine.AsError(err)
	}

	// Validate every row, and find the products that exist.
	checked := make([]*vitrine.Product, len(rows))
	handles := map[string]int{}
	skus := map[string]int{}
	var byHandle, bySKU []string
	notices, err := s.resolvePaths(ctx, a, rows, atomic)
	if err != nil {
		return nil, err
	}
	tx := s.taxonomyOf(ctx, a.TenantID)
	currency, err := s.currencyOf(ctx, a)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		sum.Results[i] = ImportResult{Index: i, SKU: r.SKU, Handle: r.Handle}
		if r.refused != nil {
			fail(i, rowError(i, r.refused))
			continue
		}
		p, err := s.validateNew(r.NewProduct, tx, currency)
		if err != nil {
			fail(i, rowError(i, err))
			continue
		}
		sum.Results[i].SKU, sum.Results[i].Handle = p.SKU, p.Handle
		if r.Handle != "" {
			if first, dup := handles[p.Handle]; dup {
				fail(i, vitrine.Conflict(rowField(i, "handle"), "handle %q is also in row %d of this import", p.Handle, first))
				continue
			}
			handles[p.Handle] = i
			byHandle = append(byHandle, p.Handle)
		}
		dup := false
		for _, v := range p.Variants {
			if v.SKU == "" {
				continue
			}
			if first, ok := skus[vitrine.SKUKey(v.SKU)]; ok {
				fail(i, vitrine.Conflict(rowField(i, "sku"), "SKU %q is also in row %d of this import", v.SKU, first))
				dup = true
				break
			}
			skus[vitrine.SKUKey(v.SKU)] = i
			bySKU = append(bySKU, v.SKU)
		}
		if !dup {
			checked[i] = p
		}
	}
	existingByHandle, err := s.store.ProductsByHandle(ctx, a.TenantID, byHandle)
	if err != nil {
		return nil, err
	}
	existingBySKU, err := s.store.ProductsBySKU(ctx, a.TenantID, bySKU)
	if err != nil {
		return nil, err
	}

	// Turn the rows into writes.
	now := s.now()
	var (
		writes []vitrine.ProductWrite
		index  []int // row of each write
	)
	for i, p := range checked {
		if p == nil {
			continue
		}
		old := existingByHandle[p.Handle]
		if old == nil && rows[i].Handle == "" {
			for _, v := range p.Variants {
				if o := existingBySKU[vitrine.SKUKey(v.SKU)]; v.SKU != "" && o != nil {
					old = o
					break
				}
			}
		}
		switch {
		case old != nil && mode == ImportCreate:
			if rows[i].Handle != "" {
				fail(i, vitrine.Conflict(rowField(i, "handle"), "A product with handle %q already exists in this company; import with mode \"upsert\" to update it", p.Handle))
			} else {
				fail(i, vitrine.Conflict(rowField(i, "sku"), "A product with SKU %q already exists in this company; import with mode \"upsert\" to update it", p.SKU))
			}
			continue
		case old != nil:
			up, err := merge(old, p, rows[i].Given)
			if err != nil {
				fail(i, rowError(i, err))
				continue
			}
			if up.SameContent(old) {
				// Nothing to write: its version and times stay, no
				// change is audited.
				sum.Results[i].Status, sum.Results[i].Product = RowUnchanged, old
				continue
			}
			up.UpdatedAt, up.UpdatedBy = now, a.Caller.User.ID
			writes = append(writes, vitrine.ProductWrite{Update: up, Before: old})
		default:
			if rows[i].Handle == "" {
				p.Handle = freeHandle(p.Handle, existingByHandle, handles)
			}
			s.stamp(a, p)
			p.CreatedAt, p.UpdatedAt = now, now
			writes = append(writes, vitrine.ProductWrite{Create: p})
		}
		index = append(index, i)
	}

	invalid := slices.ContainsFunc(sum.Results, func(r ImportResult) bool { return r.Status == RowFailed })
	if atomic && invalid {
		// Nothing is written when a row is already known to fail.
		sum.finish(false)
		return sum, nil
	}
	var report func(int)
	if progress != nil {
		report = func(done int) { progress(done, len(writes)) }
	}
	var errs []error
	if len(writes) > 0 {
		var err error
		if errs, err = s.store.WriteProducts(ctx, a.Change(), a.TenantID, writes, atomic, report); err != nil {
			return nil, err
		}
	}
	failed := false
	for w, err := range errs {
		i := index[w]
		switch {
		case err != nil:
			fail(i, rowError(i, err))
			failed = true
		case writes[w].Create != nil:
			sum.Results[i].Status, sum.Results[i].Product = RowCreated, writes[w].Create
		default:
			sum.Results[i].Status, sum.Results[i].Product = RowUpdated, writes[w].Update
		}
	}
	sum.finish(!(atomic && failed))
	sum.Notices = notices
	return sum, nil
}

// resolvePaths puts in each row the ids of its categories' paths, making
// the categories missing when the caller may make categories
// (catalog:manage, as save_category asks) and the company's cap allows.
// A path that cannot be made is left out of its rows, with a notice once;
// with atomic, it refuses its rows instead.
func (s *Catalog) resolvePaths(ctx context.Context, a *service.Access, rows []ImportRow, atomic bool) (notices []string, err error) {
	type resolved struct {
		id  string
		err *vitrine.Error // why the path cannot be made
	}
	paths := map[string]resolved{}
	mayCreate := a.Allow(service.OpSaveCategory) == nil
	for i := range rows {
		for _, p := range rows[i].CategoryPaths {
			r, ok := paths[p]
			if !ok {
				id, err := s.ensureCategoryPath(ctx, a, p, mayCreate)
				if e := vitrine.AsError(err); e != nil {
					r.err = e
					if !atomic {
						notices = append(notices, fmt.Sprintf("category %q: %s; the products that name it were imported without it", p, e.Message))
					}
				} else if err != nil {
					return nil, err
				}
				r.id = id
				paths[p] = r
			}
			if r.err != nil {
				if atomic && rows[i].refused == nil {
					rows[i].refused = vitrine.Invalid("category", "category %q: %s", p, r.err.Message)
				}
				continue
			}
			if !slices.Contains(rows[i].CategoryIDs, r.id) {
				rows[i].CategoryIDs = append(rows[i].CategoryIDs, r.id)
			}
		}
	}
	return notices, nil
}

// freeHandle returns h, or h with a number after it, that no product of
// this import or of those read has; the database has the last word (a
// handle taken meanwhile fails its row).
func freeHandle(h string, existing map[string]*vitrine.Product, inImport map[string]int) string {
	c := h
	for n := 2; existing[c] != nil || inImport[c] != 0; n++ {
		c = fmt.Sprintf("%s-%d", h, n)
	}
	inImport[c] = -1
	return c
}

// merge is the product old becomes with a row's product p: what the row
// gives replaces, what it leaves out stays. Variants keep their ids (and,
// when the row gives no stock, their stock), matched by SKU or by their
// option values.
func merge(old, p *vitrine.Product, given map[string]bool) (*vitrine.Product, error) {
	up := old.Clone()
	up.Name = p.Name
	keep := func(field string) bool { return !given[field] }
	takeField(given, "description", &up.Description, p.Description)
	takeField(given, "handle", &up.Handle, p.Handle)
	takeField(given, "status", &up.Status, p.Status)
	takeField(given, "vendor", &up.Vendor, p.Vendor)
	takeField(given, "product_type", &up.ProductType, p.ProductType)
	takeField(given, "tags", &up.Tags, p.Tags)
	takeField(given, "media", &up.Media, p.Media)
	takeField(given, "category_ids", &up.Categories, p.Categories)
	takeField(given, "attributes", &up.Attributes, p.Attributes)
	takeField(given, "seo", &up.SEO, p.SEO)
	if !keep("currency") && p.Currency != old.Currency {
		up.Currency = p.Currency
	} else if keep("currency") && p.Currency != old.Currency {
		// The row's prices were read in the default currency: the
		// product's own may have other decimals.
		if vitrine.CurrencyScale(p.Currency) != vitrine.CurrencyScale(old.Currency) {
			return nil, vitrine.Invalid("currency", "the product's prices are in %s; give currency %q with its prices", old.Currency, old.Currency)
		}
	}
	if len(p.Options) == 0 && len(p.Variants) <= 1 && len(old.Variants) > 1 {
		// A row of one price and stock (the plain CSV's) over a product of
		// variants would make it a product of one variant: refused, never
		// done in silence.
		return nil, vitrine.Invalid("variants", "product %q has %d variants; this row gives one price and stock, which would replace them all: import it with its variants (JSON Lines or Shopify CSV), or change its variants with update_variant", old.Handle, len(old.Variants))
	}
	up.Options = p.Options
	var variants []*vitrine.Variant
	for _, v := range p.Variants {
		nv := *v
		match := slices.IndexFunc(old.Variants, func(o *vitrine.Variant) bool {
			if v.SKU != "" || o.SKU != "" {
				return v.SKU != "" && vitrine.SKUKey(o.SKU) == vitrine.SKUKey(v.SKU)
			}
			return sameOptions(o.Options, v.Options)
		})
		if match < 0 && len(old.Variants) == 1 && len(p.Variants) == 1 {
			match = 0 // the one variant, whatever changed of it
		}
		if match >= 0 {
			nv.ID = old.Variants[match].ID
			if keep("stock") {
				nv.Stock = old.Variants[match].Stock
			}
		} else {
			nv.ID = vitrine.NewID()
		}
		variants = append(variants, &nv)
	}
	up.Variants = variants
	up.Summarize()
	return up, nil
}

// takeField writes the row's value over the product's when the row gives
// that field.
func takeField[T any](given map[string]bool, field string, dst *T, v T) {
	if given[field] {
		*dst = v
	}
}

func sameOptions(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// finish counts the outcomes; when nothing was written, the rows that did
// not fail are skipped.
func (sum *ImportSummary) finish(written bool) {
	sum.Written = written
	for i := range sum.Results {
		r := &sum.Results[i]
		if !written && r.Status != RowFailed {
			r.Status, r.Product = RowSkipped, nil
		}
		switch r.Status {
		case RowCreated:
			sum.Created++
		case RowUpdated:
			sum.Updated++
		case RowUnchanged:
			sum.Unchanged++
		case RowFailed:
			sum.Failed++
		}
	}
}

func rowField(i int, field string) string { return fmt.Sprintf("products[%d].%s", i, field) }

// rowError names the row in an error about one of its fields.
func rowError(i int, err error) error {
	e := vitrine.AsError(err)
	if e == nil {
		return err
	}
	out := *e
	if out.Field != "" {
		out.Field = rowField(i, out.Field)
	}
	return &out
}
