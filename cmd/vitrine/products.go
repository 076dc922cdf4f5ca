package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/shopify"
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
	Format   string `enum:"auto,csv,jsonl,shopify" default:"auto" help:"shopify, jsonl or csv; auto goes by the file: .jsonl and .ndjson are jsonl, a CSV whose header starts with Handle is shopify, else csv."`
	Mode     string `enum:"create,upsert" default:"create" help:"create: a product that exists (by handle, else SKU) fails its row; upsert: it updates that product."`
	Atomic   bool   `help:"Write nothing if any row fails. The whole file is read before anything is written."`
	Currency string `default:"BRL" help:"The currency of a Shopify file's prices (its CSV does not say)."`
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
		case strings.HasSuffix(c.File, ".jsonl") || strings.HasSuffix(c.File, ".ndjson"):
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
	a, err := svc.Operator().Actor(e.ctx, c.Tenant, c.As, "vitrine product import")
	if err != nil {
		return err
	}
	cat := catalog.New(svc)
	bar := e.progress(size, "importing")
	if format == "shopify" {
		return c.shopify(e, cat, a, bar.reader(br), bar)
	}
	rows, err := readRows(bar.reader(br), format)
	if err != nil {
		return err
	}
	ctx := e.ctx
	var (
		total catalog.ImportSummary
		batch []catalog.ImportRow
		lines []int
		first = 0
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		sum, err := cat.ImportProducts(ctx, a, batch, c.Mode, c.Atomic, nil)
		if err != nil {
			return err
		}
		for _, r := range sum.Results {
			if r.Err != nil {
				fmt.Fprintf(e.stderr, "line %d (%s): %s\n", lines[r.Index], rowName(r), r.Err.Message)
			}
		}
		total.Created, total.Updated, total.Failed = total.Created+sum.Created, total.Updated+sum.Updated, total.Failed+sum.Failed
		total.Written = sum.Written
		first += len(batch)
		batch, lines = batch[:0], lines[:0]
		return nil
	}
	for row, err := range rows {
		if err != nil {
			return err
		}
		batch, lines = append(batch, row.ImportRow), append(lines, row.line)
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
	return c.report(e, first, "rows", &total)
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

func (c *ProductImportCmd) report(e *env, n int, what string, total *catalog.ImportSummary) error {
	fmt.Fprintf(e.stdout, "%d %s: %d created, %d updated, %d failed.\n", n, what, total.Created, total.Updated, total.Failed)
	if total.Failed > 0 {
		if c.Atomic {
			return fmt.Errorf("%d %s failed; nothing was written (--atomic)", total.Failed, what)
		}
		return fmt.Errorf("%d %s failed (listed above); the others were written", total.Failed, what)
	}
	return nil
}

// shopify imports a Shopify product CSV: what it holds that Vitrine does
// not keep is said once, before the products that failed, by line.
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
	return c.report(e, len(res.Results), "products", res.ImportSummary)
}

// importLine is a row and the line of the file it came from.
type importLine struct {
	catalog.ImportRow
	line int
}

var (
	importColumns = []string{"sku", "name", "price", "description", "currency", "stock", "status"}
	// exportOnly are the columns of an export that an import ignores, so
	// that an export imports back.
	exportOnly = []string{"id", "version", "created_at", "updated_at"}
)

// jsonProduct is a product as a JSON Lines export writes it and an import
// reads it: every field, categories by path (so that a file moves between
// companies). A line of the seed's fields (sku, name, price, stock) is a
// product of one variant.
type jsonProduct struct {
	ID          string   `json:"id,omitempty"`
	Handle      string   `json:"handle,omitempty"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Vendor      string   `json:"vendor,omitempty"`
	ProductType string   `json:"product_type,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Status      string   `json:"status,omitempty"`
	Currency    string   `json:"currency,omitempty"`
	// SKU, Price and Stock are a product of one variant's; an export
	// writes them of every product (its first SKU, lowest price, total
	// stock), which an import reads only of a line without variants.
	SKU        string           `json:"sku,omitempty"`
	Price      string           `json:"price,omitempty"`
	Stock      *int64           `json:"stock,omitempty"`
	Options    []vitrine.Option `json:"options,omitempty"`
	Variants   []jsonVariant    `json:"variants,omitempty"`
	Media      []vitrine.Media  `json:"media,omitempty"`
	Categories []string         `json:"categories,omitempty"`
	Attributes map[string]any   `json:"attributes,omitempty"`
	SEO        *vitrine.SEO     `json:"seo,omitempty"`
	Version    int64            `json:"version,omitempty"`
	CreatedAt  *time.Time       `json:"created_at,omitempty"`
	UpdatedAt  *time.Time       `json:"updated_at,omitempty"`
}

type jsonVariant struct {
	ID               string            `json:"id,omitempty"`
	SKU              string            `json:"sku,omitempty"`
	Options          map[string]string `json:"options,omitempty"`
	Price            string            `json:"price"`
	CompareAtPrice   string            `json:"compare_at_price,omitempty"`
	Barcode          string            `json:"barcode,omitempty"`
	Weight           *vitrine.Weight   `json:"weight,omitempty"`
	Stock            int64             `json:"stock"`
	InventoryPolicy  string            `json:"inventory_policy,omitempty"`
	RequiresShipping *bool             `json:"requires_shipping,omitempty"`
	Taxable          *bool             `json:"taxable,omitempty"`
	Image            string            `json:"image,omitempty"`
}

func jsonOf(p *vitrine.Product, paths func(string) string) jsonProduct {
	scale := vitrine.CurrencyScale(p.Currency)
	j := jsonProduct{ID: p.ID, Handle: p.Handle, Name: p.Name, Description: p.Description, Vendor: p.Vendor, ProductType: p.ProductType,
		Tags: p.Tags, Status: string(p.Status), Currency: p.Currency, Options: p.Options, Media: p.Media, Attributes: p.Attributes,
		SKU: p.SKU, Price: p.PriceString(), Stock: &p.Stock, Version: p.Version, CreatedAt: &p.CreatedAt, UpdatedAt: &p.UpdatedAt}
	if p.SEO != (vitrine.SEO{}) {
		seo := p.SEO
		j.SEO = &seo
	}
	for _, c := range p.Categories {
		j.Categories = append(j.Categories, paths(c.ID))
	}
	for _, v := range p.Variants {
		jv := jsonVariant{ID: v.ID, SKU: v.SKU, Options: v.Options, Price: vitrine.FormatPrice(v.Price, scale), Barcode: v.Barcode,
			Weight: v.Weight, Stock: v.Stock, InventoryPolicy: string(v.Policy), RequiresShipping: &v.RequiresShipping, Taxable: &v.Taxable, Image: v.Image}
		if v.CompareAtPrice != nil {
			jv.CompareAtPrice = vitrine.FormatPrice(*v.CompareAtPrice, scale)
		}
		j.Variants = append(j.Variants, jv)
	}
	return j
}

// row is the import row of a JSON Lines line; given holds its keys.
func (j jsonProduct) row(given map[string]bool) catalog.ImportRow {
	np := catalog.NewProduct{Name: j.Name, Description: j.Description, Currency: j.Currency, Status: j.Status, Handle: j.Handle,
		Vendor: j.Vendor, ProductType: j.ProductType, Tags: j.Tags, Options: j.Options, Media: j.Media, Attributes: j.Attributes}
	if j.SEO != nil {
		np.SEO = *j.SEO
	}
	if len(j.Variants) == 0 {
		np.SKU, np.Price = j.SKU, j.Price
		if j.Stock != nil {
			np.Stock = *j.Stock
		}
	} else {
		given["stock"] = true // each variant gives its own
	}
	for _, v := range j.Variants {
		np.Variants = append(np.Variants, catalog.NewVariant{SKU: v.SKU, Options: v.Options, Price: v.Price, CompareAtPrice: v.CompareAtPrice,
			Barcode: v.Barcode, Weight: v.Weight, Stock: v.Stock, InventoryPolicy: v.InventoryPolicy, RequiresShipping: v.RequiresShipping,
			Taxable: v.Taxable, Image: v.Image})
	}
	if given["categories"] {
		given["category_ids"] = true
	}
	return catalog.ImportRow{NewProduct: np, Given: given, CategoryPaths: j.Categories}
}

// readRows reads the rows of a CSV or JSON Lines stream, one at a time.
func readRows(r io.Reader, format string) (func(func(importLine, error) bool), error) {
	if format == "jsonl" {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		return func(yield func(importLine, error) bool) {
			line := 1
			for ; sc.Scan(); line++ {
				text := strings.TrimSpace(sc.Text())
				if text == "" {
					continue
				}
				var (
					rec  jsonProduct
					keys map[string]json.RawMessage
				)
				if err := json.Unmarshal([]byte(text), &keys); err != nil {
					yield(importLine{}, fmt.Errorf("line %d is not a JSON object of product fields: %v", line, err))
					return
				}
				if err := json.Unmarshal([]byte(text), &rec); err != nil {
					yield(importLine{}, fmt.Errorf("line %d is not a JSON object of product fields: %v", line, err))
					return
				}
				given := make(map[string]bool, len(keys))
				for k := range keys {
					given[k] = true
				}
				if !yield(importLine{rec.row(given), line}, nil) {
					return
				}
			}
			if err := sc.Err(); err != nil {
				yield(importLine{}, fmt.Errorf("line %d: %w", line, err))
			}
		}, nil
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read the CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))
		switch {
		case slices.Contains(importColumns, h):
			col[h] = i
		case slices.Contains(exportOnly, h):
		default:
			return nil, fmt.Errorf("unknown column %q in the CSV header; the columns are %s (a Shopify export: --format shopify)", h, strings.Join(importColumns, ", "))
		}
	}
	for _, req := range importColumns[:3] {
		if _, ok := col[req]; !ok {
			return nil, fmt.Errorf("the CSV header has no %q column; sku, name and price are required", req)
		}
	}
	return func(yield func(importLine, error) bool) {
		for line := 2; ; line++ {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(importLine{}, fmt.Errorf("line %d: %w", line, err))
				return
			}
			get := func(name string) (string, bool) {
				i, ok := col[name]
				if !ok || i >= len(rec) || (name != "description" && strings.TrimSpace(rec[i]) == "") {
					return "", false
				}
				return uncsvCell(strings.TrimSpace(rec[i])), true
			}
			row := importLine{line: line, ImportRow: catalog.ImportRow{Given: map[string]bool{}}}
			for _, name := range importColumns {
				v, ok := get(name)
				if !ok {
					continue
				}
				row.Given[name] = true
				switch name {
				case "sku":
					row.SKU = v
				case "name":
					row.Name = v
				case "price":
					row.Price = v
				case "description":
					row.Description = v
				case "currency":
					row.Currency = v
				case "status":
					row.Status = v
				case "stock":
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						yield(importLine{}, fmt.Errorf("line %d: stock must be a whole number, not %q", line, v))
						return
					}
					row.Stock = n
				}
			}
			if !yield(row, nil) {
				return
			}
		}
	}, nil
}

// ProductExportCmd exports products.
type ProductExportCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Format string `enum:"csv,jsonl,shopify" default:"csv" help:"shopify: a Shopify product CSV, which Shopify and Vitrine import; jsonl: every field; csv: the seed's columns, a row per product."`
	Output string `short:"o" default:"-" placeholder:"FILE" help:"Where to write; - is standard output."`
	As     string `placeholder:"EMAIL" help:"Read as this member of the company; default: its first owner."`
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
	cat := catalog.New(svc)
	cats, err := cat.ListCategories(e.ctx, a)
	if err != nil {
		return err
	}
	path := func(id string) string { return catalog.CategoryPath(cats, id) }
	out := e.stdout
	if c.Output != "-" {
		f, err := os.Create(c.Output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	w := bufio.NewWriter(out)
	var (
		cw *csv.Writer
		sw *shopify.Writer
	)
	switch c.Format {
	case "csv":
		cw = csv.NewWriter(w)
		cw.Write([]string{"id", "sku", "name", "description", "price", "currency", "stock", "status", "version", "created_at", "updated_at"})
	case "shopify":
		defs, err := cat.ListAttributes(e.ctx, a)
		if err != nil {
			return err
		}
		keys := make([]string, len(defs))
		for i, d := range defs {
			keys[i] = d.Key
		}
		sw = shopify.NewWriter(w, keys, func(p *vitrine.Product) string {
			if len(p.Categories) == 0 {
				return ""
			}
			return path(p.Categories[0].ID)
		})
	}
	bar := e.progress(-1, "exporting")
	filter, cursor := vitrine.ProductFilter{Sort: vitrine.SortCreated}, ""
	for {
		page, err := cat.ListProducts(e.ctx, a, filter, vitrine.MaxPageLimit, cursor)
		if err != nil {
			return err
		}
		for _, p := range page.Products {
			switch {
			case sw != nil:
				if err := sw.Write(p); err != nil {
					return err
				}
			case cw != nil:
				cw.Write([]string{p.ID, csvCell(p.SKU), csvCell(p.Name), csvCell(p.Description), p.PriceString(), p.Currency, strconv.FormatInt(p.Stock, 10),
					string(p.Status), strconv.FormatInt(p.Version, 10), p.CreatedAt.Format(time.RFC3339Nano), p.UpdatedAt.Format(time.RFC3339Nano)})
			default:
				line, err := json.Marshal(jsonOf(p, path))
				if err != nil {
					return err
				}
				w.Write(append(line, '\n'))
			}
			bar.add(1)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	bar.finish()
	switch {
	case sw != nil:
		if err := sw.Flush(); err != nil {
			return err
		}
	case cw != nil:
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	return w.Flush()
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

// formulaStart holds the characters that make a spreadsheet read a cell as
// a formula (OWASP, CSV injection).
const formulaStart = "=+-@\t\r"

// csvCell escapes a text cell of an export that a spreadsheet would run as
// a formula: a ' goes before it, which spreadsheets show as text.
func csvCell(s string) string {
	if s != "" && strings.IndexByte(formulaStart, s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// uncsvCell undoes csvCell, so that an exported CSV imports back as it was.
func uncsvCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.IndexByte(formulaStart, s[1]) >= 0 {
		return s[1:]
	}
	return s
}
