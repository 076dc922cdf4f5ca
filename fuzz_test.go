package vitrine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The parsers of outside input answer a value or a ValidationError, and
// never panic or hang, whatever they are given.

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"4599.90", "0", "0.01", "007.50", "12,50", "-1", "1e3", " 1", "9999999999999.99", "10000000000000", ".5", "5.", ""} {
		f.Add(s, uint8(2))
	}
	f.Add("1299", uint8(0))
	f.Add("1.234", uint8(3))
	f.Fuzz(func(t *testing.T, s string, scale uint8) {
		sc := int(scale % 5)
		minor, err := ParsePrice("price", s, sc)
		if err != nil {
			if e := AsError(err); e == nil || e.Type != ValidationError || e.Field != "price" {
				t.Fatalf("ParsePrice(%q, %d): %v", s, sc, err)
			}
			return
		}
		if minor < 0 {
			t.Fatalf("ParsePrice(%q, %d) = %d", s, sc, minor)
		}
		back, err := ParsePrice("price", FormatPrice(minor, sc), sc)
		if err != nil || back != minor {
			t.Fatalf("%q: %d formats as %q, which parses as %d, %v", s, minor, FormatPrice(minor, sc), back, err)
		}
	})
}

func FuzzSKUAndWords(f *testing.F) {
	for _, s := range []string{"NB-DELL-5440", "a", "-AB", "A B", "maçã", "A;DROP", "A\x00B", "x/y.z_1", "Maçã Fuji (kg)", "ß\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sku, key, err := ValidateSKU("sku", s)
		if err == nil && (key != strings.ToLower(sku) || len(sku) > MaxSKULength || strings.TrimSpace(sku) != sku) {
			t.Fatalf("ValidateSKU(%q) = %q, %q", s, sku, key)
		}
		if err != nil && TypeOf(err) != ValidationError {
			t.Fatalf("ValidateSKU(%q): %v", s, err)
		}
		for _, w := range Words(s) {
			if w == "" || (utf8.ValidString(s) && !utf8.ValidString(w)) || strings.ContainsAny(w, " \t\n") {
				t.Fatalf("Words(%q) holds %q", s, w)
			}
		}
		Fold(s)
		Slugify(s)
	})
}
