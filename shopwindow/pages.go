package shopwindow

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vitrine/vitrine"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
)

// The window's pages, for people and search engines: its home page at the
// window's root (search, categories, product cards, pages by cursor), a
// page per active product at /products/{handle} (with schema.org JSON-LD,
// productld.go), /sitemap.xml and /robots.txt (sitemap.go). Plain HTML
// rendered on the server: no script runs, a strict CSP says so, and every
// name is rendered as text. The same rules as the window's other routes:
// only the company's active products and public fields, the same 404 for
// whatever is not shown, tagged by the catalog's stamp.

//go:embed pages/pages.html pages/style.css
var pageAssets embed.FS

var pageTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("pages").Funcs(template.FuncMap{"join": strings.Join}).ParseFS(pageAssets, "pages/pages.html"))
})

// pageStyle is the pages' style sheet, inlined in each page and allowed by
// its hash: the page needs no other request than its images.
var pageStyle = sync.OnceValues(func() (template.CSS, string) {
	b, err := pageAssets.ReadFile("pages/style.css")
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return template.CSS(b), "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
})

// Bounds of a page.
const (
	homePageSize = 24
	// A product's page shows at most this many variants and images: a
	// product holds no more (vitrine.MaxVariants, vitrine.MaxMedia), and
	// the page stays bounded if that changes.
	maxPageVariants = 100
	maxPageImages   = 250
	maxPageCategory = 100 // categories listed on the home page (ShownCategories gives at most 50)
	maxHandleLength = 255
)

// pageRoute names a page's route, "" for none: GET and HEAD only.
func pageRoute(method, path string) string {
	if method != http.MethodGet && method != http.MethodHead {
		return ""
	}
	switch path {
	case "/":
		return "home"
	case "/sitemap.xml":
		return "sitemap"
	case "/robots.txt":
		return "robots"
	}
	if h, ok := strings.CutPrefix(path, "/products/"); ok && h != "" && !strings.Contains(h, "/") {
		return "page"
	}
	return ""
}

// pageURL is the URL of the window's own page of a product.
func (win *Window) pageURL(handle string) string {
	return win.link("/products/"+url.PathEscape(handle), nil)
}

// errPageNotFound is a page the window does not show.
var errPageNotFound = errors.New("page not found")

// servePage answers a page: tagged by the catalog's stamp and the URL,
// 304 when the client has it; the window's one 404 for whatever it does
// not show.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, win *Window, route, path string) {
	win = win.inLocale(r.URL.Query().Get("locale"))
	stamp, err := s.catalog.stamp(r.Context(), win)
	if err != nil {
		s.internal(w, r, "read a catalog's stamp", err)
		return
	}
	h := w.Header()
	etag := tag([]byte(stamp), []byte(route), []byte(win.Base), []byte(win.Origin), []byte(path), []byte(r.URL.RawQuery))
	if matchesETag(r.Header.Get("If-None-Match"), etag) {
		h.Set("ETag", etag)
		h.Set("Cache-Control", "public, no-cache")
		s.metrics.requests.WithLabelValues(win.Tenant.Slug, route, "not_modified").Inc()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var buf bytes.Buffer
	status, ctype := http.StatusOK, "text/html; charset=utf-8"
	switch route {
	case "home":
		status, err = s.homePage(r.Context(), &buf, win, r.URL.Query())
	case "page":
		err = s.productPage(r.Context(), &buf, win, strings.TrimPrefix(path, "/products/"), r.URL.Query().Get("variant"))
	case "sitemap":
		ctype = "application/xml; charset=utf-8"
		err = s.sitemap(r.Context(), &buf, win)
	case "robots":
		ctype = "text/plain; charset=utf-8"
		buf.WriteString("User-agent: *\nAllow: /\nDisallow: /ucp/\n\nSitemap: " + win.Base + "/sitemap.xml\n")
	}
	if errors.Is(err, errPageNotFound) {
		// As a window nobody has: no header of this one's.
		h.Del("Vary")
		s.metrics.requests.WithLabelValues(win.Tenant.Slug, route, "not_found").Inc()
		s.notFound(w)
		return
	}
	if err != nil {
		s.internal(w, r, route+" page", err)
		return
	}
	s.metrics.requests.WithLabelValues(win.Tenant.Slug, route, "ok").Inc()
	if status == http.StatusOK {
		h.Set("ETag", etag)
		h.Set("Cache-Control", "public, no-cache")
	}
	h.Set("Content-Type", ctype)
	win.sayLanguage(h)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if ctype == "text/html; charset=utf-8" {
		_, hash := pageStyle()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src "+hash+"; img-src https: "+win.Origin+
			"; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// page is what every page shows: the company, the search form.
type page struct {
	Lang, Title, Description, Canonical string
	NoIndex                             bool
	CSS                                 template.CSS
	Shop, Home, Query                   string
	T                                   map[string]string
	// Locale is the window's locale, kept by the search form, when it is
	// not the window's first.
	Locale string
}

// pageLocale is the window's language, from the country it sells to
// (pt-BR for Brazil; English without one), and a printer of its prices.
type pageLocale struct {
	tag     language.Tag
	printer *xmessage.Printer
	text    map[string]string
}

// locales are the locales made so far, by country: a printer is
// immutable, and the countries a window may name are ISO 3166's.
var locales sync.Map

// localeOfWindow is the window's language: its locale when it has
// several or is a market's, else its country's.
func localeOfWindow(win *Window) *pageLocale {
	lang := win.language()
	if lang == "" {
		return localeOf(win.Shop)
	}
	return localeOfLanguage(lang, win.Shop)
}

// localeOfLanguage is the page locale of a BCP 47 tag; the shop's
// country's when the tag does not parse.
func localeOfLanguage(lang string, shop *vitrine.Shop) *pageLocale {
	if l, ok := locales.Load("locale:" + lang); ok {
		return l.(*pageLocale)
	}
	tag, err := language.Parse(lang)
	if err != nil {
		return localeOf(shop)
	}
	base, _ := tag.Base()
	text, ok := pageText[base.String()]
	if !ok {
		text = pageText["en"]
	}
	l := &pageLocale{tag: tag, printer: xmessage.NewPrinter(tag), text: text}
	locales.Store("locale:"+lang, l)
	return l
}

func localeOf(shop *vitrine.Shop) *pageLocale {
	if l, ok := locales.Load(shop.Country); ok {
		return l.(*pageLocale)
	}
	tag := language.English
	if r, err := language.ParseRegion(shop.Country); err == nil && shop.Country != "" {
		if und, err := language.Compose(language.Und, r); err == nil {
			base, _ := und.Base()
			if t, err := language.Compose(base, r); err == nil {
				tag = t
			}
		}
	}
	base, _ := tag.Base()
	text, ok := pageText[base.String()]
	if !ok {
		text = pageText["en"]
	}
	l := &pageLocale{tag: tag, printer: xmessage.NewPrinter(tag), text: text}
	locales.Store(shop.Country, l)
	return l
}

func (l *pageLocale) newPage(win *Window, title string) page {
	css, _ := pageStyle()
	return page{Lang: l.tag.String(), Title: title, CSS: css, Shop: win.Tenant.Name, Home: win.link("/", nil), T: l.text, Locale: win.formLocale()}
}

// money writes an amount in minor units of a currency as the window's
// language writes it, with the currency's symbol in that language (CLDR's
// standard symbol, which tells dollars apart): "R$ 1.234,50", in English
// "$ 1,234.50" for US dollars and "CA$ 1,234.50" for Canadian ones, in
// Portuguese "US$ 1.234,50".
func (l *pageLocale) money(minor int64, cur string) string {
	unit, err := currency.ParseISO(cur)
	if err != nil {
		return vitrine.FormatPrice(minor, vitrine.CurrencyScale(cur)) + " " + cur
	}
	amount := float64(minor) / math.Pow10(vitrine.CurrencyScale(cur))
	return l.printer.Sprint(currency.Symbol(unit.Amount(amount)))
}

// moneyRange is a price, or a range of prices.
func (l *pageLocale) moneyRange(pr priceRange) string {
	if pr.Min.Amount == pr.Max.Amount {
		return l.money(pr.Min.Amount, pr.Min.Currency)
	}
	return l.money(pr.Min.Amount, pr.Min.Currency) + " – " + l.money(pr.Max.Amount, pr.Max.Currency)
}

// availability says whether a variant can be bought, and how many are
// left when the company discloses it.
func (l *pageLocale) availability(v *variant) string {
	text := l.text[v.Availability.Status]
	if n, ok := v.Metadata["inventory_quantity"]; ok && v.Availability.Status == "in_stock" {
		text = l.printer.Sprintf(l.text["in_stock_n"], n)
	}
	return text
}

// card is a product as the home page lists it.
type card struct {
	URL, Name, Image, Alt, Price, Availability string
	Available                                  bool
}

type categoryLink struct {
	Name, URL string
	Current   bool
}

type homePage struct {
	page
	Category   string
	Categories []categoryLink
	Problem    string
	Cards      []card
	First      string
	Next       string
}

// homePage writes the window's home page: its categories and its active
// products by name, a page at a time, or those a search or a category
// finds. A search the window refuses (too long, a stale cursor) is said
// on the page, answered 400.
func (s *Server) homePage(ctx context.Context, buf *bytes.Buffer, win *Window, q url.Values) (int, error) {
	l := localeOfWindow(win)
	query := strings.TrimSpace(q.Get("q"))
	catID, cursor := q.Get("category"), q.Get("cursor")
	d := &homePage{page: l.newPage(win, win.Tenant.Name)}
	d.Query, d.Canonical = query, win.link("/", nil)
	cats, err := win.reader.ShownCategories(ctx)
	if err != nil {
		return 0, err
	}
	for _, c := range categoryNames(cats) {
		if len(d.Categories) == maxPageCategory {
			break
		}
		link := categoryLink{Name: c.path, URL: win.link("/", url.Values{"category": {c.id}}), Current: c.id == catID}
		if link.Current {
			d.Category = c.path
		}
		d.Categories = append(d.Categories, link)
	}
	status := http.StatusOK
	limit := homePageSize
	var res *searchResponse
	if query != "" || catID != "" {
		req := &searchRequest{Query: query}
		req.Pagination = &struct {
			Cursor string `json:"cursor,omitempty"`
			Limit  *int   `json:"limit,omitempty"`
		}{Cursor: cursor, Limit: &limit}
		if catID != "" {
			req.Filters = &searchFilters{Categories: []string{catID}}
		}
		res, err = s.catalog.search(ctx, win, req)
		d.NoIndex = true
		d.Title = l.printer.Sprintf(l.text["results_for"], cmpOr(query, d.Category)) + " · " + win.Tenant.Name
	} else {
		res, err = s.catalog.browse(ctx, win, cursor, limit)
	}
	var ue *ucpError
	if errors.As(err, &ue) {
		status, d.Problem, res = http.StatusBadRequest, ue.content, &searchResponse{}
	} else if err != nil {
		return 0, err
	}
	for _, p := range res.Products {
		c := card{URL: win.pageURL(p.Handle), Name: p.Title, Price: l.moneyRange(p.PriceRange)}
		if len(p.Media) > 0 {
			c.Image, c.Alt = p.Media[0].URL, cmpOr(p.Media[0].AltText, p.Title)
		}
		if len(p.Variants) > 0 {
			c.Available, c.Availability = p.Variants[0].Availability.Available, l.availability(p.Variants[0])
		}
		d.Cards = append(d.Cards, c)
	}
	if res.Pagination != nil && res.Pagination.HasNextPage {
		next := url.Values{"cursor": {res.Pagination.Cursor}}
		if query != "" {
			next.Set("q", query)
		}
		if catID != "" {
			next.Set("category", catID)
		}
		d.Next = win.link("/", next)
	}
	if cursor != "" {
		first := url.Values{}
		if query != "" {
			first.Set("q", query)
		}
		if catID != "" {
			first.Set("category", catID)
		}
		d.First = win.link("/", first)
		d.NoIndex = true
	}
	return status, pageTemplates().ExecuteTemplate(buf, "home", d)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// namedCategory is a category by its whole path ("Parent > Child").
type namedCategory struct {
	id, path string
	trail    []*vitrine.Category // from the root
}

// categoryNames names each category by its path, in the order given.
func categoryNames(cats []*vitrine.Category) []namedCategory {
	byID := make(map[string]*vitrine.Category, len(cats))
	for _, c := range cats {
		byID[c.ID] = c
	}
	out := make([]namedCategory, 0, len(cats))
	for _, c := range cats {
		out = append(out, namedCategory{id: c.ID, path: pathOf(byID, c), trail: trailOf(byID, c)})
	}
	return out
}

// trailOf is a category's ancestors and itself, from the root; bounded
// whatever the data (a cycle is cut).
func trailOf(byID map[string]*vitrine.Category, c *vitrine.Category) []*vitrine.Category {
	trail := []*vitrine.Category{c}
	for p, n := byID[c.ParentID], 0; p != nil && n < 20; p, n = byID[p.ParentID], n+1 {
		trail = append([]*vitrine.Category{p}, trail...)
	}
	return trail
}

func pathOf(byID map[string]*vitrine.Category, c *vitrine.Category) string {
	var names []string
	for _, t := range trailOf(byID, c) {
		names = append(names, t.Name)
	}
	return strings.Join(names, " > ")
}

// validHandle reports whether a path's handle could name a product at
// all; anything else is not found without a query.
func validHandle(h string) bool {
	return h != "" && len(h) <= maxHandleLength && utf8.ValidString(h) && !strings.ContainsFunc(h, func(r rune) bool { return r < ' ' })
}

// pageText are the pages' own words, by language; English for the others.
var pageText = map[string]map[string]string{
	"en": {
		"search": "Search", "search_label": "Search products", "categories": "Categories", "products": "Products",
		"results_for": "Results for %s", "no_products": "No products found.", "pages": "Pages", "first_page": "First page",
		"next_page": "Next page", "breadcrumbs": "Breadcrumbs", "vendor": "Brand", "options": "Options", "variants": "Variants",
		"variant": "Variant", "price": "Price", "compare_at": "Was", "availability": "Availability", "details": "Details",
		"description": "Description", "more_variants": "More variants are not shown.", "in_stock": "In stock",
		"in_stock_n": "In stock (%d)", "backorder": "On backorder", "out_of_stock": "Out of stock",
	},
	"pt": {
		"search": "Buscar", "search_label": "Buscar produtos", "categories": "Categorias", "products": "Produtos",
		"results_for": "Resultados para %s", "no_products": "Nenhum produto encontrado.", "pages": "Páginas",
		"first_page": "Primeira página", "next_page": "Próxima página", "breadcrumbs": "Navegação", "vendor": "Marca",
		"options": "Opções", "variants": "Variantes", "variant": "Variante", "price": "Preço", "compare_at": "De",
		"availability": "Disponibilidade", "details": "Detalhes", "description": "Descrição",
		"more_variants": "Há mais variantes, não mostradas.", "in_stock": "Em estoque", "in_stock_n": "Em estoque (%d)",
		"backorder": "Sob encomenda", "out_of_stock": "Esgotado",
	},
	"es": {
		"search": "Buscar", "search_label": "Buscar productos", "categories": "Categorías", "products": "Productos",
		"results_for": "Resultados para %s", "no_products": "No se encontraron productos.", "pages": "Páginas",
		"first_page": "Primera página", "next_page": "Página siguiente", "breadcrumbs": "Ruta", "vendor": "Marca",
		"options": "Opciones", "variants": "Variantes", "variant": "Variante", "price": "Precio", "compare_at": "Antes",
		"availability": "Disponibilidad", "details": "Detalles", "description": "Descripción",
		"more_variants": "Hay más variantes, no mostradas.", "in_stock": "En stock", "in_stock_n": "En stock (%d)",
		"backorder": "Por encargo", "out_of_stock": "Agotado",
	},
}
