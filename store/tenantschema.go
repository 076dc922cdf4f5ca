package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// A company's archive is read from the schema itself: every table with a
// tenant_id column (and tenants) is carried, column by column, unless
// notExported says why not. A table added later is carried without a word
// here; TestTenantTablesAreAllCarried fails when one cannot be.

// notExported are the tenant tables an archive leaves out, and why.
var notExported = map[string]string{
	"product_words":        "search words of products, kept by a trigger from products (PostgreSQL)",
	"catalog_changes":      "the log the facet index follows: a cache's bookkeeping, begun afresh",
	"idempotency_keys":     "retry keys of create calls in flight, which expire within a day",
	"tenant_exports":       "the archives themselves (export_tenant), kept a day",
	"tenant_export_chunks": "the archives themselves (export_tenant), kept a day",
}

// columnsNotExported are columns an archive leaves out, and why: the
// importing database starts them at their defaults.
var columnsNotExported = map[string]map[string]string{
	"tenants": {
		"catalog_seq":    "the catalog sequence the facet index and feeds follow: begun afresh",
		"catalog_pruned": "how far catalog_changes was pruned: begun afresh",
	},
}

// userColumnNames are the columns that hold a user's id, which an import
// maps to the user of the same email in the database written.
var userColumnNames = map[string]bool{"user_id": true, "created_by": true, "updated_by": true}

// columnKind is how a column's values are read and written.
type columnKind uint8

const (
	kindText columnKind = iota
	kindUUID
	kindInt
	kindBool
	kindTime
	kindBytes
)

type column struct {
	name string
	kind columnKind
}

// tableInfo is what the schema says of one table.
type tableInfo struct {
	name    string
	columns []column // exported, by name
	pk      []string
	refs    []string // tables it refers to
	selfRef []string // its columns that refer to its own rows
}

func (t *tableInfo) column(name string) (column, bool) {
	i := slices.IndexFunc(t.columns, func(c column) bool { return c.name == name })
	if i < 0 {
		return column{}, false
	}
	return t.columns[i], true
}

// TenantTables lists the tables that hold a company's rows, each after
// those it refers to.
func (db *DB) TenantTables(ctx context.Context) ([]vitrine.TenantTable, error) {
	var out []vitrine.TenantTable
	err := db.d.Snapshot(ctx, sqldb.Scope{}, func(c sqldb.Conn) error {
		infos, err := db.tenantSchema(ctx, c)
		if err != nil {
			return err
		}
		for _, t := range infos {
			out = append(out, vitrine.TenantTable{Name: t.name, Excluded: notExported[t.name]})
		}
		return nil
	})
	return out, err
}

// tenantSchema reads the tenant tables' columns, keys and references,
// ordered so that a table comes after those it refers to (tenants first,
// memberships next: the users they map are known before any other row).
func (db *DB) tenantSchema(ctx context.Context, c sqldb.Conn) ([]*tableInfo, error) {
	pg := db.d.Name() == "postgres"
	q := `SELECT m.name FROM sqlite_master m WHERE m.type = 'table'
		AND (m.name = 'tenants' OR EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'tenant_id')) ORDER BY m.name`
	if pg {
		q = `SELECT t.table_name FROM information_schema.tables t WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
			AND (t.table_name = 'tenants' OR EXISTS (SELECT 1 FROM information_schema.columns c
				WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'tenant_id'))
			ORDER BY t.table_name COLLATE "C"`
	}
	names, err := sqldb.Collect(ctx, c, scanString, q)
	if err != nil {
		return nil, fmt.Errorf("list tenant tables: %w", err)
	}
	byName := map[string]*tableInfo{}
	for _, n := range names {
		t := &tableInfo{name: n}
		if err := db.readTable(ctx, c, t); err != nil {
			return nil, fmt.Errorf("read table %s: %w", n, err)
		}
		byName[n] = t
	}
	// Order: a table after those it refers to; ties by name, but tenants
	// and memberships first.
	rank := func(n string) int {
		switch n {
		case "tenants":
			return 0
		case "memberships":
			return 1
		}
		return 2
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b)) })
	var (
		ordered []*tableInfo
		done    = map[string]bool{}
	)
	for len(ordered) < len(names) {
		progress := false
		for _, n := range names {
			if done[n] {
				continue
			}
			ready := !slices.ContainsFunc(byName[n].refs, func(r string) bool { return byName[r] != nil && !done[r] && r != n })
			if ready {
				ordered, done[n], progress = append(ordered, byName[n]), true, true
				break
			}
		}
		if !progress {
			return nil, fmt.Errorf("the tenant tables refer to each other in a cycle")
		}
	}
	return ordered, nil
}

func scanString(r sqldb.Row) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

// readTable reads a table's columns, primary key and references.
func (db *DB) readTable(ctx context.Context, c sqldb.Conn, t *tableInfo) error {
	type colRow struct {
		name, typ string
		skip      bool
	}
	var (
		cols       []colRow
		pkq, refsq string
	)
	if db.d.Name() == "postgres" {
		rs, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (colRow, error) {
			var cr colRow
			var gen string
			err := r.Scan(&cr.name, &cr.typ, &gen)
			cr.skip = gen == "ALWAYS"
			return cr, err
		}, `SELECT column_name, data_type, is_generated FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1`, t.name)
		if err != nil {
			return err
		}
		cols = rs
		pkq = `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
			WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`
		refsq = `SELECT k.confrelid::regclass::text, a.attname FROM pg_constraint k
			JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
			WHERE k.contype = 'f' AND k.conrelid = $1::regclass`
	} else {
		rs, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (colRow, error) {
			var cr colRow
			err := r.Scan(&cr.name, &cr.typ)
			return cr, err
		}, `SELECT name, type FROM pragma_table_info($1)`, t.name)
		if err != nil {
			return err
		}
		cols = rs
		pkq = `SELECT name FROM pragma_table_info($1) WHERE pk > 0 ORDER BY pk`
		refsq = `SELECT "table", "from" FROM pragma_foreign_key_list($1)`
	}
	for _, cr := range cols {
		if cr.skip || columnsNotExported[t.name][cr.name] != "" {
			continue
		}
		k, err := kindOf(db.d.Name(), cr.typ)
		if err != nil {
			return fmt.Errorf("column %s: %w", cr.name, err)
		}
		t.columns = append(t.columns, column{cr.name, k})
	}
	slices.SortFunc(t.columns, func(a, b column) int { return strings.Compare(a.name, b.name) })
	pk, err := sqldb.Collect(ctx, c, scanString, pkq, t.name)
	if err != nil {
		return err
	}
	t.pk = pk
	refs, err := sqldb.Collect(ctx, c, func(r sqldb.Row) ([2]string, error) {
		var ref [2]string
		err := r.Scan(&ref[0], &ref[1])
		return ref, err
	}, refsq, t.name)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if r[0] == t.name {
			if r[1] != "tenant_id" && !slices.Contains(t.selfRef, r[1]) {
				t.selfRef = append(t.selfRef, r[1])
			}
		} else if !slices.Contains(t.refs, r[0]) {
			t.refs = append(t.refs, r[0])
		}
	}
	if len(t.pk) == 0 {
		for _, c := range t.columns {
			t.pk = append(t.pk, c.name)
		}
	}
	return nil
}

// kindOf reads a column's declared type.
func kindOf(dialect, typ string) (columnKind, error) {
	typ = strings.ToLower(typ)
	if dialect == "postgres" {
		switch {
		case typ == "uuid":
			return kindUUID, nil
		case typ == "text" || strings.HasPrefix(typ, "character"):
			return kindText, nil
		case typ == "integer" || typ == "bigint" || typ == "smallint":
			return kindInt, nil
		case typ == "boolean":
			return kindBool, nil
		case strings.HasPrefix(typ, "timestamp"):
			return kindTime, nil
		case typ == "bytea":
			return kindBytes, nil
		}
		return 0, fmt.Errorf("type %s is not one an archive carries (text, uuid, integer, boolean, timestamp, bytea)", typ)
	}
	switch {
	case strings.Contains(typ, "int"):
		return kindInt, nil
	case strings.Contains(typ, "bool"):
		return kindBool, nil
	case strings.Contains(typ, "timestamp"):
		return kindTime, nil
	case strings.Contains(typ, "blob"):
		return kindBytes, nil
	}
	return kindText, nil
}
