package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

const marketColumns = `m.tenant_id, m.id, m.handle, m.name, m.countries, m.currency, m.locales, m.exchange_rate, m.rounding, m.include, m.domain,
	m.version, m.created_at, m.updated_at, m.updated_by`

func scanMarket(r sqldb.Row, more ...any) (*vitrine.Market, error) {
	var (
		m                           vitrine.Market
		countries, locales, include string
		rate, rounding              string
	)
	dest := append([]any{&m.TenantID, &m.ID, &m.Handle, &m.Name, &countries, &m.Currency, &locales, &rate, &rounding, &include, &m.Domain,
		&m.Version, &m.CreatedAt, &m.UpdatedAt, &m.UpdatedBy}, more...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	m.ExchangeRate, m.Rounding = vitrine.Decimal(rate), vitrine.Rounding(rounding)
	for _, j := range []struct {
		text string
		dst  any
	}{{countries, &m.Countries}, {locales, &m.Locales}, {include, &m.Include}} {
		if err := json.Unmarshal([]byte(j.text), j.dst); err != nil {
			return nil, fmt.Errorf("market %s: %w", m.ID, err)
		}
	}
	return &m, nil
}

// Markets returns the tenant's markets by handle.
func (db *DB) Markets(ctx context.Context, tenantID string) ([]*vitrine.Market, error) {
	if !validIDs(tenantID) {
		return nil, nil
	}
	var out []*vitrine.Market
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		out, err = sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Market, error) { return scanMarket(r) },
			`SELECT `+marketColumns+` FROM markets m WHERE m.tenant_id = $1 ORDER BY m.handle`, tenantID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list markets: %w", err)
	}
	return out, nil
}

// MarketByHandle returns the tenant's market of that handle.
func (db *DB) MarketByHandle(ctx context.Context, tenantID, handle string) (*vitrine.Market, error) {
	if !validIDs(tenantID) || handle == "" {
		return nil, vitrine.NotFound("Market")
	}
	var m *vitrine.Market
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		m, err = scanMarket(c.QueryRow(ctx, `SELECT `+marketColumns+` FROM markets m WHERE m.tenant_id = $1 AND m.handle = $2`, tenantID, handle))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, vitrine.NotFound("Market")
	}
	if err != nil {
		return nil, fmt.Errorf("get market: %w", err)
	}
	return m, nil
}

// SaveMarket creates the market or replaces the tenant's market of its
// handle, in one write that checks, among the tenant's markets, that no
// other sells to its countries. A domain another market serves, or
// another company's window, is a ConflictError. The write bumps the
// catalog sequence: what a window shows changed.
func (db *DB) SaveMarket(ctx context.Context, ch vitrine.Change, m *vitrine.Market) error {
	if !validIDs(m.TenantID) {
		return vitrine.NotFound("Tenant")
	}
	if m.Domain != "" {
		if err := db.domainFree(ctx, m.TenantID, m.Domain); err != nil {
			return err
		}
	}
	countries, _ := json.Marshal(nonNil(m.Countries))
	locales, _ := json.Marshal(nonNil(m.Locales))
	include, _ := json.Marshal(m.Include)
	saved := *m
	err := db.writeCatalog(ctx, tenant(m.TenantID), ch, func() string { return saved.ID }, func(c sqldb.Conn) error {
		others, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (*vitrine.Market, error) { return scanMarket(r) },
			`SELECT `+marketColumns+` FROM markets m WHERE m.tenant_id = $1`, m.TenantID)
		if err != nil {
			return err
		}
		var old *vitrine.Market
		for _, o := range others {
			if o.Handle == m.Handle {
				old = o
				continue
			}
			for _, cc := range m.Countries {
				if slices.Contains(o.Countries, cc) {
					return countryTaken(cc, o.Handle)
				}
			}
		}
		if old == nil {
			saved.ID, saved.Version, saved.CreatedAt = vitrine.NewID(), 1, m.UpdatedAt
			_, err = c.Exec(ctx, `INSERT INTO markets (tenant_id, id, handle, name, countries, currency, locales, exchange_rate, rounding, include, domain,
					version, created_at, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12, $12, $13)`,
				m.TenantID, saved.ID, m.Handle, m.Name, string(countries), m.Currency, string(locales), string(m.ExchangeRate), string(m.Rounding),
				string(include), m.Domain, m.UpdatedAt, m.UpdatedBy)
		} else {
			saved.ID, saved.Version, saved.CreatedAt = old.ID, old.Version+1, old.CreatedAt
			_, err = c.Exec(ctx, `UPDATE markets SET name = $3, countries = $4, currency = $5, locales = $6, exchange_rate = $7, rounding = $8, include = $9,
					domain = $10, version = version + 1, updated_at = $11, updated_by = $12 WHERE tenant_id = $1 AND id = $2`,
				m.TenantID, old.ID, m.Name, string(countries), m.Currency, string(locales), string(m.ExchangeRate), string(m.Rounding),
				string(include), m.Domain, m.UpdatedAt, m.UpdatedBy)
		}
		if err != nil {
			return err
		}
		// The countries' index: its key, one row per company and country,
		// refuses a country that another save took since the check above
		// (PostgreSQL's two writes at once both pass the check).
		if _, err := c.Exec(ctx, `DELETE FROM market_countries WHERE tenant_id = $1 AND market_id = $2`, m.TenantID, saved.ID); err != nil {
			return err
		}
		for _, cc := range m.Countries {
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO market_countries (tenant_id, country, market_id) VALUES ($1, $2, $3)`,
				m.TenantID, cc, saved.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if name, ok := db.d.Constraint(err); ok {
		switch name {
		case "market_countries_pkey":
			return db.countryConflict(ctx, m)
		case "markets_domain_key":
			return vitrine.Conflict("domain", "Another market is served at %s; choose another domain", m.Domain)
		case "markets_handle", "markets_pkey":
			return vitrine.Conflict("handle", "The market %q was saved by another call at the same time; retry", m.Handle)
		}
	}
	if err != nil {
		if vitrine.AsError(err) != nil {
			return err
		}
		return fmt.Errorf("save market: %w", err)
	}
	*m = saved
	return nil
}

func countryTaken(country, handle string) error {
	return vitrine.Conflict("countries", "%s is already in market %q; a country is in one market at most (remove it there first)", country, handle)
}

// countryConflict names the market that took one of m's countries while
// m was saved: the write that lost the race reads who won.
func (db *DB) countryConflict(ctx context.Context, m *vitrine.Market) error {
	others, err := db.Markets(ctx, m.TenantID)
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.Handle == m.Handle {
			continue
		}
		for _, cc := range m.Countries {
			if slices.Contains(o.Countries, cc) {
				return countryTaken(cc, o.Handle)
			}
		}
	}
	return vitrine.Conflict("countries", "Another market took one of these countries at the same time; retry")
}

// domainFree refuses a market's domain that a company's window serves, or
// another company's market: the public's requests name no tenant, and the
// read is the operator's, as openShop's is.
func (db *DB) domainFree(ctx context.Context, tenantID, domain string) error {
	return db.domainUnused(ctx, domain, `SELECT (SELECT count(*) FROM shops WHERE domain = $1 AND domain <> '')
		+ (SELECT count(*) FROM markets WHERE domain = $1 AND domain <> '' AND tenant_id <> $2)`, domain, tenantID)
}

// shopDomainFree refuses a window's domain that a market of any company
// serves (another company's window is refused by the shops' unique key).
func (db *DB) shopDomainFree(ctx context.Context, domain string) error {
	return db.domainUnused(ctx, domain, `SELECT count(*) FROM markets WHERE domain = $1 AND domain <> ''`, domain)
}

func (db *DB) domainUnused(ctx context.Context, domain, query string, args ...any) error {
	var n int
	err := db.d.Read(ctx, operator, func(c sqldb.Conn) error { return c.QueryRow(ctx, query, args...).Scan(&n) })
	if err != nil {
		return fmt.Errorf("check a window's domain: %w", err)
	}
	if n > 0 {
		return vitrine.Conflict("domain", "A window is served at %s already; choose another domain", domain)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// DeleteMarket removes the tenant's market of that handle; its prices go
// with it (their foreign key).
func (db *DB) DeleteMarket(ctx context.Context, ch vitrine.Change, tenantID, handle string) error {
	if !validIDs(tenantID) {
		return vitrine.NotFound("Market")
	}
	var id string
	err := db.writeCatalog(ctx, tenant(tenantID), ch, func() string { return id }, func(c sqldb.Conn) error {
		if err := c.QueryRow(ctx, `SELECT id FROM markets WHERE tenant_id = $1 AND handle = $2`, tenantID, handle).Scan(&id); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `DELETE FROM markets WHERE tenant_id = $1 AND id = $2`, tenantID, id)
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return vitrine.NotFound("Market")
	}
	if err != nil {
		return fmt.Errorf("delete market: %w", err)
	}
	return nil
}

// marketPriceChunk bounds the ids of one read of prices.
const marketPriceChunk = 500

// MarketPrices returns the market's explicit prices of those variants, by
// variant id.
func (db *DB) MarketPrices(ctx context.Context, tenantID, marketID string, variantIDs []string) (map[string]vitrine.MarketPrice, error) {
	out := map[string]vitrine.MarketPrice{}
	if !validIDs(tenantID, marketID) || len(variantIDs) == 0 {
		return out, nil
	}
	ids := slices.DeleteFunc(slices.Clone(variantIDs), func(id string) bool { return !vitrine.ValidID(id) })
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		for chunk := range slices.Chunk(ids, marketPriceChunk) {
			args := []any{tenantID, marketID}
			in := make([]string, len(chunk))
			for i, id := range chunk {
				args = append(args, id)
				in[i] = fmt.Sprintf("$%d", i+3)
			}
			ps, err := sqldb.Collect(ctx, c, scanMarketPrice, `SELECT variant_id, price, compare_at_price FROM market_prices
				WHERE tenant_id = $1 AND market_id = $2 AND variant_id IN (`+strings.Join(in, ", ")+`)`, args...)
			if err != nil {
				return err
			}
			for _, p := range ps {
				out[p.VariantID] = p
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read market prices: %w", err)
	}
	return out, nil
}

// MarketHasPrices reports whether the market has an explicit price of any
// variant.
func (db *DB) MarketHasPrices(ctx context.Context, tenantID, marketID string) (bool, error) {
	if !validIDs(tenantID, marketID) {
		return false, nil
	}
	var n int
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM market_prices WHERE tenant_id = $1 AND market_id = $2 LIMIT 1) one`,
			tenantID, marketID).Scan(&n)
	})
	if err != nil {
		return false, fmt.Errorf("read market prices: %w", err)
	}
	return n > 0, nil
}

func scanMarketPrice(r sqldb.Row) (vitrine.MarketPrice, error) {
	var (
		p       vitrine.MarketPrice
		compare sql.NullInt64
	)
	err := r.Scan(&p.VariantID, &p.Price, &compare)
	if compare.Valid {
		p.CompareAtPrice = &compare.Int64
	}
	return p, err
}

// SetMarketPrices writes and removes a market's explicit prices in one
// write, which moves the market's version and the catalog sequence.
func (db *DB) SetMarketPrices(ctx context.Context, ch vitrine.Change, tenantID, marketID string, set []vitrine.MarketPrice, remove []string) error {
	if !validIDs(tenantID, marketID) {
		return vitrine.NotFound("Market")
	}
	err := db.writeCatalog(ctx, tenant(tenantID), ch, is(marketID), func(c sqldb.Conn) error {
		n, err := c.Exec(ctx, `UPDATE markets SET version = version + 1 WHERE tenant_id = $1 AND id = $2`, tenantID, marketID)
		if err != nil {
			return err
		}
		if n != 1 {
			return vitrine.NotFound("Market")
		}
		for _, id := range remove {
			if err := sqldb.ExecLater(ctx, c, `DELETE FROM market_prices WHERE tenant_id = $1 AND market_id = $2 AND variant_id = $3`, tenantID, marketID, id); err != nil {
				return err
			}
		}
		for _, p := range set {
			if err := sqldb.ExecLater(ctx, c, `INSERT INTO market_prices (tenant_id, market_id, variant_id, price, compare_at_price) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (tenant_id, market_id, variant_id) DO UPDATE SET price = excluded.price, compare_at_price = excluded.compare_at_price`,
				tenantID, marketID, p.VariantID, p.Price, p.CompareAtPrice); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if vitrine.AsError(err) != nil {
			return err
		}
		return fmt.Errorf("set market prices: %w", err)
	}
	return nil
}

// OpenMarketByDomain returns the market served at that host name, with
// its company and window, when the window is open. The public's requests
// name no tenant: the one statement reads across tenants, as openShop's.
func (db *DB) OpenMarketByDomain(ctx context.Context, domain string) (*vitrine.Tenant, *vitrine.Shop, *vitrine.Market, error) {
	domain = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if domain == "" {
		return nil, nil, nil, vitrine.NotFound("Shop")
	}
	var (
		t vitrine.Tenant
		s *vitrine.Shop
		m *vitrine.Market
	)
	err := db.d.Read(ctx, operator, func(c sqldb.Conn) (err error) {
		var id string
		if err := c.QueryRow(ctx, `SELECT m.tenant_id FROM markets m WHERE m.domain = $1 AND m.domain <> ''`, domain).Scan(&id); err != nil {
			return err
		}
		s, err = scanShop(c.QueryRow(ctx, `SELECT `+shopColumns+`, t.id, t.name, t.slug, t.currency, t.created_at, t.updated_at
			FROM shops s JOIN tenants t ON t.id = s.tenant_id WHERE s.tenant_id = $1 AND s.open`, id),
			&t.ID, &t.Name, &t.Slug, &t.Currency, &t.CreatedAt, &t.UpdatedAt)
		if err != nil {
			return err
		}
		m, err = scanMarket(c.QueryRow(ctx, `SELECT `+marketColumns+` FROM markets m WHERE m.tenant_id = $1 AND m.domain = $2`, id, domain))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, nil, nil, vitrine.NotFound("Shop")
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find open market: %w", err)
	}
	return &t, s, m, nil
}
