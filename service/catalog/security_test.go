package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/catalog"
)

// Issue 31, finding 6: an enum holds at most 1,000 values, and a wrong
// value's refusal names a few of them and their count, not all.
func TestEnumAttributeBounds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		values := func(n int) *[]string {
			vs := make([]string, n)
			for i := range vs {
				vs[i] = fmt.Sprintf("v%d", i)
			}
			return &vs
		}
		_, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "huge", Type: "enum", Values: values(30_000)})
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "values" || !strings.Contains(e.Message, "1000") {
			t.Fatalf("30,000 values: %v, want a ValidationError on values naming the bound", err)
		}
		// Repeats count once.
		vs := append(*values(vitrine.MaxEnumValues), *values(vitrine.MaxEnumValues)...)
		at, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "size_code", Type: "enum", Values: &vs})
		if err != nil || len(at.Values) != vitrine.MaxEnumValues {
			t.Fatalf("1,000 values given twice: %v %v", at, err)
		}
		_, err = w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Shirt", Price: "1.00", Attributes: map[string]any{"size_code": "nope"}}, "")
		e := vitrine.AsError(err)
		if e == nil || e.Type != vitrine.ValidationError || e.Field != "attributes.size_code" {
			t.Fatalf("a wrong value: %v", err)
		}
		if len(e.Message) > 400 || !strings.Contains(e.Message, "1000") || !strings.Contains(e.Message, `"v0"`) || strings.Contains(e.Message, `"v999"`) {
			t.Errorf("the refusal names a few values and the count, not all (%d bytes): %s", len(e.Message), e.Message)
		}
		if _, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Shirt", Price: "1.00", Attributes: map[string]any{"size_code": "v999"}}, ""); err != nil {
			t.Errorf("an allowed value: %v", err)
		}
	})
}
