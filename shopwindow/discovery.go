package shopwindow

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/vitrine/vitrine/service/shop"
)

// Discovery: a window's UCP business profile. /.well-known/ucp is the
// newest release's, and names each older release the window serves in
// supported_versions, mapped to that release's own profile at
// /.well-known/ucp/{version}: a leaf, complete in itself, without
// supported_versions (UCP 2026-08-25, "Protocol Version"). A platform of
// 2026-04-08, which knows no supported_versions, reads the newest profile
// and finds its release there.

const wellKnown = shop.ProfilePath

// profileVersion is the release a profile's path names: the newest for
// /.well-known/ucp, an older one for /.well-known/ucp/{version}; "" for
// any other path.
func profileVersion(path string) string {
	if path == wellKnown {
		return Version
	}
	if v, ok := strings.CutPrefix(path, wellKnown+"/"); ok && v != Version && supported(v) {
		return v
	}
	return ""
}

// businessProfile is the window's UCP profile at release v.
func businessProfile(win *Window, v string) map[string]any {
	spec := func(p string) string { return specBase(v) + "/specification/" + p }
	caps := map[string]any{}
	for _, name := range capabilities {
		short := strings.TrimPrefix(name, "dev.ucp.shopping.catalog.")
		caps[name] = []map[string]string{{"version": v, "spec": spec("catalog/" + short),
			"schema": specBase(v) + "/schemas/shopping/catalog_" + short + ".json"}}
	}
	ucp := map[string]any{
		"version": v,
		"services": map[string]any{ServiceName: []map[string]string{
			{"version": v, "spec": spec("overview"), "transport": "mcp",
				"schema": specBase(v) + "/services/shopping/mcp.openrpc.json", "endpoint": win.Base + shop.MCPPath},
			{"version": v, "spec": spec("overview"), "transport": "rest",
				"schema": specBase(v) + "/services/shopping/rest.openapi.json", "endpoint": RESTEndpoint(win.Base)},
		}},
		"capabilities":     caps,
		"payment_handlers": map[string]any{},
	}
	if v == Version {
		older := map[string]string{}
		for _, o := range Versions[1:] {
			older[o] = win.Base + wellKnown + "/" + o
		}
		ucp["supported_versions"] = older
	}
	return map[string]any{"ucp": ucp}
}

// RESTEndpoint is the endpoint of UCP's REST binding of a window at base
// (its root URL): the base of the operations' paths, /catalog/search and
// the others, as the profile declares it and get_shop says it.
func RESTEndpoint(base string) string { return strings.TrimSuffix(base, "/") + shop.RESTPath }

// serveProfile answers a profile at release v: cacheable by anyone for
// five minutes (UCP asks for public and at least 60 s), tagged by its
// content.
func (s *Server) serveProfile(w http.ResponseWriter, r *http.Request, win *Window, v string) {
	body, _ := json.Marshal(businessProfile(win, v))
	etag := tag(body)
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("ETag", etag)
	s.metrics.requests.WithLabelValues(win.Tenant.Slug, "profile", "ok").Inc()
	if matchesETag(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}
