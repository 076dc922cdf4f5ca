package shopwindow

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
)

// Bounds of what one request may ask of a window.
const (
	// maxLookupIDs bounds a lookup's identifiers: UCP asks for at least 10.
	maxLookupIDs = 50
	// defaultSearchLimit is a search page's size when none is asked (UCP's
	// default); maxSearchLimit the largest, to which a larger one is
	// clamped silently, as UCP allows.
	defaultSearchLimit = 10
	maxSearchLimit     = 50
	maxIDLength        = 255
	maxFilterValues    = 20
	maxSelected        = vitrine.MaxOptions
)

// ucpError is a request the window could not process: a transport error,
// answered with an HTTP status on REST and a JSON-RPC error on MCP, its
// code and content in the body (UCP's error codes).
type ucpError struct {
	status  int
	rpc     int64
	code    string
	content string
	// retryAfter is how long a client past a limit waits (429 only).
	retryAfter time.Duration
}

func (e *ucpError) Error() string { return e.code + ": " + e.content }

// JSON-RPC codes: invalid params (a request UCP's schema refuses, a batch
// past the limit), UCP's negotiation failures, and the protocol errors of
// a server (rate limit).
const (
	rpcInvalidParams = -32602
	rpcNegotiation   = -32001
	rpcProtocol      = -32000
)

func invalid(format string, args ...any) *ucpError {
	return &ucpError{status: http.StatusBadRequest, rpc: rpcInvalidParams, code: "invalid_request", content: fmt.Sprintf(format, args...)}
}

// Requests, as UCP's schemas write them (context, signals and attribution
// are hints a catalog may ignore, and this one does).
type searchFilters struct {
	Categories []string     `json:"categories,omitempty"`
	Price      *priceFilter `json:"price,omitempty"`
}

type priceFilter struct {
	Min *int64 `json:"min,omitempty"`
	Max *int64 `json:"max,omitempty"`
}

type requestContext struct {
	Currency string `json:"currency,omitempty"`
}

type searchRequest struct {
	Query      string          `json:"query,omitempty"`
	Filters    *searchFilters  `json:"filters,omitempty"`
	Context    *requestContext `json:"context,omitempty"`
	Pagination *struct {
		Cursor string `json:"cursor,omitempty"`
		Limit  *int   `json:"limit,omitempty"`
	} `json:"pagination,omitempty"`
}

type lookupRequest struct {
	IDs     []string        `json:"ids"`
	Filters *searchFilters  `json:"filters,omitempty"`
	Context *requestContext `json:"context,omitempty"`
}

type productRequest struct {
	ID          string           `json:"id"`
	Selected    []selectedOption `json:"selected,omitempty"`
	Preferences []string         `json:"preferences,omitempty"`
	Filters     *searchFilters   `json:"filters,omitempty"`
	Context     *requestContext  `json:"context,omitempty"`
}

// catalog answers the three operations of one window, reading the
// catalog as the window's Shopper (service/catalog): its company's active
// products, on list_products' query and paging.
type catalog struct{}

// newView reads what the mapping needs of the window: the public
// attributes, only when a product holds attributes at all.
func (c *catalog) newView(ctx context.Context, win *Window, ps []*vitrine.Product) (*view, error) {
	v := &view{win: win, public: map[string]bool{}}
	if !slices.ContainsFunc(ps, func(p *vitrine.Product) bool { return len(p.Attributes) > 0 }) {
		return v, nil
	}
	defs, err := win.reader.PublicAttributes(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		v.public[d.Key] = true
	}
	return v, nil
}

// filter is a request's filters in the store's terms.
type filter struct {
	categoryID  string          // "-" when the categories named are none of the company's
	categoryIDs []string        // the categories named: a product in any of them, or under one
	categories  map[string]bool // the ids of the categories named, and of those under them
	min, max    *int64
	// catalogMin and catalogMax are min and max as bounds of the
	// catalog's prices, in the company's currency (a market's window
	// converts them).
	catalogMin, catalogMax *int64
	// marketPrices says the window is a market's with prices of its own:
	// min and max bound the market's prices, which no bound of the
	// catalog's says (a search asks by them: ProductQuery.MarketPrices).
	marketPrices bool
	notes        []message
	// query is a search's query, which may name a variant (featured.go),
	// read in the language of locale ("": vitrine.DefaultLocale's).
	query, locale string
}

// readFilters checks a request's filters. A category names a category of
// the company by its name or its path ("Parent > Child"), any case; one
// that names none matches nothing. Prices are the company's currency's
// minor units: a filter in another currency is not applied, and a message
// says so.
func (c *catalog) readFilters(ctx context.Context, win *Window, f *searchFilters, rc *requestContext) (*filter, error) {
	out := &filter{}
	if f == nil {
		return out, nil
	}
	if f.Price != nil {
		if (f.Price.Min != nil && *f.Price.Min < 0) || (f.Price.Max != nil && *f.Price.Max < 0) {
			return nil, invalid("filters.price: min and max are amounts in minor units, 0 or more")
		}
		if f.Price.Min != nil && f.Price.Max != nil && *f.Price.Min > *f.Price.Max {
			return nil, invalid("filters.price: max must not be below min")
		}
		if cur := win.reader.Currency(); rc != nil && rc.Currency != "" && !strings.EqualFold(rc.Currency, cur) {
			out.notes = append(out.notes, message{Type: "warning", Code: "filter_not_applied", Path: "$.filters.price",
				Content: fmt.Sprintf("Prices are in %s; the price filter in %s was not applied.", cur, strings.ToUpper(rc.Currency))})
		} else {
			// In a market, the catalog's prices whose conversions fall
			// within the range: exact, as the conversion never decreases
			// with the price. Explicit prices are no conversion: in a
			// market that has them, a search asks by the market's prices.
			lo, hi, own, err := win.reader.CatalogPriceBounds(ctx, f.Price.Min, f.Price.Max)
			if err != nil {
				return nil, err
			}
			out.min, out.max, out.catalogMin, out.catalogMax, out.marketPrices = f.Price.Min, f.Price.Max, lo, hi, own
		}
	}
	if len(f.Categories) > maxFilterValues {
		return nil, invalid("filters.categories names at most %d categories; got %d", maxFilterValues, len(f.Categories))
	}
	if len(f.Categories) == 0 {
		return out, nil
	}
	// A category is named in the window's locale, or as it is written.
	all, err := win.reader.Categories(ctx)
	if err != nil {
		return nil, err
	}
	source, err := win.reader.SourceCategories(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]*vitrine.Category{}
	for _, cat := range all {
		byID[cat.ID] = cat
	}
	out.categories = map[string]bool{}
	var named []string
	for _, cats := range [][]*vitrine.Category{all, source} {
		in := map[string]*vitrine.Category{}
		for _, cat := range cats {
			in[cat.ID] = cat
		}
		path := func(cat *vitrine.Category) string {
			parts := []string{cat.Name}
			for p, n := in[cat.ParentID], 0; p != nil && n < 20; p, n = in[p.ParentID], n+1 {
				parts = append([]string{p.Name}, parts...)
			}
			return strings.Join(parts, " > ")
		}
		for _, want := range f.Categories {
			w := vitrine.Fold(strings.TrimSpace(want))
			for _, cat := range cats {
				if vitrine.Fold(cat.Name) == w || vitrine.Fold(path(cat)) == w || cat.ID == want {
					if !slices.Contains(named, cat.ID) {
						named = append(named, cat.ID)
					}
				}
			}
		}
	}
	// The categories named and those under them, for lookups.
	for _, cat := range all {
		for p, n := cat, 0; p != nil && n < 20; p, n = byID[p.ParentID], n+1 {
			if slices.Contains(named, p.ID) {
				out.categories[cat.ID] = true
				break
			}
		}
	}
	// UCP: a product in any of the categories named (or under one).
	if len(named) == 0 {
		out.categoryID = "-" // names none: matches nothing
	}
	out.categoryIDs = named
	return out, nil
}

// keepsProduct applies the category filter to a product found by id.
func (f *filter) keepsProduct(p *vitrine.Product) bool {
	if f.categories == nil {
		return true
	}
	return slices.ContainsFunc(p.Categories, func(c vitrine.ProductCategory) bool { return f.categories[c.ID] })
}

// keepsVariant applies the price filter to a variant.
func (f *filter) keepsVariant(v *vitrine.Variant) bool {
	return (f.min == nil || v.Price >= *f.min) && (f.max == nil || v.Price <= *f.max)
}

// search answers search_catalog: the active products the query and the
// filters keep, a page at a time, through the Shopper's Search (the query
// admin list_products runs).
func (c *catalog) search(ctx context.Context, win *Window, req *searchRequest) (*searchResponse, error) {
	query := strings.TrimSpace(req.Query)
	words, err := win.reader.SearchText(query)
	if err != nil {
		return nil, invalidOf(err)
	}
	hasFilter := req.Filters != nil && (len(req.Filters.Categories) > 0 || req.Filters.Price != nil)
	if !words && !hasFilter {
		return nil, invalid("a search needs a query (words of the products' names or descriptions) or filters (categories, price)")
	}
	fl, err := c.readFilters(ctx, win, req.Filters, req.Context)
	if err != nil {
		return nil, err
	}
	fl.query, fl.locale = query, win.reader.QueryLocale()
	if fl.categoryID == "-" {
		return &searchResponse{UCP: envelopeFor(CapSearch, ""), Products: []*product{}, Pagination: &pagination{}, Messages: fl.notes}, nil
	}
	q := vitrine.ProductQuery{CategoryIDs: fl.categoryIDs}
	if words {
		q.Query = vitrine.QueryText(query)
	}
	if fl.marketPrices {
		q.MarketPrices = &vitrine.MarketPriceRange{Min: fl.min, Max: fl.max}
	} else if fl.min != nil || fl.max != nil {
		// The store's bounds are the catalog's prices, in the company's
		// currency's minor units.
		code, scale, err := vitrine.NormalizeCurrency("currency", win.reader.Tenant().Currency)
		if err != nil {
			return nil, err
		}
		q.Currency = vitrine.CurrencyCode(code)
		if fl.catalogMin != nil {
			q.MinPrice = vitrine.Decimal(vitrine.FormatPrice(*fl.catalogMin, scale))
		}
		if fl.catalogMax != nil {
			q.MaxPrice = vitrine.Decimal(vitrine.FormatPrice(*fl.catalogMax, scale))
		}
	}
	limit, cursor := defaultSearchLimit, ""
	if p := req.Pagination; p != nil {
		if p.Limit != nil {
			// UCP's schema: minimum 1; a larger one than the window's
			// largest page is clamped, as UCP allows.
			if *p.Limit < 1 {
				return nil, invalid("pagination.limit must be 1 or more")
			}
			limit = min(*p.Limit, maxSearchLimit)
		}
		cursor = p.Cursor
	}
	page, err := win.reader.Search(ctx, q, limit, cursor)
	if err != nil {
		if e, ok := err.(*vitrine.Error); ok && e.Field == "cursor" {
			return nil, invalid("pagination.cursor is not a cursor of this search: start again without one")
		}
		return nil, invalidOf(err)
	}
	v, err := c.newView(ctx, win, page.Products)
	if err != nil {
		return nil, err
	}
	out := &searchResponse{UCP: envelopeFor(CapSearch, ""), Products: make([]*product, 0, len(page.Products)),
		Pagination: &pagination{Cursor: page.NextCursor, HasNextPage: page.NextCursor != ""}, Messages: fl.notes}
	for _, p := range page.Products {
		out.Products = append(out.Products, v.listed(p, fl))
	}
	return out, nil
}

// invalidOf answers a ValidationError of the service as a request UCP's
// schema refuses, with its message; any other error as it is.
func invalidOf(err error) error {
	if e, ok := err.(*vitrine.Error); ok && e.Type == vitrine.ValidationError {
		return invalid("%s", e.Message)
	}
	return err
}

// checkID checks one identifier of a request.
func checkID(field, id string) error {
	if id == "" || len(id) > maxIDLength || !utf8.ValidString(id) || strings.ContainsFunc(id, func(r rune) bool { return r < ' ' }) {
		return invalid("%s must be an identifier of 1 to %d characters", field, maxIDLength)
	}
	return nil
}

// lookup answers lookup_catalog: each identifier resolved to its product,
// each product once, with the variants the identifiers name (exact) or
// the featured one (for a product's id or handle), each with the
// identifiers that resolved to it.
func (c *catalog) lookup(ctx context.Context, win *Window, req *lookupRequest) (*lookupResponse, error) {
	if len(req.IDs) == 0 {
		return nil, invalid("ids must name at least one product or variant")
	}
	ids := make([]string, 0, min(len(req.IDs), maxLookupIDs+1))
	seen := make(map[string]bool, len(ids))
	for i, id := range req.IDs {
		if err := checkID(fmt.Sprintf("ids[%d]", i), id); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) > maxLookupIDs {
		return nil, &ucpError{status: http.StatusBadRequest, rpc: rpcInvalidParams, code: "request_too_large",
			content: fmt.Sprintf("A lookup names at most %d identifiers; this one names %d. Split it.", maxLookupIDs, len(ids))}
	}
	fl, err := c.readFilters(ctx, win, req.Filters, req.Context)
	if err != nil {
		return nil, err
	}
	type hit struct {
		p      *vitrine.Product
		inputs map[string][]inputCorrelation // by variant id
	}
	var order []string
	hits := map[string]*hit{}
	out := &lookupResponse{UCP: envelopeFor(CapLookup, ""), Products: []*product{}, Messages: fl.notes}
	found, err := win.reader.Products(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		r := found[id]
		if r.Product == nil {
			out.Messages = append(out.Messages, message{Type: "info", Code: "not_found", Content: id})
			continue
		}
		p, variantID := r.Product, r.VariantID
		h := hits[p.ID]
		if h == nil {
			h = &hit{p: p, inputs: map[string][]inputCorrelation{}}
			hits[p.ID] = h
			order = append(order, p.ID)
		}
		match := "exact"
		if variantID == "" {
			variantID, match = featured(p, fl), "featured"
		}
		if variantID != "" {
			h.inputs[variantID] = append(h.inputs[variantID], inputCorrelation{ID: id, Match: match})
		}
	}
	var all []*vitrine.Product
	for _, id := range order {
		all = append(all, hits[id].p)
	}
	v, err := c.newView(ctx, win, all)
	if err != nil {
		return nil, err
	}
	for _, id := range order {
		h := hits[id]
		if !fl.keepsProduct(h.p) {
			continue
		}
		pp := v.productOf(h.p)
		var kept []*variant
		for i, vr := range h.p.Variants {
			in := h.inputs[vr.ID]
			if len(in) == 0 || !fl.keepsVariant(vr) {
				continue
			}
			pv := pp.Variants[i]
			pv.Inputs = in
			kept = append(kept, pv)
		}
		if len(kept) == 0 {
			continue
		}
		pp.Variants = kept
		out.Products = append(out.Products, pp)
	}
	return out, nil
}

// featured is the variant shown for a product as a whole, by the rule of
// a list row's (vitrine.Product.CheapestVariant): the cheapest available
// within the filter, else the cheapest within it; "" when none is.
func featured(p *vitrine.Product, fl *filter) string {
	v := p.CheapestVariant(func(v *vitrine.Variant) bool { return fl.keepsVariant(v) && availabilityOf(v).Available })
	if v == nil {
		v = p.CheapestVariant(fl.keepsVariant)
	}
	if v == nil {
		return ""
	}
	return v.ID
}

// Bounds of a product as a search lists it: a list to choose from, whose
// detail get_product gives.
const (
	listedDescription = 300 // runes of plain text
	listedMedia       = 1
)

// listed is a product as a search answers it: its featured variant alone
// (the cheapest available within the price filter), its first image, its
// description's text shortened; the options say what else there is.
func (v *view) listed(p *vitrine.Product, fl *filter) *product {
	pp := v.productOf(p)
	id := namedVariant(p, fl, fl.query)
	if id == "" {
		id = featured(p, fl)
	}
	if id != "" {
		i := slices.IndexFunc(p.Variants, func(x *vitrine.Variant) bool { return x.ID == id })
		pp.Variants = pp.Variants[i : i+1]
	} else if len(pp.Variants) > 1 {
		pp.Variants = pp.Variants[:1]
	}
	if len(pp.Media) > listedMedia {
		pp.Media = pp.Media[:listedMedia]
	}
	pp.Description = description{Plain: truncate(pp.Description.Plain, listedDescription)}
	return pp
}
