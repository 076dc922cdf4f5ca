package vitrine_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/vitrine/vitrine"
)

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		rate      vitrine.Decimal
		rounding  vitrine.Rounding
		scale     int // the market currency's
		from      int // the catalog currency's
		minor     int64
		want      int64
		wantFails bool
	}{
		// R$ 100.00 at 0.18 is exactly 18.00.
		{"0.18", vitrine.Rounding99, 2, 2, 10000, 1899, false},
		{"0.18", vitrine.Rounding90, 2, 2, 10000, 1890, false},
		{"0.18", vitrine.RoundingUnit, 2, 2, 10000, 1800, false},
		{"0.18", vitrine.RoundingNone, 2, 2, 10000, 1800, false},
		// 18.99 exactly is its own .99 price; 19.00 goes to 19.99.
		{"1", vitrine.Rounding99, 2, 2, 1899, 1899, false},
		{"1", vitrine.Rounding99, 2, 2, 1900, 1999, false},
		{"1", vitrine.Rounding90, 2, 2, 1891, 1990, false},
		{"1", vitrine.RoundingUnit, 2, 2, 1801, 1900, false},
		// A converted amount below a minor unit: 10.005 is 10.01 half up,
		// 10.0049 is 10.00; ".99" goes up from any fraction of a cent.
		{"0.5", vitrine.RoundingNone, 2, 2, 2001, 1001, false},
		{"0.4999", vitrine.RoundingNone, 2, 2, 2001, 1000, false},
		{"0.5", vitrine.Rounding99, 2, 2, 1999, 1099, false},
		{"0.5", vitrine.Rounding99, 2, 2, 2, 99, false},
		// Into a currency without cents: .99 and .90 are whole units.
		{"27.5", vitrine.Rounding99, 0, 2, 1000, 275, false},
		{"27.55", vitrine.Rounding99, 0, 2, 1000, 276, false},
		{"27.55", vitrine.RoundingNone, 0, 2, 1000, 276, false},
		{"27.54", vitrine.RoundingNone, 0, 2, 1000, 275, false},
		// From a currency without cents; into one of three decimals.
		{"0.0065", vitrine.Rounding99, 2, 0, 1000, 699, false},
		{"0.3", vitrine.Rounding99, 3, 2, 1000, 3990, false},
		// Zero stays zero under every rule.
		{"0.18", vitrine.Rounding99, 2, 2, 0, 0, false},
		{"0.18", vitrine.RoundingUnit, 2, 2, 0, 0, false},
		// Absurd: beyond any price.
		{"999999999", vitrine.RoundingNone, 3, 0, 9_000_000_000_000, 0, true},
	} {
		cv, err := vitrine.NewConverter(tc.rate, tc.rounding, tc.scale)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := cv.Convert(tc.minor, tc.from)
		if ok == tc.wantFails || (ok && got != tc.want) {
			t.Errorf("%d (scale %d) × %s by %q into scale %d: %d, %v; want %d", tc.minor, tc.from, tc.rate, tc.rounding, tc.scale, got, ok, tc.want)
		}
	}
}

// Every rule, on random prices and rates: the price is at least the exact
// converted amount (none: within half a minor unit of it), of the rule's
// form, and the smallest of that form (less one step would be below).
func TestConvertProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 1))
	rates := []vitrine.Decimal{"0.18", "5.4321", "0.000123", "1", "123.456789012", "0.5"}
	for range 20000 {
		rate := rates[rng.IntN(len(rates))]
		rounding := vitrine.Roundings[rng.IntN(len(vitrine.Roundings))]
		scale, from := rng.IntN(4), rng.IntN(4)
		minor := rng.Int64N(10_000_000_000)
		cv, err := vitrine.NewConverter(rate, rounding, scale)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := cv.Convert(minor, from)
		if !ok {
			t.Fatalf("%d × %s: not converted", minor, rate)
		}
		r, _ := new(big.Rat).SetString(string(rate))
		exact := new(big.Rat).Mul(new(big.Rat).SetFrac(big.NewInt(minor), pow(from)), r)
		exact.Mul(exact, new(big.Rat).SetInt(pow(scale))) // in the market's minor units
		g := new(big.Rat).SetInt64(got)
		if minor == 0 {
			if got != 0 {
				t.Fatalf("0 converted to %d", got)
			}
			continue
		}
		unit := pow(scale).Int64()
		var step, end int64
		switch {
		case rounding == vitrine.RoundingNone:
			diff := new(big.Rat).Sub(g, exact)
			diff.Abs(diff)
			if diff.Cmp(big.NewRat(1, 2)) > 0 {
				t.Fatalf("%d × %s none, scale %d→%d: %d is not the nearest to %s", minor, rate, from, scale, got, exact.FloatString(4))
			}
			continue
		case rounding == vitrine.RoundingUnit || scale < 2:
			step, end = unit, 0
		case rounding == vitrine.Rounding99:
			step, end = unit, unit-pow(scale-2).Int64()
		default:
			step, end = unit, unit-pow(scale-1).Int64()
		}
		if g.Cmp(exact) < 0 || got%step != end || new(big.Rat).SetInt64(got-step).Cmp(exact) >= 0 {
			t.Fatalf("%d × %s by %q, scale %d→%d: %d for %s", minor, rate, rounding, from, scale, got, exact.FloatString(4))
		}
	}
}

func pow(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func TestMarketValidation(t *testing.T) {
	for _, s := range []string{"0", "0.0", "", "-1", "1e3", "1,5", ".5", "5.", "1.0000000000001", "1234567890"} {
		if _, err := vitrine.ParseExchangeRate("exchange_rate", s); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("rate %q: %v", s, err)
		}
	}
	for in, want := range map[string]vitrine.Decimal{"0.18": "0.18", "00.1800": "0.18", "5": "5", "5.0": "5", "123456789.000000000001": "123456789.000000000001"} {
		if got, err := vitrine.ParseExchangeRate("exchange_rate", in); err != nil || got != want {
			t.Errorf("rate %q: %q, %v", in, got, err)
		}
	}
	for _, cs := range [][]string{nil, {"ZZ"}, {"XX"}, {"USA"}, {"u"}, {"EU"}} {
		if _, err := vitrine.ValidateMarketCountries("countries", cs); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("countries %q: %v", cs, err)
		}
	}
	if got, err := vitrine.ValidateMarketCountries("countries", []string{"us", "CA", "US"}); err != nil || len(got) != 2 || got[0] != "US" {
		t.Errorf("countries: %v, %v", got, err)
	}
	co := &vitrine.Tenant{Locales: []string{"pt-BR", "es", "en"}}
	for _, ls := range [][]string{nil, {"not a tag"}, {"en_US!"}, {""}, {"fr"}, {"es", "de"}} {
		if _, err := vitrine.ValidateMarketLocales("locales", ls, co); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("locales %q: %v", ls, err)
		}
	}
	if got, err := vitrine.ValidateMarketLocales("locales", []string{"ES", "en", "es"}, co); err != nil || len(got) != 2 || got[0] != "es" {
		t.Errorf("locales: %v, %v", got, err)
	}
	if _, err := vitrine.ParseRounding("rounding", "0.95"); vitrine.TypeOf(err) != vitrine.ValidationError {
		t.Errorf("rounding 0.95: %v", err)
	}
}

// A range of a market's prices is a range of the catalog's: the prices
// whose conversions fall within [min, max] are exactly those within the
// bounds CatalogBounds gives, under every rule, whatever the scales.
func TestConverterCatalogBounds(t *testing.T) {
	for _, rule := range vitrine.Roundings {
		for _, c := range []struct {
			rate        vitrine.Decimal
			scale, from int
		}{{"0.18", 2, 2}, {"5.3", 2, 2}, {"0.0071", 0, 2}, {"1", 3, 2}} {
			cv, err := vitrine.NewConverter(c.rate, rule, c.scale)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range [][2]int64{{0, 0}, {1, 99}, {99, 1899}, {1800, 1899}, {1900, 1900}, {5, 100000}} {
				lo, hi := cv.CatalogBounds(&b[0], &b[1], c.from)
				for p := int64(0); p <= 30000; p++ {
					conv, _ := cv.Convert(p, c.from)
					in := conv >= b[0] && conv <= b[1]
					if got := p >= *lo && p <= *hi; got != in {
						t.Fatalf("%s %s (scale %d): %d converts to %d; in [%d, %d]: %v, but the bounds [%d, %d] say %v", rule, c.rate, c.scale, p, conv, b[0], b[1], in, *lo, *hi, got)
					}
				}
			}
			if lo, hi := cv.CatalogBounds(nil, nil, c.from); lo != nil || hi != nil {
				t.Errorf("no bounds: %v %v", lo, hi)
			}
		}
	}
}

// The arithmetic in machine words answers as the big integers do, for
// every rule, at the edges where a product stops fitting a word and where
// a price passes the largest converted.
func TestConvertInWordsAsInBigIntegers(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 2))
	rates := []vitrine.Decimal{"0.18", "5.4321", "0.000123", "1", "123.456789012", "0.5", "999999999.999999999999", "0.000000000001", "7"}
	minors := []int64{1, 9, 10, 99, 100, 101, 1 << 40, 1<<53 + 1, 99_999_999_999_999_999, 100_000_000_000_000_000, 100_000_000_000_000_001, 1 << 62, 1<<63 - 1}
	for i := range 200000 {
		rate := rates[rng.IntN(len(rates))]
		rounding := vitrine.Roundings[rng.IntN(len(vitrine.Roundings))]
		scale, from := rng.IntN(5), rng.IntN(5)
		minor := rng.Int64N(10_000_000_000)
		switch i % 4 {
		case 1:
			minor = minors[rng.IntN(len(minors))]
		case 2:
			minor = rng.Int64()
		}
		cv, err := vitrine.NewConverter(rate, rounding, scale)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := cv.Convert(minor, from)
		want, wantOK := cv.ConvertBig(minor, from)
		if got != want || ok != wantOK {
			t.Fatalf("%d × %s by %q, scale %d→%d: %d, %v in words; %d, %v in big integers", minor, rate, rounding, from, scale, got, ok, want, wantOK)
		}
	}
}

func BenchmarkConvert(b *testing.B) {
	cv, err := vitrine.NewConverter("0.18", vitrine.Rounding99, 2)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("words", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			cv.Convert(int64(1000+i%100000), 2)
		}
	})
	b.Run("big", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			cv.ConvertBig(int64(1000+i%100000), 2)
		}
	})
}
