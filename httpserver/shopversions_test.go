package httpserver_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/shopwindow"
)

// UCP's own JSON schemas, as each release published them, are test data:
// testdata/ucp/{release}/ holds the source/schemas folder of UCP's
// repository (github.com/Universal-Commerce-Protocol/ucp) at tag
// v2026-04-08 (a2d8bf0b, with its source/discovery) and at the
// 2026-08-25 cut's last draft (main at fdcf8934), under UCP's license
// (testdata/ucp/LICENSE, Apache 2.0).

// ucpSchemas validates documents against one release's schemas.
type ucpSchemas struct {
	t       *testing.T
	release string
	dir     string
}

func schemasOf(t *testing.T, release string) *ucpSchemas {
	return &ucpSchemas{t: t, release: release, dir: filepath.Join("testdata", "ucp", release)}
}

// load reads the schema a $id or $ref names (https://ucp.dev/schemas/…):
// from schemas/ of the release, or discovery/ (2026-04-08's profile, whose
// own $id names it schemas/discovery/profile.json and whose references
// climb to schemas/schemas/…).
func (u *ucpSchemas) load(uri *url.URL) (*jsonschema.Schema, error) {
	p, ok := strings.CutPrefix(uri.Scheme+"://"+uri.Host+uri.Path, "https://ucp.dev/schemas/")
	if !ok {
		return nil, fmt.Errorf("not a UCP schema: %s", uri)
	}
	candidates := []string{filepath.Join(u.dir, "schemas", p), filepath.Join(u.dir, "schemas", strings.TrimPrefix(p, "schemas/"))}
	if p == "discovery/profile.json" {
		candidates = []string{filepath.Join(u.dir, "discovery", "profile_schema.json")}
	}
	for _, c := range candidates {
		b, err := os.ReadFile(c)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		return &s, nil
	}
	return nil, fmt.Errorf("release %s has no schema %s", u.release, uri)
}

// validate checks doc against the schema at ref (a URL of ucp.dev with
// its fragment: …/catalog_search.json#/$defs/search_response).
func (u *ucpSchemas) validate(ref string, doc []byte) error {
	root := &jsonschema.Schema{Ref: ref}
	rs, err := root.Resolve(&jsonschema.ResolveOptions{BaseURI: "https://ucp.dev/schemas/", Loader: u.load})
	if err != nil {
		u.t.Fatalf("%s: resolving %s: %v", u.release, ref, err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}

// Each release's schema of each answer.
func answerSchemas(release string) map[string]string {
	types := "shopping/types/"
	profile := "https://ucp.dev/schemas/discovery/profile.json#/$defs/business_profile"
	if release != "2026-04-08" {
		types = "common/types/"
		profile = "https://ucp.dev/schemas/profile.json#/$defs/business_schema"
	}
	return map[string]string{
		"profile": profile,
		"search":  "https://ucp.dev/schemas/shopping/catalog_search.json#/$defs/search_response",
		"lookup":  "https://ucp.dev/schemas/shopping/catalog_lookup.json#/$defs/lookup_response",
		"product": "https://ucp.dev/schemas/shopping/catalog_lookup.json#/$defs/get_product_response",
		"error":   "https://ucp.dev/schemas/" + types + "error_response.json",
	}
}

// agentAt serves a shopping agent's profile at each release UCP has:
// /{release}.json.
func agentAt(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".json")
		fmt.Fprintf(w, `{"ucp":{"version":%q,"services":{},"payment_handlers":{},"capabilities":{`+
			`"dev.ucp.shopping.catalog.search":[{"version":%[1]q}],"dev.ucp.shopping.catalog.lookup":[{"version":%[1]q}]}}}`, v)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The window serves UCP 2026-04-08 and 2026-08-25 side by side: its
// profile at /.well-known/ucp is 2026-08-25's and names 2026-04-08's in
// supported_versions; an agent of either release is answered in its own,
// over MCP and REST; and every answer validates against that release's own
// schemas: the profiles, searches (found, found nothing, filtered, paged),
// lookups (with an id not found), get_product (plain, with selections, a
// variant's id) and a missing product (UCP's error response). An agent of
// another release is refused with version_unsupported, naming both.
func TestShopWindowAnswersEachUCPVersion(t *testing.T) {
	sw := newShopWorld(t, dbtest.SQLiteURL(t), nil)
	sw.open("technova")
	agent := agentAt(t)
	pad := sw.productID("technova", "MP-RD-M")
	shirt := sw.productID("technova", "CAM-DEV-PR-M")
	validated := map[string]int{}
	for _, release := range shopwindow.Versions {
		t.Run(release, func(t *testing.T) {
			schemas, refs := schemasOf(t, release), answerSchemas(release)
			check := func(what, kind string, body []byte) map[string]any {
				t.Helper()
				if err := schemas.validate(refs[kind], body); err != nil {
					t.Errorf("%s: %s's %s schema refuses it: %v\n%s", what, release, kind, err, body)
				}
				validated[release]++
				var m map[string]any
				json.Unmarshal(body, &m)
				if ucp, _ := m["ucp"].(map[string]any); ucp["version"] != release {
					t.Errorf("%s: answered at %v, not %s", what, ucp["version"], release)
				}
				return m
			}
			path := "/.well-known/ucp"
			if release != shopwindow.Version {
				path += "/" + release
			}
			res := sw.do("GET", "", "/shops/technova"+path, "", nil)
			profile := check("the profile", "profile", res.body)["ucp"].(map[string]any)
			if release == shopwindow.Version {
				if sv := profile["supported_versions"].(map[string]any); sv["2026-04-08"] != "http://vitrine.test/shops/technova/.well-known/ucp/2026-04-08" {
					t.Errorf("supported_versions: %v", sv)
				}
			} else if profile["supported_versions"] != nil {
				t.Errorf("a leaf profile names supported_versions: %s", res.body)
			}

			profileURL := agent.URL + "/" + release + ".json"
			calls := []struct{ what, op, kind, body string }{
				{"a search", "search", "search", `{"query":"camiseta"}`},
				{"a search that finds nothing", "search", "search", `{"query":"zzqx"}`},
				{"a filtered page", "search", "search", `{"query":"technova","filters":{"price":{"max":20000}},"pagination":{"limit":1}}`},
				{"a lookup with an id not found", "lookup", "lookup", `{"ids":["MP-RD-M","mousepad-speed-redragon","missing-one"]}`},
				{"get_product", "product", "product", `{"id":"` + pad + `"}`},
				{"get_product with selections", "product", "product", `{"id":"` + shirt + `","selected":[{"name":"Cor","label":"Preta"},{"name":"Tamanho","label":"XG"}],"preferences":["Cor"]}`},
				{"get_product by SKU", "product", "product", `{"id":"CAM-DEV-PR-M"}`},
				{"a missing product", "product", "error", `{"id":"` + pad[:len(pad)-4] + `0000"}`},
			}
			tools := map[string]string{"search": "search_catalog", "lookup": "lookup_catalog", "product": "get_product"}
			for _, c := range calls {
				rest := sw.do("POST", "", "/shops/technova/ucp/catalog/"+c.op, c.body, map[string]string{"UCP-Agent": `profile="` + profileURL + `"`})
				if rest.status != 200 {
					t.Errorf("REST %s: %d %s", c.what, rest.status, rest.body)
					continue
				}
				check("REST "+c.what, c.kind, rest.body)
				_, a := sw.rpc(t, "application/json", toolCall(tools[c.op], profileURL, c.body))
				var result struct {
					StructuredContent json.RawMessage `json:"structuredContent"`
				}
				if a.Error != nil || json.Unmarshal(a.Result, &result) != nil {
					t.Errorf("MCP %s: %s", c.what, a.Result)
					continue
				}
				check("MCP "+c.what, c.kind, result.StructuredContent)
			}
		})
	}
	t.Logf("answers validated against their release's own schemas: %v", validated)

	res := sw.do("POST", "", "/shops/technova/ucp/catalog/search", `{"query":"camiseta"}`,
		map[string]string{"UCP-Agent": `profile="` + agent.URL + `/2026-01-11.json"`})
	if res.status != 422 || !strings.Contains(string(res.body), "version_unsupported") || !strings.Contains(string(res.body), "2026-08-25 and 2026-04-08") {
		t.Errorf("an agent of 2026-01-11: %d %s", res.status, res.body)
	}
}
