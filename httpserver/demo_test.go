package httpserver_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/demo"
	"github.com/vitrine/vitrine/httpserver"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/mcpserver"
	"github.com/vitrine/vitrine/mcpserver/views"
	"github.com/vitrine/vitrine/service"
)

// The demo served as make demo serves it (its images mounted as serve
// --demo mounts them), over plain http on loopback:
// every image its products name (the product's and each variant's) is
// served by the server itself, as an image, and the views' CSP, in the
// resource's _meta and in the page, lets them load from that origin and
// no other http one. A server at an https URL needs no more than "https:".
func TestDemoImagesShowInTheViews(t *testing.T) {
	db := dbtest.Open(t, dbtest.SQLiteURL(t))
	svc := service.New(db, slog.New(slog.DiscardHandler))
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	srv, err := mcpserver.New(svc, mcpserver.Options{IconsURL: httpserver.IconsURL(base)})
	if err != nil {
		t.Fatal(err)
	}
	// As `vitrine serve --demo` mounts them.
	images := map[string]http.Handler{"GET " + demo.ImagesPath + "{file}": demo.Images()}
	hs.Config.Handler = serveHTTP(t, svc, srv, httpserver.Options{PublicURL: base, Routes: images})
	hs.Start()
	defer hs.Close()
	dw, err := demo.SeedAt(ctx, svc, base)
	if err != nil {
		t.Fatal(err)
	}
	var token, technova string
	for _, u := range dw.Users {
		if u.Email == owner {
			token = u.Token
		}
	}
	for _, tn := range dw.Tenants {
		if tn.Slug == "technova" {
			technova = tn.ID
		}
	}
	_, msgs := rpc2026(t, hs.URL, token, "tools/call", `{"name":"get_product","arguments":{"tenant_id":"`+technova+`","sku":"CAM-DEV-AZ-M"}}`)
	var p struct {
		Media    []struct{ URL, Alt string }
		Variants []struct{ Image string }
	}
	b, _ := json.Marshal(result(t, "tools/call", msgs)["structuredContent"])
	if err := json.Unmarshal(b, &p); err != nil || len(p.Media) < 2 {
		t.Fatalf("the demo's shirt: %s", b)
	}
	urls := []string{}
	for _, m := range p.Media {
		urls = append(urls, m.URL)
	}
	for _, v := range p.Variants {
		if !slices.Contains(urls, v.Image) {
			t.Errorf("a variant's image %q is none of the product's %v", v.Image, urls)
		}
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, base+demo.ImagesPath) {
			t.Errorf("image %s is not the server's", u)
			continue
		}
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		// PNG, which every channel the feeds publish to takes (SVG none).
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(body), "\x89PNG\r\n\x1a\n") {
			t.Errorf("GET %s: %d %s %.40q", u, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	if res, err := http.Get(base + demo.ImagesPath + "nope.png"); err != nil || res.StatusCode != 404 {
		t.Errorf("an image the demo has not: %v %v", res.StatusCode, err)
	}

	csp := func(url string) (domains []any, page string) {
		t.Helper()
		_, msgs := rpc2026(t, url, token, "resources/read", `{"uri":"`+views.ProductURI+`"}`)
		c := result(t, "resources/read", msgs)["contents"].([]any)[0].(map[string]any)
		ui := c["_meta"].(map[string]any)["ui"].(map[string]any)
		return ui["csp"].(map[string]any)["resourceDomains"].([]any), c["text"].(string)
	}
	domains, page := csp(hs.URL)
	if !slices.Equal(domains, []any{"https:", base}) {
		t.Errorf("over http, the views' resourceDomains are %v", domains)
	}
	if !strings.Contains(page, "img-src https: data: "+base+";") {
		t.Errorf("the page's own CSP does not allow %s", base)
	}
	tls, err := mcpserver.New(svc, mcpserver.Options{IconsURL: httpserver.IconsURL("https://mcp.example.com")})
	if err != nil {
		t.Fatal(err)
	}
	hs2 := httptest.NewServer(serveHTTP(t, svc, tls, httpserver.Options{}))
	defer hs2.Close()
	if domains, page := csp(hs2.URL); !slices.Equal(domains, []any{"https:"}) || !strings.Contains(page, "img-src https: data:;") {
		t.Errorf("at an https URL, the views' resourceDomains are %v", domains)
	}
}
