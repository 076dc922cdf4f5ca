package productfile

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Writer writes products to a file of one format, buffered: Flush ends
// the file.
type Writer struct {
	format Format
	w      *bufio.Writer
	csv    *csv.Writer
}

// NewWriter starts a file of the format on w; a CSV starts with its
// header, so that a file of no products is still one.
func NewWriter(w io.Writer, f Format) (*Writer, error) {
	pw := &Writer{format: f}
	switch f {
	case JSONLines:
		pw.w = bufio.NewWriter(w)
	case CSV:
		pw.csv = csv.NewWriter(w)
		pw.csv.Write(exportColumns) //nolint:errcheck // csv.Writer keeps its error for Flush
	default:
		return nil, fmt.Errorf("productfile: no format %q", f)
	}
	return pw, nil
}

// Write writes a product: a JSON line, or a CSV row of its seed fields.
func (w *Writer) Write(p *Product) error {
	if w.csv != nil {
		stock, version, created, updated := "", "", "", ""
		if p.Stock != nil {
			stock = strconv.FormatInt(*p.Stock, 10)
		}
		if p.Version != 0 {
			version = strconv.FormatInt(p.Version, 10)
		}
		if p.CreatedAt != nil {
			created = p.CreatedAt.Format(time.RFC3339Nano)
		}
		if p.UpdatedAt != nil {
			updated = p.UpdatedAt.Format(time.RFC3339Nano)
		}
		return w.csv.Write([]string{p.ID, csvCell(p.SKU), csvCell(p.Name), csvCell(p.Description), csvCell(p.Price), csvCell(p.Currency), stock,
			csvCell(p.Status), version, created, updated})
	}
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := w.w.Write(line); err != nil {
		return err
	}
	return w.w.WriteByte('\n')
}

// Flush writes what is buffered, and reports any error of the file.
func (w *Writer) Flush() error {
	if w.csv != nil {
		w.csv.Flush()
		return w.csv.Error()
	}
	return w.w.Flush()
}

// formulaStart holds the characters that make a spreadsheet read a cell as
// a formula (OWASP, CSV injection).
const formulaStart = "=+-@\t\r"

// csvCell escapes a text cell that a spreadsheet would run as a formula: a
// ' goes before it, which spreadsheets show as text. A cell of 's before
// such a start gets one more, so that uncsvCell gives it back whole.
func csvCell(s string) string {
	if formulaAfterQuotes(s) {
		return "'" + s
	}
	return s
}

// uncsvCell undoes csvCell, so that an exported CSV imports back as it was.
func uncsvCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && formulaAfterQuotes(s) {
		return s[1:]
	}
	return s
}

// formulaAfterQuotes reports whether s, past its leading 's, starts as a
// formula does.
func formulaAfterQuotes(s string) bool {
	s = strings.TrimLeft(s, "'")
	return s != "" && strings.IndexByte(formulaStart, s[0]) >= 0
}
