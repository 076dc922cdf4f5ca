package store

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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

// timeText is how an archive writes times.
const timeText = "2006-01-02T15:04:05.000000Z"

// ExportTenant sends every row of the tenant's tables to sink, in one
// snapshot, each table in its primary key's order.
func (db *DB) ExportTenant(ctx context.Context, tenantID string, sink vitrine.TenantSink) error {
	if !validIDs(tenantID) {
		return vitrine.NotFound("Tenant")
	}
	pg := db.d.Name() == "postgres"
	return db.d.Snapshot(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		var exists int
		if err := c.QueryRow(ctx, `SELECT 1 FROM tenants WHERE id = $1`, tenantID).Scan(&exists); err == sqldb.ErrNoRows {
			return vitrine.NotFound("Tenant")
		} else if err != nil {
			return err
		}
		tables, err := db.tenantSchema(ctx, c)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if notExported[t.name] != "" {
				continue
			}
			if err := exportTable(ctx, c, pg, t, tenantID, sink); err != nil {
				return fmt.Errorf("export %s: %w", t.name, err)
			}
		}
		return nil
	})
}

func exportTable(ctx context.Context, c sqldb.Conn, pg bool, t *tableInfo, tenantID string, sink vitrine.TenantSink) error {
	key := "tenant_id"
	if t.name == "tenants" {
		key = "id"
	}
	var n int64
	if err := c.QueryRow(ctx, `SELECT COUNT(*) FROM `+t.name+` WHERE `+key+` = $1`, tenantID).Scan(&n); err != nil {
		return err
	}
	if err := sink.Table(t.name, n); err != nil {
		return err
	}
	var sel []string
	for _, col := range t.columns {
		expr := "t." + quoteIdent(col.name)
		if pg && col.kind == kindUUID {
			expr += "::text"
		}
		sel = append(sel, expr)
	}
	from := t.name + ` t`
	members := t.name == "memberships"
	if members {
		sel = append(sel, "u.email", "u.name")
		from += ` JOIN users u ON u.id = t.user_id`
	}
	// The order is the same on both databases, whose primary keys may
	// differ: by id where the table has one, else by every column.
	var order []string
	keys := t.columns
	if id, ok := t.column("id"); ok {
		keys = []column{id}
	}
	for _, col := range keys {
		o := "t." + quoteIdent(col.name)
		if pg && col.kind == kindText {
			o += ` COLLATE "C"`
		}
		order = append(order, o+" NULLS FIRST")
	}
	rs, err := c.Query(ctx, `SELECT `+strings.Join(sel, ", ")+` FROM `+from+` WHERE t.`+key+` = $1 ORDER BY `+strings.Join(order, ", "), tenantID)
	if err != nil {
		return err
	}
	defer rs.Close()
	vals := make([]any, len(sel))
	ptrs := make([]any, len(sel))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return err
		}
		row := make(vitrine.TenantRow, len(sel))
		for i, col := range t.columns {
			v, err := exportValue(col, vals[i])
			if err != nil {
				return fmt.Errorf("column %s: %w", col.name, err)
			}
			row[col.name] = v
		}
		if members {
			row["email"], row["name"] = asString(vals[len(sel)-2]), asString(vals[len(sel)-1])
		}
		if err := sink.Row(row); err != nil {
			return err
		}
	}
	return rs.Err()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func asString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return fmt.Sprint(v)
}

// exportValue writes a value read from either database as an archive
// holds it.
func exportValue(col column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch col.kind {
	case kindText, kindUUID:
		return asString(v), nil
	case kindInt:
		switch n := v.(type) {
		case int64:
			return n, nil
		case int32:
			return int64(n), nil
		case int:
			return int64(n), nil
		case int16:
			return int64(n), nil
		case bool:
			if n {
				return int64(1), nil
			}
			return int64(0), nil
		}
	case kindBool:
		// As 0 or 1: SQLite keeps some of PostgreSQL's booleans as
		// integers, and an archive reads the same from either.
		switch b := v.(type) {
		case bool:
			if b {
				return int64(1), nil
			}
			return int64(0), nil
		case int64:
			return b, nil
		}
	case kindTime:
		switch t := v.(type) {
		case time.Time:
			return t.UTC().Format(timeText), nil
		case string:
			p, err := time.Parse(time.RFC3339Nano, t)
			if err != nil {
				return nil, err
			}
			return p.UTC().Format(timeText), nil
		}
	case kindBytes:
		switch b := v.(type) {
		case []byte:
			return slices.Clone(b), nil
		case string:
			return []byte(b), nil
		}
	}
	return nil, fmt.Errorf("unexpected %T", v)
}

// importValue turns an archive's value (as encoding/json decodes it, with
// UseNumber) into what the column takes.
func importValue(col column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch col.kind {
	case kindText, kindUUID:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case kindInt:
		switch n := v.(type) {
		case json.Number:
			return n.Int64()
		case bool:
			if n {
				return int64(1), nil
			}
			return int64(0), nil
		case int64:
			return n, nil
		}
	case kindBool:
		switch b := v.(type) {
		case bool:
			return b, nil
		case json.Number:
			i, err := b.Int64()
			return i != 0, err
		case int64:
			return b != 0, nil
		}
	case kindTime:
		if s, ok := v.(string); ok {
			return time.Parse(time.RFC3339Nano, s)
		}
	case kindBytes:
		switch b := v.(type) {
		case string:
			return base64.StdEncoding.DecodeString(b)
		case []byte:
			return b, nil
		}
	}
	return nil, fmt.Errorf("a %T is not what the column holds", v)
}

// importBatch bounds the arguments of one INSERT.
const importBatch = 900

// ImportTenant writes an archive's company in one transaction.
func (db *DB) ImportTenant(ctx context.Context, src vitrine.TenantSource) (*vitrine.TenantImported, error) {
	if !validIDs(src.TenantID) {
		return nil, vitrine.Invalid("tenant_id", "the archive's company id %q is not an id", src.TenantID)
	}
	out := &vitrine.TenantImported{Rows: map[string]int64{}}
	err := db.d.Write(ctx, tenant(src.TenantID), func(c sqldb.Conn) error {
		out.Rows, out.Users = map[string]int64{}, nil // a retried write starts again
		var slug string
		switch err := c.QueryRow(ctx, `SELECT slug FROM tenants WHERE id = $1`, src.TenantID).Scan(&slug); err {
		case nil:
			return vitrine.Conflict("tenant_id", "The company %s (slug %s) exists in this database already; an import never merges into it: delete it first, or import into another database", src.TenantID, slug)
		case sqldb.ErrNoRows:
		default:
			return err
		}
		tables, err := db.tenantSchema(ctx, c)
		if err != nil {
			return err
		}
		byName := map[string]*tableInfo{}
		for _, t := range tables {
			byName[t.name] = t
		}
		for _, n := range src.Tables {
			switch {
			case byName[n] == nil:
				return vitrine.Invalid("archive", "the archive holds table %s, which this database has not: import it into a Vitrine as recent as the one that exported it", n)
			case notExported[n] != "":
				return vitrine.Invalid("archive", "the archive holds table %s, which an archive never carries (%s)", n, notExported[n])
			}
		}
		if !slices.Contains(src.Tables, "tenants") {
			return vitrine.Invalid("archive", "the archive holds no company (tenants.jsonl)")
		}
		im := &importer{db: db, c: c, src: src, users: map[string]string{}, out: out}
		for _, t := range tables {
			if slices.Contains(src.Tables, t.name) {
				if err := im.table(ctx, t); err != nil {
					return err
				}
				if t.name == "tenants" && out.Rows["tenants"] != 1 {
					return vitrine.Invalid("archive", "the archive holds %d companies; it must hold one", out.Rows["tenants"])
				}
			}
		}
		return nil
	})
	if err != nil {
		if name, ok := db.d.Constraint(err); ok {
			switch name {
			case "tenants_slug_key":
				return nil, vitrine.Conflict("slug", "Another company has the slug of the archive's in this database: give it another with --slug")
			case "shops_domain_key":
				return nil, vitrine.Conflict("domain", "Another company's shop window has the archive's domain in this database")
			}
			return nil, vitrine.Conflict("archive", "The archive's rows clash with this database's (%s)", name)
		}
		return nil, err
	}
	t, err := db.TenantByID(ctx, src.TenantID)
	if err != nil {
		return nil, err
	}
	out.Tenant = t
	return out, nil
}

// importer writes one archive's tables.
type importer struct {
	db    *DB
	c     sqldb.Conn
	src   vitrine.TenantSource
	users map[string]string // the archive's user id to this database's, where they differ
	out   *vitrine.TenantImported
}

func (im *importer) table(ctx context.Context, t *tableInfo) error {
	var (
		cols    []column
		pending []any
		rows    int
		later   [][]any // self references: pk values, then the columns' values
	)
	flush := func() error {
		if rows == 0 {
			return nil
		}
		var q strings.Builder
		q.WriteString(`INSERT INTO ` + t.name + ` (`)
		for i, col := range cols {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString(quoteIdent(col.name))
		}
		q.WriteString(`) VALUES `)
		n := 0
		for r := range rows {
			if r > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(")
			for i := range cols {
				if i > 0 {
					q.WriteString(", ")
				}
				n++
				q.WriteString("$" + strconv.Itoa(n))
			}
			q.WriteString(")")
		}
		if _, err := im.c.Exec(ctx, q.String(), pending...); err != nil {
			return err
		}
		pending, rows = pending[:0], 0
		return nil
	}
	key := "tenant_id"
	if t.name == "tenants" {
		key = "id"
	}
	err := im.src.Rows(ctx, t.name, func(row vitrine.TenantRow) error {
		line := im.out.Rows[t.name] + 1
		if row[key] != im.src.TenantID {
			return vitrine.Invalid("archive", "%s.jsonl line %d: a row of another company (%s %v); an archive holds one company", t.name, line, key, row[key])
		}
		if t.name == "memberships" {
			if err := im.member(ctx, row); err != nil {
				return fmt.Errorf("%s.jsonl line %d: %w", t.name, line, err)
			}
		}
		if t.name == "tenants" && im.src.Slug != "" {
			row["slug"] = im.src.Slug
		}
		if cols == nil {
			for name := range row {
				col, ok := t.column(name)
				if !ok {
					return vitrine.Invalid("archive", "%s.jsonl line %d: column %s is not one of this database's %s", t.name, line, name, t.name)
				}
				cols = append(cols, col)
			}
			slices.SortFunc(cols, func(a, b column) int { return strings.Compare(a.name, b.name) })
		}
		if len(row) != len(cols) {
			return vitrine.Invalid("archive", "%s.jsonl line %d: %d columns where the first row has %d", t.name, line, len(row), len(cols))
		}
		var self []any
		for _, col := range cols {
			raw, ok := row[col.name]
			if !ok {
				return vitrine.Invalid("archive", "%s.jsonl line %d: no column %s", t.name, line, col.name)
			}
			if s, isStr := raw.(string); isStr && userColumnNames[col.name] {
				if to, ok := im.users[s]; ok {
					raw = to
				}
			}
			v, err := importValue(col, raw)
			if err != nil {
				return vitrine.Invalid("archive", "%s.jsonl line %d, column %s: %v", t.name, line, col.name, err)
			}
			if slices.Contains(t.selfRef, col.name) && v != nil {
				self = append(self, col.name, v)
				v = nil
			}
			pending = append(pending, v)
		}
		if self != nil {
			var pk []any
			for _, k := range t.pk {
				col, _ := t.column(k)
				v, _ := importValue(col, row[k])
				pk = append(pk, v)
			}
			later = append(later, append(pk, self...))
		}
		rows++
		im.out.Rows[t.name]++
		if len(pending)+len(cols) > importBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	// A row that refers to another of its table gets the reference once
	// every row is in.
	for _, l := range later {
		pk, self := l[:len(t.pk)], l[len(t.pk):]
		var (
			set   []string
			where []string
			args  []any
		)
		for i := 0; i < len(self); i += 2 {
			args = append(args, self[i+1])
			set = append(set, quoteIdent(self[i].(string))+" = $"+strconv.Itoa(len(args)))
		}
		for i, k := range t.pk {
			args = append(args, pk[i])
			where = append(where, quoteIdent(k)+" = $"+strconv.Itoa(len(args)))
		}
		if _, err := im.c.Exec(ctx, `UPDATE `+t.name+` SET `+strings.Join(set, ", ")+` WHERE `+strings.Join(where, " AND "), args...); err != nil {
			return err
		}
	}
	return nil
}

// member maps a membership's user to the user of its email here, creating
// one (invited) where none is.
func (im *importer) member(ctx context.Context, row vitrine.TenantRow) error {
	email, _ := row["email"].(string)
	name, _ := row["name"].(string)
	from, _ := row["user_id"].(string)
	delete(row, "email")
	delete(row, "name")
	addr, key, err := vitrine.NormalizeEmail("email", email)
	if err != nil {
		return err
	}
	var id string
	switch err := im.c.QueryRow(ctx, `SELECT id FROM users WHERE email_key = $1`, key).Scan(&id); err {
	case nil:
		if id != from {
			im.users[from] = id
			row["user_id"] = id
		}
		return nil
	case sqldb.ErrNoRows:
	default:
		return err
	}
	id = from
	var taken int
	switch err := im.c.QueryRow(ctx, `SELECT 1 FROM users WHERE id = $1`, from).Scan(&taken); err {
	case nil:
		id = vitrine.NewID()
		im.users[from] = id
		row["user_id"] = id
	case sqldb.ErrNoRows:
	default:
		return err
	}
	if name == "" {
		name = addr
	}
	now := vitrine.Now()
	if _, err := im.c.Exec(ctx, `INSERT INTO users (id, email, email_key, name, disabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		id, addr, key, name, false, now, now); err != nil {
		return err
	}
	row["status"] = string(vitrine.MembershipInvited)
	im.out.Users = append(im.out.Users, addr)
	return nil
}
