package catalog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	segjson "github.com/segmentio/encoding/json"
	"github.com/vitrine/vitrine"
)

// richDoc is the stored record of a product of 10 variants (Size × Color)
// and 10 images, as the benchmark's.
func richDoc(tb testing.TB) string {
	p := &vitrine.Product{Tags: []string{"coleção-36", "coleção-37", "verão"}, Attributes: map[string]any{"material": "algodão", "peso": 1.5},
		SEO: vitrine.SEO{Title: "Camiseta", Description: "Camiseta de algodão"}}
	for _, c := range []string{"Azul", "Verde"} {
		for _, s := range []string{"XS", "S", "M", "L", "XL"} {
			cmp := int64(139045)
			p.Variants = append(p.Variants, &vitrine.Variant{ID: vitrine.NewID(), SKU: "R0000000-" + s + "-" + c, Options: map[string]string{"Size": s, "Color": c},
				Price: 115871, CompareAtPrice: &cmp, Stock: 7, Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true, Position: len(p.Variants) + 1,
				Weight: &vitrine.Weight{Value: "0.25", Unit: "kg"}})
		}
	}
	p.Options = []vitrine.Option{{Name: "Size", Values: []string{"XS", "S", "M", "L", "XL"}}, {Name: "Color", Values: []string{"Azul", "Verde"}}}
	for k := range 10 {
		p.Media = append(p.Media, vitrine.Media{URL: fmt.Sprintf("https://cdn.vitrine.example/p/R0000000-%d.jpg", k+1), Alt: fmt.Sprintf("Luminária, foto %d", k+1), Position: k + 1})
	}
	p.Categories = []vitrine.ProductCategory{{ID: vitrine.NewID()}}
	doc, err := docOf(p)
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

func TestDocDecodersAgree(t *testing.T) {
	doc := richDoc(t)
	var a, b productDoc
	if err := json.Unmarshal([]byte(doc), &a); err != nil {
		t.Fatal(err)
	}
	if err := segjson.Unmarshal([]byte(doc), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%+v\n%+v", a, b)
	}
}

func BenchmarkDocDecode(b *testing.B) {
	doc := richDoc(b)
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var d productDoc
			if err := json.Unmarshal([]byte(doc), &d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("segmentio", func(b *testing.B) {
		for b.Loop() {
			var d productDoc
			if err := segjson.Unmarshal([]byte(doc), &d); err != nil {
				b.Fatal(err)
			}
		}
	})
}
