package store

import (
	"encoding/json"
	"strconv"
)

// queryBuilder collects WHERE terms and numbers their arguments.
type queryBuilder struct {
	where []string
	args  []any
}

func (q *queryBuilder) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

func (q *queryBuilder) add(term string, v any) {
	q.where = append(q.where, term+q.arg(v))
}

// by names a table read by one of its indexes. SQLite, which keeps no
// statistics here, would rather scan a company's rows in primary-key order
// (tenant_id first) than look a product's rows up by the index that leads
// with (tenant_id, product_id): the index is forced there. PostgreSQL's
// planner has its statistics and chooses.
func (db *DB) by(table, index string) string {
	if db.d.Name() == "postgres" {
		return table
	}
	return table + " INDEXED BY " + index
}

// idList is the condition, after a column, that it is one of the ids of
// the second argument ($2): a JSON array on SQLite, an array on
// PostgreSQL, so that a list of any length is one argument.
func (db *DB) idList(ids []string) string {
	if db.d.Name() == "postgres" {
		return `= ANY($2::uuid[])`
	}
	return `IN (SELECT value FROM json_each($2))`
}

// idArg is the argument idList reads.
func (db *DB) idArg(ids []string) any {
	if db.d.Name() == "postgres" {
		return ids
	}
	b, _ := json.Marshal(ids)
	return string(b)
}
