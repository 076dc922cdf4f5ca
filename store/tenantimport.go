package store

import (
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
