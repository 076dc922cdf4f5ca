package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/facetindex"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// DefaultIndexMemory is the memory the facet indexes of an instance may
// hold by default: a company of 1,000,000 variants takes about 91 MiB
// (store/internal/facetindex's figures), one of 1,000,000 products of 3
// variants 261 MiB (docs/benchmarks.md), which 128 MiB did not hold: its
// faceted lists were all counted by SQL, past a call's time. The budget
// is a bound, not a reservation: the server's soft memory limit follows
// what the indexes hold (vitrine serve).
const DefaultIndexMemory = 384 << 20

// Indexes are the facet indexes an instance holds, one per company (in a
// facetindex.Cache within a budget of bytes, the least recently used
// dropped first), shared by the stores of one database: a faceted list
// counts from its company's index when the index is at the sequence of
// the list's own snapshot (catalog_seq, brought there by the changes
// since, catalog_changes), and from SQL otherwise, while one build per
// company runs in the background.
type Indexes struct {
	// base is the store builds read with: the database's own, checking
	// no caller's epoch.
	base  *Store
	cache *facetindex.Cache
	log   *slog.Logger

	// onBytes, when set, is told the bytes the indexes hold and those the
	// builds under way hold so far, each time they change.
	onBytes func(int64)

	mu       sync.Mutex
	building map[string]bool
	// buildBytes are the bytes of each build under way so far.
	buildBytes map[string]int64
	// refused holds the companies whose catalog the index cannot hold (a
	// product it refuses, facetindex.Check), by the sequence they were
	// refused at: their facets are SQL's until the catalog changes.
	refused map[string]refusedAt
	builds  sync.WaitGroup
	stats   IndexStats
	// ctx ends with the store (Close), and the builds with it.
	ctx  context.Context
	stop context.CancelFunc
}

// IndexStats count how faceted lists were answered.
type IndexStats struct {
	// Index and SQL count the faceted lists counted by an index and by SQL.
	Index, SQL int64
	// Builds counts the indexes built; CaughtUp the lists that applied
	// changes to an index before counting.
	Builds, CaughtUp int64
	// Among counts the pages read among the ids the index found.
	Among int64
}

// maxCatchUp bounds the changes a list applies to an index to bring it
// to its snapshot: past them (an import, say), the index is built again,
// and lists count by SQL meanwhile.
const maxCatchUp = 1000

// EnableIndexes gives db facet indexes within memory bytes (0: none).
// onBytes, if not nil, is told the bytes the indexes and the builds under
// way hold, each time they change (a server sets its memory limit by it).
func (db *Store) EnableIndexes(memory int64, log *slog.Logger, onBytes func(int64)) {
	if memory <= 0 {
		db.ix = nil
		return
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	db.ix = &Indexes{base: New(db.d, log), cache: facetindex.NewCache(memory), log: log, onBytes: onBytes,
		building: map[string]bool{}, buildBytes: map[string]int64{}, refused: map[string]refusedAt{}, ctx: ctx, stop: stop}
}

// CloseIndexes stops the builds under way, and waits for them.
func (db *Store) CloseIndexes() {
	if db.ix != nil {
		db.ix.stop()
		db.ix.builds.Wait()
	}
}

// On returns db on the engine d (a call's, checking its epoch), with the
// same indexes, synonyms and words kept.
func (db *Store) On(d sqldb.Dialect) *Store {
	s := New(d, db.log)
	s.ix, s.th, s.vocab = db.ix, db.th, db.vocab
	return s
}

// WaitIndexes waits for the builds under way (the tests', and Close's).
func (db *Store) WaitIndexes() {
	if db.ix != nil {
		db.ix.builds.Wait()
	}
}

// IndexStats returns how the faceted lists so far were answered.
func (db *Store) IndexStats() IndexStats {
	if db.ix == nil {
		return IndexStats{}
	}
	db.ix.mu.Lock()
	defer db.ix.mu.Unlock()
	return db.ix.stats
}

// IndexBytes returns the memory the indexes hold, by their estimates.
func (db *Store) IndexBytes() int64 {
	if db.ix == nil {
		return 0
	}
	return db.ix.cache.Bytes()
}

func (ixs *Indexes) count(index, among bool) {
	ixs.mu.Lock()
	defer ixs.mu.Unlock()
	if among {
		ixs.stats.Among++
	}
	if index {
		ixs.stats.Index++
	} else {
		ixs.stats.SQL++
	}
}

// indexFacets returns the facets of pq from the company's index, read in
// c (a snapshot), or nil when the index cannot answer for that snapshot:
// none is built yet (a build starts), it is too far behind (likewise), or
// it is ahead of the snapshot. With them, the ids of the page's products,
// in its order, when the filter keeps few enough (pageAmong) that the
// index picks them for less than walking the company's products in order.
func (db *Store) indexFacets(ctx context.Context, c sqldb.Conn, pq productQuery) (*vitrine.Facets, []string, []int, error) {
	ix, seq, err := db.indexAt(ctx, c, pq.tenantID)
	if ix == nil || err != nil {
		return nil, nil, nil, err
	}
	q := facetindex.Query{Filter: facetindex.TermsOf(pq.f), Categories: pq.categories, Facets: pq.f.Query().Facets}
	page := facetindex.Page{Sort: pq.f.Query().Sort, After: pq.f.After(), Limit: pq.f.Limit(), Skip: pq.skuOf, Levels: pq.levels[:]}
	fq := pq.f.Query()
	among := pageAmong(ix.Len(), pq.f.Limit(), len(fq.Options) > 0 || len(pq.f.Words()) > 0)
	if fq.Untranslated != "" {
		// SQL's filter reads the ids of every product translated in the
		// locale (NOT IN), a page: more than the index's 30 ns a
		// candidate, whatever their number.
		among = ix.Len()
	}
	facets, ids, ranks, ok := ix.FacetsPageAt(seq, q, page, among)
	if !ok {
		return nil, nil, nil, nil
	}
	return facets, ids, ranks, nil
}

// indexAt returns the company's index at the catalog sequence of c's
// snapshot, and that sequence; nil when it cannot answer for it: none is
// built yet (a build starts), it is too far behind (likewise), or it is
// ahead of the snapshot.
func (db *Store) indexAt(ctx context.Context, c sqldb.Conn, tenant string) (*facetindex.Index, uint64, error) {
	ixs := db.ix
	seq, pruned, err := readSeq(ctx, c, tenant)
	if err != nil {
		return nil, 0, err
	}
	ixs.mu.Lock()
	at, refused := ixs.refused[tenant]
	if refused && at.seq != seq {
		delete(ixs.refused, tenant) // the catalog changed: try again
		refused = false
	}
	ixs.mu.Unlock()
	if refused {
		return nil, 0, nil
	}
	ix := ixs.cache.Get(tenant)
	if ix == nil {
		ixs.start(tenant)
		return nil, 0, nil
	}
	if from := ix.Seq(); from < seq {
		ok, err := db.catchUp(ctx, c, tenant, ix, from, seq, pruned)
		if err != nil || !ok {
			return nil, 0, err
		}
	}
	if ix.Seq() != seq {
		return nil, 0, nil
	}
	return ix, seq, nil
}

// pageAmong is the number of products a filter keeps under which the
// index picks its page (in the sort's order, after the cursor: the page's
// ids alone are then read, by key). The index compares each of the n
// products with the page so far: about 30 ns a product in the order of
// names, 10 in another (BenchmarkPage). Walking the company's products in
// the sort's order instead finds limit of them in about limit × total ÷ n
// index entries, each checked against the filter's terms: equal at n² =
// limit × total × (a check's cost ÷ a comparison's). A check of a tag or
// a vendor reads an index entry (about 2 µs on SQLite, in the server's own
// CPU: the ratio taken is 64), a check of option values or words their
// rows (about 16 µs: 512). At 100,000 products and a page of 50, about
// 18,000 and 50,000 products; under either, the index costs under 2 ms.
func pageAmong(total, limit int, costly bool) int {
	ratio := 64.0
	if costly {
		ratio = 512
	}
	return max(int(math.Sqrt(ratio*float64(max(limit, 1))*float64(total))), 100)
}

// readSeq reads the company's catalog sequence and the sequence up to
// which its changes were pruned.
func readSeq(ctx context.Context, c sqldb.Conn, tenant string) (seq, pruned uint64, err error) {
	var s, p int64
	err = c.QueryRow(ctx, `SELECT catalog_seq, catalog_pruned FROM tenants WHERE id = $1`, tenant).Scan(&s, &p)
	if errors.Is(err, sqldb.ErrNoRows) {
		return 0, 0, nil
	}
	return uint64(s), uint64(p), err
}

// catchUp applies to ix the changes of (from, seq], read in c, reporting
// whether it could: not when some were pruned, or they are too many (the
// index is then dropped and built again), nor when another list brought
// ix past seq meanwhile.
func (db *Store) catchUp(ctx context.Context, c sqldb.Conn, tenant string, ix *facetindex.Index, from, seq, pruned uint64) (bool, error) {
	ixs := db.ix
	rebuild := func() (bool, error) {
		ixs.cache.Remove(tenant)
		ixs.report("", 0)
		ixs.start(tenant)
		return false, nil
	}
	if from < pruned {
		return rebuild()
	}
	rows, err := c.Query(ctx, `SELECT coalesce(CAST(product_id AS TEXT), '') FROM catalog_changes WHERE tenant_id = $1 AND seq > $2 AND seq <= $3 LIMIT `+fmt.Sprint(maxCatchUp+1),
		tenant, int64(from), int64(seq))
	if err != nil {
		return false, err
	}
	var ids []string
	seen := map[string]bool{}
	tree, n := false, 0
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return false, err
		}
		n++
		switch {
		case id == "":
			tree = true
		case !seen[id]:
			seen[id] = true
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	if n > maxCatchUp {
		return rebuild()
	}
	ch := facetindex.Changes{TreeChanged: tree}
	if tree {
		if ch.Tree, err = db.readTree(ctx, c, tenant); err != nil {
			return false, err
		}
	}
	if len(ids) > 0 {
		found := map[string]bool{}
		err := db.readProducts(ctx, c, tenant, "", ids, 0, func(p *facetindex.Product) error {
			found[p.ID] = true
			ch.Puts = append(ch.Puts, p)
			return nil
		})
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			if !found[strings.ToLower(id)] {
				ch.Deletes = append(ch.Deletes, id)
			}
		}
	}
	ok, err := ix.ApplyChanges(seq, ch)
	if err != nil {
		// A product the index cannot hold: the company's facets are
		// SQL's until its catalog changes.
		ixs.cache.Remove(tenant)
		ixs.report("", 0)
		ixs.refuse(tenant, seq, false, err)
		return false, nil
	}
	if ok {
		ixs.cache.Resize(tenant)
		ixs.report("", 0)
		ixs.mu.Lock()
		ixs.stats.CaughtUp++
		ixs.mu.Unlock()
	}
	return ok, nil
}

// refusedAt is the sequence a company's catalog was refused at, and
// whether for the memory of the indexes.
type refusedAt struct {
	seq  uint64
	over bool
}

func (ixs *Indexes) refuse(tenant string, seq uint64, over bool, err error) {
	ixs.mu.Lock()
	ixs.refused[tenant] = refusedAt{seq, over}
	ixs.mu.Unlock()
	ixs.log.Warn("facet index: the company's facets are counted by SQL", "tenant_id", tenant, "error", err)
}

// overMemory reports whether the company's index was last refused for
// the memory of the indexes.
func (ixs *Indexes) overMemory(tenant string) bool {
	ixs.mu.Lock()
	defer ixs.mu.Unlock()
	return ixs.refused[tenant].over
}

// report tells onBytes the bytes the indexes hold and, with tenant's
// build under way at building bytes so far (below 0: the build is over),
// those the builds hold.
func (ixs *Indexes) report(tenant string, building int64) {
	if ixs.onBytes == nil {
		return
	}
	ixs.mu.Lock()
	defer ixs.mu.Unlock()
	switch {
	case tenant == "":
	case building < 0:
		delete(ixs.buildBytes, tenant)
	default:
		ixs.buildBytes[tenant] = building
	}
	n := ixs.cache.Bytes()
	for _, b := range ixs.buildBytes {
		n += b
	}
	ixs.onBytes(n)
}
