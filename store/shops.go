package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

const shopColumns = `s.tenant_id, s.open, s.product_url, s.country, s.stock, s.domain, s.options, s.version, s.updated_at, s.updated_by`

func scanShop(r sqldb.Row, more ...any) (*vitrine.Shop, error) {
	var (
		s       vitrine.Shop
		stock   string
		options string
	)
	dest := append([]any{&s.TenantID, &s.Open, &s.ProductURL, &s.Country, &stock, &s.Domain, &options, &s.Version, &s.UpdatedAt, &s.UpdatedBy}, more...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	s.Stock = vitrine.StockDisclosure(stock)
	if err := json.Unmarshal([]byte(options), &s.Options); err != nil {
		return nil, fmt.Errorf("shop options: %w", err)
	}
	if s.Options == nil {
		s.Options = map[string]string{}
	}
	return &s, nil
}

// Shop returns the tenant's window; one never saved is vitrine.NewShop's.
func (db *DB) Shop(ctx context.Context, tenantID string) (*vitrine.Shop, error) {
	if !validIDs(tenantID) {
		return nil, vitrine.NotFound("Tenant")
	}
	var s *vitrine.Shop
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) (err error) {
		s, err = scanShop(c.QueryRow(ctx, `SELECT `+shopColumns+` FROM shops s WHERE s.tenant_id = $1`, tenantID))
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return vitrine.NewShop(tenantID), nil
	}
	if err != nil {
		return nil, fmt.Errorf("get shop: %w", err)
	}
	return s, nil
}

// SaveShop writes the tenant's window at the next version, if the stored
// one is still s.Version (0: never saved); then s holds the next version.
// Another write since s was read is a ConflictError, as is a domain
// another company's window holds, or a market of any company. The write bumps the catalog sequence:
// what the window shows changed with its settings.
func (db *DB) SaveShop(ctx context.Context, ch vitrine.Change, s *vitrine.Shop) error {
	if !validIDs(s.TenantID) {
		return vitrine.NotFound("Tenant")
	}
	if s.Domain != "" {
		if err := db.shopDomainFree(ctx, s.Domain); err != nil {
			return err
		}
	}
	options := s.Options
	if options == nil {
		options = map[string]string{}
	}
	opts, err := json.Marshal(options)
	if err != nil {
		return err
	}
	stock := s.Stock
	if stock == "" {
		stock = vitrine.StockAvailability
	}
	row := []any{s.Open, s.ProductURL, s.Country, string(stock), s.Domain, string(opts), s.UpdatedAt, s.UpdatedBy, s.TenantID}
	err = db.writeCatalog(ctx, tenant(s.TenantID), ch, is(s.TenantID), func(c sqldb.Conn) error {
		var n int64
		var err error
		if s.Version == 0 {
			n, err = c.Exec(ctx, `INSERT INTO shops (open, product_url, country, stock, domain, options, updated_at, updated_by, tenant_id, version)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1) ON CONFLICT (tenant_id) DO NOTHING`, row...)
		} else {
			n, err = c.Exec(ctx, `UPDATE shops SET open = $1, product_url = $2, country = $3, stock = $4, domain = $5, options = $6,
					updated_at = $7, updated_by = $8, version = version + 1
				WHERE tenant_id = $9 AND version = $10`, append(row, s.Version)...)
		}
		if err == nil && n != 1 {
			return vitrine.Conflict("version", "The shop window was changed by another call since it was read (version %d); read it again and retry", s.Version)
		}
		return err
	})
	if name, ok := db.d.Constraint(err); ok && name == "shops_domain_key" {
		return vitrine.Conflict("domain", "Another company's shop window is served at %s; choose another domain", s.Domain)
	}
	if err != nil {
		if vitrine.AsError(err) != nil {
			return err
		}
		return fmt.Errorf("save shop: %w", err)
	}
	s.Version++
	return nil
}

// OpenShopBySlug returns the open window of the company with that slug,
// with its company; a closed window, or none, or no such company, is the
// same NotFoundError.
func (db *DB) OpenShopBySlug(ctx context.Context, slug string) (*vitrine.Tenant, *vitrine.Shop, error) {
	if slug == "" {
		return nil, nil, vitrine.NotFound("Shop")
	}
	return db.openShop(ctx, `t.slug = $1`, slug)
}

// OpenShopByDomain returns the open window served at that host name (in
// any case, with or without its trailing dot), as OpenShopBySlug does.
func (db *DB) OpenShopByDomain(ctx context.Context, domain string) (*vitrine.Tenant, *vitrine.Shop, error) {
	domain = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if domain == "" {
		return nil, nil, vitrine.NotFound("Shop")
	}
	// domain <> '' lets both databases read the partial unique index.
	return db.openShop(ctx, `s.domain = $1 AND s.domain <> ''`, domain)
}

// openShop finds an open window by a term on its company or itself. The
// public's requests name no tenant: the one statement reads across
// tenants, as the operator's lookups by slug do, and answers one row only
// if the window is open and its company not scheduled for deletion.
func (db *DB) openShop(ctx context.Context, term, arg string) (*vitrine.Tenant, *vitrine.Shop, error) {
	var (
		t vitrine.Tenant
		s *vitrine.Shop
	)
	err := db.d.Read(ctx, operator, func(c sqldb.Conn) (err error) {
		s, err = scanShop(c.QueryRow(ctx, `SELECT `+shopColumns+`, t.id, t.name, t.slug, t.currency, t.locales, t.created_at, t.updated_at, t.deletes_at
			FROM shops s JOIN tenants t ON t.id = s.tenant_id WHERE `+term+` AND s.open AND t.deletes_at IS NULL`, arg),
			tenantDest(&t)...)
		return err
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return nil, nil, vitrine.NotFound("Shop")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("find open shop: %w", err)
	}
	return &t, s, nil
}

// CatalogStamp returns the tenant's catalog sequence, as text: every
// write of what its window shows (base.Catalog) moves it, in one
// statement on the tenant's row, whatever the size of its catalog.
func (db *DB) CatalogStamp(ctx context.Context, tenantID string) (string, error) {
	if !validIDs(tenantID) {
		return "", vitrine.NotFound("Tenant")
	}
	var seq int64
	err := db.d.Read(ctx, tenant(tenantID), func(c sqldb.Conn) error {
		return c.QueryRow(ctx, `SELECT catalog_seq FROM tenants WHERE id = $1`, tenantID).Scan(&seq)
	})
	if errors.Is(err, sqldb.ErrNoRows) {
		return "", vitrine.NotFound("Tenant")
	}
	if err != nil {
		return "", fmt.Errorf("catalog stamp: %w", err)
	}
	return strconv.FormatInt(seq, 36), nil
}
