package shopwindow

import (
	"context"
	"net/http"
	"net/url"

	catalogs "github.com/vitrine/vitrine/service/catalog"
	"github.com/vitrine/vitrine/service/shop"
)

// Markets' windows and the windows' locales. Each market of a company has
// a window of its own under every root of the company's, at
// /markets/{handle}/, and at the root of the market's own domain, with
// the same paths beneath; its reader (the Shopper of service/catalog)
// shows the market's assortment in its currency. Every window reads its
// text in a locale: ?locale= on the pages and the feeds, UCP's
// context.language, else the window's first; and on the company's own
// window, UCP's context.address_country (or a context.currency that one of
// its markets has) answers in that market. A company of one locale without
// markets answers exactly as it always has.

// newWindow is the window reader reads, served at root (no trailing
// slash).
func newWindow(reader *catalogs.Shopper, root, origin, client string) *Window {
	win := &Window{Tenant: reader.Tenant(), Shop: reader.Shop(), Base: root, Origin: origin, client: client, reader: reader}
	withPages(win)
	return win
}

// inLocale is the window read in locale, which names one of its locales
// (or none: its first).
func (win *Window) inLocale(locale string) *Window {
	if locale == "" && win.reader.DefaultLocale() {
		return win
	}
	return newWindow(win.reader.InLocale(locale), win.Base, win.Origin, win.client)
}

// inContext is the window an answer to a UCP request of that context is
// given in: the market that sells to its address_country (else the one of
// its currency) when the window is the company's own, read in its
// language. The market's links lead to the market's window, under this
// window's root.
func (win *Window) inContext(ctx context.Context, hints *contextHints) (*Window, error) {
	if hints == nil || (hints.Language == "" && hints.AddressCountry == "" && hints.Currency == "") {
		return win, nil
	}
	reader, err := win.reader.ForContext(ctx, hints.AddressCountry, hints.Currency)
	if err != nil {
		return nil, err
	}
	reader = reader.InLocale(hints.Language)
	root := win.Base
	if h := reader.MarketHandle(); h != "" && win.reader.MarketHandle() == "" {
		root += marketsPath + url.PathEscape(h)
	}
	if reader.MarketHandle() == win.reader.MarketHandle() && reader.Locale() == win.reader.Locale() {
		return win, nil
	}
	return newWindow(reader, root, win.Origin, win.client), nil
}

// contextHints are what a UCP request's context says of the buyer that
// picks the answer's market and language. They are read beside the
// operation's request (whose schema, and the tools' snapshots, keep only
// the currency): UCP's context holds them, and any agent may send them.
type contextHints struct {
	Language       string `json:"language"`
	AddressCountry string `json:"address_country"`
	Currency       string `json:"currency"`
}

// hintsOf reads a request body's context; nil when it has none, or is not
// an object (the operation's decoding says what is wrong with it).
func hintsOf(body []byte) *contextHints {
	var req struct {
		Context *contextHints `json:"context"`
	}
	if decode(body, &req) != nil {
		return nil
	}
	return req.Context
}

// language is the locale the window's answers are in, for their
// Content-Language; "" for a company of one locale without markets,
// whose answers say none, as always.
func (win *Window) language() string {
	if !win.reader.Multilingual() {
		return ""
	}
	return win.reader.Locale()
}

// sayLanguage writes an answer's Content-Language, when its window has
// one to say.
func (win *Window) sayLanguage(h http.Header) {
	if l := win.language(); l != "" {
		h.Set("Content-Language", l)
	}
}

// localeQuery is the query that keeps a link in the window's locale: ""
// for its first, whose links need none.
func (win *Window) localeQuery() string {
	if win.reader.DefaultLocale() {
		return ""
	}
	return url.Values{"locale": {win.reader.Locale()}}.Encode()
}

// link is the URL of a page of the window, path under its root, with
// the query q and the window's locale.
func (win *Window) link(path string, q url.Values) string {
	u := win.Base + path
	lq := win.localeQuery()
	if lq != "" {
		if q == nil {
			q = url.Values{}
		}
		q.Set("locale", win.reader.Locale())
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// withPages makes the window's pages the product pages it hands out when
// the company names none of its own (no product_url), and always in a
// market's window, whose links stay in it: UCP's urls, the feeds' links;
// in the window's locale, when not its first.
func withPages(win *Window) {
	s := win.Shop
	if win.reader != nil && win.reader.MarketHandle() != "" && s.ProductURL != "" {
		c := *s
		c.ProductURL = ""
		s = &c
	}
	win.Shop, win.pages = shop.WithPages(s, win.Base)
	if win.pages && win.reader != nil {
		if lq := win.localeQuery(); lq != "" {
			c := *win.Shop
			c.ProductURL += "?" + lq
			win.Shop = &c
		}
	}
}

// formLocale is the locale the search form keeps: the window's when not
// its first.
func (win *Window) formLocale() string {
	if win.reader.DefaultLocale() {
		return ""
	}
	return win.reader.Locale()
}

// seenKey is the key of the window's feeds among the stamps seen (their
// Last-Modified): the company's for its own window in its first locale, as
// always; its market's and locale's otherwise, whose stamps are their own.
func (win *Window) seenKey() string {
	if win.reader.MarketHandle() == "" && win.reader.DefaultLocale() {
		return win.Tenant.ID
	}
	return win.Tenant.ID + "\x00" + win.reader.MarketHandle() + "\x00" + win.reader.Locale()
}
