package shapes

import (
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/wire"
	"github.com/vitrine/vitrine/service/catalog"
)

type (
	importMode string
	importRows []importRowIn // bounded to MaxImportRows in importTools
)

// MaxImportRows bounds the rows of one import_products call.
const MaxImportRows = 1000

// importRowIn is a row of an import: create_product's fields. Which
// optional fields a row gives is read from its JSON (given), so that an
// upsert keeps those it leaves out.
type importRowIn struct {
	productFields
	given map[string]bool
}

// Given records that the row gives the field name (args.Keyed).
func (r *importRowIn) Given(name string) {
	if r.given == nil {
		r.given = map[string]bool{}
	}
	r.given[name] = true
}

// GivenFields reports which fields the row gives, by JSON name.
func (r importRowIn) GivenFields() map[string]bool { return r.given }

type importFormat string

type ImportIn struct {
	TenantArg
	Products importRows           `json:"products,omitempty" jsonschema:"Rows of create_product's fields (no tenant_id)."`
	Format   importFormat         `json:"format,omitempty" jsonschema:"shopify: csv holds a Shopify product CSV export. Default: products."`
	CSV      longCSV              `json:"csv,omitempty"`
	Mode     importMode           `json:"mode,omitempty" jsonschema:"upsert: update a product that exists (by handle, else SKU), keeping fields left out. Default: create."`
	Atomic   bool                 `json:"atomic,omitempty" jsonschema:"true: one failed row writes nothing."`
	Currency vitrine.CurrencyCode `json:"currency,omitempty" jsonschema:"Of prices without one. Default: the company's."`
	Details  bool                 `json:"details,omitempty" jsonschema:"true: all rows, in full."`
}

// longCSV is a Shopify export sent whole; the HTTP body limit
// (--max-body) bounds it first.
type longCSV string

const maxCSVLength = 32 << 20

type ImportRowOut struct {
	Index  int        `json:"index"`
	Line   int        `json:"line,omitempty" jsonschema:"The CSV line of the product's first row."`
	Handle string     `json:"handle,omitempty"`
	SKU    string     `json:"sku"`
	Status string     `json:"status" jsonschema:"created, updated, unchanged, error, or skipped (an atomic import failed)."`
	ID     string     `json:"id,omitempty"`
	Error  *ErrorBody `json:"error,omitempty" jsonschema:"As a tool's error."`
}

type ImportNoticeOut struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
	Lines   []int  `json:"lines,omitempty"`
}

type ImportOut struct {
	Created   int            `json:"created"`
	Updated   int            `json:"updated"`
	Unchanged int            `json:"unchanged"`
	Failed    int            `json:"failed"`
	Written   bool           `json:"written"`
	Rows      []ImportRowOut `json:"rows" jsonschema:"Every row; if too many, failed ones (*_omitted: left out)."`
	// RowsOmitted and NoticesOmitted say what a bounded answer left out.
	RowsOmitted    int               `json:"rows_omitted,omitempty"`
	Notices        []ImportNoticeOut `json:"notices,omitempty" jsonschema:"What is not kept, each kind once."`
	NoticesOmitted int               `json:"notices_omitted,omitempty"`
}

// The bounds of an import's answer when the caller does not ask for every
// row, in bytes of the result, which carries it twice (structured and as
// text, wire.ResultSize): its rows and notices, of which notices may take
// importNoticeBudget, the rest of 16 KiB left to the counts and the
// envelope; and the length of a message in it.
const (
	importBudget       = 14 << 10
	importNoticeBudget = 4 << 10
	importMessageMax   = 300
)

// ImportAnswer is an import's summary as import_products returns it;
// lines gives each row's line in a CSV, bodyOf a row's error as a tool's
// error (mcpserver's one mapping). Unless details, the answer is bounded
// (importBudget) whatever the file: every row when all fit, else the
// failed ones that fit, and the kinds of notice that fit, each cut short;
// what is left out is counted.
func ImportAnswer(sum *catalog.ImportSummary, lines []int, notices []catalog.Notice, details bool, bodyOf func(error, string) ErrorBody) ImportOut {
	out := ImportOut{Created: sum.Created, Updated: sum.Updated, Unchanged: sum.Unchanged, Failed: sum.Failed, Written: sum.Written}
	a := answerBudget{details: details}
	out.Notices, out.NoticesOmitted = a.notices(notices)
	rows := make([]ImportRowOut, len(sum.Results))
	for i, r := range sum.Results {
		rows[i] = ImportRowOut{Index: r.Index, Handle: r.Handle, SKU: r.SKU, Status: r.Status}
		if lines != nil {
			rows[i].Line = lines[i]
		}
		if r.Product != nil {
			rows[i].ID = r.Product.ID
		}
		rows[i].Error = a.errorOf(r.Err, bodyOf)
	}
	out.Rows, out.RowsOmitted = boundedRows(&a, rows, func(r ImportRowOut) string { return r.Status }, catalog.RowFailed)
	return out
}

// answerBudget bounds the answer of an import (import_products,
// import_translations) unless details: its notices within
// importNoticeBudget, the whole answer within importBudget, each message
// cut to importMessageMax.
type answerBudget struct {
	details bool
	used    int
}

func (a *answerBudget) clip(s string) string {
	if a.details {
		return s
	}
	return vitrine.Clip(s, importMessageMax)
}

// fits counts v against the answer if the answer stays within budget.
func (a *answerBudget) fits(v any, budget int) bool {
	if a.details {
		return true
	}
	n := wire.ResultSize(v) + 2
	if a.used+n > budget {
		return false
	}
	a.used += n
	return true
}

// notices are the kinds of notice that fit, and how many do not.
func (a *answerBudget) notices(ns []catalog.Notice) ([]ImportNoticeOut, int) {
	var out []ImportNoticeOut
	for i, n := range ns {
		no := ImportNoticeOut{Message: a.clip(n.Message), Count: n.Count, Lines: n.Lines}
		if !a.fits(no, importNoticeBudget) {
			return out, len(ns) - i
		}
		out = append(out, no)
	}
	return out, 0
}

// errorOf is a row's error as the answer shows it, its message cut short.
func (a *answerBudget) errorOf(err *vitrine.Error, bodyOf func(error, string) ErrorBody) *ErrorBody {
	if err == nil { // a row's Err is *vitrine.Error: a nil one is no error
		return nil
	}
	body := bodyOf(err, "")
	body.Message = a.clip(body.Message)
	return &body
}

// boundedRows are every row when they all fit the answer, else the rows
// of each status of keep in turn, as many of each as fit; and how many
// are left out.
func boundedRows[R any](a *answerBudget, rows []R, statusOf func(R) string, keep ...string) ([]R, int) {
	if a.details {
		return rows, 0
	}
	size := 0
	for _, r := range rows {
		if size += wire.ResultSize(r) + 2; a.used+size > importBudget {
			break
		}
	}
	if a.used+size <= importBudget {
		return rows, 0
	}
	kept := []R{}
	for _, status := range keep {
		for _, r := range rows {
			if statusOf(r) != status {
				continue
			}
			if !a.fits(r, importBudget) {
				break
			}
			kept = append(kept, r)
		}
	}
	return kept, len(rows) - len(kept)
}

// ErrorBody is the JSON of a tool error. Its first three keys, in this
// order, are the contract of docs/errors.md; the keys after them appear
// only where they help the agent act.
type ErrorBody struct {
	Error     bool   `json:"error"`
	Type      string `json:"type"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	// Toolset names the toolset to ask for, when the token does not grant
	// the call's (outsideGrant).
	Toolset string `json:"toolset,omitempty"`
	// URI is the resource a read failed on (resources only).
	URI string `json:"uri,omitempty"`
}
