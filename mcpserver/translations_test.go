package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// Translations through the tools: a company of one locale says nothing of
// locales; given three, a product is translated into es, the default
// refused, and the write audited as its call.
func TestTranslationsThroughTheTools(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	cs := w.sessionWithToken("memory", w.token(owner, []string{"all"}))
	if text, _ := testkit.Call(t, cs, "get_tenant", map[string]any{"tenant_id": technova}); strings.Contains(text, "locales") {
		t.Errorf("a company of one locale: %s", text)
	}
	if _, err := w.svc.Operator().UpdateTenant(ctx, "technova", nil, nil, nil, []string{"pt-BR", "es", "en"}); err != nil {
		t.Fatal(err)
	}
	list := testkit.OK[struct{ Products []struct{ ID, Name string } }](t, cs, "list_products", map[string]any{"tenant_id": technova, "limit": 1})
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
