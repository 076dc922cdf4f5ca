package catalog

import (
	"context"
	"slices"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// variantRow is what the variants table holds of v.
func variantRow(p *vitrine.Product, v *vitrine.Variant) []any {
	var sku any
	if v.SKU != "" {
		sku = vitrine.SKUKey(v.SKU)
	}
	opts := make([]any, 9)
	for i := range opts {
		opts[i] = ""
	}
	for i, o := range p.Options {
		if i < 3 {
			opts[3*i], opts[3*i+1], opts[3*i+2] = vitrine.OptionKey(o.Name), o.Name, v.Options[o.Name]
		}
	}
	return append([]any{v.Position, sku}, append(opts, v.Price, v.CompareAtPrice, v.Stock, !v.Untracked)...)
}

func insertVariant(ctx context.Context, c sqldb.Conn, p *vitrine.Product, v *vitrine.Variant) error {
	return sqldb.ExecLater(ctx, c, `INSERT INTO variants (tenant_id, id, product_id, position, sku_key, opt1_key, opt1_name, opt1,
			opt2_key, opt2_name, opt2, opt3_key, opt3_name, opt3, price, compare_at_price, stock, track_inventory)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		append([]any{p.TenantID, v.ID, p.ID}, variantRow(p, v)...)...)
}

// writeVariants writes p's variants over before's: the rows removed,
// added and changed, each change of stock recorded as a movement.
func writeVariants(ctx context.Context, c sqldb.Conn, ch vitrine.Change, p, before *vitrine.Product) error {
	old := make(map[string]*vitrine.Variant, len(before.Variants))
	for _, v := range before.Variants {
		old[v.ID] = v
	}
	// Removed first, so that a SKU moved from one variant to another is free.
	for _, v := range before.Variants {
		if p.Variant(v.ID, "") == nil {
			if err := sqldb.ExecLater(ctx, c, `DELETE FROM variants WHERE tenant_id = $1 AND id = $2`, p.TenantID, v.ID); err != nil {
				return err
			}
			if err := recordStock(ctx, c, ch, p, &vitrine.Variant{ID: v.ID, Stock: 0}, -v.Stock); err != nil {
				return err
			}
		}
	}
	for _, v := range p.Variants {
		was := old[v.ID]
		switch {
		case was == nil:
			if err := insertVariant(ctx, c, p, v); err != nil {
				return err
			}
			if err := recordStock(ctx, c, ch, p, v, v.Stock); err != nil {
				return err
			}
			continue
		case slices.Equal(variantRow(p, v), variantRow(before, was)):
		default:
			if err := sqldb.ExecLater(ctx, c, `UPDATE variants SET position = $1, sku_key = $2, opt1_key = $3, opt1_name = $4, opt1 = $5,
					opt2_key = $6, opt2_name = $7, opt2 = $8, opt3_key = $9, opt3_name = $10, opt3 = $11, price = $12, compare_at_price = $13, stock = $14, track_inventory = $15
				WHERE tenant_id = $16 AND id = $17`, append(variantRow(p, v), p.TenantID, v.ID)...); err != nil {
				return err
			}
		}
		if err := recordStock(ctx, c, ch, p, v, v.Stock-was.Stock); err != nil {
			return err
		}
	}
	return nil
}
