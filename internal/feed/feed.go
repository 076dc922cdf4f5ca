// Package feed writes a shop window's merchant feeds: Google Merchant
// Center's product data (RSS 2.0 with the g: namespace) and OpenAI's
// product feed (JSON Lines, gzip-compressed), one item per variant of
// each active product, streamed page by page from the store; and it says,
// per channel, what keeps a product off it (Problems).
//
// It is a codec of the window's public surface: it knows no store and no
// HTTP route, only a Source of products and the window they are shown in.
package feed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
)

// Window is one open window as a feed sees it.
type Window struct {
	Tenant *vitrine.Tenant
	Shop   *vitrine.Shop
	// BaseURL is the window's public root, such as
	// https://vitrine.example/shops/technova (no trailing slash).
	BaseURL string
	// Origin is the server's public URL, against which relative media
	// paths such as /demo/images/x.png are resolved.
	Origin string
	// Attributes are the company's attribute definitions, by key: only
	// the Public ones are shown.
	Attributes map[string]*vitrine.Attribute
	// Categories are the company's categories, by id: a product's
	// categories are sent as their whole paths ("Vestuário > Camisetas").
	Categories map[string]*vitrine.Category
	// Log receives what fails while a feed streams (nil: nowhere). The
	// client sees a cut transfer, never a feed that looks whole.
	Log *slog.Logger
}

// NewWindow is the window s with the company's attribute definitions and
// categories, as the channels' rules read it (Problems); the feeds' URLs
// and company are left to the caller.
func NewWindow(s *vitrine.Shop, attributes []*vitrine.Attribute, categories []*vitrine.Category) *Window {
	w := &Window{Shop: s, Attributes: make(map[string]*vitrine.Attribute, len(attributes)),
		Categories: make(map[string]*vitrine.Category, len(categories))}
	for _, a := range attributes {
		w.Attributes[a.Key] = a
	}
	for _, c := range categories {
		w.Categories[c.ID] = c
	}
	return w
}

// Source pages through a company's published (active) products, in the
// order they were created: limit of them after the product of id after
// ("" for the first page). The window's is service/catalog's Shopper. The
// feed checks each product again.
type Source interface {
	PublishedProducts(ctx context.Context, tenantID, after string, limit int) ([]*vitrine.Product, error)
}

// Kind is a feed's format.
type Kind int

// The feeds.
const (
	// Google is Merchant Center's product data: RSS 2.0 with the g:
	// namespace.
	Google Kind = iota + 1
	// OpenAI is OpenAI's product feed: JSON Lines, gzip-compressed.
	OpenAI
)

// Kinds are the feeds, in the order they are listed.
var Kinds = []Kind{Google, OpenAI}

// Path is where the feed is served under a window's root.
func (k Kind) Path() string {
	switch k {
	case Google:
		return "/feeds/google.xml"
	case OpenAI:
		return "/feeds/openai.jsonl.gz"
	}
	return ""
}

// Channel is the channel (vitrine.ChannelGoogle...) the feed publishes to,
// whose Problems keep products out of it.
func (k Kind) Channel() string {
	switch k {
	case Google:
		return vitrine.ChannelGoogle
	case OpenAI:
		return vitrine.ChannelOpenAI
	}
	return ""
}

// ContentType is the feed's media type. OpenAI's is the gzip file itself
// (application/gzip, no Content-Encoding), so that what a client saves is
// the .jsonl.gz the URL names.
func (k Kind) ContentType() string {
	switch k {
	case Google:
		return "application/rss+xml; charset=utf-8"
	case OpenAI:
		return "application/gzip"
	}
	return ""
}

func (k Kind) String() string {
	switch k {
	case Google:
		return "google"
	case OpenAI:
		return "openai"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// PageSize is how many products the feed reads from its Source at once:
// a page's products (and their items) are all it holds in memory.
const PageSize = 500

// CacheControl is what the feeds tell caches: fresh for five minutes,
// then revalidated by ETag (a shopping surface fetches at most a few times
// a day; an unchanged feed costs it a 304).
const CacheControl = "public, max-age=300"

// formatVersion changes whenever what a feed writes of the same catalog
// changes, so that an upgrade is not answered 304 with a stale body.
const formatVersion = "2"

// ETag is the entity tag of the feed of win in kind at stamp (what
// Store.CatalogStamp returns): it changes when the catalog does, and with
// the window's URLs, which the feed holds.
func ETag(win Window, kind Kind, stamp string) string {
	h := sha256.New()
	for _, s := range []string{formatVersion, kind.String(), stamp, win.BaseURL, win.Origin} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	return `"` + kind.String() + "-" + hex.EncodeToString(h.Sum(nil)[:12]) + `"`
}

// Serve answers GET and HEAD of a feed: its ETag (from stamp, which the
// caller gets from Store.CatalogStamp) and Last-Modified (modified, zero
// for none), 304 when If-None-Match or If-Modified-Since says the client
// has it, Cache-Control, and the body streamed page by page (never the
// whole catalog in memory). Another method is answered 405.
func Serve(w http.ResponseWriter, r *http.Request, win Window, src Source, kind Kind, stamp string, modified time.Time) {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	etag := ETag(win, kind, stamp)
	h.Set("ETag", etag)
	h.Set("Cache-Control", CacheControl)
	if !modified.IsZero() {
		h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	if notModified(r, etag, modified) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", kind.ContentType())
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	// The first page is read before the status is sent: a store that
	// fails at once is a 500, not a cut feed.
	pages := newPager(r.Context(), src, win.Tenant.ID)
	first, err := pages.next()
	if err != nil {
		id := logError(win, r, kind, err)
		// Not the feed: no cache keeps it, under the feed's tag or not.
		h.Del("ETag")
		h.Del("Last-Modified")
		h.Set("Cache-Control", "no-store")
		http.Error(w, "Internal error: the feed could not be read. Report request id "+id+" to the operator if it persists", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	if err := write(w, win, pages, first, kind); err != nil {
		if r.Context().Err() == nil {
			logError(win, r, kind, err)
		}
		// Cut the transfer: a client must not take a feed cut short for
		// the whole catalog.
		panic(http.ErrAbortHandler)
	}
}

// logError logs a failure of the feed under a new request id, which it
// returns for the client's answer: the detail goes to the log only.
func logError(win Window, r *http.Request, kind Kind, err error) string {
	id := vitrine.NewID()
	if win.Log != nil {
		win.Log.ErrorContext(r.Context(), "feed", "request_id", id, "feed", kind.String(), "tenant_id", win.Tenant.ID, "err", err)
	}
	return id
}

// notModified reads a request's conditions (RFC 9110, 13.1.2 and 13.1.3):
// If-None-Match when given, else If-Modified-Since.
func notModified(r *http.Request, etag string, modified time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !modified.IsZero() {
		t, err := http.ParseTime(ims)
		return err == nil && !modified.Truncate(time.Second).After(t)
	}
	return false
}

// Write writes the feed of win in kind to w, reading src page by page.
func Write(ctx context.Context, w io.Writer, win Window, src Source, kind Kind) error {
	pages := newPager(ctx, src, win.Tenant.ID)
	first, err := pages.next()
	if err != nil {
		return err
	}
	return write(w, win, pages, first, kind)
}

func write(w io.Writer, win Window, pages *pager, first []*vitrine.Product, kind Kind) error {
	if win.Shop == nil {
		win.Shop = vitrine.NewShop(win.Tenant.ID)
	}
	var fw feedWriter
	switch kind {
	case Google:
		fw = newGoogleWriter(w, &win)
	case OpenAI:
		fw = newOpenAIWriter(w, &win)
	default:
		return fmt.Errorf("feed: unknown kind %d", int(kind))
	}
	return writeWith(fw, &win, pages, first, channelRules[kind.Channel()])
}

// writeWith writes a feed with fw, on the channel of rules r.
func writeWith(fw feedWriter, win *Window, pages *pager, first []*vitrine.Product, r rules) error {
	if err := fw.begin(); err != nil {
		return err
	}
	for page := first; len(page) > 0; {
		for _, p := range page {
			if p.Status != vitrine.ProductActive || p.TenantID != win.Tenant.ID {
				continue
			}
			pr := fw.product(r, p)
			// What check_shop reports of the product on this channel is
			// what keeps it, or some of its variants, out: one rule.
			whole, variants := blocked(problems(r, win, pr))
			if whole {
				continue
			}
			for _, v := range p.Variants {
				if variants[v.ID] {
					continue
				}
				if err := fw.item(itemOf(win, pr, v)); err != nil {
					return err
				}
			}
		}
		if err := fw.flush(); err != nil {
			return err
		}
		var err error
		if page, err = pages.next(); err != nil {
			return err
		}
	}
	return fw.end()
}

// feedWriter writes one feed's format.
type feedWriter interface {
	begin() error
	// product reads what a product's items share on a channel of rules
	// r, bounded as the feed bounds it.
	product(r rules, p *vitrine.Product) *product
	item(it *item) error
	// flush sends what is written so far, after each page.
	flush() error
	end() error
}

// pager reads a company's active products in pages, by id.
type pager struct {
	ctx      context.Context
	src      Source
	tenantID string
	after    string
	done     bool
}

func newPager(ctx context.Context, src Source, tenantID string) *pager {
	return &pager{ctx: ctx, src: src, tenantID: tenantID}
}

// next returns the next page; an empty one after the last.
func (pg *pager) next() ([]*vitrine.Product, error) {
	if pg.done {
		return nil, nil
	}
	if err := pg.ctx.Err(); err != nil {
		return nil, err
	}
	ps, err := pg.src.PublishedProducts(pg.ctx, pg.tenantID, pg.after, PageSize)
	if err != nil {
		return nil, fmt.Errorf("feed: list products: %w", err)
	}
	if len(ps) < PageSize {
		pg.done = true
	}
	if len(ps) > 0 {
		pg.after = ps[len(ps)-1].ID
	}
	return ps, nil
}
