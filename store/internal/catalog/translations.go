package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/sanitize"
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

// TranslatedHandles returns the ids of the tenant's resources of one kind
// whose handle in locale is one of handles, by handle: the unique index
// translations_handle_key reads them.
func (db *Store) TranslatedHandles(ctx context.Context, tenantID string, resource vitrine.TranslationResource, locale string, handles []string) (map[string]string, error) {
	out := map[string]string{}
	if !base.ValidIDs(tenantID) || len(handles) == 0 || locale == "" {
		return out, nil
	}
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		type pair struct{ handle, id string }
		ps, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (pair, error) {
			var p pair
			return p, r.Scan(&p.handle, &p.id)
		}, `SELECT value, resource_id FROM translations WHERE tenant_id = $1 AND resource = $2 AND locale = $3 AND field = 'handle'
			AND value `+db.textList(`$4`), tenantID, string(resource), locale, db.textArg(handles))
		for _, p := range ps {
			out[p.handle] = p.id
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read translated handles: %w", err)
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
		// Which locales each product is translated in, whole and current.
		for _, id := range productIDs {
			p, err := scanProduct(c.QueryRow(ctx, db.selectProduct()+` FROM products WHERE tenant_id = $1 AND id = $2`+db.d.ForUpdate(), tenantID, id))
			if errors.Is(err, sqldb.ErrNoRows) {
				return vitrine.NotFound("Product")
			}
			if err != nil {
				return err
			}
			ts, err := productTranslations(ctx, c, tenantID, id)
			if err != nil {
				return err
			}
			if err := markTranslated(ctx, c, p, ts); err != nil {
				return err
			}
			// A text query finds the product by its words in every locale,
			// and ranks its translated type as its label.
			name, all := words(p)
			tn, ta, tl := translationWords(ts)
			if err := sqldb.ExecLater(ctx, c, `UPDATE products SET translated_name_words = $1, translated_words = $2, translated_label_words = $3,
				name_words = $4, search = $5, label_words = $6
				WHERE tenant_id = $7 AND id = $8`, tn, ta, tl, name+tn, all+ta, labelWords(p)+tl, tenantID, id); err != nil {
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

// productTranslations reads every translation of a product, in c.
func productTranslations(ctx context.Context, c sqldb.Conn, tenantID, id string) ([]*vitrine.Translation, error) {
	return sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Translation, error) {
		t := vitrine.Translation{Resource: vitrine.TranslateProduct, ResourceID: id}
		return &t, r.Scan(&t.Locale, &t.Field, &t.Value, &t.Digest, &t.UpdatedAt)
	}, `SELECT locale, field, value, digest, updated_at FROM translations
		WHERE tenant_id = $1 AND resource = 'product' AND resource_id = $2 ORDER BY locale, field`, tenantID, id)
}

// markTranslated writes in translated_products the locales in which every
// translatable field of p has a translation among ts, none outdated.
func markTranslated(ctx context.Context, c sqldb.Conn, p *vitrine.Product, ts []*vitrine.Translation) error {
	if err := sqldb.ExecLater(ctx, c, `DELETE FROM translated_products WHERE tenant_id = $1 AND product_id = $2`, p.TenantID, p.ID); err != nil {
		return err
	}
	byLocale := map[string][]*vitrine.Translation{}
	var locales []string
	for _, t := range ts {
		if byLocale[t.Locale] == nil {
			locales = append(locales, t.Locale)
		}
		byLocale[t.Locale] = append(byLocale[t.Locale], t)
	}
	fields := p.TranslatableFields()
	for _, l := range locales {
		if vitrine.Untranslated(fields, vitrine.TranslationsOf(byLocale[l])) {
			continue
		}
		if err := sqldb.ExecLater(ctx, c, `INSERT INTO translated_products (tenant_id, locale, product_id) VALUES ($1, $2, $3)`, p.TenantID, l, p.ID); err != nil {
			return err
		}
	}
	return nil
}

// sameSources reports whether p's translatable fields read as before's:
// when they do not, its translations may be outdated, and it is
// untranslated in every locale until they are written again.
func sameSources(p, before *vitrine.Product) bool {
	return slices.Equal(p.TranslatableFields(), before.TranslatableFields())
}

// translationWords returns the words of a product's translations a text
// query matches, as words and labelWords do of the product (each after a
// space, "" when none): of the translated names, of everything search
// covers (names, descriptions' text, types, option values), and of what
// labels it (types).
func translationWords(ts []*vitrine.Translation) (name, all, label string) {
	var names, rest, labels []string
	for _, t := range ts {
		kind, _, _ := vitrine.FieldParts(t.Field)
		switch kind {
		case vitrine.FieldName:
			names = append(names, vitrine.Words(t.Value)...)
		case vitrine.FieldDescription:
			rest = append(rest, vitrine.Words(sanitize.Text(t.Value))...)
		case vitrine.FieldProductType:
			labels = append(labels, vitrine.Words(t.Value)...)
		case "option.value":
			rest = append(rest, vitrine.Words(t.Value)...)
		}
	}
	join := func(ws []string) string {
		var b strings.Builder
		seen := map[string]bool{}
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				b.WriteString(" " + w)
			}
		}
		return b.String()
	}
	return join(names), join(slices.Concat(names, labels, rest)), join(labels)
}
