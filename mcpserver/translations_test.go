package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Translations through the tools: a company of one locale says nothing of
// locales; given three, get_tenant says them; a product translated into
// es reads in es with fallback, is no longer untranslated there, and the
// write is audited as its call.
func TestTranslationsThroughTheTools(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	cs := w.sessionWithToken("memory", w.token(owner, []string{"all"}))
	if text, _ := testkit.Call(t, cs, "get_tenant", map[string]any{"tenant_id": technova}); strings.Contains(text, "locales") {
		t.Errorf("a company of one locale: %s", text)
	}
	tn := testkit.OK[struct{ Locales []string }](t, cs, "update_tenant", map[string]any{"tenant_id": technova, "locales": []string{"pt-BR", "es", "en"}})
	if strings.Join(tn.Locales, ",") != "pt-BR,es,en" {
		t.Fatalf("locales: %v", tn.Locales)
	}
	if text, _ := testkit.Call(t, cs, "list_tenants", map[string]any{}); strings.Contains(text, "locales") {
		t.Errorf("a list row: %s", text)
	}
	list := testkit.OK[struct{ Products []struct{ ID, Name string } }](t, cs, "list_products", map[string]any{"tenant_id": technova, "untranslated": "es", "limit": 100})
	if len(list.Products) == 0 {
		t.Fatal("no product untranslated in es")
	}
	id, name := list.Products[0].ID, list.Products[0].Name
	got := testkit.OK[struct {
		Resource string
		Fields   []struct {
			Field, Source string
			Locales       map[string]struct{ Value string }
		}
	}](t, cs, "translate_product", map[string]any{"tenant_id": technova, "id": id, "locale": "es", "name": "Nombre ES"})
	if got.Resource != "product" || got.Fields[0].Field != "name" || got.Fields[0].Source != name || got.Fields[0].Locales["es"].Value != "Nombre ES" {
		t.Errorf("translate_product: %+v", got)
	}
	p := testkit.OK[struct{ Name, Handle string }](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": id, "locale": "es"})
	if p.Name != "Nombre ES" || p.Handle == "" {
		t.Errorf("get_product in es: %+v", p)
	}
	testkit.Fails(t, cs, "translate_product", map[string]any{"tenant_id": technova, "id": id, "locale": "pt-BR", "name": "x"},
		`{"error":true,"type":"ValidationError","message":"pt-BR is the company's default locale, in which the catalog itself is written; translations are into its other locales (es, en)","field":"locale"}`)
	events := testkit.OK[struct {
		Events []struct {
			Tool     string
			TargetID string `json:"target_id"`
		}
	}](t, cs, "list_audit_events", map[string]any{"tenant_id": technova, "tool": "translate_product"})
	if len(events.Events) != 2 || events.Events[len(events.Events)-1].TargetID != id {
		t.Errorf("the audit of translate_product: %+v", events)
	}
	if text, _ := testkit.Call(t, cs, "get_translations", map[string]any{"tenant_id": technova, "id": id, "locale": "fr"}); !strings.Contains(text, "ValidationError") {
		t.Errorf("get_translations in fr: %s", text)
	}
}
