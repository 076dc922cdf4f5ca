package demo

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// The demo's shopping agent: a UCP platform profile that `vitrine serve
// --demo` serves itself, so that a person tries a shop window as an agent
// does (curl, Shopify's ucp-cli) on a laptop with no internet. A window
// fetches an agent's profile at every first request naming it; the demo
// server accepts profiles of this machine, and only the demo does.

// AgentPath is where the demo serves its agent's profile, one a UCP
// release: AgentPath + "2026-08-25.json".
const AgentPath = "/demo/agent/"

// AgentProfileURL is the demo agent's profile at release, on a server
// whose clients reach it at baseURL.
func AgentProfileURL(baseURL, release string) string {
	return strings.TrimSuffix(baseURL, "/") + AgentPath + release + ".json"
}

// AgentProfiles serves the demo agent's profile at each of releases
// (GET AgentPath + "{release}.json"): the shopping service over MCP and
// REST, the catalog's search and lookup, at that release.
func AgentProfiles(releases []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, AgentPath), ".json")
		if !ok || !slices.Contains(releases, release) {
			http.NotFound(w, r)
			return
		}
		spec := "https://ucp.dev/" + release + "/specification/"
		capability := func(name string) []map[string]string {
			return []map[string]string{{"version": release, "spec": spec + "catalog/" + name,
				"schema": "https://ucp.dev/" + release + "/schemas/shopping/catalog_" + name + ".json"}}
		}
		doc := map[string]any{"ucp": map[string]any{
			"version": release,
			"services": map[string]any{"dev.ucp.shopping": []map[string]string{
				{"version": release, "spec": spec + "overview", "transport": "mcp"},
				{"version": release, "spec": spec + "overview", "transport": "rest"},
			}},
			"capabilities": map[string]any{
				"dev.ucp.shopping.catalog.search": capability("search"),
				"dev.ucp.shopping.catalog.lookup": capability("lookup"),
			},
			"payment_handlers": map[string]any{},
		}}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		json.NewEncoder(w).Encode(doc)
	})
}
