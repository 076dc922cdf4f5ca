package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
)

// NewProduct holds create_product's arguments as the agent sent them.
type NewProduct struct {
	SKU         string
	Name        string
	Description string
	Price       string
	Currency    string // default vitrine.DefaultCurrency
	Stock       int64
	Status      string // default active
}

// ProductChanges holds update_product's arguments; nil leaves a field alone.
type ProductChanges struct {
	SKU         *string
	Name        *string
	Description *string
	Price       *string
	Currency    *string
	Stock       *int64
	Status      *string
	// ExpectedVersion, when set, makes the update fail with a ConflictError
	// if the product changed since the agent read that version.
	ExpectedVersion *int64
}

// ProductQuery holds list_products' arguments.
type ProductQuery struct {
	Query        string
	Status       string
	InStock      *bool
	MinPrice     string
	MaxPrice     string
	Currency     string // of MinPrice and MaxPrice; default BRL
	UpdatedSince string // RFC 3339
	Sort         string // default: relevance with a query, name without
	Limit        int
	Cursor       string
}

// ProductPage is a page of products and the cursor of the next one, empty
// at the end.
type ProductPage struct {
	Products   []*vitrine.Product
	NextCursor string
}

// maxQueryLength bounds a text query.
const maxQueryLength = 200

// ListProducts returns a page of the tenant's products.
func (s *Service) ListProducts(ctx context.Context, a *Access, q ProductQuery) (*ProductPage, error) {
	if err := a.Allow(OpListProducts); err != nil {
		return nil, err
	}
	f, err := q.filter()
	if err != nil {
		return nil, err
	}
	// The cursor belongs to this tenant and these filters.
	filters, _ := json.Marshal(q.withoutPage())
	pg, err := openPage[vitrine.ProductKey](ctx, s, a.TenantID+"\x00"+string(filters), f.Limit, q.Cursor)
	if err != nil {
		return nil, err
	}
	f.After, f.Limit = pg.after, pg.fetch()
	ps, err := s.store.ListProducts(ctx, a.TenantID, f)
	if err != nil {
		return nil, err
	}
	page := &ProductPage{}
	page.Products, page.NextCursor = closePage(pg, ps, func(p *vitrine.Product) vitrine.ProductKey { return vitrine.KeyOf(p, f.Sort) })
	return page, nil
}

func (q ProductQuery) withoutPage() ProductQuery {
	q.Limit, q.Cursor = 0, ""
	return q
}

// filter validates the query's arguments in the order the tool lists them.
func (q ProductQuery) filter() (vitrine.ProductFilter, error) {
	f := vitrine.ProductFilter{Sort: vitrine.SortName}
	if n := utf8.RuneCountInString(q.Query); n > maxQueryLength {
		return f, vitrine.Invalid("query", "query is %d characters long; the limit is %d", n, maxQueryLength)
	}
	if f.Words = vitrine.SearchWords(q.Query); len(f.Words) > vitrine.MaxSearchWords {
		return f, vitrine.Invalid("query", "query holds %d different words; the limit is %d", len(f.Words), vitrine.MaxSearchWords)
	} else if len(f.Words) > 0 {
		f.Sort = vitrine.SortRelevance
		f.SKU = vitrine.SKUKey(strings.TrimSpace(q.Query))
	} else if strings.TrimSpace(q.Query) != "" {
		return f, vitrine.Invalid("query", "query must hold at least one letter or digit")
	}
	if q.Status != "" {
		st, err := vitrine.ParseProductStatus("status", q.Status)
		if err != nil {
			return f, err
		}
		f.Status = st
	}
	f.InStock = q.InStock
	if q.MinPrice != "" || q.MaxPrice != "" {
		code, scale, err := vitrine.NormalizeCurrency("currency", or(q.Currency, vitrine.DefaultCurrency))
		if err != nil {
			return f, err
		}
		f.PriceCurrency = code
		for _, b := range []struct {
			field, value string
			dst          **int64
		}{{"min_price", q.MinPrice, &f.MinPrice}, {"max_price", q.MaxPrice, &f.MaxPrice}} {
			if b.value == "" {
				continue
			}
			v, err := vitrine.ParsePrice(b.field, b.value, scale)
			if err != nil {
				return f, err
			}
			*b.dst = &v
		}
		if f.MinPrice != nil && f.MaxPrice != nil && *f.MinPrice > *f.MaxPrice {
			return f, vitrine.Invalid("max_price", "max_price must not be below min_price")
		}
	} else if q.Currency != "" {
		return f, vitrine.Invalid("currency", "currency applies to min_price and max_price; give one of them too")
	}
	if q.UpdatedSince != "" {
		t, err := time.Parse(time.RFC3339, q.UpdatedSince)
		if err != nil {
			return f, vitrine.Invalid("updated_since", "updated_since must be a time in RFC 3339, such as \"2026-11-30T09:00:00Z\"; got %q", q.UpdatedSince)
		}
		t = vitrine.Timestamp(t)
		f.UpdatedSince = &t
	}
	if q.Sort != "" {
		f.Sort = ""
		for _, s := range vitrine.ProductSorts {
			if string(s) == q.Sort {
				f.Sort = s
			}
		}
		if f.Sort == "" {
			return f, vitrine.Invalid("sort", "sort must be one of %s; got %q", sortList(), q.Sort)
		}
		if f.Sort == vitrine.SortRelevance && len(f.Words) == 0 {
			return f, vitrine.Invalid("sort", "sort \"relevance\" needs a query")
		}
	}
	size, err := pageSize(q.Limit)
	f.Limit = size
	return f, err
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func sortList() string {
	out := ""
	for i, s := range vitrine.ProductSorts {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(string(s))
	}
	return out
}

// GetProduct returns a product by id or by SKU: exactly one of them.
func (s *Service) GetProduct(ctx context.Context, a *Access, id, sku string) (*vitrine.Product, error) {
	if err := a.Allow(OpGetProduct); err != nil {
		return nil, err
	}
	switch {
	case id != "" && sku != "":
		return nil, vitrine.Invalid("id", "give either id or sku, not both")
	case id != "":
		if !vitrine.ValidID(id) {
			return nil, vitrine.NotFound("Product")
		}
		return s.store.ProductByID(ctx, a.TenantID, id)
	case sku != "":
		return s.store.ProductBySKU(ctx, a.TenantID, sku)
	}
	return nil, vitrine.Invalid("id", "give the product's id, or its sku")
}

// IdempotencyTTL is how long create_product remembers an idempotency key.
const IdempotencyTTL = 24 * time.Hour

// maxKeyLength bounds an idempotency key.
const maxKeyLength = 200

// CreateProduct adds a product to the tenant's catalog. With an
// idempotency key, a retry with the same key and arguments returns the
// product the first call created, instead of a duplicate.
func (s *Service) CreateProduct(ctx context.Context, a *Access, in NewProduct, idempotencyKey string) (*vitrine.Product, error) {
	if err := a.Allow(OpCreateProduct); err != nil {
		return nil, err
	}
	p, err := in.validate()
	if err != nil {
		return nil, err
	}
	var key *vitrine.IdempotencyKey
	if idempotencyKey != "" {
		if n := utf8.RuneCountInString(idempotencyKey); n > maxKeyLength {
			return nil, vitrine.Invalid("idempotency_key", "idempotency_key is %d characters long; the limit is %d", n, maxKeyLength)
		}
		key = &vitrine.IdempotencyKey{UserID: a.Caller.User.ID, Key: idempotencyKey, RequestHash: p.hash(), ExpiresAt: s.now().Add(IdempotencyTTL)}
	}
	now := s.now()
	p.ID = vitrine.NewID()
	p.TenantID = a.TenantID
	p.Version = 1
	p.CreatedAt, p.UpdatedAt = now, now
	p.CreatedBy, p.UpdatedBy = a.Caller.User.ID, a.Caller.User.ID
	return s.store.CreateProduct(ctx, a.change(), &p.Product, key)
}

// newProduct is a validated NewProduct.
type newProduct struct{ vitrine.Product }

// hash identifies the arguments of a create, for its idempotency key.
func (p *newProduct) hash() string {
	h := sha256.Sum256(fmt.Appendf(nil, "%q %q %q %d %q %d %q", p.SKU, p.Name, p.Description, p.Price, p.Currency, p.Stock, p.Status))
	return hex.EncodeToString(h[:])
}

// validate checks the fields in the order the tool lists them and returns
// the product they describe.
func (in NewProduct) validate() (*newProduct, error) {
	var (
		p   newProduct
		err error
	)
	if p.SKU, _, err = vitrine.ValidateSKU("sku", in.SKU); err != nil {
		return nil, err
	}
	if p.Name, err = vitrine.ValidateName("name", in.Name, vitrine.MaxProductNameLength); err != nil {
		return nil, err
	}
	if p.Description, err = vitrine.ValidateDescription("description", in.Description); err != nil {
		return nil, err
	}
	currency := in.Currency
	if currency == "" {
		currency = vitrine.DefaultCurrency
	}
	code, scale, err := vitrine.NormalizeCurrency("currency", currency)
	if err != nil {
		return nil, err
	}
	p.Currency = code
	if p.Price, err = vitrine.ParsePrice("price", in.Price, scale); err != nil {
		return nil, err
	}
	if err = vitrine.ValidateStock("stock", in.Stock); err != nil {
		return nil, err
	}
	p.Stock = in.Stock
	p.Status = vitrine.ProductActive
	if in.Status != "" {
		if p.Status, err = vitrine.ParseProductStatus("status", in.Status); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// UpdateProduct changes some fields of a product. The change applies to
// the latest version, under a lock that queues concurrent writers; with
// ExpectedVersion it fails instead if that is not the version it finds.
func (s *Service) UpdateProduct(ctx context.Context, a *Access, id string, ch ProductChanges) (*vitrine.Product, error) {
	if err := a.Allow(OpUpdateProduct); err != nil {
		return nil, err
	}
	patch, err := ch.validate()
	if err != nil {
		return nil, err
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	return s.store.UpdateProduct(ctx, a.change(), a.TenantID, id, func(p *vitrine.Product) error {
		if ch.ExpectedVersion != nil && *ch.ExpectedVersion != p.Version {
			return staleVersion(*ch.ExpectedVersion, p.Version)
		}
		if err := patch.applyTo(p, ch.Price); err != nil {
			return err
		}
		p.UpdatedAt, p.UpdatedBy = s.now(), a.Caller.User.ID
		return nil
	})
}

func staleVersion(expected, current int64) error {
	return vitrine.Conflict("expected_version",
		"The product is at version %d, not %d: someone changed it since you read it. Fetch it again with get_product, check the changes, and retry with expected_version %d",
		current, expected, current)
}

// validate checks every field given, except the price, whose decimals
// depend on the currency the product ends up with.
func (ch ProductChanges) validate() (*patch, error) {
	var (
		pt  patch
		err error
	)
	if ch.SKU != nil {
		sku, _, err := vitrine.ValidateSKU("sku", *ch.SKU)
		if err != nil {
			return nil, err
		}
		pt.SKU = &sku
	}
	if ch.Name != nil {
		name, err := vitrine.ValidateName("name", *ch.Name, vitrine.MaxProductNameLength)
		if err != nil {
			return nil, err
		}
		pt.Name = &name
	}
	if ch.Description != nil {
		d, err := vitrine.ValidateDescription("description", *ch.Description)
		if err != nil {
			return nil, err
		}
		pt.Description = &d
	}
	if ch.Currency != nil {
		code, _, err := vitrine.NormalizeCurrency("currency", *ch.Currency)
		if err != nil {
			return nil, err
		}
		pt.Currency = &code
	}
	if ch.Price != nil {
		// Syntax now, decimals once the currency is known.
		if err = vitrine.CheckPrice("price", *ch.Price); err != nil {
			return nil, err
		}
	}
	if ch.Stock != nil {
		if err = vitrine.ValidateStock("stock", *ch.Stock); err != nil {
			return nil, err
		}
		pt.Stock = ch.Stock
	}
	if ch.Status != nil {
		st, err := vitrine.ParseProductStatus("status", *ch.Status)
		if err != nil {
			return nil, err
		}
		pt.Status = &st
	}
	if pt == (patch{}) && ch.Price == nil {
		return nil, vitrine.Invalid("id", "nothing to change: give at least one of sku, name, description, price, currency, stock or status")
	}
	return &pt, nil
}

// patch is a validated ProductChanges without the price.
type patch struct{ vitrine.ProductPatch }

// applyTo writes the patch over p, then the price in p's resulting currency.
// A currency change without a price keeps the amount if the new currency
// can express it exactly (10.50 BRL becomes 10.50 USD).
func (pt *patch) applyTo(p *vitrine.Product, price *string) error {
	fromScale := vitrine.CurrencyScale(p.Currency)
	pt.Apply(p)
	scale := vitrine.CurrencyScale(p.Currency)
	if price != nil {
		minor, err := vitrine.ParsePrice("price", *price, scale)
		if err != nil {
			return err
		}
		p.Price = minor
		return nil
	}
	minor, ok := vitrine.Rescale(p.Price, fromScale, scale)
	if !ok {
		return vitrine.Invalid("price", "the current price %s has no exact form in %s; give the price in the new currency too",
			vitrine.FormatPrice(p.Price, fromScale), p.Currency)
	}
	p.Price = minor
	return nil
}

// DeleteProduct removes a product for good.
func (s *Service) DeleteProduct(ctx context.Context, a *Access, id string) error {
	if err := a.Allow(OpDeleteProduct); err != nil {
		return err
	}
	if !vitrine.ValidID(id) {
		return vitrine.NotFound("Product")
	}
	return s.store.DeleteProduct(ctx, a.change(), a.TenantID, id)
}

// maxStockDelta bounds one stock adjustment.
const maxStockDelta = vitrine.MaxStock

// AdjustStock adds delta (negative to take away) to a product's stock,
// atomically: concurrent adjustments all count, and the stock never goes
// below zero. The movement is kept with its reason.
func (s *Service) AdjustStock(ctx context.Context, a *Access, id string, delta int64, reason string) (*vitrine.Product, error) {
	if err := a.Allow(OpAdjustStock); err != nil {
		return nil, err
	}
	if delta == 0 {
		return nil, vitrine.Invalid("delta", "delta must not be zero: a positive number adds stock, a negative one takes it away")
	}
	if delta > maxStockDelta || delta < -maxStockDelta {
		return nil, vitrine.Invalid("delta", "delta must be between %d and %d", -maxStockDelta, maxStockDelta)
	}
	reason, err := vitrine.ValidateName("reason", reason, 200)
	if err != nil {
		return nil, err
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	ch := a.change()
	ch.Reason = reason // the agent's own
	return s.store.UpdateProduct(ctx, ch, a.TenantID, id, func(p *vitrine.Product) error {
		if p.Stock+delta < 0 {
			return vitrine.Invalid("delta", "the stock would go below zero: it is %d, and delta is %d", p.Stock, delta)
		}
		if p.Stock+delta > vitrine.MaxStock {
			return vitrine.Invalid("delta", "the stock would exceed %d", int64(vitrine.MaxStock))
		}
		p.Stock += delta
		p.UpdatedAt, p.UpdatedBy = s.now(), a.Caller.User.ID
		return nil
	})
}

// MovementPage is a page of stock movements, newest first.
type MovementPage struct {
	Movements  []*vitrine.StockMovement
	NextCursor string
}

// ListStockMovements returns a page of stock movements: of one product, or
// of the whole tenant.
func (s *Service) ListStockMovements(ctx context.Context, a *Access, productID string, limit int, cursor string) (*MovementPage, error) {
	if err := a.Allow(OpListStockMovements); err != nil {
		return nil, err
	}
	if _, err := pageSize(limit); err != nil {
		return nil, err
	}
	if productID != "" {
		if _, err := s.store.ProductByID(ctx, a.TenantID, productID); err != nil {
			return nil, err
		}
	}
	pg, err := openPage[string](ctx, s, "movements\x00"+a.TenantID+"\x00"+productID, limit, cursor)
	if err != nil {
		return nil, err
	}
	var before string
	if pg.after != nil {
		before = *pg.after
	}
	ms, err := s.store.ListStockMovements(ctx, a.TenantID, productID, before, pg.fetch())
	if err != nil {
		return nil, err
	}
	page := &MovementPage{}
	page.Movements, page.NextCursor = closePage(pg, ms, func(m *vitrine.StockMovement) string { return m.ID })
	return page, nil
}

// ProductToDelete returns the product DeleteProduct would delete, for a
// confirmation that names it.
func (s *Service) ProductToDelete(ctx context.Context, a *Access, id string) (*vitrine.Product, error) {
	if err := a.Allow(OpDeleteProduct); err != nil {
		return nil, err
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	return s.store.ProductByID(ctx, a.TenantID, id)
}
