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

// pageSize returns the size of a page: limit, or the default for 0.
func pageSize(limit int) (int, error) {
	switch {
	case limit == 0:
		return vitrine.DefaultPageLimit, nil
	case limit < 1 || limit > vitrine.MaxPageLimit:
		return 0, vitrine.Invalid("limit", "limit must be between 1 and %d; got %d", vitrine.MaxPageLimit, limit)
	}
	return limit, nil
}

// page is one page of a list being read, whose rows are ordered by keys K.
type page[K any] struct {
	size    int
	scope   string
	cursors *vitrine.Cursors
	// after is the position the page starts after; nil on the first page.
	after *K
}

// openPage reads the cursor of a list, for a page of size limit.
func openPage[K any](ctx context.Context, s *Service, scope string, limit int, cursor string) (*page[K], error) {
	size, err := pageSize(limit)
	if err != nil {
		return nil, err
	}
	cs, err := s.cursors(ctx)
	if err != nil {
		return nil, err
	}
	p := &page[K]{size: size, scope: scope, cursors: cs}
	if cursor != "" {
		p.after = new(K)
		if err := cs.Decode("cursor", cursor, scope, p.after); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fetch is how many rows to read: one beyond the page.
func (p *page[K]) fetch() int { return p.size + 1 }

// closePage trims the rows read to the page and returns the next page's
// cursor, made from the key of the page's last row (key(i) is rows[i]'s).
func closePage[T, K any](p *page[K], rows []T, key func(i int) K) ([]T, string) {
	if len(rows) <= p.size {
		return rows, ""
	}
	rows = rows[:p.size]
	return rows, p.cursors.Encode(p.scope, key(p.size-1))
}
