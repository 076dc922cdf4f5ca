package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/store"
)

// synonymCall is a change made in a call of tool.
func synonymCall(userID, tool string) vitrine.Change {
	call := vitrine.Call{RequestID: vitrine.NewID(), Tool: tool, At: vitrine.Now(), Reason: tool}
	return vitrine.Change{UserID: userID, TokenID: "tok", Call: call, Reason: call.Reason}
}

func mustSynonym(t *testing.T, locale, from string, words ...string) *vitrine.Synonym {
	t.Helper()
	s, err := vitrine.NewSynonym("s", locale, from, words)
	if err != nil {
		t.Fatal(err)
	}
	s.UpdatedAt = vitrine.Now()
	return s
}

// A company's synonyms: saved (merged by key, or replacing a locale's),
// listed, deleted by word or all, each write audited and moving the
// catalog sequence; bounded; another company's never read.
func TestSynonyms(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)
		listed := func(tenantID string) string {
			t.Helper()
			all, err := f.db.Synonyms(ctx, tenantID)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, s := range all {
				if s.TenantID != tenantID {
					t.Errorf("a synonym of %s listed for %s", s.TenantID, tenantID)
				}
				out = append(out, s.Locale+":"+s.From+">"+strings.Join(s.Words, ","))
			}
			return strings.Join(out, " ")
		}
		stamp := func() string {
			s, err := f.db.CatalogStamp(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}

		before := stamp()
		ch := synonymCall(ana.ID, "save_synonyms")
		if err := f.db.SaveSynonyms(ctx, ch, a.ID, "", []*vitrine.Synonym{
			mustSynonym(t, "", "", "sofa", "couch"), mustSynonym(t, "", "lamp", "light"),
		}, false); err != nil {
			t.Fatal(err)
		}
		if stamp() == before {
			t.Error("a save of synonyms left the catalog sequence where it was")
		}
		// Merged: the same group (in another order and case) is one; a
		// one-way word's targets are replaced; a new group is added.
		if err := f.db.SaveSynonyms(ctx, synonymCall(ana.ID, "save_synonyms"), a.ID, "", []*vitrine.Synonym{
			mustSynonym(t, "", "", "COUCH", "sofa"), mustSynonym(t, "", "lamp", "light", "lantern"), mustSynonym(t, "", "", "tee", "t-shirt"),
		}, false); err != nil {
			t.Fatal(err)
		}
		if err := f.db.SaveSynonyms(ctx, synonymCall(ana.ID, "save_synonyms"), a.ID, "en", []*vitrine.Synonym{mustSynonym(t, "en", "", "sweater", "jumper")}, false); err != nil {
			t.Fatal(err)
		}
		if got, want := listed(a.ID), ":>COUCH,sofa :>tee,t-shirt :lamp>light,lantern en:>sweater,jumper"; got != want {
			t.Errorf("listed %q, want %q", got, want)
		}
		if got := listed(b.ID); got != "" {
			t.Errorf("another company lists %q", got)
		}
		// Replace: the locale's synonyms, not the others'.
		if err := f.db.SaveSynonyms(ctx, synonymCall(ana.ID, "save_synonyms"), a.ID, "", []*vitrine.Synonym{mustSynonym(t, "", "", "sofa", "settee")}, true); err != nil {
			t.Fatal(err)
		}
		if got, want := listed(a.ID), ":>sofa,settee en:>sweater,jumper"; got != want {
			t.Errorf("after replace: %q, want %q", got, want)
		}
		// Bounded: a save past the bound is refused whole.
		many := make([]*vitrine.Synonym, vitrine.MaxSynonyms-1)
		for i := range many {
			many[i] = mustSynonym(t, "", "", fmt.Sprintf("w%d", i), fmt.Sprintf("x%d", i))
		}
		err := f.db.SaveSynonyms(ctx, synonymCall(ana.ID, "save_synonyms"), a.ID, "", many, false)
		if vitrine.TypeOf(err) != vitrine.ValidationError || !strings.Contains(err.Error(), "at most 1000") {
			t.Errorf("a save past the bound: %v", err)
		}
		if got := listed(a.ID); got != ":>sofa,settee en:>sweater,jumper" {
			t.Errorf("after a refused save: %q", got)
		}
		if err := f.db.SaveSynonyms(ctx, synonymCall(ana.ID, "save_synonyms"), a.ID, "", many[:vitrine.MaxSynonyms-2], false); err != nil {
			t.Errorf("a save up to the bound: %v", err)
		}
		// Deleted by word (as folded), of a locale or all.
		before = stamp()
		locale := ""
		n, err := f.db.DeleteSynonyms(ctx, synonymCall(ana.ID, "delete_synonyms"), a.ID, &locale, []string{"SOFÁ", "jumper", "w5"})
		if err != nil || n != 2 {
			t.Errorf("deleted %d, %v; want 2 (the jumper is en's)", n, err)
		}
		if stamp() == before {
			t.Error("a delete of synonyms left the catalog sequence where it was")
		}
		if n, err := f.db.DeleteSynonyms(ctx, synonymCall(ana.ID, "delete_synonyms"), a.ID, nil, nil); err != nil || n != vitrine.MaxSynonyms-2 {
			t.Errorf("deleted all: %d, %v", n, err)
		}
		if got := listed(a.ID); got != "" {
			t.Errorf("after deleting all: %q", got)
		}
		events, err := f.db.ListAudit(ctx, a.ID, vitrine.AuditFilter{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]int{}
		for _, e := range events {
			tools[e.Tool]++
		}
		if tools["save_synonyms"] != 5 || tools["delete_synonyms"] != 2 {
			t.Errorf("audit events: %v; want 5 saves and 2 deletes (the refused save none)", tools)
		}
		if events, _ := f.db.ListAudit(ctx, b.ID, vitrine.AuditFilter{Limit: 50}); slices.ContainsFunc(events, func(e *vitrine.AuditEvent) bool { return strings.Contains(e.Tool, "synonyms") }) {
			t.Error("another company's audit holds the synonyms' events")
		}
	})
}

// A query's words find their synonyms' products, on the SQL path and the
// index's, alike, with the same facets: a group's words each other's,
// one-way words only forward, analyzed ("sofas" finds couches), phrases
// ("fones de ouvido" and "headphones"); a synonym's match ranks after the
// word's own; another company's synonyms never change a company's results.
func TestSynonymsInSearch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		a, b := f.tenant("alfa", ana), f.tenant("beta", bia)
		for i, name := range []string{"Velvet Couch", "Oak Settee", "Sofa Bed", "Desk Lamp", "Light Bulb", "Fones de ouvido Bluetooth", "Headphones Pro", "Chair"} {
			f.product(a.ID, fmt.Sprintf("A-%d", i), name, 100, vitrine.ProductActive)
		}
		f.product(a.ID, "A-DRAFT", "Draft Couch", 100, vitrine.ProductDraft)
		for i, name := range []string{"Velvet Couch", "Sofa Bed", "Light Bulb"} {
			f.product(b.ID, fmt.Sprintf("B-%d", i), name, 100, vitrine.ProductActive)
		}
		if err := f.db.SaveSynonyms(ctx, synonymCall(ana.ID, "save_synonyms"), a.ID, "", []*vitrine.Synonym{
			mustSynonym(t, "", "", "sofa", "couch", "settee"),
			mustSynonym(t, "", "lamp", "light"),
			mustSynonym(t, "", "", "fones de ouvido", "headphones"),
		}, false); err != nil {
			t.Fatal(err)
		}
		bySQL := openWith(t, url, store.Options{FacetIndexMemory: -1})
		find := func(db *store.DB, tenantID, query string, facets bool) ([]string, *vitrine.FoundProducts) {
			t.Helper()
			q := vitrine.ProductQuery{Query: vitrine.QueryText(query), Status: vitrine.ProductActive}
			if facets {
				q.Facets = vitrine.FacetNames
			}
			found, err := db.FindProducts(ctx, tenantID, filterOf(q, 20))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range found.Products {
				names = append(names, p.Name)
			}
			return names, found
		}
		find(f.db, a.ID, "chair", true)
		f.db.WaitIndexes()
		for _, c := range []struct{ query, want string }{
			{"sofas", "Sofa Bed, Oak Settee, Velvet Couch"},
			{"couch", "Velvet Couch, Oak Settee, Sofa Bed"},
			{"velvet couches", "Velvet Couch"},
			{"lamp", "Desk Lamp, Light Bulb"},
			{"light", "Light Bulb"},
			{"fones de ouvido", "Fones de ouvido Bluetooth, Headphones Pro"},
			{"headphones", "Headphones Pro, Fones de ouvido Bluetooth"},
			{"chair", "Chair"},
		} {
			for _, db := range []*store.DB{f.db, bySQL} {
				for _, facets := range []bool{false, true} {
					got, found := find(db, a.ID, c.query, facets)
					if strings.Join(got, ", ") != c.want {
						t.Errorf("%q (index %v, facets %v): %q, want %q", c.query, db == f.db, facets, got, c.want)
					}
					if facets {
						_, want := find(bySQL, a.ID, c.query, true)
						if g, w := fmt.Sprint(found.Facets.Values), fmt.Sprint(want.Facets.Values); g != w {
							t.Errorf("%q facets: %s, SQL's %s", c.query, g, w)
						}
					}
				}
			}
		}
		if s := f.db.IndexStats(); s.Index == 0 {
			t.Errorf("the index answered none: %+v", s)
		}
		// Another company: its own words only, whatever alfa taught.
		for _, c := range []struct{ query, want string }{{"couch", "Velvet Couch"}, {"lamp", ""}, {"settee", ""}} {
			for _, facets := range []bool{false, true} {
				if got, _ := find(f.db, b.ID, c.query, facets); strings.Join(got, ", ") != c.want {
					t.Errorf("beta's %q: %q, want %q", c.query, got, c.want)
				}
			}
		}
	})
}
