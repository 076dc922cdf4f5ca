package catalog

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/fuzzy"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// typos returns, for the words of f that forgive typos (vitrine.Typos of
// the word as written), the prefixes of the company's words within them
// (fuzzy.Prefixes: "braclet" the bracelet, "jaket" the jacket), never one
// the word's stem covers, for vitrine.ProductFilter.WithTypos; nil when
// no word forgives any. The words are the company's facet index's term
// dictionary when the index is at the catalog's sequence, else the
// company's words read by SQL: the same words, so the same typos.
func (db *Store) typos(ctx context.Context, tenantID string, f vitrine.ProductFilter) (func(stem, written string) []string, error) {
	if !slices.ContainsFunc(f.Written(), func(w string) bool { return vitrine.Typos(w) > 0 }) || !base.ValidIDs(tenantID) {
		return nil, nil
	}
	found := map[string][]string{}
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) error {
		var within func(w string, n int, skip string) []string
		if db.ix != nil {
			ix, _, err := db.indexAt(ctx, c, tenantID)
			if err != nil {
				return err
			}
			if ix != nil {
				within = func(w string, n int, skip string) []string {
					return ix.Typos(w, n, vitrine.MaxTypoPrefixes, []string{skip})
				}
			}
		}
		if within == nil {
			words, err := db.vocabulary(ctx, c, tenantID)
			if err != nil {
				return err
			}
			within = func(w string, n int, skip string) []string {
				return fuzzy.Prefixes(words, w, n, vitrine.MaxTypoPrefixes, skip)
			}
		}
		for i, w := range f.Written() {
			if n := vitrine.Typos(w); n > 0 {
				found[w] = within(w, n, f.Words()[i])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func(_, written string) []string { return found[written] }, nil
}

// companyWords returns the words a text query matches in the company's
// products, each once, in byte order: the dictionary typos are found in
// when no index is at hand. On PostgreSQL, product_words's; on SQLite,
// those of the products' search column (the full-text index holds every
// company's words at once).
func (db *Store) companyWords(ctx context.Context, c sqldb.Conn, tenantID string) (fuzzy.Sorted, error) {
	var words []string
	if db.d.Name() == "postgres" {
		var err error
		words, err = sqldb.Collect(ctx, c, scanString, `SELECT DISTINCT word FROM product_words WHERE tenant_id = $1`, tenantID)
		if err != nil {
			return nil, err
		}
	} else {
		all, err := sqldb.Collect(ctx, c, scanString, `SELECT search FROM products WHERE tenant_id = $1`, tenantID)
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			words = append(words, strings.Fields(s)...)
		}
	}
	slices.Sort(words)
	return slices.Compact(words), nil
}

// vocabularies keep, for the companies whose text queries find typos
// without an index (none kept, the catalog over its memory, or its build
// under way), each company's words at the catalog sequence they were read
// at: reading every product's words took a call 114 ms of CPU at 100,000
// products on SQLite, and every such call paid it. Any write of the
// catalog moves the sequence, after which the words are read again. All
// are dropped when maxVocabBytes would be passed; a company's words over
// it alone are not kept.
type vocabularies struct {
	mu    sync.Mutex
	m     map[string]vocabAt
	bytes int64
}

type vocabAt struct {
	seq   uint64
	words fuzzy.Sorted
	bytes int64
}

// maxVocabBytes bounds the words kept, by their text and a string header
// each.
const maxVocabBytes int64 = 64 << 20

// vocabulary returns the company's words (companyWords) as kept at the
// catalog's sequence, read in c, or reads them. The sequence is read
// before the words, so that words kept at a sequence are at least as new
// as it.
func (db *Store) vocabulary(ctx context.Context, c sqldb.Conn, tenantID string) (fuzzy.Sorted, error) {
	seq, _, err := readSeq(ctx, c, tenantID)
	if err != nil {
		return nil, err
	}
	v := db.vocab
	v.mu.Lock()
	kept, ok := v.m[tenantID]
	v.mu.Unlock()
	if ok && kept.seq == seq {
		return kept.words, nil
	}
	words, err := db.companyWords(ctx, c, tenantID)
	if err != nil {
		return nil, err
	}
	size := int64(0)
	for _, w := range words {
		size += int64(len(w)) + 16
	}
	if size > maxVocabBytes {
		return words, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if cur, ok := v.m[tenantID]; ok {
		if cur.seq > seq {
			return words, nil // a newer read kept its own
		}
		v.bytes -= cur.bytes
		delete(v.m, tenantID)
	}
	if v.m == nil || v.bytes+size > maxVocabBytes {
		v.m, v.bytes = map[string]vocabAt{}, 0
	}
	v.m[tenantID] = vocabAt{seq: seq, words: words, bytes: size}
	v.bytes += size
	return words, nil
}

// Kept returns how many companies' analyzed synonyms (a company's, a
// language's) and words for typos the store keeps across calls: for the
// tests.
func (db *Store) Kept() (thesauri, vocabularies int) {
	db.th.mu.Lock()
	thesauri = len(db.th.m)
	db.th.mu.Unlock()
	db.vocab.mu.Lock()
	defer db.vocab.mu.Unlock()
	return thesauri, len(db.vocab.m)
}
