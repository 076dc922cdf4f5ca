package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

type synonymsOut struct {
	Synonyms []struct {
		Locale string
		Groups [][]string
		OneWay map[string][]string `json:"one_way"`
	}
}

// Synonyms through the tools: saved (merged, then replaced), listed by
// locale, used by list_products' query (a group both ways, a one-way
// word forward only, a phrase), refused when out of bounds, deleted by
// word and all; each write in the audit log; another company's search
// unchanged.
func TestSynonymsThroughTheTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", owner)
		tn := w.tenants["technova"]
		names := func(tenant, query string) string {
			t.Helper()
			cs := cs
			if tenant != tn {
				cs = w.session("memory", member)
			}
			list := testkit.OK[productList](t, cs, "list_products", map[string]any{"tenant_id": tenant, "query": query})
			var out []string
			for _, p := range list.Products {
				out = append(out, p.Name)
			}
			return strings.Join(out, ", ")
		}
		if got := names(tn, "headphones"); got != "" {
			t.Fatalf("headphones before any synonym: %q", got)
		}
		saved := testkit.OK[struct{ Saved int }](t, cs, "save_synonyms", map[string]any{"tenant_id": tn,
			"groups":  [][]string{{"headphones", "fone de ouvido"}, {"sweater", "moletom"}},
			"one_way": map[string][]string{"shirt": {"camiseta"}}})
		if saved.Saved != 3 {
			t.Errorf("saved %d, want 3", saved.Saved)
		}
		for q, want := range map[string]string{
			"headphones":       "Fone de Ouvido JBL Tune 520BT",
			"fones de ouvido":  "Fone de Ouvido JBL Tune 520BT",
			"sweaters":         "Moletom TechNova com Capuz",
			"shirts":           "Camiseta TechNova Dev",
			"camiseta":         "Camiseta TechNova Dev",
			"headphones jbl":   "Fone de Ouvido JBL Tune 520BT",
			"headphones apple": "Fone de Ouvido JBL Tune 520BT", // the phrase fallback, on the expanded words
		} {
			if got := names(tn, q); got != want {
				t.Errorf("%q: %q, want %q", q, got, want)
			}
		}
		// Merged: an English locale's group beside them.
		testkit.OK[struct{ Saved int }](t, cs, "save_synonyms", map[string]any{"tenant_id": tn, "locale": "en", "groups": [][]string{{"mug", "cup"}}})
		list := testkit.OK[synonymsOut](t, cs, "list_synonyms", map[string]any{"tenant_id": tn})
		if len(list.Synonyms) != 2 || list.Synonyms[0].Locale != "" || len(list.Synonyms[0].Groups) != 2 || len(list.Synonyms[0].OneWay["shirt"]) != 1 || list.Synonyms[1].Locale != "en" {
			t.Errorf("list_synonyms: %+v", list)
		}
		// Refused: a group of one word, a phrase too long, a bad locale.
		for _, args := range []map[string]any{
			{"groups": [][]string{{"sofa"}}},
			{"groups": [][]string{{"sofa", "um dois tres quatro cinco"}}},
			{"groups": [][]string{{"sofa", "couch"}}, "locale": "not a locale"},
			{},
		} {
			args["tenant_id"] = tn
			if e := testkit.ErrorOf(t, cs, "save_synonyms", args); e["type"] != "ValidationError" {
				t.Errorf("save_synonyms(%v): %v", args, e)
			}
		}
		// Replaced: the every-language set holds only the new group.
		testkit.OK[struct{ Saved int }](t, cs, "save_synonyms", map[string]any{"tenant_id": tn, "replace": true, "groups": [][]string{{"notebook", "laptop"}}})
		if got := names(tn, "headphones"); got != "" {
			t.Errorf("headphones after replace: %q", got)
		}
		if got := names(tn, "laptops"); got != "Notebook Dell Inspiron 15" {
			t.Errorf("laptops: %q", got)
		}
		// Another company's search is its own.
		if got := names(w.tenants["mercado-verde"], "laptop"); got != "" {
			t.Errorf("mercado-verde's laptop: %q", got)
		}
		if e := testkit.ErrorOf(t, cs, "delete_synonyms", map[string]any{"tenant_id": tn}); e["type"] != "ValidationError" {
			t.Errorf("delete_synonyms without words or all: %v", e)
		}
		if d := testkit.OK[struct{ Deleted int }](t, cs, "delete_synonyms", map[string]any{"tenant_id": tn, "words": []string{"Laptop"}}); d.Deleted != 1 {
			t.Errorf("deleted %d by word", d.Deleted)
		}
		if d := testkit.OK[struct{ Deleted int }](t, cs, "delete_synonyms", map[string]any{"tenant_id": tn, "all": true}); d.Deleted != 1 {
			t.Errorf("deleted %d of all (en's mug)", d.Deleted)
		}
		if got := names(tn, "laptops"); got != "" {
			t.Errorf("laptops after delete: %q", got)
		}
		events := testkit.OK[struct {
			Events []struct{ Tool, Outcome string }
		}](t, cs, "list_audit_events", map[string]any{"tenant_id": tn, "limit": 50})
		n := 0
		for _, e := range events.Events {
			if (e.Tool == "save_synonyms" || e.Tool == "delete_synonyms") && e.Outcome == "ok" {
				n++
			}
		}
		if n != 5 {
			t.Errorf("%d synonyms' audit events; want 5 succeeded (3 saves, 2 deletes): %+v", n, events)
		}
	})
}
