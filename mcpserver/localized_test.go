package mcpserver_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
	"github.com/vitrine/vitrine/mcpserver"
)

// The locale arguments through the tools: tools/list names them only to a
// token granted translations (the default grant's list keeps within its
// budget), and they work for any caller: a company's locales set by
// update_tenant, a product read in es by get_product and list_products,
// the products untranslated in es listed.
func TestLocaleArgumentsThroughTheTools(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	props := func(token string) map[string][]string {
		t.Helper()
		res, err := w.connectWith(mcpserver.Options{Token: token}, nil).ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, tool := range res.Tools {
			for kind, schema := range map[string]any{"in": tool.InputSchema, "out": tool.OutputSchema} {
				data, _ := json.Marshal(schema)
				var s struct{ Properties map[string]json.RawMessage }
				_ = json.Unmarshal(data, &s)
				for p := range s.Properties {
					out[tool.Name+" "+kind] = append(out[tool.Name+" "+kind], p)
				}
			}
		}
		return out
	}
	localized := map[string]string{"get_product in": "locale", "list_products in": "untranslated", "update_tenant in": "locales", "get_tenant out": "locales"}
	byDefault, withTranslations := props(w.token(owner, nil)), props(w.token(owner, []string{"products", "tenants", "translations"}))
	for where, p := range localized {
		if slices.Contains(byDefault[where], p) {
			t.Errorf("the default grant's tools/list names %s's %s", where, p)
		}
		if !slices.Contains(withTranslations[where], p) {
			t.Errorf("a grant with translations: %s has no %s (%v)", where, p, withTranslations[where])
		}
	}
	if !slices.Contains(byDefault["get_product in"], "sku") || !slices.Contains(byDefault["list_products in"], "query") {
		t.Errorf("the default grant's get_product and list_products lost other arguments: %v", byDefault)
	}

	// A caller of the default grant sets the locales and reads in one.
	cs := w.sessionWithToken("memory", w.token(owner, nil))
	tenant := testkit.OK[struct{ Locales []string }](t, cs, "update_tenant", map[string]any{"tenant_id": technova, "locales": []string{"pt-BR", "es"}})
	if !slices.Equal(tenant.Locales, []string{"pt-BR", "es"}) {
		t.Errorf("update_tenant {locales}: %+v", tenant)
	}
	if got := testkit.OK[struct{ Locales []string }](t, cs, "get_tenant", map[string]any{"tenant_id": technova}); !slices.Equal(got.Locales, tenant.Locales) {
		t.Errorf("get_tenant: %+v", got)
	}
	type row struct{ ID, Name string }
	list := testkit.OK[struct{ Products []row }](t, cs, "list_products", map[string]any{"tenant_id": technova, "limit": 100})
	first := list.Products[0]
	translator := w.sessionWithToken("memory", w.token(owner, []string{"all"}))
	testkit.OK[any](t, translator, "translate_product", map[string]any{"tenant_id": technova, "id": first.ID, "locale": "es", "name": "Nombre en español"})
	if p := testkit.OK[row](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": first.ID, "locale": "es"}); p.Name != "Nombre en español" {
		t.Errorf("get_product in es: %+v", p)
	}
	if p := testkit.OK[row](t, cs, "get_product", map[string]any{"tenant_id": technova, "id": first.ID}); p.Name != first.Name {
		t.Errorf("get_product in the default locale: %+v, want %q", p, first.Name)
	}
	inES := testkit.OK[struct{ Products []row }](t, cs, "list_products", map[string]any{"tenant_id": technova, "limit": 100, "locale": "es"})
	if i := slices.IndexFunc(inES.Products, func(r row) bool { return r.ID == first.ID }); i < 0 || inES.Products[i].Name != "Nombre en español" {
		t.Errorf("list_products in es: %+v", inES.Products)
	}
	// Only its name is translated: it still lacks its other fields in es,
	// as every other product lacks all of them.
	untranslated := testkit.OK[struct{ Products []row }](t, cs, "list_products", map[string]any{"tenant_id": technova, "limit": 100, "untranslated": "es"})
	if len(untranslated.Products) != len(list.Products) || !slices.Contains(untranslated.Products, row{first.ID, first.Name}) {
		t.Errorf("list_products {untranslated: es}: %d products of %d, %+v among them: %+v", len(untranslated.Products), len(list.Products), first, untranslated.Products)
	}
	if len(list.Products) < 2 {
		t.Fatalf("the demo company has %d products", len(list.Products))
	}
}
