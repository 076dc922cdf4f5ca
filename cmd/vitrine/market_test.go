package main

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// The operator saves, lists and deletes a company's markets from the
// command line, as its owner; bad input is refused with what is wrong; a
// member who may not is refused.
func TestMarketCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "demo", d, "--json")
		save := []string{"market", "save", "us", d, "--tenant", "technova", "--name", "United States", "--countries", "us,ca",
			"--currency", "usd", "--locales", "pt-BR", "--exchange-rate", "0.18", "--rounding", "0.99"}
		if out := must(t, save...); !strings.Contains(out, "us  United States: US,CA, USD, rate 0.18, rounding 0.99, locales pt-BR, version 1") {
			t.Errorf("saved: %s", out)
		}
		m := mustJSON(t, append(save, "--exchange-rate", "0.2", "--tag", "export", "--json")...)
		if m["exchange_rate"] != "0.2" || m["version"] != 2.0 {
			t.Errorf("replaced: %v", m)
		}
		for _, c := range []struct{ want, flag, value string }{
			{"currency must be an ISO 4217", "--currency", "ZZZ"},
			{"not a country of ISO 3166-1", "--countries", "XX"},
			{"not one of the company's locales", "--locales", "fr"},
			{"exchange_rate must be a decimal above 0", "--exchange-rate", "0"},
			{"rounding must be one of", "--rounding", "0.95"},
			{"not one of the company's categories", "--category", "01a2505a-025e-7586-820e-d3b676c8c3ed"},
		} {
			fails(t, c.want, append(save, c.flag, c.value)...)
		}
		fails(t, "already in market \"us\"", "market", "save", "ca", d, "--tenant", "technova", "--name", "Canada", "--countries", "CA",
			"--currency", "CAD", "--locales", "pt-BR", "--exchange-rate", "0.25", "--rounding", "none")
		fails(t, "You do not have permission", "market", "list", d, "--tenant", "technova", "--as", "carla@technova.example")
		if out := must(t, "market", "list", d, "--tenant", "technova"); !strings.Contains(out, "us  United States") || !strings.Contains(out, "tags export") {
			t.Errorf("list: %s", out)
		}
		must(t, "market", "delete", "us", d, "--tenant", "technova")
		fails(t, "Market not found", "market", "delete", "us", d, "--tenant", "technova")
		if out := must(t, "market", "list", d, "--tenant", "technova"); !strings.Contains(out, "No markets") {
			t.Errorf("list after delete: %s", out)
		}
	})
}
