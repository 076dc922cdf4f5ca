package service

import (
	"context"

	"github.com/vitrine/vitrine"
)

// Every list pages the same way, written here once: a bounded page size
// (the default when none is asked), a cursor that names the position of the
// last row of the previous page in this very list (its scope), one row read
// beyond the page to know whether another follows, and that next page's
// cursor ("" at the end).

// PageSize returns the size of a page: limit, or the default for 0.
func PageSize(limit int) (int, error) {
	switch {
	case limit == 0:
		return vitrine.DefaultPageLimit, nil
	case limit < 1 || limit > vitrine.MaxPageLimit:
		return 0, vitrine.Invalid("limit", "limit must be between 1 and %d; got %d", vitrine.MaxPageLimit, limit)
	}
	return limit, nil
}

// Page is one page of a list being read, whose rows are ordered by keys K.
type Page[K any] struct {
	size    int
	scope   string
	cursors *Cursors
	// After is the position the page starts after; nil on the first page.
	After *K
}

// OpenPage reads the cursor of a list, for a page of size limit.
func OpenPage[K any](ctx context.Context, s *Service, scope string, limit int, cursor string) (*Page[K], error) {
	size, err := PageSize(limit)
	if err != nil {
		return nil, err
	}
	cs, err := s.cursors(ctx)
	if err != nil {
		return nil, err
	}
	p := &Page[K]{size: size, scope: scope, cursors: cs}
	if cursor != "" {
		p.After = new(K)
		if err := cs.Decode("cursor", cursor, scope, p.After); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Fetch is how many rows to read: one beyond the page.
func (p *Page[K]) Fetch() int { return p.size + 1 }

// ClosePage trims the rows read to the page and returns the next page's
// cursor, made from the key of the page's last row (key(i) is rows[i]'s).
func ClosePage[T, K any](p *Page[K], rows []T, key func(i int) K) ([]T, string) {
	if len(rows) <= p.size {
		return rows, ""
	}
	rows = rows[:p.size]
	return rows, p.cursors.Encode(p.scope, key(p.size-1))
}
