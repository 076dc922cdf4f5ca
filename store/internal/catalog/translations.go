package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// textList is the condition, after a column, that it is one of the texts
// of the argument p: as base.IDList, for texts (an attribute's key is
// not an id).
func (db *Store) textList(p string) string {
	if db.d.Name() == "postgres" {
		return `= ANY(CAST(` + p + ` AS text[]))`
	}
	return `IN (SELECT value FROM json_each(` + p + `))`
}

func (db *Store) textArg(texts []string) any {
	if db.d.Name() == "postgres" {
		return texts
	}
	b, _ := json.Marshal(texts)
	return string(b)
}

// Translations returns the tenant's translations of the resources of one
// kind, in one locale or in all (""), by resource id, each resource's in
// locale and field order.
func (db *Store) Translations(ctx context.Context, tenantID string, resource vitrine.TranslationResource, ids []string, locale string) (map[string][]*vitrine.Translation, error) {
	out := map[string][]*vitrine.Translation{}
	if !base.ValidIDs(tenantID) || len(ids) == 0 {
		return out, nil
	}
	q := `SELECT resource_id, locale, field, value, digest, updated_at FROM translations
		WHERE tenant_id = $1 AND resource = $2 AND resource_id ` + db.textList(`$3`)
	args := []any{tenantID, string(resource), db.textArg(ids)}
	if locale != "" {
		q += ` AND locale = $4`
		args = append(args, locale)
	}
	q += ` ORDER BY resource_id, locale, field`
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		ts, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Translation, error) {
			t := vitrine.Translation{Resource: resource}
			return &t, r.Scan(&t.ResourceID, &t.Locale, &t.Field, &t.Value, &t.Digest, &t.UpdatedAt)
		}, q, args...)
		for _, t := range ts {
			out[t.ResourceID] = append(out[t.ResourceID], t)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read translations: %w", err)
	}
	return out, nil
}

// translationBatch bounds the rows of one INSERT.
const translationBatch = 200

// SaveTranslations writes translations of the tenant in one transaction;
// one whose Value is "" removes the stored one. The last of two of the
// same key wins.
func (db *Store) SaveTranslations(ctx context.Context, ch vitrine.Change, tenantID string, ts []*vitrine.Translation) error {
	if !base.ValidIDs(tenantID) {
		return vitrine.NotFound("Tenant")
	}
	type key struct {
		resource vitrine.TranslationResource
		id       string
		locale   string
		field    string
	}
	last := map[key]int{}
	for i, t := range ts {
		switch t.Resource {
		case vitrine.TranslateProduct, vitrine.TranslateCategory, vitrine.TranslateAttribute:
		default:
			return fmt.Errorf("save translations: no resource %q", t.Resource)
		}
		last[key{t.Resource, t.ResourceID, t.Locale, t.Field}] = i
	}
	var (
		upserts, deletes []*vitrine.Translation
		productIDs       []string
		seen             = map[string]bool{}
		target           string
	)
	for i, t := range ts {
		if last[key{t.Resource, t.ResourceID, t.Locale, t.Field}] != i {
			continue
		}
		if t.Value == "" {
			deletes = append(deletes, t)
		} else {
			upserts = append(upserts, t)
		}
		if t.Resource == vitrine.TranslateProduct && !seen[t.ResourceID] {
			seen[t.ResourceID] = true
			productIDs = append(productIDs, t.ResourceID)
		}
		if i == 0 {
			target = t.ResourceID
		} else if t.ResourceID != target {
			target = ""
		}
	}
	changed := func() changes { return products(productIDs...) }
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(target), changed, func(c sqldb.Conn) error {
		for _, t := range deletes {
			if err := sqldb.ExecLater(ctx, c, `DELETE FROM translations
				WHERE tenant_id = $1 AND resource = $2 AND resource_id = $3 AND locale = $4 AND field = $5`,
				tenantID, string(t.Resource), t.ResourceID, t.Locale, t.Field); err != nil {
				return err
			}
		}
		for rest := upserts; len(rest) > 0; {
			n := min(len(rest), translationBatch)
			var (
				values = make([]string, 0, n)
				args   = make([]any, 0, n*8)
			)
			for _, t := range rest[:n] {
				b := len(args)
				args = append(args, tenantID, string(t.Resource), t.ResourceID, t.Locale, t.Field, t.Value, t.Digest, t.UpdatedAt.UTC())
				values = append(values, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", b+1, b+2, b+3, b+4, b+5, b+6, b+7, b+8))
			}
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO translations (tenant_id, resource, resource_id, locale, field, value, digest, updated_at)
				VALUES `+strings.Join(values, ", ")+`
				ON CONFLICT (tenant_id, resource, resource_id, locale, field)
				DO UPDATE SET value = excluded.value, digest = excluded.digest, updated_at = excluded.updated_at`, args...); err != nil {
				return err
			}
			rest = rest[n:]
		}
		for _, t := range upserts {
			if t.Field != vitrine.FieldHandle {
				continue
			}
			if err := db.checkHandle(ctx, c, tenantID, t); err != nil {
				return err
			}
		}
		return nil
	})
	if name, ok := db.d.Constraint(err); ok && name == "translations_handle_key" {
		return vitrine.Conflict("handle", "Another %s of this company has that handle in this locale; choose another", resourceWord(upserts))
	}
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("save translations: %w", err)
	}
	return err
}

func resourceWord(ts []*vitrine.Translation) string {
	for _, t := range ts {
		if t.Field == vitrine.FieldHandle {
			return string(t.Resource)
		}
	}
	return "product"
}

// checkHandle refuses a translated handle that another product (or
// category) has in that locale: its own handle, where it has no
// translation of it there, or its translation (which the unique index
// translations_handle_key refuses too, at the commit on PostgreSQL).
func (db *Store) checkHandle(ctx context.Context, c sqldb.Conn, tenantID string, t *vitrine.Translation) error {
	table := "products"
	if t.Resource == vitrine.TranslateCategory {
		table = "categories"
	} else if t.Resource != vitrine.TranslateProduct {
		return nil
	}
	var n int
	err := c.QueryRow(ctx, `SELECT count(*) FROM (
			SELECT CAST(r.id AS text) AS id FROM `+table+` r WHERE r.tenant_id = $1 AND r.handle = $3 AND CAST(r.id AS text) <> $2
				AND NOT EXISTS (SELECT 1 FROM translations t WHERE t.tenant_id = $1 AND t.resource = $4
					AND t.resource_id = CAST(r.id AS text) AND t.locale = $5 AND t.field = 'handle')
			UNION ALL
			SELECT t.resource_id FROM translations t WHERE t.tenant_id = $1 AND t.resource = $4 AND t.locale = $5
				AND t.field = 'handle' AND t.value = $3 AND t.resource_id <> $2
		) taken`,
		tenantID, t.ResourceID, t.Value, string(t.Resource), t.Locale).Scan(&n)
	if err != nil {
		return err
	}
	if n > 0 {
		return vitrine.Conflict("handle", "Another %s of this company has the handle %q in %s; choose another", t.Resource, t.Value, t.Locale)
	}
	return nil
}

// deleteTranslations deletes the translations of a resource, with it.
func deleteTranslations(ctx context.Context, c sqldb.Conn, tenantID string, resource vitrine.TranslationResource, id string) error {
	return sqldb.ExecLater(ctx, c, `DELETE FROM translations WHERE tenant_id = $1 AND resource = $2 AND resource_id = $3`, tenantID, string(resource), id)
}
