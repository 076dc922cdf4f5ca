package shopwindow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The REST binding of UCP's catalog (/ucp/catalog/{search,lookup,product})
// and what both bindings share: the operation run on a request's body, its
// outcome, its ETag.

// writeJSON writes v as the answer's JSON body, with its status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func tag(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// matchesETag reports whether an If-None-Match header names etag.
func matchesETag(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// run runs one operation on a request body, for both transports, and
// answers it at release v, the one negotiated, in the window its context
// picks (market.go), which it returns too.
func (s *Server) run(ctx context.Context, win *Window, op, v string, body []byte) (any, *Window, error) {
	win, err := win.inContext(ctx, hintsOf(body))
	if err != nil {
		return nil, nil, err
	}
	res, err := s.operate(ctx, win, op, body)
	if err != nil {
		return nil, nil, err
	}
	switch r := res.(type) {
	case *searchResponse:
		r.UCP = r.UCP.at(v)
	case *lookupResponse:
		r.UCP = r.UCP.at(v)
	case *productResponse:
		r.UCP = r.UCP.at(v)
	}
	return res, win, nil
}

// operate runs one operation on a request body.
func (s *Server) operate(ctx context.Context, win *Window, op string, body []byte) (any, error) {
	switch op {
	case "search":
		var req searchRequest
		if err := decode(body, &req); err != nil {
			return nil, err
		}
		return s.catalog.search(ctx, win, &req)
	case "lookup":
		var req lookupRequest
		if err := decode(body, &req); err != nil {
			return nil, err
		}
		return s.catalog.lookup(ctx, win, &req)
	default:
		var req productRequest
		if err := decode(body, &req); err != nil {
			return nil, err
		}
		return s.catalog.getProduct(ctx, win, &req)
	}
}

func decode(body []byte, v any) error {
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return invalid("the request is not the operation's JSON object: %s", jsonProblem(err))
	}
	return nil
}

// jsonProblem says what is wrong with a body, without echoing it.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field + " must be a " + te.Type.String()
	}
	return "malformed JSON"
}

// outcome names an answer in the metrics: ok, or not_found for
// get_product's answer of a product not found.
func outcome(res any) string {
	if pr, ok := res.(*productResponse); ok && pr.Product == nil {
		return "not_found"
	}
	return "ok"
}

// capabilityOf is the capability an operation belongs to.
func capabilityOf(op string) string {
	if op == "search" {
		return CapSearch
	}
	return CapLookup
}

// serveREST answers POST /ucp/catalog/{search,lookup,product}.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request, win *Window, op string) {
	start := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"code": "method_not_allowed", "content": "Use POST with a JSON body."})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"code": "request_too_large",
				"content": "The request body is larger than " + strconv.FormatInt(mbe.Limit, 10) + " bytes."})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"code": "invalid_request", "content": "The request body could not be read."})
		return
	}
	profileURL, _ := agentHeader(r.Header.Get("UCP-Agent"))
	if d := s.profileWait(profileURL); d > 0 {
		s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, "rate_limited").Inc()
		tooMany(w, d)
		return
	}
	capability := capabilityOf(op)
	v, ok, uerr := s.negotiate(r.Context(), win, profileURL, capability)
	if uerr != nil {
		s.refuseREST(w, win, op, uerr)
		return
	}
	if !ok {
		s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, "capabilities_incompatible").Inc()
		writeJSON(w, http.StatusOK, incompatible(win, v, capability))
		return
	}
	// The answer is tagged by the catalog's stamp and the request: an
	// agent that has it already gets 304, without the query.
	stamp, err := win.reader.Stamp(r.Context())
	if err != nil {
		s.internal(w, r, "read a catalog's stamp", err)
		return
	}
	etag := tag([]byte(stamp), []byte(op), []byte(v), []byte(win.Base), body)
	w.Header().Set("Cache-Control", "public, no-cache")
	w.Header().Set("ETag", etag)
	w.Header().Add("Vary", "UCP-Agent")
	if matchesETag(r.Header.Get("If-None-Match"), etag) {
		s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, "not_modified").Inc()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	res, in, err := s.run(r.Context(), win, op, v, body)
	if err != nil {
		var ue *ucpError
		if errors.As(err, &ue) {
			w.Header().Del("ETag")
			s.refuseREST(w, win, op, ue)
			return
		}
		w.Header().Del("ETag")
		s.internal(w, r, op, err)
		return
	}
	s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, outcome(res)).Inc()
	s.metrics.seconds.WithLabelValues(op, "rest").Observe(time.Since(start).Seconds())
	in.sayLanguage(w.Header())
	writeJSON(w, http.StatusOK, res)
}

// refuseREST answers a transport error: its status, UCP's code and
// content.
func (s *Server) refuseREST(w http.ResponseWriter, win *Window, op string, e *ucpError) {
	s.metrics.requests.WithLabelValues(win.Tenant.Slug, op, e.code).Inc()
	if e.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(e.retryAfter)))
	}
	writeJSON(w, e.status, refusal(win, e))
}
