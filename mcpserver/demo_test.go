package mcpserver_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// README.md's questions to the demo get the answers it prints, on both
// databases: each row of its demo-calls table is a list_products call as
// Ana in TechNova, and the products it names are the whole answer. The
// companies hold the number of products README says, and the facets of
// every kind answer.
func TestReadmeDemoCalls(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)<!-- demo-calls:begin[^>]*-->\n(.*?)<!-- demo-calls:end -->`).FindSubmatch(readme)
	if table == nil {
		t.Fatal("README.md has no demo-calls table")
	}
	rows := regexp.MustCompile("(?m)^\\| ([^|]+) \\| `([^`]+)` \\| ([^|]+) \\|$").FindAllStringSubmatch(string(table[1]), -1)
	if len(rows) < 5 {
		t.Fatalf("README.md's demo-calls table has %d rows", len(rows))
	}
	counts := regexp.MustCompile(`TechNova \(electronics[^)]*\) has (\d+) products, Mercado Verde \(groceries\) (\d+)`).FindSubmatch(readme)
	if counts == nil {
		t.Fatal("README.md does not say how many products the demo companies have")
	}
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", owner)
		technova := w.tenants["technova"]
		for _, r := range rows {
			question, args, want := r[1], map[string]any{}, strings.Split(r[3], ", ")
			if err := json.Unmarshal([]byte(r[2]), &args); err != nil {
				t.Fatalf("%s: %v", question, err)
			}
			args["tenant_id"], args["limit"] = technova, 100
			var got []string
			for _, p := range testkit.OK[productList](t, cs, "list_products", args).Products {
				got = append(got, p.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %q answers %q, README says %q", question, r[2], got, want)
			}
		}
		for i, slug := range []string{"technova", "mercado-verde"} {
			list := testkit.OK[productList](t, w.session("memory", member), "list_products", map[string]any{"tenant_id": w.tenants[slug], "limit": 100})
			if n, _ := strconv.Atoi(string(counts[i+1])); len(list.Products) != n {
				t.Errorf("%s has %d products, README says %s", slug, len(list.Products), counts[i+1])
			}
		}
		facets := testkit.OK[struct{ Facets map[string]json.RawMessage }](t, cs, "list_products", map[string]any{"tenant_id": technova,
			"facets": []string{"vendor", "product_type", "tags", "categories", "options", "status"}})
		for _, f := range []string{"vendor", "product_type", "tags", "categories", "options", "status"} {
			if v := facets.Facets[f]; len(v) < 10 {
				t.Errorf("the demo's %s facet: %s", f, v)
			}
		}
	})
}
