package catalog

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/base"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// Synonyms returns the tenant's synonyms, by locale (every locale's
// first), groups before one-way mappings, then as saved.
func (db *Store) Synonyms(ctx context.Context, tenantID string) ([]*vitrine.Synonym, error) {
	if !base.ValidIDs(tenantID) {
		return nil, nil
	}
	var out []*vitrine.Synonym
	err := db.d.Read(ctx, base.Tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = readSynonyms(ctx, c, tenantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list synonyms: %w", err)
	}
	return out, nil
}

func readSynonyms(ctx context.Context, c sqldb.Conn, tenantID string) ([]*vitrine.Synonym, error) {
	return sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Synonym, error) {
		var (
			s     vitrine.Synonym
			words string
		)
		if err := r.Scan(&s.TenantID, &s.Locale, &s.From, &words, &s.UpdatedAt); err != nil {
			return nil, err
		}
		return &s, json.Unmarshal([]byte(words), &s.Words)
	}, `SELECT tenant_id, locale, from_word, words, updated_at FROM synonyms WHERE tenant_id = $1
		ORDER BY locale, from_word <> '', updated_at, key`, tenantID)
}

// SaveSynonyms adds syns (of one locale) to the tenant's synonyms, each
// replacing the one of its key (vitrine.Synonym.Key); with replace, they
// replace every synonym of the locale. A ValidationError when the tenant
// would hold more than vitrine.MaxSynonyms. The write moves the catalog
// sequence: a window's pages and their ETags follow it.
func (db *Store) SaveSynonyms(ctx context.Context, ch vitrine.Change, tenantID, locale string, syns []*vitrine.Synonym, replace bool) error {
	if !base.ValidIDs(tenantID) {
		return vitrine.NotFound("Tenant")
	}
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(tenantID), noChanges, func(c sqldb.Conn) error {
		if db.d.Name() == "postgres" {
			// The count below holds for the writes of the company that
			// come after: they wait for this one.
			if _, err := c.Exec(ctx, `SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE`, tenantID); err != nil {
				return err
			}
		}
		if replace {
			if _, err := c.Exec(ctx, `DELETE FROM synonyms WHERE tenant_id = $1 AND locale = $2`, tenantID, locale); err != nil {
				return err
			}
		}
		for _, s := range syns {
			words, err := json.Marshal(s.Words)
			if err != nil {
				return err
			}
			if _, err := c.Exec(ctx, `INSERT INTO synonyms (tenant_id, locale, key, from_word, words, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (tenant_id, locale, key) DO UPDATE SET from_word = excluded.from_word, words = excluded.words, updated_at = excluded.updated_at`,
				tenantID, locale, s.Key(), s.From, string(words), s.UpdatedAt); err != nil {
				return err
			}
		}
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM synonyms WHERE tenant_id = $1`, tenantID).Scan(&n); err != nil {
			return err
		}
		if n > vitrine.MaxSynonyms {
			return vitrine.Invalid("groups", "a company has at most %d synonyms (groups and one-way words, in every locale); this save would make %d (delete_synonyms removes some, replace: true replaces a locale's)", vitrine.MaxSynonyms, n)
		}
		return nil
	})
	if err != nil && vitrine.AsError(err) == nil {
		return fmt.Errorf("save synonyms: %w", err)
	}
	return err
}

// DeleteSynonyms removes the tenant's synonyms that hold any of words (as
// folded; a group or a one-way mapping whole), or all of them when words
// is empty; of locale only, unless locale is nil. It returns how many it
// removed.
func (db *Store) DeleteSynonyms(ctx context.Context, ch vitrine.Change, tenantID string, locale *string, words []string) (int, error) {
	if !base.ValidIDs(tenantID) {
		return 0, vitrine.NotFound("Tenant")
	}
	n := 0
	err := db.write(ctx, base.Tenant(tenantID), ch, base.Is(tenantID), noChanges, func(c sqldb.Conn) error {
		all, err := readSynonyms(ctx, c, tenantID)
		if err != nil {
			return err
		}
		for _, s := range all {
			if locale != nil && s.Locale != *locale {
				continue
			}
			held := len(words) == 0
			for _, w := range words {
				held = held || s.Holds(w)
			}
			if !held {
				continue
			}
			if _, err := c.Exec(ctx, `DELETE FROM synonyms WHERE tenant_id = $1 AND locale = $2 AND key = $3`, tenantID, s.Locale, s.Key()); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil && vitrine.AsError(err) == nil {
		return 0, fmt.Errorf("delete synonyms: %w", err)
	}
	return n, err
}

// thesauri keeps each company's synonyms as its queries read them (in each
// language a query was read in), by the catalog sequence they were read
// at: analyzing a thousand synonyms costs a search more than its query. Every write of synonyms moves the
// sequence; so do the other writes of the catalog, after which the rows
// are read again and, when they are the same, the thesaurus kept.
type thesauri struct {
	mu sync.Mutex
	m  map[thesaurusKey]thesaurusAt
}

type thesaurusKey struct{ tenantID, lang string }

type thesaurusAt struct {
	seq uint64
	sum [sha256.Size]byte
	th  *vitrine.Thesaurus
}

// maxThesauri bounds the thesauri kept, a company's a language (all dropped
// past it: they are rebuilt from the rows).
const maxThesauri = 10_000

// thesaurus returns the tenant's synonyms as a query in the language of
// locale reads them (vitrine.ProductQuery.Locale: "" reads
// vitrine.DefaultLocale's), read in c: nil when it has none. The sequence
// is read before the rows, so that the rows kept at a sequence are at
// least as new as it.
func (db *Store) thesaurus(ctx context.Context, c sqldb.Conn, tenantID, locale string) (*vitrine.Thesaurus, error) {
	seq, _, err := readSeq(ctx, c, tenantID)
	if err != nil {
		return nil, err
	}
	an := vitrine.AnalyzerFor(cmp.Or(locale, vitrine.DefaultLocale))
	key := thesaurusKey{tenantID, an.Lang}
	db.th.mu.Lock()
	kept, ok := db.th.m[key]
	db.th.mu.Unlock()
	if ok && kept.seq == seq {
		return kept.th, nil
	}
	syns, err := readSynonyms(ctx, c, tenantID)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, s := range syns {
		b, _ := json.Marshal([]any{s.Locale, s.From, s.Words})
		h.Write(b)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	th := kept.th
	if !ok || sum != kept.sum {
		th = nil
		if len(syns) > 0 {
			th = vitrine.NewThesaurus(an, syns)
		}
	}
	db.th.mu.Lock()
	if db.th.m == nil || len(db.th.m) >= maxThesauri {
		db.th.m = map[thesaurusKey]thesaurusAt{}
	}
	if cur, ok := db.th.m[key]; !ok || cur.seq <= seq {
		db.th.m[key] = thesaurusAt{seq: seq, sum: sum, th: th}
	}
	db.th.mu.Unlock()
	return th, nil
}
