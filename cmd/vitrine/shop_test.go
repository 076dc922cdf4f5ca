package main

import (
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// The operator opens, changes and closes a company's shop window from the
// command line, as its owner (or a member who may: one who may not is
// refused); each change is audited; bad settings are refused with what is
// wrong, and nothing is written. vitrine shop check says what keeps
// products off each channel.
func TestShopCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "demo", d, "--json")
		const verde = "mercado-verde" // the demo leaves its window closed

		// What keeps products off the channels (not a missing product_url:
		// the window's own pages link them); a reason needs its channel;
		// --json answers as check_shop.
		out := must(t, "shop", "check", d, "--tenant", verde, "--channel", "openai")
		if !strings.Contains(out, "openai: ") || strings.Contains(out, "no_product_url") {
			t.Errorf("check:\n%s", out)
		}
		fails(t, "give channel too", "shop", "check", d, "--tenant", verde, "--reason", "no_image")
		fails(t, "channel must be one of", "shop", "check", d, "--tenant", verde, "--channel", "amazon")
		report := mustJSON(t, "shop", "check", d, "--tenant", "technova", "--channel", "google", "--reason", "no_brand")
		if channels, _ := report["channels"].([]any); len(channels) != 1 || report["products"].(float64) < 1 {
			t.Errorf("check --json: %v", report)
		}

		if out := must(t, "shop", "show", d, "--tenant", verde); !strings.Contains(out, "(mercado-verde): closed, version 0") || !strings.Contains(out, "tamanho=size") {
			t.Errorf("show, never set:\n%s", out)
		}
		opened := mustJSON(t, "shop", "open", d, "--tenant", verde, "--product-url", "https://verde.example/p/{handle}", "--country", "br",
			"--domain", "loja.verde.example", "--option", "Estilo=pattern", "--option", "codigo_fabricante=mpn", "--public-url", "https://vitrine.example", "--shop-domain", "shops.example")
		urls, _ := opened["urls"].(map[string]any)
		if opened["open"] != true || opened["country"] != "BR" || opened["version"] != 1.0 || opened["options"].(map[string]any)["estilo"] != "pattern" ||
			opened["options"].(map[string]any)["codigo_fabricante"] != "mpn" ||
			urls["google_feed"] != "https://vitrine.example/shops/mercado-verde/feeds/google.xml" {
			t.Errorf("open: %v", opened)
		}
		if out := must(t, "shop", "show", d, "--tenant", verde, "--public-url", "https://vitrine.example"); !strings.Contains(out, ": open, version 1") ||
			!strings.Contains(out, "https://vitrine.example/shops/mercado-verde/.well-known/ucp") || !strings.Contains(out, "https://loja.verde.example/") {
			t.Errorf("show, open:\n%s", out)
		}

		for _, c := range []struct{ want, flag, value string }{
			{"product_url must be an https URL", "--product-url", "http://verde.example/p/{handle}"},
			{"product_url must hold {handle} once", "--product-url", "https://verde.example/p/"},
			{"country must be a two-letter ISO 3166-1 country code", "--country", "Brasil"},
			{`stock must be "availability" or "exact"`, "--stock", "all"},
			{"domain must be a host name", "--domain", "https://loja.example/"},
			{"options.Size must be one of", "--option", "Size=width"},
		} {
			fails(t, c.want, "shop", "close", d, "--tenant", verde, c.flag, c.value)
		}
		fails(t, "under its shop domain", "shop", "close", d, "--tenant", verde, "--domain", "verde.shops.example", "--shop-domain", "shops.example")
		fails(t, "You do not have permission", "shop", "close", d, "--tenant", verde, "--as", "carla@technova.example") // a viewer there
		if out := must(t, "shop", "show", d, "--tenant", verde); !strings.Contains(out, ": open, version 1") {
			t.Errorf("after the refusals:\n%s", out)
		}
		fails(t, "Another company's shop window is served at loja.verde.example", "shop", "open", d, "--tenant", "technova", "--domain", "loja.verde.example")

		closed := mustJSON(t, "shop", "close", d, "--tenant", verde, "--stock", "exact")
		if closed["open"] != false || closed["stock"] != "exact" || closed["country"] != "BR" || closed["version"] != 2.0 {
			t.Errorf("close: %v", closed)
		}
		audit := must(t, "audit", "list", d, "--tenant", verde, "--tool", "vitrine shop close")
		if n := strings.Count(audit, "vitrine shop close"); n != 1 {
			t.Errorf("the close's audit events: %d\n%s", n, audit)
		}
		if audit := must(t, "audit", "list", d, "--tenant", verde, "--tool", "vitrine shop open"); strings.Count(audit, " ok ") != 1 {
			t.Errorf("the open's audit events:\n%s", audit)
		}

		// An attribute is shown in the window only when made public.
		must(t, "attribute", "save", "fabric", d, "--tenant", "technova", "--type", "text", "--public")
		must(t, "attribute", "save", "fabric", d, "--tenant", "technova", "--name", "Fabric")
		if list := must(t, "attribute", "list", d, "--tenant", "technova", "--json"); !strings.Contains(list, `"key":"fabric","name":"Fabric","public":true`) {
			t.Errorf("made public, then renamed:\n%s", list)
		}
		must(t, "attribute", "save", "fabric", d, "--tenant", "technova", "--no-public")
		if list := must(t, "attribute", "list", d, "--tenant", "technova", "--json"); !strings.Contains(list, `"key":"fabric","name":"Fabric","public":false`) {
			t.Errorf("made private:\n%s", list)
		}
	})
}
