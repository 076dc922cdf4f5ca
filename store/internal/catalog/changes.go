package catalog

import (
	"context"

	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// changes are what a write changed that the facet indexes hold: the
// products it wrote (created, updated or deleted: a product's rows are
// read again, or found gone) and whether it changed the category tree.
type changes struct {
	products []string
	tree     bool
}

func products(ids ...string) changes { return changes{products: ids} }

func treeChanged() changes { return changes{tree: true} }

func noChanges() changes { return changes{} }

// Pruning keeps a company's changes of its last keepSeqs sequences, and
// at most keepRows rows; it runs at one write in pruneEvery.
// (Variables for the tests: SetPruning.)
var (
	keepSeqs   = 1000
	keepRows   = 5000
	pruneEvery = 64
)

// SetPruning sets how the changes are pruned, and returns what restores
// the defaults: for the tests.
func SetPruning(seqs, rows, every int) (restore func()) {
	s, r, e := keepSeqs, keepRows, pruneEvery
	keepSeqs, keepRows, pruneEvery = seqs, rows, every
	return func() { keepSeqs, keepRows, pruneEvery = s, r, e }
}

// recordChanges adds ch to catalog_changes at the sequence the write's
// transaction bumps the company's catalog sequence to (base.Write, as its
// last statement): these statements come just before it, and lock the
// tenant's row from there to the commit (on PostgreSQL FOR NO KEY UPDATE,
// the bump's own lock, which the key-share locks of the write's foreign
// keys do not wait for, nor make wait: FOR UPDATE deadlocked two writes
// that each held one; SQLite has one writer), so that the sequences, and the changes with them,
// commit in their order. On PostgreSQL they go, as the bump does, in the
// COMMIT's round trip. At one sequence in pruneEvery they prune the
// changes past keepSeqs sequences or keepRows rows, and move
// catalog_pruned with them.
func (db *Store) recordChanges(ctx context.Context, c sqldb.Conn, tenant string, ch changes) error {
	if len(ch.products) == 0 && !ch.tree {
		return nil
	}
	ids, lock, greatest := `SELECT value AS id FROM json_each($2)`, ``, `max`
	if db.d.Name() == "postgres" {
		ids, lock, greatest = `SELECT unnest(CAST($2 AS uuid[])) AS id`, ` FOR NO KEY UPDATE OF t`, `GREATEST`
	}
	if len(ch.products) > 0 {
		if err := sqldb.ExecLater(ctx, c, `INSERT INTO catalog_changes (tenant_id, seq, product_id)
			SELECT t.id, t.catalog_seq + 1, p.id FROM tenants t, (`+ids+`) p WHERE t.id = $1`+lock, tenant, base.IDArg(db.d, ch.products)); err != nil {
			return err
		}
	}
	if ch.tree {
		if err := sqldb.ExecLater(ctx, c, `INSERT INTO catalog_changes (tenant_id, seq, product_id)
			SELECT t.id, t.catalog_seq + 1, NULL FROM tenants t WHERE t.id = $1`+lock, tenant); err != nil {
			return err
		}
	}
	if err := sqldb.ExecLater(ctx, c, `UPDATE tenants SET catalog_pruned = `+greatest+`(catalog_pruned, catalog_seq + 1 - $2,
			coalesce((SELECT seq FROM catalog_changes WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $3), 0))
		WHERE id = $1 AND (catalog_seq + 1) % $4 = 0`, tenant, keepSeqs, keepRows, pruneEvery); err != nil {
		return err
	}
	return sqldb.ExecLater(ctx, c, `DELETE FROM catalog_changes WHERE tenant_id = $1 AND seq <= (SELECT catalog_pruned FROM tenants WHERE id = $1)`, tenant)
}
