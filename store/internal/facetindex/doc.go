// Package facetindex holds one company's catalog in memory so that a
// faceted list_products counts its facets exactly without reading the
// filter's rows: the technique of Meilisearch's facet counting, on
// github.com/RoaringBitmap/roaring/v2. It knows no SQL and no store;
// the store feeds it products (Builder, Index.Apply) and asks it what the
// store's SQL counts (store/internal/catalog/facets.go) would answer
// (Index.Facets, Index.FacetsAt).
//
// # Semantics
//
// The answers are those of the store's SQL, term by term (brute_test.go
// writes them plainly and the property tests hold the index to them over
// random catalogs, every plan forced in turn): status; vendor and product
// type by vitrine.Fold; every tag key asked; categories by the ids given
// (Query.Categories, the category and those under it as the store resolves
// them) or, with CategoryID alone, the index's own tree; every attribute
// key=value; updated_at at or after the time, to the microsecond; on sale;
// a price filter's currency; without option terms the product's range
// [price, price_max] meets the filter's and in stock is stock > 0 (out of
// it, = 0); with option terms one variant holds every value asked (a
// variant's places past its product's options hold the empty key and the
// empty value, as the variants' table does) and meets the price range and
// the stock term itself; every query word is a prefix of one of the
// product's words (the store's words of name, description text, SKUs,
// barcodes, tags, vendor, type, option values); untranslated in a locale,
// the product is not among those translated whole and current there (the
// store's translated_products: a posting by locale).
//
// Facets: vendor and product type (not the empty key), status, tags by key,
// categories (a product counts once in each of its categories and those
// above them, up to 64 along a path, as the SQL did), options by option
// key (not the empty key) and value, a product once per value however
// many variants hold it; the most frequent values first, then by key, at
// most vitrine.MaxFacetValues. A value written in several forms that
// compare alike ("Acme", "ACME") is shown in the form of the product with
// the lowest id among the filter's products holding it, as is an option's
// name: the first row the SQL read, reading rows in the order of ids.
//
// # Layout
//
// Products have dense ordinals (a deleted one's reused); each value of
// each field (a dict: vendor, type, status, currency, tag, category,
// attribute pair, option name, option value) has a posting of the
// ordinals holding it, kept inline when one product holds it (a SKU's
// word, a barcode) and in a roaring bitmap otherwise. A product's record,
// in one byte pool as varints (no pointer for the collector to scan),
// holds its name's key (the store's name_key, first: a page's sort reads
// it there), its values' ordinals, its variants' ordinals and values, its
// words: the forward index a walk reads, and what a write takes out of
// the postings. Variants have ordinals too, with a posting of variants per
// option value, a bitmap of those in stock and their prices (as 32 bits
// above their product's lowest), for the option terms. The text query's
// terms are one sorted dictionary (an arena of bytes and chunks of ids):
// a query word is the range of terms it starts.
//
// # Plans
//
// A query intersects the value bitmaps from the smallest, then checks the
// columns (time, price) on what is left, then the words (the union of a
// word's terms, or each candidate's words when they cost less), then the
// option terms (the rarest value's variants intersected with the others',
// the stock's and the price range, or the candidates' own variants when
// fewer). Facets are counted by the cheaper of two plans, as their cost
// model (walks) weighs them: a walk of the candidates' records, or each
// value's products counted among the candidates, by the cheaper for that
// value of its bitmap intersected with them (AndCardinality, by container
// kind in each range of 65,536 ordinals: a range where the candidates are
// an array merges) and of its products tested in a dense bitset of the
// candidates, built once a call; past half the products, the others are
// counted and taken from each value's own count. BenchmarkCountPlans,
// WordPlans and Facets measure them.
//
// # Pages
//
// A faceted list whose filter keeps few products (the store's pageAmong)
// has its page picked here, in the same read as its counts (FacetsPageAt):
// the candidates compared by the sort's keys, the product's columns
// (price, updated_at to the microsecond) or its name's key byte by byte,
// then its id's 16 bytes, all reversed for a descending sort; those after
// the cursor's key kept, the first Limit of them held sorted as the
// candidates are read. These are the store's keyset semantics: (column,
// id) after the cursor's, in ORDER BY column, id, on name_key as SQLite's
// BINARY and PostgreSQL's COLLATE "C" compare it. The store then reads
// those rows alone, by id. About 30 ns a candidate in the order of names
// (ties many), 10 in another (BenchmarkPage).
//
// A relevance page of a text query is of the search's ranks past 0 (rank
// 0, the product whose SKU is the query, the store reads by key, and the
// page leaves out, Page.Skip): at each level of the query's alternatives,
// the candidates whose name holds a word starting with each of the
// query's (the store's name_words match), then those whose name's and
// label's words do (vendor, type and tags: the store's label_words; the
// union of terms.names' and terms.labels' postings, the latter not in the
// records: a write takes a product's words out of them all), then the
// others, each in the order of names after the cursor when it is of that
// rank. Rank 1 is the candidates intersected, for each query word,
// with the union of the names' postings of the terms it starts (terms.names:
// by term, the products whose name holds it, kept by every write beside
// the terms' own; 0.55 MiB at 100,000 products); when those terms are many
// and the candidates few, each candidate's name words are read instead,
// from its record, where they follow the name's key (5 bytes a product of
// BenchmarkBuild's catalog). BenchmarkNamePlans and RelevancePage measure
// them.
//
// # Writes and readers
//
// One sync.RWMutex: readers share it for a call; a write (Put, Delete,
// Apply) holds it for what the product holds, about 25 µs of CPU at
// 100,000 products (BenchmarkPut). Copy-on-write would spare readers that
// wait, but clone at every write the 40 bitmaps a product of the
// benchmark's catalog is in: 279 µs (BenchmarkCopyOnWrite), 11 writes.
//
// # Figures
//
// The catalog of bin/vitrine-bench catalog, 2 cores of an AMD EPYC, CPU
// time: at 1,000,002 variants (333,334 products) the index holds 84.7 MiB
// of heap (89 bytes a variant; its terms 12.9 MiB, its records' words 7.2
// MiB and names' keys 8.6 MiB of it), 90.6 MiB with the products' label
// words (their postings 3.2 MiB) and two locales' translations (0.09 MiB) and builds in 2 to 3 s from products
// in memory; the facets
// of options Size=M + a vendor (4,026 products) take 0.94 ms, of a tag
// (10,054) 1.45 ms, of the query "cadeira" (32,613) 2.9 ms; at 100,000
// products 0.24, 0.40 and 2.5 ms. (go test -bench . in this package;
// FACETINDEX_BENCH_PRODUCTS=1000000 for a million products.)
//
// # Sequence: how the store keeps it (store/internal/catalog/indexes.go)
//
// An index is at a sequence (Seq): every change of the company's catalog
// up to it is in, none after. The store keeps, per company, a sequence
// bumped by every transaction that writes its catalog (tenants.catalog_seq,
// migration 00023, updated as the transaction's last statement so that
// sequences commit in their order) and a table of what changed
// (catalog_changes, 00024: tenant_id, seq, product_id; a null product for
// a change of the category tree; pruned past 1,000 sequences or 5,000
// rows, tenants.catalog_pruned saying how far). A faceted call reads, in
// one read transaction (Dialect.Snapshot: REPEATABLE READ on PostgreSQL, a
// read transaction in WAL on SQLite), the company's sequence S, then the
// changed ids after the index's own and their rows, applies them
// (ApplyChanges: every product checked before anything changes, the tree
// first), and counts with FacetsAt(S): the counts are those of the
// snapshot the page is read from, on every instance, since every instance
// reads the sequence. When no index is cached (a start, an eviction), when
// the changes since are over 1,000 or pruned, or when the index is ahead
// of the call's snapshot, the call answers from SQL while one build per
// company runs in the background: it reads a snapshot at sequence S
// (products in id order, 2,000 at a time, their rows streamed into a
// Builder); the calls after it bring it up. Writes never wait for it.
// Cache holds the indexes of many companies within a budget of bytes
// (each index's Bytes; vitrine serve --facet-index-memory, 384 MiB by
// default), the least recently used dropped first; vitrine serve also
// sets a soft memory limit (runtime/debug.SetMemoryLimit) of that and
// 128 MiB, unless GOMEMLIMIT is set, since GOGC=400 lets a heap of a large
// live index grow to five times it between collections.
//
// What it costs a write: in the write's own transaction, one INSERT of
// its product ids (or of the tree's row) at the sequence it bumps to,
// which locks the tenant's row from there to the commit as the bump does,
// and the prune's UPDATE and DELETE, which find nothing to do but at one
// sequence in 64; on PostgreSQL all of them go with the bump in the
// COMMIT's round trip (no round trip more). Then, on each instance that
// holds the company's index, its next faceted call reads the changes and
// the changed products' rows (five statements, whatever their number) in
// its snapshot, and applies them under the index's write lock: about 25 µs
// of CPU a product at 100,000 products (BenchmarkPut).
package facetindex
