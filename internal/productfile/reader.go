package productfile

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

var (
	// Columns are the columns of the plain CSV that an import reads; the
	// first three are required.
	Columns = []string{"sku", "name", "price", "description", "currency", "stock", "status"}
	// exportOnly are the columns of an export that an import ignores, so
	// that an export imports back.
	exportOnly = []string{"id", "version", "created_at", "updated_at"}
	// exportColumns are the columns of an export, in order.
	exportColumns = []string{"id", "sku", "name", "description", "price", "currency", "stock", "status", "version", "created_at", "updated_at"}
)

// ErrUnknownColumn is wrapped by NewReader's error for a CSV header with a
// column this format does not have (a Shopify export's, say).
var ErrUnknownColumn = errors.New("unknown column")

// maxLine bounds a JSON line; a longer one is an error naming its line.
const maxLine = 16 << 20

// Reader reads the products of a file, one at a time, as it reads the
// file: it never holds more than a row.
type Reader struct {
	next func() (Row, error)
	err  error // sticky: the error that ended the file, or io.EOF
}

// NewReader reads a file of the format. A CSV's header is read here: one
// without sku, name or price, or with a column the format does not have
// (ErrUnknownColumn), is an error.
func NewReader(r io.Reader, f Format) (*Reader, error) {
	switch f {
	case JSONLines:
		return &Reader{next: jsonRows(r)}, nil
	case CSV:
		next, err := csvRows(r)
		if err != nil {
			return nil, err
		}
		return &Reader{next: next}, nil
	}
	return nil, fmt.Errorf("productfile: no format %q", f)
}

// Next returns the next product of the file, or io.EOF after the last. An
// error (a line that is not a product, a stock that is not a whole number)
// names its line, and ends the file: Next returns it again.
func (r *Reader) Next() (Row, error) {
	if r.err != nil {
		return Row{}, r.err
	}
	row, err := r.next()
	if err != nil {
		r.err = err
	}
	return row, err
}

// jsonRows reads a product a line; blank lines are skipped.
func jsonRows(r io.Reader) func() (Row, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	line := 0
	return func() (Row, error) {
		for sc.Scan() {
			line++
			text := strings.TrimSpace(sc.Text())
			if text == "" {
				continue
			}
			var (
				p    Product
				keys map[string]json.RawMessage
			)
			if err := json.Unmarshal([]byte(text), &keys); err != nil {
				return Row{}, fmt.Errorf("line %d is not a JSON object of product fields: %v", line, err)
			}
			if err := json.Unmarshal([]byte(text), &p); err != nil {
				return Row{}, fmt.Errorf("line %d is not a JSON object of product fields: %v", line, err)
			}
			given := make(map[string]bool, len(keys))
			for k := range keys {
				given[k] = true
			}
			return Row{Product: &p, Line: line, Given: given}, nil
		}
		if err := sc.Err(); err != nil {
			return Row{}, fmt.Errorf("line %d: %w", line+1, err)
		}
		return Row{}, io.EOF
	}
}

// csvRows reads the header, then a product a record. A cell is trimmed;
// a blank one is not given, but description's.
func csvRows(r io.Reader) (func() (Row, error), error) {
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
		case slices.Contains(Columns, h):
			col[h] = i
		case slices.Contains(exportOnly, h):
		default:
			return nil, fmt.Errorf("%w %q in the CSV header; the columns are %s", ErrUnknownColumn, h, strings.Join(Columns, ", "))
		}
	}
	for _, req := range Columns[:3] {
		if _, ok := col[req]; !ok {
			return nil, fmt.Errorf("the CSV header has no %q column; sku, name and price are required", req)
		}
	}
	line := 1
	return func() (Row, error) {
		rec, err := cr.Read()
		line++
		if errors.Is(err, io.EOF) {
			return Row{}, io.EOF
		}
		if err != nil {
			return Row{}, fmt.Errorf("line %d: %w", line, err)
		}
		row := Row{Product: &Product{}, Line: line, Given: map[string]bool{}}
		p := row.Product
		for _, name := range Columns {
			i, ok := col[name]
			if !ok || i >= len(rec) {
				continue
			}
			v := strings.TrimSpace(rec[i])
			if v == "" && name != "description" {
				continue
			}
			v = uncsvCell(v)
			row.Given[name] = true
			switch name {
			case "sku":
				p.SKU = v
			case "name":
				p.Name = v
			case "price":
				p.Price = v
			case "description":
				p.Description = v
			case "currency":
				p.Currency = v
			case "status":
				p.Status = v
			case "stock":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return Row{}, fmt.Errorf("line %d: stock must be a whole number, not %q", line, v)
				}
				p.Stock = &n
			}
		}
		return row, nil
	}, nil
}
