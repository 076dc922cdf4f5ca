package shopify

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/vitrine/vitrine"
)

var decimalRE = regexp.MustCompile(`^[0-9]{1,12}(?:\.[0-9]{1,9})?$`)

// The grams in one of each unit, exactly; and the decimals a weight in that
// unit keeps when it is written as whole grams, as the format writes it:
// finer ones do not survive the way through grams.
var (
	gramsPer = map[vitrine.WeightUnit]*big.Rat{
		"g":  big.NewRat(1, 1),
		"kg": big.NewRat(1000, 1),
		"lb": big.NewRat(45359237, 100000),
		"oz": big.NewRat(28349523125, 1000000000),
	}
	unitDecimals = map[vitrine.WeightUnit]int{"g": 0, "kg": 3, "lb": 2, "oz": 1}
)

// weight reads Variant Grams, Variant Weight and Variant Weight Unit: the
// weight in the unit (Variant Weight, when given, else the grams
// converted), kept to the decimals whole grams hold in that unit.
func (r *Reader) weight(b *builder, rw *row) *vitrine.Weight {
	grams, value := r.cell(rw, fGrams), r.cell(rw, fWeight)
	unitCell := r.cell(rw, fWeightUnit)
	unit := vitrine.WeightUnit(strings.ToLower(unitCell))
	if unit == "lbs" {
		unit = "lb"
	}
	if grams == "" && value == "" {
		return nil
	}
	if unit == "" {
		unit = "g"
	} else if gramsPer[unit] == nil {
		b.refuse(rw.line, fWeightUnit, "%s must be g, kg, lb or oz; got %q", r.name(fWeightUnit), unitCell)
		return nil
	}
	var g *big.Rat // whole grams
	if value != "" {
		if !decimalRE.MatchString(value) {
			b.refuse(rw.line, fWeight, "%s must be a decimal number such as \"0.25\"; got %q", r.name(fWeight), value)
			return nil
		}
		v, _ := new(big.Rat).SetString(value)
		g = roundRat(new(big.Rat).Mul(v, gramsPer[unit]), 0)
		w := fromGrams(g, unit)
		if v.Cmp(mustRat(w)) != 0 {
			b.note(rw.line, fWeight, "%s %s %s is kept as %s %s: the format holds whole grams", r.name(fWeight), value, unit, w, unit)
		}
		return &vitrine.Weight{Value: w, Unit: unit}
	}
	if !decimalRE.MatchString(grams) {
		b.refuse(rw.line, fGrams, "%s must be a whole number of grams such as \"250\"; got %q", r.name(fGrams), grams)
		return nil
	}
	exact, _ := new(big.Rat).SetString(grams)
	g = roundRat(exact, 0)
	if g.Cmp(exact) != 0 {
		b.note(rw.line, fGrams, "%s %s is kept as %s: the format holds whole grams", r.name(fGrams), grams, g.FloatString(0))
	}
	return &vitrine.Weight{Value: fromGrams(g, unit), Unit: unit}
}

// fromGrams expresses whole grams in a unit, to the unit's decimals, in the
// one form of vitrine.ValidateWeight (no trailing zeros).
func fromGrams(g *big.Rat, unit vitrine.WeightUnit) string {
	v := new(big.Rat).Quo(g, gramsPer[unit])
	return trimDecimal(v.FloatString(unitDecimals[unit]))
}

// toGrams turns a weight into whole grams, rounded half away from zero.
func toGrams(w *vitrine.Weight) (string, error) {
	per := gramsPer[w.Unit]
	if per == nil {
		return "", fmt.Errorf("the weight unit %q is not g, kg, lb or oz", w.Unit)
	}
	v, ok := new(big.Rat).SetString(strings.TrimSpace(w.Value))
	if !ok || v.Sign() < 0 || !decimalRE.MatchString(strings.TrimSpace(w.Value)) {
		return "", fmt.Errorf("the weight %q is not a decimal number", w.Value)
	}
	return new(big.Rat).Mul(v, per).FloatString(0), nil
}

func roundRat(x *big.Rat, decimals int) *big.Rat {
	r, _ := new(big.Rat).SetString(x.FloatString(decimals))
	return r
}

func mustRat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}

func trimDecimal(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
