package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

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
