package shapes

import (
	"github.com/vitrine/vitrine/service/catalog"
)

// MaxTranslationRows bounds the rows of one import_translations call: CSV
// rows, or JSON lines (a product each).
const (
	MaxTranslationRows  = 10000
	MaxTranslationLines = MaxImportRows
)

type translationFormat string

type ImportTranslationsIn struct {
	TenantArg
	Format  translationFormat `json:"format" jsonschema:"shopify: Shopify's translation CSV (Translate & Adapt). jsonl: a product a line, {\"handle\" or \"id\", \"translations\": {\"es\": {\"name\": ...}}}."`
	Text    longCSV           `json:"text" jsonschema:"The file, whole."`
	Details bool              `json:"details,omitempty" jsonschema:"true: all lines, in full."`
}

type TranslationRowOut struct {
	Line   int        `json:"line"`
	Ref    string     `json:"ref,omitempty" jsonschema:"The product or category as the line names it."`
	ID     string     `json:"id,omitempty"`
	Field  string     `json:"field,omitempty"`
	Locale string     `json:"locale,omitempty"`
	Status string     `json:"status" jsonschema:"created, updated, removed, unchanged, skipped (note says why) or error."`
	Note   string     `json:"note,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`
}

type ImportTranslationsOut struct {
	Created        int                 `json:"created"`
	Updated        int                 `json:"updated"`
	Removed        int                 `json:"removed"`
	Unchanged      int                 `json:"unchanged"`
	Skipped        int                 `json:"skipped"`
	Failed         int                 `json:"failed"`
	Rows           []TranslationRowOut `json:"rows" jsonschema:"Every line; if too many, failed then skipped ones (*_omitted: left out)."`
	RowsOmitted    int                 `json:"rows_omitted,omitempty"`
	Notices        []ImportNoticeOut   `json:"notices,omitempty"`
	NoticesOmitted int                 `json:"notices_omitted,omitempty"`
}

// ImportTranslationsAnswer is an import of translations as
// import_translations returns it, bounded as ImportAnswer is: every line
// when all fit, else the failed ones then the skipped ones that fit, what
// is left out counted.
func ImportTranslationsAnswer(res *catalog.TranslationImport, details bool, bodyOf func(error, string) ErrorBody) ImportTranslationsOut {
	out := ImportTranslationsOut{Created: res.Created, Updated: res.Updated, Removed: res.Removed, Unchanged: res.Unchanged,
		Skipped: res.Skipped, Failed: res.Failed}
	a := answerBudget{details: details}
	out.Notices, out.NoticesOmitted = a.notices(res.Notices)
	rows := make([]TranslationRowOut, len(res.Results))
	for i, r := range res.Results {
		rows[i] = TranslationRowOut{Line: r.Line, Ref: r.Ref, ID: r.ID, Field: r.Field, Locale: r.Locale, Status: r.Status, Note: r.Note,
			Error: a.errorOf(r.Err, bodyOf)}
	}
	out.Rows, out.RowsOmitted = boundedRows(&a, rows, func(r TranslationRowOut) string { return r.Status },
		catalog.TranslationFailed, catalog.TranslationSkipped)
	return out
}
