package vitrine

import (
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// Decimal is an exact decimal as a person writes it, such as "4599.90":
// a price before its currency gives it a scale (ParsePrice), a weight.
type Decimal string

// CurrencyCode is an ISO 4217 code as given, before NormalizeCurrency
// reads it.
type CurrencyCode string

// DefaultCurrency is the currency of a product created without one.
const DefaultCurrency = "BRL"

// maxIntegerDigits bounds the whole part of a price: 13 digits is beyond any
// catalog and keeps minor units far from int64's limit in every currency.
const maxIntegerDigits = 13

// NormalizeCurrency validates an ISO 4217 code and returns it in upper case
// with the number of decimals its minor unit has.
func NormalizeCurrency(field, code string) (string, int, error) {
	if len(code) == 3 {
		if u, err := currency.ParseISO(code); err == nil {
			iso := u.String()
			if iso != "XXX" && iso != "XTS" {
				scale, _ := currency.Standard.Rounding(u)
				return iso, scale, nil
			}
		}
	}
	return "", 0, Invalid(field, "%s must be an ISO 4217 currency code such as \"BRL\" or \"USD\", not %q", field, code)
}

// ParsePrice turns a decimal string such as "4599.90" into minor units of a
// currency with the given scale (decimals). It is exact: no float is
// involved, and a price with more decimals than the currency has is refused
// rather than rounded. Written by hand because every decimal library accepts
// forms (exponents, signs, spaces) that a price must not take.
func ParsePrice(field, s string, scale int) (int64, error) {
	whole, frac, err := splitPrice(field, s, scale)
	if err != nil {
		return 0, err
	}
	if len(frac) > scale {
		why := " (at most " + strconv.Itoa(scale) + " decimals in this currency)"
		if scale == 0 {
			why = " (this currency has no decimals)"
		}
		return 0, priceError(field, s, scale, why)
	}
	digits := whole + frac + strings.Repeat("0", scale-len(frac))
	if digits == "" {
		return 0, nil
	}
	n, perr := strconv.ParseInt(digits, 10, 64)
	if perr != nil {
		return 0, priceError(field, s, scale, "")
	}
	return n, nil
}

// CheckPrice checks the form of a price before its currency is known.
func CheckPrice(field, s string) error {
	_, _, err := splitPrice(field, s, 2)
	return err
}

// splitPrice returns the significant digits of a price's whole and
// fractional parts: no leading zeros before the point, none trailing after.
func splitPrice(field, s string, scale int) (whole, frac string, err error) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || (hasDot && (frac == "" || !allDigits(frac))) {
		return "", "", priceError(field, s, scale, "")
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > maxIntegerDigits {
		return "", "", priceError(field, s, scale, " (at most 13 digits before the point)")
	}
	return whole, strings.TrimRight(frac, "0"), nil
}

func priceError(field, s string, scale int, why string) error {
	example := "4599.90"
	if scale == 0 {
		example = "4599"
	}
	return Invalid(field, "%s must be a non-negative decimal string such as %q%s; got %q", field, example, why, s)
}

// FormatPrice writes minor units as a decimal string with exactly scale
// decimals: 459990 with scale 2 is "4599.90".
func FormatPrice(minor int64, scale int) string {
	s := strconv.FormatInt(minor, 10)
	if scale == 0 {
		return s
	}
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	return s[:len(s)-scale] + "." + s[len(s)-scale:]
}

// CurrencyScale returns the decimals of a stored (already valid) currency.
func CurrencyScale(code string) int {
	_, scale, err := NormalizeCurrency("currency", code)
	if err != nil {
		return 2
	}
	return scale
}

// Rescale expresses minor units of one scale in another, reporting false when
// the amount has no exact form there (10.50 in a currency without decimals).
func Rescale(minor int64, from, to int) (int64, bool) {
	for ; from < to; from++ {
		if minor > (1<<62)/10 {
			return 0, false
		}
		minor *= 10
	}
	for ; from > to; from-- {
		if minor%10 != 0 {
			return 0, false
		}
		minor /= 10
	}
	return minor, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
