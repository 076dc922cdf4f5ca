package catalog

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/shopify"
	"github.com/vitrine/vitrine/service"
)

// shopifyBatch is how many products an import writes in one transaction
// when it is not atomic.
const shopifyBatch = 1000

// ShopifyImport is what became of a Shopify product CSV: a result per
// product, in the file's order, each with the line of its first row; and
// the notices of what the file holds that Vitrine does not keep, with the
// notes about products read all the same, each kind once.
type ShopifyImport struct {
	*ImportSummary
	Lines   []int
	Notices []Notice
}

// MaxNoticeLines is how many lines a Notice gives as examples.
const MaxNoticeLines = 3

// Notice is one kind of notice of an import: the first one's text, how
// many there were, and the lines of the first few (MaxNoticeLines).
type Notice struct {
	Message string
	Count   int
	Lines   []int
}

// notices merges issues by kind, in the order each kind first comes.
type notices struct {
	list  []Notice
	index map[string]int
}

func (n *notices) add(is shopify.Issue) {
	if n.index == nil {
		n.index = map[string]int{}
	}
	k := is.KindOf()
	i, ok := n.index[k]
	if !ok {
		i = len(n.list)
		n.index[k] = i
		n.list = append(n.list, Notice{Message: is.String()})
	}
	no := &n.list[i]
	no.Count++
	if is.Line > 0 && len(no.Lines) < MaxNoticeLines {
		no.Lines = append(no.Lines, is.Line)
	}
}

// once adds a notice said in words alone (a category path the caller may
// not make), unless it was given already.
func (n *notices) once(msg string) {
	if n.index == nil {
		n.index = map[string]int{}
	}
	k := "once:" + msg
	if _, ok := n.index[k]; ok {
		return
	}
	n.index[k] = len(n.list)
	n.list = append(n.list, Notice{Message: msg, Count: 1})
}

// TextNotices are notices said in words alone (ImportSummary.Notices), as
// an answer lists them, each once.
func TextNotices(msgs []string) []Notice {
	var n notices
	for _, m := range msgs {
		n.once(m)
	}
	return n.list
}

// String is the notice as one line: its first text, and how many more.
func (n Notice) String() string {
	if n.Count <= 1 {
		return n.Message
	}
	lines := make([]string, len(n.Lines))
	for i, l := range n.Lines {
		lines[i] = fmt.Sprint(l)
	}
	more := ""
	if n.Count > len(n.Lines) {
		more = ", …"
	}
	return fmt.Sprintf("%s (%d times: lines %s%s)", n.Message, n.Count, strings.Join(lines, ", "), more)
}

// ImportShopify imports the products of a Shopify product CSV export, in
// currency (default: the company's). A product the file gets wrong is refused with
// the line and column at fault, the others imported; a broken CSV (a
// stray quote) names its line and imports nothing. Its Product Category
// paths become categories and its metafield columns text attributes,
// made as needed: the file's own structure comes in with it.
func (s *Catalog) ImportShopify(ctx context.Context, a *service.Access, r io.Reader, currency, mode string, atomic bool, progress func(done, total int)) (*ShopifyImport, error) {
	return s.ImportShopifyAtMost(ctx, a, r, currency, mode, atomic, 0, progress)
}

// ImportShopifyAtMost is ImportShopify of a file of at most maxProducts
// products (0: any number), as import_products bounds its rows: a file of
// more is a ValidationError naming the bound and the line of the product
// past it, and nothing of it is written (its products are held, not
// written a batch at a time, until the file's end).
func (s *Catalog) ImportShopifyAtMost(ctx context.Context, a *service.Access, r io.Reader, currency, mode string, atomic bool, maxProducts int, progress func(done, total int)) (*ShopifyImport, error) {
	if err := a.Allow(service.OpImportProducts); err != nil {
		return nil, err
	}
	if mode == ImportUpsert {
		if err := a.Allow(service.OpUpsertProducts); err != nil {
			return nil, err
		}
	}
	if currency == "" {
		var err error
		if currency, err = s.currencyOf(ctx, a); err != nil {
			return nil, err
		}
	}
	code, _, err := vitrine.NormalizeCurrency("currency", currency)
	if err != nil {
		return nil, err
	}
	rd, err := shopify.NewReader(r, code)
	if err != nil {
		return nil, csvError(err)
	}
	out := &ShopifyImport{}
	var notes notices
	for _, is := range rd.Unmodelled() {
		notes.add(is)
	}
	type entry struct {
		line    int
		row     int // index in rows, or -1 when refused
		refused *vitrine.Error
		handle  string
	}
	var (
		entries []entry
		rows    []ImportRow // not written yet
		records []*shopify.Record
		results []ImportResult // of the rows written, by row
	)
	// Without atomic, the products are written a batch at a time as the
	// file is read, as JSON Lines are: the file is never held whole.
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		notices, err := s.shopifyTaxonomy(ctx, a, rd.Metafields(), records, rows, atomic)
		if err != nil {
			return err
		}
		var report func(done, total int)
		if progress != nil {
			base := len(results)
			report = func(done, total int) { progress(base+done, base+total) }
		}
		sum, err := s.ImportProducts(ctx, a, rows, mode, atomic, report)
		if err != nil {
			return err
		}
		results = append(results, sum.Results...)
		for _, n := range append(notices, sum.Notices...) {
			notes.once(n) // each batch may find the same
		}
		rows, records = nil, nil
		return nil
	}
	refused := false
	for {
		rec, issues, err := rd.NextContext(ctx)
		if err == io.EOF {
			break
		}
		if err != nil && ctx.Err() != nil {
			// The call's deadline: the import stops there, as any call.
			return nil, fmt.Errorf("shopify import: %w", err)
		}
		if err != nil {
			return nil, csvError(err)
		}
		if maxProducts > 0 && len(entries) == maxProducts {
			line := 0
			if rec != nil {
				line = rec.Line
			} else if len(issues) > 0 {
				line = issues[0].Line
			}
			return nil, vitrine.Invalid("csv", "csv holds more than %d products, the most one call imports; line %d starts product %d (vitrine product import reads a file of any size)", maxProducts, line, maxProducts+1)
		}
		if rec == nil {
			var msgs []string
			line, column, handle := 0, "", ""
			for _, is := range issues {
				if is.Refused {
					msgs = append(msgs, is.String())
					if line == 0 {
						line, column, handle = is.Line, is.Column, is.Handle
					}
				}
			}
			entries = append(entries, entry{line: line, row: -1, handle: handle,
				refused: vitrine.Invalid(column, "%s", strings.Join(msgs, "; "))})
			refused = true
			continue
		}
		for _, is := range issues {
			notes.add(is)
		}
		entries = append(entries, entry{line: rec.Line, row: len(results) + len(rows), handle: rec.Product.Handle})
		rows = append(rows, shopifyRow(rec))
		records = append(records, rec)
		if !atomic && maxProducts == 0 && len(rows) == shopifyBatch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if len(entries) == 0 {
		return nil, vitrine.Invalid("csv", "the file holds a header and no product")
	}
	written := true
	if atomic && refused {
		// An atomic import with a refused product writes nothing.
		for i, r := range rows {
			results = append(results, ImportResult{Index: i, Handle: r.Handle, SKU: r.SKU, Status: RowSkipped})
		}
		written = false
	} else if err := flush(); err != nil {
		return nil, err
	}
	sum := &ImportSummary{Written: written}
	// The results in the file's order, refused products among them.
	final := &ImportSummary{Written: sum.Written}
	for i, e := range entries {
		res := ImportResult{Index: i, Handle: e.handle, Status: RowFailed, Err: e.refused}
		if e.row >= 0 {
			res = results[e.row]
			res.Index = i
			if res.Err != nil && res.Err.Field != "" {
				// The field of a row of the import, products[k].x, is x of the file's line.
				if _, f, ok := strings.Cut(res.Err.Field, "]."); ok {
					e2 := *res.Err
					e2.Field = f
					res.Err = &e2
				}
			}
			if res.Err != nil {
				e2 := *res.Err
				e2.Message = fmt.Sprintf("line %d (%s): %s", e.line, e.handle, e2.Message)
				res.Err = &e2
			}
		}
		final.Results = append(final.Results, res)
		out.Lines = append(out.Lines, e.line)
	}
	final.finish(sum.Written)
	if atomic && final.Failed > 0 {
		final.Written = false
	}
	out.ImportSummary = final
	out.Notices = notes.list
	return out, nil
}

// csvError is the ValidationError of a file that cannot be read: its
// message names the line (the reader's errors do).
func csvError(err error) error {
	return vitrine.Invalid("csv", "the file cannot be read as a Shopify product CSV: %s", err.Error())
}

// shopifyRow is an import row of a product read from a Shopify CSV: every
// field given, as the file is the whole product.
func shopifyRow(rec *shopify.Record) ImportRow {
	p := rec.Product
	scale := vitrine.CurrencyScale(p.Currency)
	np := NewProduct{Name: p.Name, Description: p.Description, Currency: p.Currency, Status: string(p.Status), Handle: p.Handle,
		Vendor: p.Vendor, ProductType: p.ProductType, Tags: p.Tags, Options: p.Options, Media: p.Media, Attributes: p.Attributes, SEO: p.SEO}
	for _, v := range p.Variants {
		nv := NewVariant{SKU: v.SKU, Options: v.Options, Price: vitrine.FormatPrice(v.Price, scale), Barcode: v.Barcode, Weight: v.Weight,
			Stock: v.Stock, InventoryPolicy: string(v.Policy), RequiresShipping: &v.RequiresShipping, Taxable: &v.Taxable, Image: v.Image,
			TrackInventory: ptrTo(!v.Untracked)}
		if v.CompareAtPrice != nil {
			nv.CompareAtPrice = vitrine.FormatPrice(*v.CompareAtPrice, scale)
		}
		np.Variants = append(np.Variants, nv)
	}
	given := map[string]bool{}
	for _, f := range []string{"description", "currency", "stock", "status", "handle", "vendor", "product_type", "tags", "media", "attributes", "seo", "category_ids"} {
		given[f] = true
	}
	return ImportRow{NewProduct: np, Given: given}
}

// shopifyTaxonomy makes the text attributes of the file's metafield
// columns that the company lacks, and puts the categories' paths in the
// rows. Defining an attribute needs catalog:manage, as save_attribute
// asks, and room under the company's cap: without them, a column's values
// are left out with a notice (once) or, with atomic, refuse their rows.
func (s *Catalog) shopifyTaxonomy(ctx context.Context, a *service.Access, metafields []shopify.Metafield, records []*shopify.Record, rows []ImportRow, atomic bool) (notices []string, err error) {
	defs, err := s.attributeDefs(ctx, a.TenantID)
	if err != nil {
		return nil, err
	}
	mayDefine := a.Allow(service.OpSaveAttribute) == nil
	for _, m := range metafields {
		if defs[m.Attribute] != nil {
			continue
		}
		if !slices.ContainsFunc(records, func(r *shopify.Record) bool { _, ok := r.Product.Attributes[m.Attribute]; return ok }) {
			continue
		}
		var why string
		switch {
		case !mayDefine:
			why = fmt.Sprintf("no attribute %q in this company, and defining one needs the catalog:manage permission (save_attribute)", m.Attribute)
		case len(defs) >= MaxAttributesPerTenant:
			why = fmt.Sprintf("no attribute %q in this company, which has its %d attributes, the most it may have", m.Attribute, MaxAttributesPerTenant)
		}
		if why == "" {
			name := or(m.Name, m.Attribute)
			now := s.now()
			at := &vitrine.Attribute{TenantID: a.TenantID, Key: m.Attribute, Name: name, Type: vitrine.AttributeText, CreatedAt: now, UpdatedAt: now}
			if err := s.store.SaveAttribute(ctx, a.Change(), at, false); err != nil {
				return nil, err
			}
			defs[m.Attribute] = at
			continue
		}
		column := fmt.Sprintf("column %q", m.Column)
		if !atomic {
			notices = append(notices, fmt.Sprintf("%s: %s; its values were not imported", column, why))
		}
		for i, rec := range records {
			if _, ok := rec.Product.Attributes[m.Attribute]; !ok {
				continue
			}
			if atomic {
				if rows[i].refused == nil {
					rows[i].refused = vitrine.Invalid("attributes."+m.Attribute, "%s: %s", column, why)
				}
				continue
			}
			attrs := maps.Clone(rows[i].Attributes)
			delete(attrs, m.Attribute)
			rows[i].Attributes = attrs
		}
	}
	for i, rec := range records {
		if rec.Category != "" {
			rows[i].CategoryPaths = []string{rec.Category}
		}
	}
	return notices, nil
}

func ptrTo[T any](v T) *T { return &v }
