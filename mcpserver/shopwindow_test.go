package mcpserver_test

import (
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

type attributeOut struct {
	Key    string
	Public bool
}

// An attribute is private until save_attribute says public; list_attributes
// shows which are; an update that does not say keeps it.
func TestAttributePublicThroughTheTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", owner)
		tn := w.tenants["technova"]
		if a := testkit.OK[attributeOut](t, cs, "save_attribute", map[string]any{"tenant_id": tn, "key": "material", "type": "text"}); a.Public {
			t.Errorf("a new attribute is public: %+v", a)
		}
		if a := testkit.OK[attributeOut](t, cs, "save_attribute", map[string]any{"tenant_id": tn, "key": "material", "public": true}); !a.Public {
			t.Errorf("made public: %+v", a)
		}
		if a := testkit.OK[attributeOut](t, cs, "save_attribute", map[string]any{"tenant_id": tn, "key": "material", "name": "Fabric"}); !a.Public {
			t.Errorf("renamed, it stays public: %+v", a)
		}
		list := testkit.OK[struct{ Attributes []attributeOut }](t, cs, "list_attributes", map[string]any{"tenant_id": tn})
		public := map[string]bool{}
		for _, a := range list.Attributes {
			public[a.Key] = a.Public
		}
		if !public["material"] {
			t.Errorf("list_attributes: %+v", list.Attributes)
		}
	})
}

type shopOut struct {
	Open       bool
	ProductURL string `json:"product_url"`
	Country    string
	Stock      string
	Domain     string
	Options    map[string]string
	Version    int64
	UpdatedAt  *time.Time `json:"updated_at"`
	URLs       struct {
		Window     string
		Profile    string `json:"ucp_profile"`
		MCP        string `json:"ucp_mcp"`
		REST       string `json:"ucp_rest"`
		GoogleFeed string `json:"google_feed"`
		OpenAIFeed string `json:"openai_feed"`
		Hosts      []string
	}
}

// The window through get_shop and update_shop, as an owner's agent meets
// it on a server with a public URL and a shop domain: closed until opened;
// each change partial, audited, at the next version; bad settings refused
// by field with nothing written; a stale version and another company's
// domain refused; the mapping in effect shown with the defaults; only
// shop:manage changes it, anyone who reads products reads it.
func TestShopWindowThroughTheTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		tn := w.tenants["mercado-verde"]
		opts := mcpserver.Options{PublicURL: "https://vitrine.example/", ShopDomain: "shops.example"}
		session := func(email string) *mcp.ClientSession {
			o := opts
			o.Token = w.tokens[email]
			return w.connectWith(o, nil)
		}
		marina := session(verde)

		s := testkit.OK[shopOut](t, marina, "get_shop", map[string]any{"tenant_id": tn})
		if s.Open || s.Version != 0 || s.Stock != "availability" || s.UpdatedAt != nil || s.Options["tamanho"] != "size" || s.Options["colour"] != "color" {
			t.Errorf("a window never set: %+v", s)
		}
		base := "https://vitrine.example/shops/mercado-verde"
		if u := s.URLs; u.Window != base+"/" || u.Profile != base+"/.well-known/ucp" || u.MCP != base+"/ucp/mcp" || u.REST != base+"/ucp" ||
			u.GoogleFeed != base+"/feeds/google.xml" || u.OpenAIFeed != base+"/feeds/openai.jsonl.gz" || !slices.Equal(u.Hosts, []string{"https://mercado-verde.shops.example/"}) {
			t.Errorf("urls: %+v", u)
		}

		s = testkit.OK[shopOut](t, marina, "update_shop", map[string]any{"tenant_id": tn, "open": true,
			"product_url": "https://verde.example/produtos/{handle}", "country": "br", "domain": "Loja.Verde.example",
			"options": map[string]any{"Estilo": "pattern", "cor": ""}})
		if !s.Open || s.Version != 1 || s.Country != "BR" || s.Domain != "loja.verde.example" || s.ProductURL != "https://verde.example/produtos/{handle}" ||
			s.Stock != "availability" || s.Options["estilo"] != "pattern" || s.Options["size"] != "size" || s.UpdatedAt == nil {
			t.Errorf("opened: %+v", s)
		}
		if _, ok := s.Options["cor"]; ok {
			t.Errorf("cor mapped to none is still mapped: %v", s.Options)
		}
		if !slices.Equal(s.URLs.Hosts, []string{"https://mercado-verde.shops.example/", "https://loja.verde.example/"}) {
			t.Errorf("hosts: %v", s.URLs.Hosts)
		}
		if _, sh, err := w.db.OpenShopBySlug(ctx, "mercado-verde"); err != nil || !sh.Open {
			t.Errorf("the public finds it: %+v %v", sh, err)
		}

		// Partial: what is not given stays.
		s = testkit.OK[shopOut](t, marina, "update_shop", map[string]any{"tenant_id": tn, "stock": "exact", "expected_version": 1})
		if s.Version != 2 || s.Stock != "exact" || s.Country != "BR" || !s.Open || s.Options["estilo"] != "pattern" {
			t.Errorf("partial: %+v", s)
		}
		events, err := w.db.ListAudit(ctx, tn, vitrine.AuditFilter{Tool: "update_shop", Limit: 10})
		if err != nil || len(events) != 2 || events[0].Outcome != vitrine.OutcomeOK || events[0].TargetID != tn {
			t.Errorf("update_shop's events: %+v %v", events, err)
		}

		// Refused: nothing written.
		for _, c := range []struct {
			args  map[string]any
			field string
		}{
			{map[string]any{"product_url": "http://technova.example/p/{handle}"}, "product_url"},
			{map[string]any{"product_url": "https://technova.example/p/"}, "product_url"},
			{map[string]any{"country": "1X"}, "country"},
			{map[string]any{"country": "BRA"}, "country"},
			{map[string]any{"domain": "https://shop.example/"}, "domain"},
			{map[string]any{"domain": "localhost"}, "domain"},
			{map[string]any{"domain": "vitrine.example"}, "domain"},
			{map[string]any{"domain": "shops.example"}, "domain"},
			{map[string]any{"domain": "technova.shops.example"}, "domain"},
			{map[string]any{"stock": "all"}, "stock"},
			{map[string]any{"options": map[string]any{"Size": "width"}}, "options.Size"},
		} {
			c.args["tenant_id"] = tn
			e := testkit.ErrorOf(t, marina, "update_shop", c.args)
			if e["type"] != "ValidationError" || e["field"] != c.field {
				t.Errorf("update_shop(%v): %v", c.args, e)
			}
		}
		e := testkit.ErrorOf(t, marina, "update_shop", map[string]any{"tenant_id": tn, "open": false, "expected_version": 1})
		if e["type"] != "ConflictError" || e["field"] != "expected_version" {
			t.Errorf("a stale version: %v", e)
		}
		if now := testkit.OK[shopOut](t, marina, "get_shop", map[string]any{"tenant_id": tn}); now.Version != 2 || !now.Open || now.Stock != "exact" {
			t.Errorf("after the refusals: %+v", now)
		}

		// Another company cannot take the domain.
		e = testkit.ErrorOf(t, session(owner), "update_shop", map[string]any{"tenant_id": w.tenants["technova"], "domain": "loja.verde.example"})
		if e["type"] != "ConflictError" || e["field"] != "domain" {
			t.Errorf("a domain another company holds: %v", e)
		}

		// A viewer reads the window, and may not change it.
		carla := session(member)
		if got := testkit.OK[shopOut](t, carla, "get_shop", map[string]any{"tenant_id": tn}); got.Version != 2 {
			t.Errorf("a member reads %+v", got)
		}
		testkit.Fails(t, carla, "update_shop", map[string]any{"tenant_id": tn, "open": false}, denied)
		if now, _ := w.db.Shop(ctx, tn); !now.Open || now.Version != 2 {
			t.Errorf("after the member's try: %+v", now)
		}
		if err := w.svc.Audit().Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if events, _ := w.db.ListAudit(ctx, tn, vitrine.AuditFilter{Tool: "update_shop", Outcome: "PermissionError", Limit: 10}); len(events) != 1 {
			t.Errorf("the member's refused call is not in the audit log: %+v", events)
		}
	})
}

type checkOut struct {
	Open     bool
	Products int
	Channels []struct {
		Channel        string
		Ready, Blocked int
		Reasons        []struct {
			Reason     string
			Products   int
			Fix        string
			More       bool
			NextCursor string `json:"next_cursor"`
			Page       []struct {
				ID, Handle, Detail string
				Variants           int
			}
		}
	}
}

// check_shop as an agent uses it to get a company's products published:
// the window's own settings first (a fix said once, not a product each),
// then the products the channel's rules keep out, by reason, paged; fixed,
// they are ready at the next check. Drafts are never checked.
func TestCheckShopThroughTheTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", verde)
		tn := w.tenants["mercado-verde"]
		check := func(args map[string]any) checkOut {
			t.Helper()
			args["tenant_id"] = tn
			return testkit.OK[checkOut](t, cs, "check_shop", args)
		}
		// A window never set links its products to its own pages: none is
		// held back for want of a product_url.
		r := check(map[string]any{"channel": "openai"})
		if len(r.Channels) != 1 || r.Products == 0 {
			t.Fatalf("a window never set: %+v", r)
		}
		for _, rr := range r.Channels[0].Reasons {
			if rr.Reason == "no_product_url" {
				t.Errorf("a window with its own pages held back for want of a product_url: %+v", rr)
			}
		}
		testkit.OK[shopOut](t, cs, "update_shop", map[string]any{"tenant_id": tn, "product_url": "https://verde.example/p/{handle}", "country": "BR"})

		var made []string
		for _, name := range []string{"Sabonete", "Shampoo", "Condicionador"} {
			made = append(made, testkit.OK[struct{ ID string }](t, cs, "create_product", map[string]any{"tenant_id": tn, "name": name, "price": "10.00",
				"sku": "VERDE-" + name, "description": "Natural."}).ID)
		}
		testkit.OK[struct{ ID string }](t, cs, "create_product", map[string]any{"tenant_id": tn, "name": "Rascunho", "price": "0", "status": "draft"})
		r = check(map[string]any{})
		if len(r.Channels) != 3 {
			t.Fatalf("every channel: %+v", r)
		}
		var google []string
		for _, c := range r.Channels {
			if c.Channel != "google" {
				continue
			}
			for _, rr := range c.Reasons {
				google = append(google, rr.Reason)
				if rr.Reason == "no_brand" && (rr.Products < 3 || len(rr.Page) != 3 || rr.More != (rr.Products > 3) || rr.NextCursor != "") {
					t.Errorf("no_brand: %+v", rr)
				}
			}
		}
		if !slices.Contains(google, "no_brand") || !slices.Contains(google, "no_image") || slices.Contains(google, "no_product_url") {
			t.Errorf("google's reasons: %v", google)
		}

		// Paged through, one at a time: every product of the reason once.
		seen := map[string]bool{}
		args := map[string]any{"channel": "google", "reason": "no_brand", "limit": 1}
		for pages := 0; ; pages++ {
			r := check(args)
			rr := r.Channels[0].Reasons[0]
			if pages > 100 || len(rr.Page) != 1 {
				t.Fatalf("page %d: %+v", pages, rr)
			}
			if seen[rr.Page[0].ID] {
				t.Fatalf("%s twice", rr.Page[0].ID)
			}
			seen[rr.Page[0].ID] = true
			if rr.NextCursor == "" {
				if len(seen) != rr.Products {
					t.Errorf("paged %d of %d", len(seen), rr.Products)
				}
				break
			}
			args["cursor"] = rr.NextCursor
		}
		for _, id := range made {
			if !seen[id] {
				t.Errorf("%s not among the products without a brand", id)
			}
		}

		// Fixed, it is ready.
		testkit.OK[map[string]any](t, cs, "update_product", map[string]any{"tenant_id": tn, "id": made[0], "vendor": "Verde",
			"media": []map[string]any{{"url": "https://verde.example/sabonete.jpg"}}})
		r = check(map[string]any{"channel": "google", "reason": "no_brand", "limit": 100})
		for _, b := range r.Channels[0].Reasons[0].Page {
			if b.ID == made[0] {
				t.Errorf("the fixed product is still without a brand: %+v", b)
			}
		}
		e := testkit.ErrorOf(t, cs, "check_shop", map[string]any{"tenant_id": tn, "reason": "no_brand"})
		if e["type"] != "ValidationError" || e["field"] != "reason" {
			t.Errorf("a reason without a channel: %v", e)
		}
	})
}

// The demo's open window is ready on every channel: its photos are PNGs,
// which Google and OpenAI take, and its apparel says gender and age group
// by public attributes. What check_shop calls ready is what the feeds
// publish (one rule, internal/feed's Problems).
func TestDemoWindowReadyOnEveryChannel(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	r := testkit.OK[checkOut](t, w.session("memory", owner), "check_shop", map[string]any{"tenant_id": w.tenants["technova"]})
	if !r.Open || r.Products == 0 || len(r.Channels) != 3 {
		t.Fatalf("the demo's window: %+v", r)
	}
	for _, c := range r.Channels {
		if c.Blocked != 0 || c.Ready != r.Products {
			t.Errorf("%s: %d ready, %d blocked: %+v", c.Channel, c.Ready, c.Blocked, c.Reasons)
		}
	}
}
