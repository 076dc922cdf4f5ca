package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/productfile"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
	"golang.org/x/term"
)

// ProductCmd groups the catalog commands.
type ProductCmd struct {
	Import ProductImportCmd `cmd:"" help:"Import products from a Shopify product CSV, a JSON Lines file or a simple CSV."`
	Export ProductExportCmd `cmd:"" help:"Export a company's products as a Shopify product CSV, JSON Lines or a simple CSV."`
}

// ProductImportCmd imports products.
type ProductImportCmd struct {
	Tenant   string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	File     string `arg:"" help:"The file: a Shopify product CSV export (--format shopify); JSON Lines of products as export --format jsonl writes them; or a CSV with a header row (sku,name,price and optionally description,currency,stock,status). - reads standard input."`
	Format   string `enum:"auto,csv,jsonl,shopify" default:"auto" help:"shopify, jsonl or csv; auto goes by the file: .jsonl, .ndjson or a first line that is a JSON object are jsonl, a CSV whose header starts with Handle is shopify, else csv."`
	Mode     string `enum:"create,upsert" default:"create" help:"create: a product that exists (by handle, else SKU) fails its row; upsert: it updates that product."`
	Atomic   bool   `help:"Write nothing if any row fails. The whole file is read before anything is written."`
	Currency string `placeholder:"CODE" help:"The currency of the file's prices where it does not say (a Shopify CSV never does). Default: the company's."`
	As       string `placeholder:"EMAIL" help:"Act as this member of the company (recorded as the author); default: its first owner."`
}

// importBatch is how many rows go in one write when not atomic.
const importBatch = 1000

// Run imports the file, streaming it unless --atomic (or Shopify's, read whole).
func (c *ProductImportCmd) Run(e *env) error {
	in, size, err := openInput(e, c.File)
	if err != nil {
		return err
	}
	defer in.Close()
	br := bufio.NewReader(in)
	format := c.Format
	if format == "auto" {
		format = "csv"
		switch head, _ := br.Peek(16); {
		case strings.HasSuffix(c.File, ".jsonl") || strings.HasSuffix(c.File, ".ndjson") || strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(string(head), "\uFEFF")), "{"):
			format = "jsonl"
		case strings.HasPrefix(strings.ToLower(strings.TrimPrefix(string(head), "\uFEFF")), "handle"):
			format = "shopify"
		}
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := operatorActor(e, svc, c.Tenant, c.As, "vitrine product import", "")
	if err != nil {
		return err
	}
	cat := catalog.New(svc)
	bar := e.progress(size, "importing")
	if format == "shopify" {
		return c.shopify(e, cat, a, bar.reader(br), bar)
	}
	rows, err := productfile.NewReader(bar.reader(br), productfile.Format(format))
	if errors.Is(err, productfile.ErrUnknownColumn) {
		err = fmt.Errorf("%w (a Shopify export: --format shopify)", err)
	}
	if err != nil {
		return err
	}
	ctx := e.ctx
	var (
		total   catalog.ImportSummary
		batch   []catalog.ImportRow
		lines   []int
		trans   []map[string]*productfile.Translation
		first   = 0
		noticed = map[string]bool{}
		tr      catalog.TranslationImport
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		sum, err := cat.ImportProducts(ctx, a, batch, c.Mode, c.Atomic, nil)
		if err != nil {
			return err
		}
		if err := c.translate(e, cat, a, sum, lines, trans, &tr); err != nil {
			return err
		}
		trans = trans[:0]
		for _, n := range sum.Notices {
			if !noticed[n] {
				noticed[n] = true
				fmt.Fprintf(e.stderr, "note: %s\n", n)
			}
		}
		for _, r := range sum.Results {
			if r.Err != nil {
				fmt.Fprintf(e.stderr, "line %d (%s): %s\n", lines[r.Index], rowName(r), r.Err.Message)
			}
		}
		total.Created, total.Updated, total.Unchanged, total.Failed = total.Created+sum.Created, total.Updated+sum.Updated, total.Unchanged+sum.Unchanged, total.Failed+sum.Failed
		total.Written = sum.Written
		first += len(batch)
		batch, lines = batch[:0], lines[:0]
		return nil
	}
	for {
		row, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		r := importRow(row)
		if r.Currency == "" {
			r.Currency = c.Currency
		}
		batch, lines, trans = append(batch, r), append(lines, row.Line), append(trans, row.Product.Translations)
		if !c.Atomic && len(batch) == importBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	bar.finish()
	if first == 0 {
		return &usageError{"the file holds no rows"}
	}
	n := tr.Created + tr.Updated + tr.Removed + tr.Unchanged + tr.Failed
	if n > 0 {
		fmt.Fprintf(e.stdout, "%s: %s.\n", plural(n, "translation"), &tr)
	}
	if err := c.report(e, first, "row", &total); err != nil || tr.Failed == 0 {
		return err
	}
	return fmt.Errorf("%s failed (listed above); the others were written", plural(tr.Failed, "translation"))
}

// translate writes the translations of the rows of a batch that were
// written (or found unchanged), each failed one printed with its line;
// the counts go into total.
func (c *ProductImportCmd) translate(e *env, cat *catalog.Catalog, a *service.Access, sum *catalog.ImportSummary, lines []int, trans []map[string]*productfile.Translation, total *catalog.TranslationImport) error {
	var entries []catalog.TranslationEntry
	for _, r := range sum.Results {
		if len(trans[r.Index]) == 0 || r.Product == nil {
			continue
		}
		if r.Status != catalog.RowCreated && r.Status != catalog.RowUpdated && r.Status != catalog.RowUnchanged {
			continue
		}
		entries = append(entries, catalog.ProductTranslationEntries(lines[r.Index], &productfile.Product{ID: r.Product.ID, Translations: trans[r.Index]})...)
	}
	if len(entries) == 0 {
		return nil
	}
	res, err := cat.ImportTranslations(e.ctx, a, entries, nil)
	if err != nil {
		return err
	}
	for _, r := range res.Results {
		if r.Err != nil {
			fmt.Fprintln(e.stderr, r)
		}
	}
	total.Created += res.Created
	total.Updated += res.Updated
	total.Removed += res.Removed
	total.Unchanged += res.Unchanged
	total.Failed += res.Failed
	return nil
}

func rowName(r catalog.ImportResult) string {
	if r.Handle != "" && r.SKU != "" {
		return fmt.Sprintf("%s, SKU %q", r.Handle, r.SKU)
	}
	if r.SKU != "" {
		return fmt.Sprintf("SKU %q", r.SKU)
	}
	return r.Handle
}

// report prints the import's summary; what is the singular of what was
// imported (row, product).
func (c *ProductImportCmd) report(e *env, n int, what string, total *catalog.ImportSummary) error {
	fmt.Fprintf(e.stdout, "%s: %d created, %d updated, %d unchanged, %d failed.\n", plural(n, what), total.Created, total.Updated, total.Unchanged, total.Failed)
	if total.Failed > 0 {
		if c.Atomic {
			return fmt.Errorf("%s failed; nothing was written (--atomic)", plural(total.Failed, what))
		}
		others := "the others were written"
		if total.Failed == n {
			others = "nothing else to write"
		}
		return fmt.Errorf("%s failed (listed above); %s", plural(total.Failed, what), others)
	}
	return nil
}

// plural is n and the noun, with an s unless n is one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// shopify imports a Shopify product CSV: what it holds that Vitrine does
// not keep is said once a kind, with its count and first lines, before
// the products that failed, by line.
func (c *ProductImportCmd) shopify(e *env, cat *catalog.Catalog, a *service.Access, r io.Reader, bar bar) error {
	res, err := cat.ImportShopify(e.ctx, a, r, c.Currency, c.Mode, c.Atomic, nil)
	if err != nil {
		return err
	}
	bar.finish()
	for _, n := range res.Notices {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	for i, r := range res.Results {
		if r.Err != nil {
			if strings.HasPrefix(r.Err.Message, "line ") {
				fmt.Fprintf(e.stderr, "%s\n", r.Err.Message)
			} else {
				fmt.Fprintf(e.stderr, "line %d (%s): %s\n", res.Lines[i], rowName(r), r.Err.Message)
			}
		}
	}
	return c.report(e, len(res.Results), "product", res.ImportSummary)
}

// importRow is the service's import row of a file's product. A line of
// variants gives their stock, not the product's summary; its categories
// come by path.
func importRow(row productfile.Row) catalog.ImportRow {
	p, given := row.Product, row.Given
	np := catalog.NewProduct{Name: p.Name, Description: p.Description, Currency: p.Currency, Status: p.Status, Handle: p.Handle,
		Vendor: p.Vendor, ProductType: p.ProductType, Tags: p.Tags, Options: p.Options, Media: p.Media, Attributes: p.Attributes}
	if p.SEO != nil {
		np.SEO = *p.SEO
	}
	if len(p.Variants) == 0 {
		np.SKU, np.Price = p.SKU, p.Price
		if p.Stock != nil {
			np.Stock = *p.Stock
		}
	} else {
		given["stock"] = true // each variant gives its own
	}
	for _, v := range p.Variants {
		np.Variants = append(np.Variants, catalog.NewVariant{SKU: v.SKU, Options: v.Options, Price: v.Price, CompareAtPrice: v.CompareAtPrice,
			Barcode: v.Barcode, Weight: v.Weight, Stock: v.Stock, InventoryPolicy: v.InventoryPolicy, TrackInventory: v.TrackInventory, RequiresShipping: v.RequiresShipping,
			Taxable: v.Taxable, Image: v.Image})
	}
	if given["categories"] {
		given["category_ids"] = true
	}
	return catalog.ImportRow{NewProduct: np, Given: given, CategoryPaths: p.Categories}
}

// ProductExportCmd exports products.
type ProductExportCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Format string `enum:"csv,jsonl,shopify" default:"jsonl" help:"jsonl (the default: every field, so that the file imports back whole); shopify: a Shopify product CSV, which Shopify and Vitrine import; csv: the seed's columns, a row per product (variants, vendor, tags and images left out)."`
	Output string `short:"o" default:"-" placeholder:"FILE" help:"Where to write; - is standard output."`
	As     string `placeholder:"EMAIL" help:"Read as this member of the company; default: its first owner."`
	// The csv format always escapes; the Shopify format is data for an
	// importer, which must read back each value as it was.
	EscapeFormulas bool `help:"With --format shopify: put a ' before each cell a spreadsheet would run as a formula (starting with = + - @, tab or CR), for a file to open in a spreadsheet. Off by default: Shopify's importer (and Vitrine's) would keep the '. The csv format always escapes."`
}

// Run writes every product, a page at a time.
func (c *ProductExportCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	a, err := svc.Operator().Actor(e.ctx, c.Tenant, c.As, "vitrine product export")
	if err != nil {
		return err
	}
	out := e.stdout
	if c.Output != "-" {
		f, err := os.Create(c.Output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	x, err := catalog.New(svc).NewProductExport(e.ctx, a, out, c.Format, c.EscapeFormulas)
	if err != nil {
		return err
	}
	bar := e.progress(-1, "exporting")
	for cursor := ""; ; {
		n, next, err := x.Page(e.ctx, vitrine.MaxPageLimit, cursor, nil)
		if err != nil {
			return err
		}
		bar.add(n)
		if next == "" {
			break
		}
		cursor = next
	}
	bar.finish()
	return x.Close()
}

func openInput(e *env, name string) (io.ReadCloser, int64, error) {
	if name == "-" {
		return io.NopCloser(e.stdin), -1, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return f, size, nil
}

// bar is a progress bar on a terminal, and nothing elsewhere.
type bar struct{ pb *progressbar.ProgressBar }

func (e *env) progress(size int64, what string) bar {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return bar{}
	}
	if size > 0 {
		return bar{progressbar.DefaultBytes(size, what)}
	}
	return bar{progressbar.Default(-1, what)}
}

func (b bar) reader(r io.Reader) io.Reader {
	if b.pb == nil {
		return r
	}
	rd := progressbar.NewReader(r, b.pb)
	return &rd
}

func (b bar) add(n int) {
	if b.pb != nil {
		b.pb.Add(n)
	}
}

func (b bar) finish() {
	if b.pb != nil {
		b.pb.Finish()
	}
}
