package vitrine

import (
	"testing"
)

// A number attribute takes finite numbers only: NaN and the infinities
// have no JSON form, so a product holding one could not be answered.
func TestNumberAttributeIsFinite(t *testing.T) {
	def := &Attribute{Key: "weight_n", Type: AttributeNumber}
	for _, v := range []any{"NaN", "nan", "Inf", "+Inf", "-Inf", "Infinity", "-Infinity", "infinity", " NaN ", "1e400"} {
		_, err := def.Check("attributes.weight_n", v)
		if e := AsError(err); e == nil || e.Type != ValidationError || e.Field != "attributes.weight_n" {
			t.Errorf("%q: %v, want a ValidationError on attributes.weight_n", v, err)
		}
	}
	for v, want := range map[any]float64{"1.5": 1.5, " -2 ": -2, 3.25: 3.25, 7: 7, int64(8): 8, "1e300": 1e300} {
		got, err := def.Check("attributes.weight_n", v)
		if err != nil || got != want {
			t.Errorf("%v: %v %v, want %v", v, got, err, want)
		}
	}
}
