package shop

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

var ctx = context.Background()

// fakeRules stand for internal/feed's: google wants a brand of every
// product, a price of every variant and the window's product URL; ucp a
// description.
func fakeRules(channel string, win *feed.Window, p *vitrine.Product) []Problem {
	s := win.Shop
	var out []Problem
	switch channel {
	case vitrine.ChannelGoogle:
		if s.ProductURL == "" {
			out = append(out, Problem{Reason: "no_product_url", Detail: "set product_url"})
		}
		if p.Vendor == "" {
			out = append(out, Problem{Reason: "no_brand", Detail: "no vendor"})
		}
		for _, v := range p.Variants {
			if v.Price == 0 {
				out = append(out, Problem{Reason: "price_zero", VariantID: v.ID, Detail: "price zero"})
			}
		}
	case vitrine.ChannelUCP:
		if p.Description == "" {
			out = append(out, Problem{Reason: "no_description", Detail: "no description"})
		}
	}
	return out
}

func withRules(t *testing.T, rules func(string, *feed.Window, *vitrine.Product) []Problem) {
	was := problemsOf
	problemsOf = rules
	t.Cleanup(func() { problemsOf = was })
}

func company(t testing.TB, svc *service.Service, slug string) *service.Access {
	t.Helper()
	if _, err := svc.Operator().CreateTenant(ctx, "Shop "+slug, slug, "olga@example.com"); err != nil {
		t.Fatal(err)
	}
	a, err := svc.Operator().Actor(ctx, slug, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A check counts every active product of the company by reason, per
// channel, shows a few of each and pages through one reason's products;
// drafts and another company's products are never in it; a reason of the
// window's own settings says its fix instead of listing every product.
func TestCheck(t *testing.T) {
	withRules(t, fakeRules)
	dbtest.Each(t, func(t *testing.T, url string) {
		svc := service.New(dbtest.Open(t, url), nil)
		if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
			t.Fatal(err)
		}
		a, b := company(t, svc, "alfa"), company(t, svc, "beta")
		cat := catalog.New(svc)
		create := func(a *service.Access, p catalog.NewProduct) *vitrine.Product {
			t.Helper()
			made, err := cat.CreateProduct(ctx, a, p, "")
			if err != nil {
				t.Fatal(err)
			}
			return made
		}
		var noBrand []string
		for _, name := range []string{"A", "B", "C", "D", "E"} {
			noBrand = append(noBrand, create(a, catalog.NewProduct{Name: "Unbranded " + name, Description: "Good", Price: "10.00"}).ID)
		}
		free := create(a, catalog.NewProduct{Name: "Free", Vendor: "Acme", Price: "0"})
		create(a, catalog.NewProduct{Name: "Fine", Vendor: "Acme", Description: "Fine", Price: "5.00"})
		create(a, catalog.NewProduct{Name: "Draft", Price: "0", Status: "draft"})
		create(b, catalog.NewProduct{Name: "Beta's", Price: "0"})
		w := New(svc)

		r, err := w.Check(ctx, a, CheckQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Open || r.Products != 7 || len(r.Channels) != 3 {
			t.Fatalf("report: %+v", r)
		}
		byChannel := map[string]ChannelReport{}
		for _, c := range r.Channels {
			byChannel[c.Channel] = c
		}
		g := byChannel["google"]
		if g.Blocked != 7 || g.Ready != 0 || len(g.Reasons) != 3 {
			t.Fatalf("google: %+v", g)
		}
		if url := g.Reasons[0]; url.Reason != "no_product_url" || url.Products != 7 || url.Fix != "set product_url" || len(url.Page) != 0 {
			t.Errorf("the window's reason: %+v", url)
		}
		if brand := g.Reasons[1]; brand.Reason != "no_brand" || brand.Products != 5 || len(brand.Page) != previewPerReason || !brand.More || brand.NextCursor != "" ||
			brand.Page[0].ID != noBrand[0] || brand.Page[0].Variants != 0 {
			t.Errorf("no_brand: %+v", brand)
		}
		if price := g.Reasons[2]; price.Reason != "price_zero" || price.Products != 1 || len(price.Page) != 1 || price.More || price.Page[0].ID != free.ID || price.Page[0].Variants != 1 {
			t.Errorf("price_zero: %+v", price)
		}
		if u := byChannel["ucp"]; u.Blocked != 1 || u.Ready != 6 || len(u.Reasons) != 1 || u.Reasons[0].Page[0].ID != free.ID {
			t.Errorf("ucp: %+v", u)
		}
		if o := byChannel["openai"]; o.Blocked != 0 || o.Ready != 7 || len(o.Reasons) != 0 {
			t.Errorf("openai: %+v", o)
		}

		// One channel's reason, page by page.
		var paged []string
		q := CheckQuery{Channel: "google", Reason: "no_brand", Limit: 2}
		for pages := 0; ; pages++ {
			r, err := w.Check(ctx, a, q)
			if err != nil {
				t.Fatal(err)
			}
			if pages > 3 || len(r.Channels) != 1 || len(r.Channels[0].Reasons) != 1 {
				t.Fatalf("page %d: %+v", pages, r)
			}
			rr := r.Channels[0].Reasons[0]
			for _, p := range rr.Page {
				paged = append(paged, p.ID)
			}
			if rr.NextCursor == "" {
				break
			}
			q.Cursor = rr.NextCursor
		}
		if !slices.Equal(paged, noBrand) {
			t.Errorf("paged %v; want %v", paged, noBrand)
		}

		for _, bad := range []CheckQuery{
			{Channel: "amazon"},
			{Reason: "no_brand"},
			{Channel: "google", Reason: "no_such_reason"},
			{Limit: 5},
			{Channel: "google", Reason: "price_zero", Cursor: q.Cursor},
			{Channel: "google", Reason: "no_brand", Limit: vitrine.MaxPageLimit + 1},
		} {
			if _, err := w.Check(ctx, a, bad); vitrine.TypeOf(err) != vitrine.ValidationError {
				t.Errorf("%+v: %v", bad, err)
			}
		}

		// The window's product URL set: that reason is gone.
		template := "https://alfa.example/p/{handle}"
		if _, err := w.Update(ctx, a, Changes{ProductURL: &template}); err != nil {
			t.Fatal(err)
		}
		r, err = w.Check(ctx, a, CheckQuery{Channel: "google"})
		if err != nil || len(r.Channels[0].Reasons) != 2 || r.Channels[0].Reasons[0].Reason != "no_brand" || r.Channels[0].Blocked != 6 {
			t.Errorf("with a product URL: %+v, %v", r, err)
		}
	})
}

// Without the channels' rules wired, a check fails rather than report
// every product ready.
func TestCheckWithoutRules(t *testing.T) {
	withRules(t, nil)
	svc := service.New(dbtest.Open(t, dbtest.SQLiteURL(t)), nil)
	if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
		t.Fatal(err)
	}
	if _, err := New(svc).Check(ctx, company(t, svc, "alfa"), CheckQuery{}); err == nil {
		t.Error("a check without rules succeeded")
	}
}

// With the channels' own rules, a check names what Google and OpenAI will
// refuse, with the fix: images in a format they do not take, apparel
// without gender and age group (Google's), titles too long; and a
// product fixed as it says is ready.
func TestCheckNamesWhatTheChannelsRefuse(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		svc := service.New(dbtest.Open(t, url), nil)
		if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
			t.Fatal(err)
		}
		a := company(t, svc, "alfa")
		cat := catalog.New(svc)
		w := New(svc)
		tmpl := "https://alfa.example/p/{handle}"
		if _, err := w.Update(ctx, a, Changes{ProductURL: &tmpl}); err != nil {
			t.Fatal(err)
		}
		clothes, tees := "Vestuário", "Camisetas"
		parent, err := cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: &clothes})
		if err != nil {
			t.Fatal(err)
		}
		child, err := cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: &tees, ParentID: &parent.ID})
		if err != nil {
			t.Fatal(err)
		}
		create := func(p catalog.NewProduct) *vitrine.Product {
			t.Helper()
			p.Vendor, p.Description, p.Price = "Acme", "Good.", "10.00"
			made, err := cat.CreateProduct(ctx, a, p, "")
			if err != nil {
				t.Fatal(err)
			}
			return made
		}
		tee := create(catalog.NewProduct{Name: "Camiseta", CategoryIDs: []string{child.ID}, Media: []vitrine.Media{{URL: "https://alfa.example/tee.png"}}})
		drawn := create(catalog.NewProduct{Name: "Caneca", Media: []vitrine.Media{{URL: "https://alfa.example/caneca.svg"}}})
		long := create(catalog.NewProduct{Name: strings.Repeat("Caneca ", 22), Media: []vitrine.Media{{URL: "https://alfa.example/c.jpg"}}})

		reasons := func(channel string) map[string]ReasonReport {
			t.Helper()
			r, err := w.Check(ctx, a, CheckQuery{Channel: channel})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]ReasonReport{}
			for _, rr := range r.Channels[0].Reasons {
				out[rr.Reason] = rr
			}
			return out
		}
		only := func(rr ReasonReport, id string, fix ...string) {
			t.Helper()
			if rr.Products != 1 || len(rr.Page) != 1 || rr.Page[0].ID != id {
				t.Errorf("%s: %+v; want the one product %s", rr.Reason, rr, id)
				return
			}
			for _, f := range fix {
				if !strings.Contains(rr.Page[0].Detail, f) {
					t.Errorf("%s: %q does not say %q", rr.Reason, rr.Page[0].Detail, f)
				}
			}
		}
		g := reasons("google")
		if len(g) != 4 {
			t.Errorf("google's reasons: %v", slices.Collect(maps.Keys(g)))
		}
		only(g["image_format"], drawn.ID, "SVG", "JPEG", "update_product")
		only(g["no_gender"], tee.ID, "Vestuário > Camisetas", "genero", "update_shop")
		only(g["no_age_group"], tee.ID, "faixa_etaria")
		only(g["title_too_long"], long.ID, "at most 150", "shorten")
		o := reasons("openai")
		if len(o) != 2 {
			t.Errorf("openai's reasons: %v", slices.Collect(maps.Keys(o)))
		}
		only(o["image_format"], drawn.ID, "SVG", "JPEG or PNG")
		only(o["title_too_long"], long.ID)

		// Fixed as the details say: a public attribute of key genero, and
		// another mapped to age_group by the window; a PNG; a shorter name.
		public := true
		for key, typ := range map[string]string{"genero": "text", "publico": "text"} {
			if _, err := cat.CreateAttribute(ctx, a, catalog.AttributeFields{Key: key, Name: &key, Type: typ, Public: &public}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Update(ctx, a, Changes{Options: &map[string]string{"publico": "age_group"}}); err != nil {
			t.Fatal(err)
		}
		update := func(id string, ch catalog.ProductChanges) {
			t.Helper()
			if _, err := cat.UpdateProduct(ctx, a, id, ch); err != nil {
				t.Fatal(err)
			}
		}
		update(tee.ID, catalog.ProductChanges{Attributes: map[string]any{"genero": "Feminino", "publico": "Adulto"}})
		update(drawn.ID, catalog.ProductChanges{Media: &[]vitrine.Media{{URL: "https://alfa.example/caneca.svg"}, {URL: "https://alfa.example/caneca.png"}}})
		name := "Caneca"
		update(long.ID, catalog.ProductChanges{Name: &name})
		for _, ch := range []string{"google", "openai"} {
			if rs := reasons(ch); len(rs) != 0 {
				t.Errorf("%s after the fixes: %v", ch, rs)
			}
		}
	})
}

// A check of a market checks what its window shows: its assortment alone,
// each product at its prices there (an explicit price honoured), a product
// whose price cannot be computed reported as market_price, and the
// translation gaps of the market's locales alone; a market the company
// does not have is not found.
func TestCheckMarket(t *testing.T) {
	withRules(t, fakeRules)
	dbtest.Each(t, func(t *testing.T, url string) {
		st := dbtest.Open(t, url)
		svc := service.New(st, nil)
		if _, err := svc.Operator().CreateUser(ctx, "olga@example.com", "Olga"); err != nil {
			t.Fatal(err)
		}
		a, b := company(t, svc, "alfa"), company(t, svc, "beta")
		ten, err := st.TenantByID(ctx, a.TenantID)
		if err != nil {
			t.Fatal(err)
		}
		ten.Locales = []string{"pt-BR", "es", "en"}
		if err := st.UpdateTenant(ctx, a.Change(), ten); err != nil {
			t.Fatal(err)
		}
		cat := catalog.New(svc)
		create := func(p catalog.NewProduct) *vitrine.Product {
			t.Helper()
			p.Vendor, p.Description = "Acme", "Good"
			made, err := cat.CreateProduct(ctx, a, p, "")
			if err != nil {
				t.Fatal(err)
			}
			return made
		}
		export := []string{"export"}
		create(catalog.NewProduct{Name: "Mesa", Price: "10.00", Tags: export})
		free := create(catalog.NewProduct{Name: "Brinde", Price: "0", Tags: export})
		huge := create(catalog.NewProduct{Name: "Iate", Price: "2000000.00", Tags: export})
		create(catalog.NewProduct{Name: "Local", Price: "0"})
		w := New(svc)
		if _, err := w.SaveMarket(ctx, a, MarketIn{Handle: "us", Name: "US", Countries: []string{"US"}, Currency: "USD", Locales: []string{"en"},
			ExchangeRate: "999999999", Rounding: "none", Include: vitrine.MarketInclude{Tags: export}}); err != nil {
			t.Fatal(err)
		}
		// The free gift has a price in the market.
		if _, err := w.SetMarketPrices(ctx, a, "us", []PriceRow{{VariantID: free.Variants[0].ID, Price: new("5.00")}}); err != nil {
			t.Fatal(err)
		}

		own, err := w.Check(ctx, a, CheckQuery{Channel: "google"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := w.Check(ctx, a, CheckQuery{Market: "us", Channel: "google"})
		if err != nil {
			t.Fatal(err)
		}
		if own.Products != 4 || r.Products != 3 {
			t.Fatalf("products: the company's %d, the market's %d", own.Products, r.Products)
		}
		reasons := func(c ChannelReport) map[string][]string {
			out := map[string][]string{}
			for _, rr := range c.Reasons {
				for _, p := range rr.Page {
					out[rr.Reason] = append(out[rr.Reason], p.Name)
				}
			}
			return out
		}
		if got := reasons(own.Channels[0]); !slices.Equal(got["price_zero"], []string{"Brinde", "Local"}) || got["market_price"] != nil {
			t.Errorf("the company's reasons: %v", got)
		}
		got := reasons(r.Channels[0])
		if got["price_zero"] != nil || !slices.Equal(got["market_price"], []string{"Iate"}) {
			t.Errorf("the market's reasons: %v", got)
		}
		mp := r.Channels[0].Reasons[slices.IndexFunc(r.Channels[0].Reasons, func(rr ReasonReport) bool { return rr.Reason == "market_price" })]
		if mp.Page[0].ID != huge.ID || !strings.Contains(mp.Page[0].Detail, `set_market_prices {market: "us"`) {
			t.Errorf("market_price: %+v", mp)
		}
		if len(own.Locales) != 2 || len(r.Locales) != 1 || r.Locales[0].Locale != "en" || r.Locales[0].Untranslated.Products != 3 {
			t.Errorf("locales: the company's %+v, the market's %+v", own.Locales, r.Locales)
		}
		// Paged by the market's reason.
		page, err := w.Check(ctx, a, CheckQuery{Market: "us", Channel: "google", Reason: "market_price", Limit: 5})
		if err != nil || len(page.Channels[0].Reasons) != 1 || len(page.Channels[0].Reasons[0].Page) != 1 {
			t.Errorf("a page of market_price: %+v %v", page, err)
		}
		for _, c := range []struct {
			a      *service.Access
			market string
		}{{a, "nowhere"}, {b, "us"}} {
			if _, err := w.Check(ctx, c.a, CheckQuery{Market: c.market}); vitrine.TypeOf(err) != vitrine.NotFoundError {
				t.Errorf("market %q of %s: %v", c.market, c.a.TenantID, err)
			}
		}
	})
}
