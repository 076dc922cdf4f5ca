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
	"github.com/vitrine/vitrine/service"
	"golang.org/x/term"
)

// ProductCmd groups the catalog commands.
type ProductCmd struct {
	Import ProductImportCmd `cmd:"" help:"Import products from a CSV or JSON Lines file."`
	Export ProductExportCmd `cmd:"" help:"Export a company's products as CSV or JSON Lines."`
}

// ProductImportCmd imports products.
type ProductImportCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	File   string `arg:"" help:"The file: CSV with a header row (sku,name,price and optionally description,currency,stock,status), or JSON Lines with the same fields. - reads standard input."`
	Format string `enum:"auto,csv,jsonl" default:"auto" help:"csv or jsonl; auto goes by the file's extension (.jsonl, .ndjson), else CSV."`
	Mode   string `enum:"create,upsert" default:"create" help:"create: a SKU that exists fails its row; upsert: it updates that product."`
	Atomic bool   `help:"Write nothing if any row fails. The whole file is read before anything is written."`
	As     string `placeholder:"EMAIL" help:"Act as this member of the company (recorded as the author); default: its first owner."`
}

// importBatch is how many rows go in one write when not atomic.
const importBatch = 1000

// Run imports the file, streaming it unless --atomic.
func (c *ProductImportCmd) Run(e *env) error {
	in, size, err := openInput(e, c.File)
	if err != nil {
		return err
	}
	defer in.Close()
	format := c.Format
	if format == "auto" {
		format = "csv"
		if strings.HasSuffix(c.File, ".jsonl") || strings.HasSuffix(c.File, ".ndjson") {
			format = "jsonl"
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
	bar := e.progress(size, "importing")
	rows, err := readRows(bar.reader(in), format)
	if err != nil {
		return err
	}
	ctx := e.ctx
	var (
		total service.ImportSummary
		batch []service.ImportRow
		lines []int
		first = 0
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		sum, err := svc.ImportProducts(ctx, a, batch, c.Mode, c.Atomic, nil)
		if err != nil {
			return err
		}
		for _, r := range sum.Results {
			if r.Err != nil {
				fmt.Fprintf(e.stderr, "line %d (SKU %q): %s\n", lines[r.Index], r.SKU, r.Err.Message)
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
	fmt.Fprintf(e.stdout, "%d rows: %d created, %d updated, %d failed.\n", first, total.Created, total.Updated, total.Failed)
	if total.Failed > 0 {
		if c.Atomic {
			return fmt.Errorf("%d rows failed; nothing was written (--atomic)", total.Failed)
		}
		return fmt.Errorf("%d rows failed (listed above); the others were written", total.Failed)
	}
	return nil
}

// importLine is a row and the line of the file it came from.
type importLine struct {
	service.ImportRow
	line int
}

var (
	importColumns = []string{"sku", "name", "price", "description", "currency", "stock", "status"}
	// exportOnly are the columns of an export that an import ignores, so
	// that an export imports back.
	exportOnly = []string{"id", "version", "created_at", "updated_at"}
)

// readRows reads the rows of a CSV or JSON Lines stream, one at a time.
func readRows(r io.Reader, format string) (func(func(importLine, error) bool), error) {
	if format == "jsonl" {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		return func(yield func(importLine, error) bool) {
			line := 1
			for ; sc.Scan(); line++ {
				text := strings.TrimSpace(sc.Text())
				if text == "" {
					continue
				}
				var rec struct {
					SKU, Name, Price      string
					Description, Currency *string
					Stock                 *int64
					Status                *string
				}
				dec := json.NewDecoder(strings.NewReader(text))
				if err := dec.Decode(&rec); err != nil {
					yield(importLine{}, fmt.Errorf("line %d is not a JSON object of product fields: %v", line, err))
					return
				}
				if !yield(importLine{service.ImportRow{SKU: rec.SKU, Name: rec.Name, Price: rec.Price, Description: rec.Description,
					Currency: rec.Currency, Stock: rec.Stock, Status: rec.Status}, line}, nil) {
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
			return nil, fmt.Errorf("unknown column %q in the CSV header; the columns are %s", h, strings.Join(importColumns, ", "))
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
			get := func(name string) *string {
				i, ok := col[name]
				if !ok || i >= len(rec) || (name != "description" && strings.TrimSpace(rec[i]) == "") {
					return nil
				}
				v := uncsvCell(strings.TrimSpace(rec[i]))
				return &v
			}
			row := importLine{line: line}
			for name, dst := range map[string]*string{"sku": &row.SKU, "name": &row.Name, "price": &row.Price} {
				if v := get(name); v != nil {
					*dst = *v
				}
			}
			row.Description, row.Currency, row.Status = get("description"), get("currency"), get("status")
			if v := get("stock"); v != nil {
				n, err := strconv.ParseInt(*v, 10, 64)
				if err != nil {
					yield(importLine{}, fmt.Errorf("line %d: stock must be a whole number, not %q", line, *v))
					return
				}
				row.Stock = &n
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
	Format string `enum:"csv,jsonl" default:"csv" help:"csv or jsonl."`
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
	var cw *csv.Writer
	if c.Format == "csv" {
		cw = csv.NewWriter(w)
		cw.Write([]string{"id", "sku", "name", "description", "price", "currency", "stock", "status", "version", "created_at", "updated_at"})
	}
	bar := e.progress(-1, "exporting")
	q := service.ProductQuery{Sort: string(vitrine.SortCreated), Limit: vitrine.MaxPageLimit}
	for {
		page, err := svc.ListProducts(e.ctx, a, q)
		if err != nil {
			return err
		}
		for _, p := range page.Products {
			if cw != nil {
				cw.Write([]string{p.ID, csvCell(p.SKU), csvCell(p.Name), csvCell(p.Description), p.PriceString(), p.Currency, strconv.FormatInt(p.Stock, 10),
					string(p.Status), strconv.FormatInt(p.Version, 10), p.CreatedAt.Format(time.RFC3339Nano), p.UpdatedAt.Format(time.RFC3339Nano)})
			} else {
				line, _ := json.Marshal(map[string]any{"id": p.ID, "sku": p.SKU, "name": p.Name, "description": p.Description,
					"price": p.PriceString(), "currency": p.Currency, "stock": p.Stock, "status": p.Status, "version": p.Version,
					"created_at": p.CreatedAt, "updated_at": p.UpdatedAt})
				w.Write(append(line, '\n'))
			}
			bar.add(1)
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	bar.finish()
	if cw != nil {
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
