package shapes

import (
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service/shop"
)

type (
	shopURLTemplate string
	countryCode     string
	domainName      string
	stockShown      string
	feedAttribute   string
)

// ShopOut is the company's shop window as get_shop and update_shop show it.
type ShopOut struct {
	Open       bool              `json:"open"`
	ProductURL string            `json:"product_url"`
	Country    string            `json:"country"`
	Stock      string            `json:"stock"`
	Domain     string            `json:"domain"`
	Options    map[string]string `json:"options" jsonschema:"Option name or public attribute key to feed attribute, defaults included."`
	Version    int64             `json:"version"`
	UpdatedAt  *time.Time        `json:"updated_at,omitempty"`
	URLs       ShopURLsOut       `json:"urls"`
}

// ShopURLsOut are where the window is served, open or not.
type ShopURLsOut struct {
	Window     string   `json:"window,omitempty"`
	Profile    string   `json:"ucp_profile,omitempty"`
	MCP        string   `json:"ucp_mcp,omitempty"`
	REST       string   `json:"ucp_rest,omitempty"`
	GoogleFeed string   `json:"google_feed,omitempty"`
	OpenAIFeed string   `json:"openai_feed,omitempty"`
	Hosts      []string `json:"hosts,omitempty" jsonschema:"Also served at these roots."`
}

// ShopView is the window of st as it is served at u.
func ShopView(st *shop.Settings, u shop.URLs) ShopOut {
	s := st.Shop
	out := ShopOut{Open: s.Open, ProductURL: s.ProductURL, Country: s.Country, Stock: string(s.Stock), Domain: s.Domain,
		Options: shop.Options(s), Version: s.Version,
		URLs: ShopURLsOut{Window: u.Window, Profile: u.Profile, MCP: u.MCP, REST: u.REST, GoogleFeed: u.GoogleFeed, OpenAIFeed: u.OpenAIFeed, Hosts: u.Hosts}}
	if s.Version > 0 {
		at := s.UpdatedAt
		out.UpdatedAt = &at
	}
	return out
}

type UpdateShopIn struct {
	TenantArg
	Open            *bool                     `json:"open,omitempty" jsonschema:"Closed: 404 to the public."`
	ProductURL      *shopURLTemplate          `json:"product_url,omitempty" jsonschema:"https://shop.example/products/{handle}; \"\" clears."`
	Country         *countryCode              `json:"country,omitempty" jsonschema:"ISO 3166-1 alpha-2."`
	Stock           *stockShown               `json:"stock,omitempty"`
	Domain          *domainName               `json:"domain,omitempty" jsonschema:"The company's own host; \"\" clears."`
	Options         *map[string]feedAttribute `json:"options,omitempty" jsonschema:"Option name or public attribute key to feed attribute (\"\": none); the feeds send an MPN only from one mapped to mpn; replaces the last."`
	ExpectedVersion *int64                    `json:"expected_version,omitempty" jsonschema:"If it changed since: ConflictError."`
}

// Changes are the service's changes of the arguments given.
func (in UpdateShopIn) Changes() shop.Changes {
	ch := shop.Changes{Open: in.Open, ProductURL: (*string)(in.ProductURL), Country: (*string)(in.Country), Stock: (*string)(in.Stock),
		Domain: (*string)(in.Domain), ExpectedVersion: in.ExpectedVersion}
	if in.Options != nil {
		m := make(map[string]string, len(*in.Options))
		for k, v := range *in.Options {
			m[k] = string(v)
		}
		ch.Options = &m
	}
	return ch
}

// feedAttributes are the values an option maps to: a feed attribute, or
// "" for none.
func feedAttributes() []any {
	return append(enum(vitrine.FeedAttributes), "")
}

type shopChannel string

type CheckShopIn struct {
	TenantArg
	Market  shortText   `json:"market,omitempty" jsonschema:"A market's handle."`
	Channel shopChannel `json:"channel,omitempty" jsonschema:"Default: every channel."`
	Reason  shortText   `json:"reason,omitempty" jsonschema:"With channel: its products, paged."`
	pageArgs
}

type CheckShopOut struct {
	Open     bool             `json:"open"`
	Products int              `json:"products" jsonschema:"Active products checked."`
	Channels []shopChannelOut `json:"channels"`
	// Translations appear for a company of several locales alone.
	Translations []localeCheckOut `json:"translations,omitempty" jsonschema:"Per locale other than the default."`
}

type localeCheckOut struct {
	Locale              string         `json:"locale"`
	Untranslated        translationGap `json:"untranslated" jsonschema:"Products with a field not translated."`
	OutdatedTranslation translationGap `json:"outdated_translation" jsonschema:"Products translated before their source changed."`
}

type translationGap struct {
	Products int              `json:"products"`
	Page     []blockedProduct `json:"page,omitempty"`
	More     bool             `json:"more,omitempty"`
	Fix      string           `json:"fix,omitempty" jsonschema:"The calls that fix them."`
}

func gapView(g shop.TranslationGap) translationGap {
	out := translationGap{Products: g.Products, More: g.More}
	if g.Products > 0 {
		out.Fix = g.Fix
	}
	for _, b := range g.Page {
		out.Page = append(out.Page, blockedProduct{ID: b.ID, Handle: b.Handle, Name: b.Name, Detail: b.Detail})
	}
	return out
}

type shopChannelOut struct {
	Channel string          `json:"channel"`
	Ready   int             `json:"ready"`
	Blocked int             `json:"blocked" jsonschema:"Left out, or some of their variants."`
	Reasons []shopReasonOut `json:"reasons"`
}

type shopReasonOut struct {
	Reason     string           `json:"reason"`
	Products   int              `json:"products"`
	Fix        string           `json:"fix,omitempty" jsonschema:"A window setting every product lacks."`
	Page       []blockedProduct `json:"page,omitempty"`
	More       bool             `json:"more,omitempty" jsonschema:"Page with channel and reason."`
	NextCursor string           `json:"next_cursor,omitempty"`
}

type blockedProduct struct {
	ID       string `json:"id"`
	Handle   string `json:"handle"`
	Name     string `json:"name"`
	Variants int    `json:"variants,omitempty" jsonschema:"Of its variants; absent: the product."`
	Detail   string `json:"detail"`
}

// CheckShopView is a check's report as check_shop answers it.
func CheckShopView(r *shop.Report) CheckShopOut {
	out := CheckShopOut{Open: r.Open, Products: r.Products, Channels: make([]shopChannelOut, len(r.Channels))}
	for i, c := range r.Channels {
		co := shopChannelOut{Channel: c.Channel, Ready: c.Ready, Blocked: c.Blocked, Reasons: make([]shopReasonOut, len(c.Reasons))}
		for j, rr := range c.Reasons {
			ro := shopReasonOut{Reason: rr.Reason, Products: rr.Products, Fix: rr.Fix, More: rr.More, NextCursor: rr.NextCursor}
			for _, b := range rr.Page {
				ro.Page = append(ro.Page, blockedProduct{ID: b.ID, Handle: b.Handle, Name: b.Name, Variants: b.Variants, Detail: b.Detail})
			}
			co.Reasons[j] = ro
		}
		out.Channels[i] = co
	}
	for _, l := range r.Locales {
		out.Translations = append(out.Translations, localeCheckOut{Locale: l.Locale, Untranslated: gapView(l.Untranslated), OutdatedTranslation: gapView(l.Outdated)})
	}
	return out
}
