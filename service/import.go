package service

import (
	"context"
	"fmt"

	"github.com/vitrine/vitrine"
)

// ImportRow is one row of an import: create_product's fields. In upsert
// mode, the optional fields a row leaves out (nil) keep their value on an
// existing product.
type ImportRow struct {
	SKU         string
	Name        string
	Price       string
	Description *string
	Currency    *string
	Stock       *int64
	Status      *string
}

// Import modes.
const (
	ImportCreate = "create" // a SKU that exists is an error for its row
	ImportUpsert = "upsert" // a SKU that exists is updated
)

// ImportModes lists the import modes.
var ImportModes = []string{ImportCreate, ImportUpsert}

// Row outcomes.
const (
	RowCreated = "created"
	RowUpdated = "updated"
	RowFailed  = "error"
	RowSkipped = "skipped" // valid, but not written: an atomic import failed
)

// ImportResult is what became of one row.
type ImportResult struct {
	Index   int
	SKU     string
	Status  string
	Product *vitrine.Product
	Err     *vitrine.Error
}

// ImportSummary is the outcome of an import.
type ImportSummary struct {
	Results                  []ImportResult
	Created, Updated, Failed int
	// Written is false when an atomic import wrote nothing.
	Written bool
}

// ImportProducts creates, or in upsert mode creates and updates, many
// products at once: each row gets its own result. With atomic, one failed
// row writes nothing at all. progress, if set, hears of the rows written.
func (s *Service) ImportProducts(ctx context.Context, a *Access, rows []ImportRow, mode string, atomic bool, progress func(done, total int)) (*ImportSummary, error) {
	if err := a.Allow(OpImportProducts); err != nil {
		return nil, err
	}
	switch mode {
	case "", ImportCreate:
		mode = ImportCreate
	case ImportUpsert:
		if err := a.Allow(OpUpsertProducts); err != nil {
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

	// Validate every row, and find the SKUs that exist.
	type valid struct {
		p     *newProduct
		patch *patch
	}
	checked := make([]*valid, len(rows))
	seen := map[string]int{}
	var skus []string
	for i, r := range rows {
		sum.Results[i] = ImportResult{Index: i, SKU: r.SKU}
		p, err := r.product().validate()
		if err != nil {
			fail(i, rowError(i, err))
			continue
		}
		key := vitrine.SKUKey(p.SKU)
		if first, dup := seen[key]; dup {
			fail(i, vitrine.Conflict(rowField(i, "sku"), "SKU %q is also in row %d of this import", p.SKU, first))
			continue
		}
		seen[key] = i
		v := &valid{p: p}
		if mode == ImportUpsert {
			pt, err := r.changes().validate()
			if err != nil {
				fail(i, rowError(i, err))
				continue
			}
			v.patch = pt
		}
		checked[i] = v
		skus = append(skus, p.SKU)
	}
	existing, err := s.store.ProductsBySKU(ctx, a.TenantID, skus)
	if err != nil {
		return nil, err
	}

	// Turn the rows into writes.
	now := s.now()
	var (
		writes []vitrine.ProductWrite
		index  []int // row of each write
	)
	for i, v := range checked {
		if v == nil {
			continue
		}
		old, exists := existing[vitrine.SKUKey(v.p.SKU)]
		switch {
		case exists && mode == ImportCreate:
			fail(i, vitrine.Conflict(rowField(i, "sku"), "A product with SKU %q already exists in this company; import with mode \"upsert\" to update it", v.p.SKU))
			continue
		case exists:
			p := *old
			if err := v.patch.applyTo(&p, &rows[i].Price); err != nil {
				fail(i, rowError(i, err))
				continue
			}
			p.UpdatedAt, p.UpdatedBy = now, a.Caller.User.ID
			writes = append(writes, vitrine.ProductWrite{Update: &p})
		default:
			p := v.p.Product
			p.ID, p.TenantID, p.Version = vitrine.NewID(), a.TenantID, 1
			p.CreatedAt, p.UpdatedAt = now, now
			p.CreatedBy, p.UpdatedBy = a.Caller.User.ID, a.Caller.User.ID
			writes = append(writes, vitrine.ProductWrite{Create: &p})
		}
		index = append(index, i)
	}

	invalid := len(writes) < len(rows)
	if atomic && invalid {
		// Nothing is written when a row is already known to fail.
		sum.finish(false)
		return sum, nil
	}
	var report func(int)
	if progress != nil {
		report = func(done int) { progress(done, len(writes)) }
	}
	errs, err := s.store.WriteProducts(ctx, a.change(), a.TenantID, writes, atomic, report)
	if err != nil {
		return nil, err
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
	return sum, nil
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
		case RowFailed:
			sum.Failed++
		}
	}
}

func (r ImportRow) product() NewProduct {
	p := NewProduct{SKU: r.SKU, Name: r.Name, Price: r.Price}
	if r.Description != nil {
		p.Description = *r.Description
	}
	if r.Currency != nil {
		p.Currency = *r.Currency
	}
	if r.Stock != nil {
		p.Stock = *r.Stock
	}
	if r.Status != nil {
		p.Status = *r.Status
	}
	return p
}

func (r ImportRow) changes() ProductChanges {
	return ProductChanges{SKU: &r.SKU, Name: &r.Name, Price: &r.Price, Description: r.Description,
		Currency: r.Currency, Stock: r.Stock, Status: r.Status}
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
