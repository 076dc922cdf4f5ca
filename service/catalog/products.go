package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/sanitize"
	"github.com/vitrine/vitrine/service"
)

// NewProduct holds create_product's arguments as the agent sent them. A
// product of one variant may give its SKU, price and stock at the top;
// one of several gives Variants (and, optionally, Options, else derived
// from the variants).
type NewProduct struct {
	SKU         string
	Name        string
	Description string
	Price       string
	Currency    string // default: the company's
	Stock       int64
	Status      string // default active
	Handle      string // default: made from the name
	Vendor      string
	ProductType string
	Tags        []string
	Options     []vitrine.Option
	Variants    []NewVariant
	Media       []vitrine.Media
	CategoryIDs []string
	Attributes  map[string]any
	SEO         vitrine.SEO
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
	Handle      *string
	Vendor      *string
	ProductType *string
	Tags        *[]string
	Options     *[]vitrine.Option
	Media       *[]vitrine.Media
	CategoryIDs *[]string
	// Attributes sets the values given; a null value removes one.
	Attributes map[string]any
	SEO        *vitrine.SEO
	// ExpectedVersion, when set, makes the update fail with a ConflictError
	// if the product changed since the agent read that version.
	ExpectedVersion *int64
}

// GetProduct returns a product by id or by SKU: exactly one of them.
func (s *Catalog) GetProduct(ctx context.Context, a *service.Access, id, sku string) (*vitrine.Product, error) {
	return s.FindProduct(ctx, a, id, sku, "")
}

// FindProduct returns a product by exactly one of its id, a variant's SKU
// (any case) or its handle.
func (s *Catalog) FindProduct(ctx context.Context, a *service.Access, id, sku, handle string) (*vitrine.Product, error) {
	if err := a.Allow(service.OpGetProduct); err != nil {
		return nil, err
	}
	given := 0
	for _, s := range []string{id, sku, handle} {
		if s != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, vitrine.Invalid("id", "give only one of id, sku and handle; got %d", given)
	case id != "":
		if !vitrine.ValidID(id) {
			return nil, vitrine.NotFound("Product")
		}
		return s.store.ProductByID(ctx, a.TenantID, id)
	case sku != "":
		return s.store.ProductBySKU(ctx, a.TenantID, sku)
	case handle != "":
		found, err := s.store.ProductsByHandle(ctx, a.TenantID, []string{strings.ToLower(strings.TrimSpace(handle))})
		if err != nil {
			return nil, err
		}
		for _, p := range found {
			return p, nil
		}
		return nil, vitrine.NotFound("Product")
	}
	return nil, vitrine.Invalid("id", "give the product's id, its sku or its handle")
}

// IdempotencyTTL is how long create_product remembers an idempotency key.
const IdempotencyTTL = 24 * time.Hour

// maxKeyLength bounds an idempotency key.
const maxKeyLength = 200

// handleTries bounds the handles tried for a product whose handle is made
// from its name: the name's, then with -2, -3, ...
const handleTries = 20

// CreateProduct adds a product to the tenant's catalog. With an
// idempotency key, a retry with the same key and arguments returns the
// product the first call created, instead of a duplicate.
func (s *Catalog) CreateProduct(ctx context.Context, a *service.Access, in NewProduct, idempotencyKey string) (*vitrine.Product, error) {
	if err := a.Allow(service.OpCreateProduct); err != nil {
		return nil, err
	}
	currency, err := s.currencyOf(ctx, a)
	if err != nil {
		return nil, err
	}
	p, err := s.validateNew(in, s.taxonomyOf(ctx, a.TenantID), currency)
	if err != nil {
		return nil, err
	}
	var key *vitrine.IdempotencyKey
	if idempotencyKey != "" {
		if n := utf8.RuneCountInString(idempotencyKey); n > maxKeyLength {
			return nil, vitrine.Invalid("idempotency_key", "idempotency_key is %d characters long; the limit is %d", n, maxKeyLength)
		}
		key = &vitrine.IdempotencyKey{UserID: a.Caller.User.ID, Key: idempotencyKey, RequestHash: requestHash(in), ExpiresAt: s.now().Add(IdempotencyTTL)}
	}
	s.stamp(a, p)
	base := p.Handle
	for try := 1; ; try++ {
		out, err := s.store.CreateProduct(ctx, a.Change(), p, key)
		if e := vitrine.AsError(err); in.Handle == "" && try < handleTries && e != nil && e.Type == vitrine.ConflictError && e.Field == "handle" {
			p.Handle = fmt.Sprintf("%s-%d", base, try+1)
			continue
		}
		return out, err
	}
}

// stamp makes p a new product of a's tenant.
func (s *Catalog) stamp(a *service.Access, p *vitrine.Product) {
	now := s.now()
	p.ID = vitrine.NewID()
	p.TenantID = a.TenantID
	p.Version = 1
	p.CreatedAt, p.UpdatedAt = now, now
	p.CreatedBy, p.UpdatedBy = a.Caller.User.ID, a.Caller.User.ID
	for _, v := range p.Variants {
		if v.ID == "" {
			v.ID = vitrine.NewID()
		}
	}
}

// requestHash identifies the arguments of a create, for its idempotency key.
func requestHash(in NewProduct) string {
	b, _ := json.Marshal(in)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// currencyOf is the currency of the access's company: that of its new
// products, imports and price filters unless they say otherwise.
func (s *Catalog) currencyOf(ctx context.Context, a *service.Access) (string, error) {
	t, err := s.store.TenantByID(ctx, a.TenantID)
	if err != nil {
		return "", err
	}
	return or(t.Currency, vitrine.DefaultCurrency), nil
}

// validateNew checks a new product's fields in the order the tool lists
// them and returns the product they describe; its currency is currency
// unless it gives one.
func (s *Catalog) validateNew(in NewProduct, tx *taxonomy, currency string) (*vitrine.Product, error) {
	p := &vitrine.Product{Vendor: in.Vendor, ProductType: in.ProductType, Tags: in.Tags, Options: in.Options, Media: in.Media, SEO: in.SEO}
	var err error
	if p.Name, err = vitrine.ValidateName("name", in.Name, vitrine.MaxProductNameLength); err != nil {
		return nil, err
	}
	if p.Description, err = validDescription("description", in.Description); err != nil {
		return nil, err
	}
	if p.Handle, err = handleFor(in.Handle, p.Name); err != nil {
		return nil, err
	}
	code, scale, err := vitrine.NormalizeCurrency("currency", or(in.Currency, or(currency, vitrine.DefaultCurrency)))
	if err != nil {
		return nil, err
	}
	p.Currency = code
	p.Status = vitrine.ProductActive
	if in.Status != "" {
		if p.Status, err = vitrine.ParseProductStatus("status", in.Status); err != nil {
			return nil, err
		}
	}
	switch {
	case len(in.Variants) == 0:
		// The seed's product: one variant, at the top.
		v := NewVariant{SKU: in.SKU, Price: in.Price, Stock: in.Stock}
		if in.Price == "" {
			return nil, vitrine.Invalid("price", "price is required")
		}
		variant, err := newVariant("", v, code, scale)
		if err != nil {
			return nil, err
		}
		p.Variants = []*vitrine.Variant{variant}
	case in.SKU != "" || in.Price != "" || in.Stock != 0:
		return nil, vitrine.Invalid("variants", "give sku, price and stock either at the top (a product of one variant) or in each of variants, not both")
	default:
		for i, nv := range in.Variants {
			v, err := newVariant(fmt.Sprintf("variants[%d].", i), nv, code, scale)
			if err != nil {
				return nil, err
			}
			p.Variants = append(p.Variants, v)
		}
	}
	var defs map[string]*vitrine.Attribute
	if len(in.CategoryIDs) > 0 || len(in.Attributes) > 0 {
		cats, d, err := tx.get()
		if err != nil {
			return nil, err
		}
		if err := checkCategories(p, cats, in.CategoryIDs); err != nil {
			return nil, err
		}
		defs = d
	}
	if len(in.Attributes) > 0 {
		p.Attributes = make(map[string]any, len(in.Attributes))
		for k, v := range in.Attributes {
			p.Attributes[k] = v
		}
	}
	if err := p.ValidateCatalog(defs); err != nil {
		return nil, err
	}
	return p, nil
}

// checkCategories puts the categories of those ids in p, each one of the
// company's (all).
func checkCategories(p *vitrine.Product, all []*vitrine.Category, ids []string) error {
	if len(ids) == 0 {
		p.Categories = nil
		return nil
	}
	if len(ids) > vitrine.MaxCategories {
		return vitrine.Invalid("category_ids", "a product may be in at most %d categories; got %d", vitrine.MaxCategories, len(ids))
	}
	p.Categories = p.Categories[:0]
	for i, id := range ids {
		j := slices.IndexFunc(all, func(c *vitrine.Category) bool { return c.ID == id })
		if j < 0 {
			return vitrine.Invalid(fmt.Sprintf("category_ids[%d]", i), "no category %q in this company (list_categories lists them)", id)
		}
		if !slices.ContainsFunc(p.Categories, func(c vitrine.ProductCategory) bool { return c.ID == id }) {
			p.Categories = append(p.Categories, vitrine.ProductCategory{ID: id, Name: all[j].Name})
		}
	}
	return nil
}

func validDescription(field, d string) (string, error) {
	d, err := vitrine.ValidateDescription(field, d)
	if err != nil {
		return "", err
	}
	return sanitize.Description(d), nil
}

// handleFor checks a handle given, or makes one of the name.
func handleFor(handle, name string) (string, error) {
	if handle != "" {
		return vitrine.ValidateHandle("handle", handle)
	}
	if h := vitrine.HandleOf(name); h != "" {
		return h, nil
	}
	return "product", nil
}

// UpdateProduct changes some fields of a product. The change applies to
// the latest version, under a lock that queues concurrent writers; with
// ExpectedVersion it fails instead if that is not the version it finds.
// The top-level sku, price and stock change a product of one variant.
func (s *Catalog) UpdateProduct(ctx context.Context, a *service.Access, id string, ch ProductChanges) (*vitrine.Product, error) {
	if err := a.Allow(service.OpUpdateProduct); err != nil {
		return nil, err
	}
	if err := ch.check(); err != nil {
		return nil, err
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	var (
		all  []*vitrine.Category
		defs map[string]*vitrine.Attribute // nil: the values stay as they were checked
		err  error
	)
	if ch.CategoryIDs != nil || len(ch.Attributes) > 0 {
		if all, defs, err = s.taxonomyOf(ctx, a.TenantID).get(); err != nil {
			return nil, err
		}
	}
	var cats *vitrine.Product
	if ch.CategoryIDs != nil {
		cats = &vitrine.Product{}
		if err := checkCategories(cats, all, *ch.CategoryIDs); err != nil {
			return nil, err
		}
	}
	return s.store.UpdateProduct(ctx, a.Change(), a.TenantID, id, func(p *vitrine.Product) error {
		if ch.ExpectedVersion != nil && *ch.ExpectedVersion != p.Version {
			return staleVersion(*ch.ExpectedVersion, p.Version)
		}
		if err := ch.applyTo(p, cats); err != nil {
			return err
		}
		dropUndefined(p, defs)
		if err := p.ValidateCatalog(defs); err != nil {
			return err
		}
		p.UpdatedAt, p.UpdatedBy = s.now(), a.Caller.User.ID
		return nil
	})
}

// dropUndefined removes the values of attributes no longer defined (a
// definition is deleted only when no product has a value of it; this
// covers a value written concurrently with the deletion).
func dropUndefined(p *vitrine.Product, defs map[string]*vitrine.Attribute) {
	if defs == nil {
		return
	}
	for k := range p.Attributes {
		if defs[k] == nil {
			delete(p.Attributes, k)
		}
	}
}

func staleVersion(expected, current int64) error {
	return vitrine.Conflict("expected_version",
		"The product is at version %d, not %d: someone changed it since you read it. Fetch it again with get_product, check the changes, and retry with expected_version %d",
		current, expected, current)
}

// check validates the fields that need no product to check, in the
// order the tool lists them.
func (ch ProductChanges) check() error {
	if ch.SKU != nil && *ch.SKU != "" {
		if _, _, err := vitrine.ValidateSKU("sku", *ch.SKU); err != nil {
			return err
		}
	}
	if ch.Name != nil {
		if _, err := vitrine.ValidateName("name", *ch.Name, vitrine.MaxProductNameLength); err != nil {
			return err
		}
	}
	if ch.Description != nil {
		if _, err := vitrine.ValidateDescription("description", *ch.Description); err != nil {
			return err
		}
	}
	if ch.Price != nil {
		// Syntax now, decimals once the currency is known.
		if err := vitrine.CheckPrice("price", *ch.Price); err != nil {
			return err
		}
	}
	if ch.Currency != nil {
		if _, _, err := vitrine.NormalizeCurrency("currency", *ch.Currency); err != nil {
			return err
		}
	}
	if ch.Stock != nil {
		if err := vitrine.ValidateStock("stock", *ch.Stock); err != nil {
			return err
		}
	}
	if ch.Status != nil {
		if _, err := vitrine.ParseProductStatus("status", *ch.Status); err != nil {
			return err
		}
	}
	if ch.Handle != nil {
		if _, err := vitrine.ValidateHandle("handle", *ch.Handle); err != nil {
			return err
		}
	}
	if ch.empty() {
		return vitrine.Invalid("id", "nothing to change: give at least one field to change, such as name, price, status, tags or media")
	}
	return nil
}

// empty reports whether the changes change nothing.
func (ch ProductChanges) empty() bool {
	return ch.SKU == nil && ch.Name == nil && ch.Description == nil && ch.Price == nil && ch.Currency == nil && ch.Stock == nil &&
		ch.Status == nil && ch.Handle == nil && ch.Vendor == nil && ch.ProductType == nil && ch.Tags == nil && ch.Options == nil &&
		ch.Media == nil && ch.CategoryIDs == nil && len(ch.Attributes) == 0 && ch.SEO == nil
}

// applyTo writes the changes over p; cats holds the categories checked.
// A currency change without a price keeps each amount if the new currency
// can express it exactly (10.50 BRL becomes 10.50 USD).
func (ch ProductChanges) applyTo(p *vitrine.Product, cats *vitrine.Product) error {
	if (ch.SKU != nil || ch.Price != nil || ch.Stock != nil) && len(p.Variants) != 1 {
		return vitrine.Invalid(firstOf(ch), "this product has %d variants: change a variant's sku, price or stock with update_variant or adjust_stock", len(p.Variants))
	}
	if ch.Name != nil {
		p.Name, _ = vitrine.ValidateName("name", *ch.Name, vitrine.MaxProductNameLength)
	}
	if ch.Description != nil {
		p.Description, _ = validDescription("description", *ch.Description)
	}
	if ch.Handle != nil {
		p.Handle = strings.TrimSpace(*ch.Handle)
	}
	if ch.Status != nil {
		p.Status = vitrine.ProductStatus(*ch.Status)
	}
	set(&p.Vendor, ch.Vendor)
	set(&p.ProductType, ch.ProductType)
	set(&p.Tags, ch.Tags)
	set(&p.Options, ch.Options)
	set(&p.Media, ch.Media)
	set(&p.SEO, ch.SEO)
	if cats != nil {
		p.Categories = cats.Categories
	}
	for k, v := range ch.Attributes {
		if v == nil {
			delete(p.Attributes, k)
			continue
		}
		if p.Attributes == nil {
			p.Attributes = map[string]any{}
		}
		p.Attributes[k] = v
	}
	if ch.Options != nil {
		// Values a variant holds must stay among the options': said by
		// ValidateCatalog, which names the variant.
		for _, v := range p.Variants {
			for name := range v.Options {
				if !slices.ContainsFunc(p.Options, func(o vitrine.Option) bool { return o.Name == name }) {
					delete(v.Options, name)
				}
			}
		}
	}
	if ch.SKU != nil {
		v := p.Variants[0]
		v.SKU = strings.TrimSpace(*ch.SKU)
	}
	if ch.Stock != nil {
		p.Variants[0].Stock = *ch.Stock
	}
	fromScale := vitrine.CurrencyScale(p.Currency)
	if ch.Currency != nil {
		p.Currency, _, _ = vitrine.NormalizeCurrency("currency", *ch.Currency)
	}
	scale := vitrine.CurrencyScale(p.Currency)
	if ch.Price != nil {
		minor, err := vitrine.ParsePrice("price", *ch.Price, scale)
		if err != nil {
			return err
		}
		p.Variants[0].Price = minor
	}
	if fromScale != scale {
		for _, v := range p.Variants {
			if ch.Price == nil || len(p.Variants) > 1 {
				minor, ok := vitrine.Rescale(v.Price, fromScale, scale)
				if !ok {
					return vitrine.Invalid("price", "the current price %s has no exact form in %s; give the price in the new currency too",
						vitrine.FormatPrice(v.Price, fromScale), p.Currency)
				}
				v.Price = minor
			}
			if v.CompareAtPrice != nil {
				minor, ok := vitrine.Rescale(*v.CompareAtPrice, fromScale, scale)
				if !ok {
					return vitrine.Invalid("currency", "the compare-at price %s has no exact form in %s", vitrine.FormatPrice(*v.CompareAtPrice, fromScale), p.Currency)
				}
				v.CompareAtPrice = &minor
			}
		}
	}
	return nil
}

func firstOf(ch ProductChanges) string {
	switch {
	case ch.SKU != nil:
		return "sku"
	case ch.Price != nil:
		return "price"
	}
	return "stock"
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// DeleteProduct removes a product for good.
func (s *Catalog) DeleteProduct(ctx context.Context, a *service.Access, id string) error {
	if err := a.Allow(service.OpDeleteProduct); err != nil {
		return err
	}
	if !vitrine.ValidID(id) {
		return vitrine.NotFound("Product")
	}
	return s.store.DeleteProduct(ctx, a.Change(), a.TenantID, id)
}

// ProductToDelete returns the product DeleteProduct would delete, for a
// confirmation that names it.
func (s *Catalog) ProductToDelete(ctx context.Context, a *service.Access, id string) (*vitrine.Product, error) {
	if err := a.Allow(service.OpDeleteProduct); err != nil {
		return nil, err
	}
	if !vitrine.ValidID(id) {
		return nil, vitrine.NotFound("Product")
	}
	return s.store.ProductByID(ctx, a.TenantID, id)
}
