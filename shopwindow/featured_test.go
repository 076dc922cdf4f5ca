package shopwindow

import (
	"testing"

	"github.com/vitrine/vitrine"
)

// A search features the variant its query names: by its SKU, or by the
// words of its option values (among those named alike, the window's rule
// for a product as a whole); a query that names none, or names every
// variant alike, leaves the choice to that rule.
func TestNamedVariant(t *testing.T) {
	p := shirt()
	fl := &filter{}
	for query, want := range map[string]string{
		"CAM-AZ-G":         "v2",
		"cam-pr-m":         "v3",
		"camiseta preto":   "v3",
		"camisetas pretas": "v3", // the search's terms: stems
		"camiseta azuis":   featured(&vitrine.Product{Variants: p.Variants[:2]}, fl),
		"camiseta pret":    "v3",
		"camiseta azul g":  "v2",
		"camiseta azul":    featured(&vitrine.Product{Variants: p.Variants[:2]}, fl),
		"camiseta":         "",
		"camiseta algodão": "",
		"":                 "",
		"camiseta m":       featured(&vitrine.Product{Variants: []*vitrine.Variant{p.Variants[0], p.Variants[2]}}, fl),
	} {
		if got := namedVariant(p, fl, query); got != want {
			t.Errorf("namedVariant(%q) = %q, want %q", query, got, want)
		}
	}
	// Outside the price filter, a variant is not named by its SKU.
	max := int64(6000)
	if got := namedVariant(p, &filter{max: &max}, "CAM-AZ-G"); got == "v2" {
		t.Errorf("a SKU outside the price filter: %q", got)
	}
}

// A description's plain text reads as the HTML does: inline elements run
// on with the words around them.
func TestDescribePlain(t *testing.T) {
	d := describe("<b>corta-vento</b>, dobrável")
	if d.Plain != "corta-vento, dobrável" || d.HTML != "<b>corta-vento</b>, dobrável" {
		t.Errorf("describe: %+v", d)
	}
}
