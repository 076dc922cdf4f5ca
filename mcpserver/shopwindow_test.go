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
		tn := w.tenants["technova"]
		opts := mcpserver.Options{PublicURL: "https://vitrine.example/", ShopDomain: "shops.example"}
		session := func(email string) *mcp.ClientSession {
			o := opts
			o.Token = w.tokens[email]
			return w.connectWith(o, nil)
		}
		ana := session(owner)

		s := testkit.OK[shopOut](t, ana, "get_shop", map[string]any{"tenant_id": tn})
		if s.Open || s.Version != 0 || s.Stock != "availability" || s.UpdatedAt != nil || s.Options["tamanho"] != "size" || s.Options["colour"] != "color" {
			t.Errorf("a window never set: %+v", s)
		}
		base := "https://vitrine.example/shops/technova"
		if u := s.URLs; u.Window != base+"/" || u.Profile != base+"/.well-known/ucp" || u.MCP != base+"/ucp/mcp" || u.REST != base+"/ucp/catalog" ||
			u.GoogleFeed != base+"/feeds/google.xml" || u.OpenAIFeed != base+"/feeds/openai.jsonl.gz" || !slices.Equal(u.Hosts, []string{"https://technova.shops.example/"}) {
			t.Errorf("urls: %+v", u)
		}

		s = testkit.OK[shopOut](t, ana, "update_shop", map[string]any{"tenant_id": tn, "open": true,
			"product_url": "https://technova.example/produtos/{handle}", "country": "br", "domain": "Loja.TechNova.example",
			"options": map[string]any{"Estilo": "pattern", "cor": ""}})
		if !s.Open || s.Version != 1 || s.Country != "BR" || s.Domain != "loja.technova.example" || s.ProductURL != "https://technova.example/produtos/{handle}" ||
			s.Stock != "availability" || s.Options["estilo"] != "pattern" || s.Options["size"] != "size" || s.UpdatedAt == nil {
			t.Errorf("opened: %+v", s)
		}
		if _, ok := s.Options["cor"]; ok {
			t.Errorf("cor mapped to none is still mapped: %v", s.Options)
		}
		if !slices.Equal(s.URLs.Hosts, []string{"https://technova.shops.example/", "https://loja.technova.example/"}) {
			t.Errorf("hosts: %v", s.URLs.Hosts)
		}
		if _, sh, err := w.db.OpenShopBySlug(ctx, "technova"); err != nil || !sh.Open {
			t.Errorf("the public finds it: %+v %v", sh, err)
		}

		// Partial: what is not given stays.
		s = testkit.OK[shopOut](t, ana, "update_shop", map[string]any{"tenant_id": tn, "stock": "exact", "expected_version": 1})
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
			{map[string]any{"stock": "all"}, "stock"},
			{map[string]any{"options": map[string]any{"Size": "width"}}, "options.Size"},
		} {
			c.args["tenant_id"] = tn
			e := testkit.ErrorOf(t, ana, "update_shop", c.args)
			if e["type"] != "ValidationError" || e["field"] != c.field {
				t.Errorf("update_shop(%v): %v", c.args, e)
			}
		}
		e := testkit.ErrorOf(t, ana, "update_shop", map[string]any{"tenant_id": tn, "open": false, "expected_version": 1})
		if e["type"] != "ConflictError" || e["field"] != "expected_version" {
			t.Errorf("a stale version: %v", e)
		}
		if now := testkit.OK[shopOut](t, ana, "get_shop", map[string]any{"tenant_id": tn}); now.Version != 2 || !now.Open || now.Stock != "exact" {
			t.Errorf("after the refusals: %+v", now)
		}

		// Another company cannot take the domain.
		verdeID := w.tenants["mercado-verde"]
		e = testkit.ErrorOf(t, session(verde), "update_shop", map[string]any{"tenant_id": verdeID, "domain": "loja.technova.example"})
		if e["type"] != "ConflictError" || e["field"] != "domain" {
			t.Errorf("a domain another company holds: %v", e)
		}

		// A member reads the window, and may not change it.
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
