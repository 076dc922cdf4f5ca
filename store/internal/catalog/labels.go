package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// labelBatch is the number of products FillLabelWords fills a write.
const labelBatch = 500

// FillLabelWords fills the label words (labelWords, and the words of the
// type's translations: translated_label_words) of the products written
// before the store kept them (migrations sqlite 00032, postgres 00031
// leave them NULL; sqlite 00034, postgres 00033 those of a translated
// type), labelBatch at a time, each batch one write of
// its company that records its products as changed, as any write of them
// does: every instance's facet index reads their rows again. It returns
// the products filled; with none left to fill, it reads an empty partial
// index and returns at once.
func (db *Store) FillLabelWords(ctx context.Context) (int, error) {
	filled := 0
	for {
		type pending struct{ tenant, id, vendor, ptype string }
		var rows []pending
		err := db.d.Read(ctx, sqldb.Scope{AllTenants: true}, func(c sqldb.Conn) error {
			var err error
			rows, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (p pending, err error) {
				return p, r.Scan(&p.tenant, &p.id, &p.vendor, &p.ptype)
			}, `SELECT CAST(tenant_id AS TEXT), CAST(id AS TEXT), vendor, product_type FROM products WHERE label_words IS NULL LIMIT `+fmt.Sprint(labelBatch))
			return err
		})
		if err != nil || len(rows) == 0 {
			return filled, err
		}
		byTenant := map[string][]pending{}
		var tenants []string
		for _, p := range rows {
			if byTenant[p.tenant] == nil {
				tenants = append(tenants, p.tenant)
			}
			byTenant[p.tenant] = append(byTenant[p.tenant], p)
		}
		for _, tenant := range tenants {
			ps := byTenant[tenant]
			ids := make([]string, len(ps))
			for i, p := range ps {
				ids[i] = strings.ToLower(p.id)
			}
			err := db.write(ctx, base.Tenant(tenant), vitrine.Change{}, base.Is(""), func() changes { return products(ids...) }, func(c sqldb.Conn) error {
				tags := map[string][]string{}
				err := each(ctx, c, `SELECT CAST(product_id AS TEXT), tag FROM `+base.By(db.d, "product_tags", "product_tags_by_product")+
					` WHERE tenant_id = $1 AND product_id `+base.IDList(db.d), []any{tenant, base.IDArg(db.d, ids)}, func(r []string) {
					tags[strings.ToLower(r[0])] = append(tags[strings.ToLower(r[0])], r[1])
				}, 2)
				if err != nil {
					return err
				}
				types := map[string][]*vitrine.Translation{}
				err = each(ctx, c, `SELECT resource_id, value FROM translations WHERE tenant_id = $1 AND resource = $2 AND field = $3 AND resource_id `+db.textList(`$4`),
					[]any{tenant, string(vitrine.TranslateProduct), vitrine.FieldProductType, db.textArg(ids)}, func(r []string) {
						id := strings.ToLower(r[0])
						types[id] = append(types[id], &vitrine.Translation{Field: vitrine.FieldProductType, Value: r[1]})
					}, 2)
				if err != nil {
					return err
				}
				for i, p := range ps {
					label := labelWords(&vitrine.Product{Vendor: p.vendor, ProductType: p.ptype, Tags: tags[ids[i]]})
					_, _, translated := translationWords(types[ids[i]])
					if err := sqldb.ExecLater(ctx, c, `UPDATE products SET label_words = $1, translated_label_words = $2 WHERE tenant_id = $3 AND id = $4 AND label_words IS NULL`,
						label+translated, translated, tenant, p.id); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return filled, fmt.Errorf("fill label words: %w", err)
			}
			filled += len(ps)
		}
	}
}
