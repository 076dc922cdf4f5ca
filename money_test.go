package vitrine

import (
	"strings"
	"testing"
)

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  int64
		err   string
	}{
		{"4599.90", 2, 459990, ""},
		{"4599.9", 2, 459990, ""},
		{"4599", 2, 459900, ""},
		{"0", 2, 0, ""},
		{"0.01", 2, 1, ""},
		{"007.50", 2, 750, ""},
		{"10.500", 2, 1050, ""}, // trailing zeros are not extra decimals
		{"1299", 0, 1299, ""},
		{"1.234", 3, 1234, ""},
		{"9999999999999.99", 2, 999999999999999, ""},
		{"10.50", 0, 0, "this currency has no decimals"},
		{"4599.901", 2, 0, "at most 2 decimals"},
		{"-1.00", 2, 0, "non-negative decimal string"},
		{"12,50", 2, 0, "non-negative decimal string"},
		{"1e3", 2, 0, "non-negative decimal string"},
		{" 1.00", 2, 0, "non-negative decimal string"},
		{"+1", 2, 0, "non-negative decimal string"},
		{".5", 2, 0, "non-negative decimal string"},
		{"5.", 2, 0, "non-negative decimal string"},
		{"", 2, 0, "non-negative decimal string"},
		{"NaN", 2, 0, "non-negative decimal string"},
		{"10000000000000", 2, 0, "at most 13 digits"},
	} {
		got, err := ParsePrice("price", tc.in, tc.scale)
		if tc.err != "" {
			e := AsError(err)
			if e == nil || e.Type != ValidationError || e.Field != "price" || !strings.Contains(e.Message, tc.err) {
				t.Errorf("ParsePrice(%q, %d) = %d, %v; want ValidationError on price containing %q", tc.in, tc.scale, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParsePrice(%q, %d) = %d, %v; want %d", tc.in, tc.scale, got, err, tc.want)
		}
	}
}

func TestFormatPrice(t *testing.T) {
	for _, tc := range []struct {
		minor int64
		scale int
		want  string
	}{
		{459990, 2, "4599.90"}, {1, 2, "0.01"}, {0, 2, "0.00"}, {1299, 0, "1299"}, {5, 3, "0.005"}, {100, 2, "1.00"},
	} {
		if got := FormatPrice(tc.minor, tc.scale); got != tc.want {
			t.Errorf("FormatPrice(%d, %d) = %q, want %q", tc.minor, tc.scale, got, tc.want)
		}
		if back, err := ParsePrice("price", tc.want, tc.scale); err != nil || back != tc.minor {
			t.Errorf("ParsePrice(FormatPrice(%d)) = %d, %v", tc.minor, back, err)
		}
	}
}

func TestNormalizeCurrency(t *testing.T) {
	for code, want := range map[string]int{"BRL": 2, "brl": 2, "USD": 2, "JPY": 0, "KWD": 3} {
		got, scale, err := NormalizeCurrency("currency", code)
		if err != nil || scale != want || got != strings.ToUpper(code) {
			t.Errorf("NormalizeCurrency(%q) = %q, %d, %v", code, got, scale, err)
		}
	}
	for _, code := range []string{"", "R$", "REAL", "ABC", "XXX", "XTS", "bR"} {
		if _, _, err := NormalizeCurrency("currency", code); TypeOf(err) != ValidationError {
			t.Errorf("NormalizeCurrency(%q) accepted", code)
		}
	}
}

func TestRescale(t *testing.T) {
	if got, ok := Rescale(1050, 2, 2); !ok || got != 1050 {
		t.Errorf("same scale: %d %v", got, ok)
	}
	if got, ok := Rescale(1000, 2, 0); !ok || got != 10 {
		t.Errorf("10.00 to JPY: %d %v", got, ok)
	}
	if _, ok := Rescale(1050, 2, 0); ok {
		t.Error("10.50 has no exact form without decimals")
	}
	if got, ok := Rescale(1050, 2, 3); !ok || got != 10500 {
		t.Errorf("to KWD: %d %v", got, ok)
	}
}
