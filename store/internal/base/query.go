package base

import (
	"encoding/json"
	"strconv"

	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// LimitTo is a LIMIT clause whose count is the placeholder p. SQLite plans
// a statement whose LIMIT is a bare parameter for the value bound, and so
// prepares it again each time it runs; a LIMIT expression is planned once.
func LimitTo(p string) string { return ` LIMIT CAST(` + p + ` AS INTEGER)` }

// QueryBuilder collects WHERE terms and numbers their arguments.
type QueryBuilder struct {
	Where []string
	Args  []any
}

// Arg adds an argument and returns its placeholder.
func (q *QueryBuilder) Arg(v any) string {
	q.Args = append(q.Args, v)
	return "$" + strconv.Itoa(len(q.Args))
}

// Add adds the term that compares with v: Add(`tenant_id = `, id).
func (q *QueryBuilder) Add(term string, v any) {
	q.Where = append(q.Where, term+q.Arg(v))
}

// By names a table read by one of its indexes. SQLite, which keeps no
// statistics here, would rather scan a company's rows in primary-key order
// (tenant_id first) than look a product's rows up by the index that leads
// with (tenant_id, product_id): the index is forced there. PostgreSQL's
// planner has its statistics and chooses.
func By(d sqldb.Dialect, table, index string) string {
	if d.Name() == "postgres" {
		return table
	}
	return table + " INDEXED BY " + index
}

// IDList is the condition, after a column, that it is one of the ids of
// the second argument ($2): a JSON array on SQLite, an array on
// PostgreSQL, so that a list of any length is one argument.
func IDList(d sqldb.Dialect) string {
	if d.Name() == "postgres" {
		return `= ANY($2::uuid[])`
	}
	return `IN (SELECT value FROM json_each($2))`
}

// IDArg is the argument IDList reads.
func IDArg(d sqldb.Dialect, ids []string) any {
	if d.Name() == "postgres" {
		return ids
	}
	b, _ := json.Marshal(ids)
	return string(b)
}
