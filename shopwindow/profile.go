package shopwindow

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vitrine/vitrine/internal/addrlimit"
	"github.com/vitrine/vitrine/internal/safefetch"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// An agent's profile is fetched, checked and kept here: every request
// names its profile (UCP's negotiation), and the window answers only what
// the profile and the window both support.
const (
	profileMaxBytes = 64 << 10
	profileTimeout  = 5 * time.Second
	// UCP asks that profiles be kept at least 60 s whatever their
	// Cache-Control says; an hour bounds how long a changed one is missed.
	profileMinTTL = time.Minute
	profileMaxTTL = time.Hour
	// A profile that could not be fetched or read is not fetched again
	// for this long (UCP's backoff on failures): a flood of requests
	// naming a dead host costs one fetch a window of it.
	profileFailTTL = 30 * time.Second
	// A profile kept serves this long past its time when fetching it
	// again is past a limit.
	profileStaleMax = 24 * time.Hour
	// profileCacheSize bounds the profiles kept (a fixed discovery
	// footprint, as UCP recommends).
	profileCacheSize = 2000
	// The fetches of every request together: each new profile URL costs
	// an outbound request.
	profileFetchRate  = 20
	profileFetchBurst = 50
	// The fetches one client address causes, well below those of all:
	// an agent names one profile, so 10 new ones and then one every 6 s
	// serve any real client, and a client rotating profile URLs meets
	// this quota long before it can empty the budget every window shares.
	profileFetchAddrEvery = 6 * time.Second
	profileFetchAddrBurst = 10
)

// agentProfile is what the window reads of an agent's profile.
type agentProfile struct {
	URL     string
	Version string
	// Capabilities are the capabilities both support, by name.
	Capabilities map[string]bool
}

// profileDoc is a profile as UCP writes it; only what negotiation reads.
type profileDoc struct {
	UCP *struct {
		Version      string                       `json:"version"`
		Capabilities map[string][]json.RawMessage `json:"capabilities"`
	} `json:"ucp"`
}

var versionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

type cachedProfile struct {
	profile *agentProfile
	err     *ucpError
	until   time.Time
}

// profiles fetches agents' profiles through the SSRF guard and keeps them.
type profiles struct {
	fetcher *safefetch.Fetcher
	now     func() time.Time
	group   singleflight.Group
	// fetches bounds the fetches of every request together; fromAddr
	// those of each client address (addrlimit.Key), as the authorization
	// server bounds its client metadata documents.
	fetches  *rate.Limiter
	fromAddr *addrlimit.Table
	onFetch  func(result string)

	mu    sync.Mutex
	cache map[string]*cachedProfile
}

func newProfiles(insecure, loopback bool, onFetch func(string)) *profiles {
	f := safefetch.New("a UCP profile", profileMaxBytes, profileTimeout, insecure)
	f.Loopback = loopback
	return &profiles{fetcher: f, now: time.Now,
		fetches: rate.NewLimiter(profileFetchRate, profileFetchBurst), fromAddr: addrlimit.New(rate.Every(profileFetchAddrEvery), profileFetchAddrBurst, 0),
		onFetch: onFetch, cache: map[string]*cachedProfile{}}
}

// Errors of negotiation, UCP's codes.
func invalidProfileURL(content string) *ucpError {
	return &ucpError{status: http.StatusBadRequest, rpc: rpcNegotiation, code: "invalid_profile_url", content: content}
}

func profileUnreachable(content string) *ucpError {
	return &ucpError{status: http.StatusFailedDependency, rpc: rpcNegotiation, code: "profile_unreachable", content: content}
}

func profileMalformed(content string) *ucpError {
	return &ucpError{status: http.StatusUnprocessableEntity, rpc: rpcNegotiation, code: "profile_malformed", content: content}
}

func versionUnsupported(v string) *ucpError {
	return &ucpError{status: http.StatusUnprocessableEntity, rpc: rpcNegotiation, code: "version_unsupported",
		content: "Protocol version " + strconv.Quote(v) + " is not supported. This business supports versions " + strings.Join(Versions, " and ") + "."}
}

// get returns the profile at u for the client of key client (its
// addrlimit.Key), from the cache while fresh. A fetch counts against the
// client's quota, then the budget of all; past either, a profile kept
// but stale serves.
func (ps *profiles) get(ctx context.Context, client, u string) (*agentProfile, *ucpError) {
	if u == "" {
		return nil, invalidProfileURL("The request names no agent profile: send meta[\"ucp-agent\"].profile (MCP) or the UCP-Agent header (REST).")
	}
	if len(u) > 2048 {
		return nil, invalidProfileURL("The agent profile's URL is longer than 2048 bytes.")
	}
	if _, err := ps.fetcher.CheckURL(u); err != nil {
		return nil, invalidProfileURL("The agent profile's URL cannot be used: " + err.Error() + ".")
	}
	now := ps.now()
	ps.mu.Lock()
	c := ps.cache[u]
	ps.mu.Unlock()
	if c != nil && now.Before(c.until) {
		return c.profile, c.err
	}
	kept := c
	stale := kept != nil && kept.profile != nil && now.Sub(kept.until) < profileStaleMax
	if d := ps.fromAddr.Wait(client, now); d > 0 {
		if stale {
			return kept.profile, nil
		}
		e := rateLimited(d)
		e.content = "Too many agent profiles were fetched for your address; retry after the time given."
		return nil, e
	}
	v, _, _ := ps.group.Do(u, func() (any, error) {
		if !ps.fetches.Allow() {
			if stale {
				return kept, nil
			}
			// Not kept: the limit is the server's, not the profile's.
			return &cachedProfile{err: profileUnreachable("Too many agent profiles are being fetched; try again in a few seconds.")}, nil
		}
		// The fetch is the window's, not the request's: a client that
		// gives up does not cancel it for the others waiting on it.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), profileTimeout)
		defer cancel()
		c := ps.fetch(fctx, u)
		ps.keep(u, c)
		return c, nil
	})
	c = v.(*cachedProfile)
	return c.profile, c.err
}

// fetch reads and checks one profile, and says for how long to keep what
// it found.
func (ps *profiles) fetch(ctx context.Context, u string) *cachedProfile {
	now := ps.now()
	body, header, err := ps.fetcher.Get(ctx, u, "application/json")
	if err != nil {
		var tl *safefetch.TooLargeError
		if errors.As(err, &tl) {
			ps.onFetch("malformed")
			return &cachedProfile{err: profileMalformed("The agent profile is larger than " + strconv.Itoa(profileMaxBytes) + " bytes."), until: now.Add(profileFailTTL)}
		}
		ps.onFetch("unreachable")
		return &cachedProfile{err: profileUnreachable("Unable to fetch the agent profile: " + err.Error() + "."), until: now.Add(profileFailTTL)}
	}
	var doc profileDoc
	if err := json.Unmarshal(body, &doc); err != nil || doc.UCP == nil || !versionRE.MatchString(doc.UCP.Version) {
		ps.onFetch("malformed")
		return &cachedProfile{err: profileMalformed("The agent profile is not a UCP profile: a JSON object whose ucp object holds a version (YYYY-MM-DD) and capabilities."), until: now.Add(profileFailTTL)}
	}
	ttl := cacheTTL(header.Get("Cache-Control"))
	if !supported(doc.UCP.Version) {
		ps.onFetch("version_unsupported")
		return &cachedProfile{err: versionUnsupported(doc.UCP.Version), until: now.Add(ttl)}
	}
	p := &agentProfile{URL: u, Version: doc.UCP.Version, Capabilities: map[string]bool{}}
	for _, name := range capabilities {
		for _, raw := range doc.UCP.Capabilities[name] {
			var c struct {
				Version string `json:"version"`
			}
			if json.Unmarshal(raw, &c) != nil {
				ps.onFetch("malformed")
				return &cachedProfile{err: profileMalformed("The agent profile's capability " + name + " is not an object with a version."), until: now.Add(profileFailTTL)}
			}
			if c.Version == doc.UCP.Version {
				p.Capabilities[name] = true
			}
		}
	}
	ps.onFetch("ok")
	return &cachedProfile{profile: p, until: now.Add(ttl)}
}

// keep caches a profile, making room when the cache is full: the entries
// past their time first, else an arbitrary half (maps iterate in no
// order), so that the cache stays bounded under a flood of new URLs.
func (ps *profiles) keep(u string, c *cachedProfile) {
	if c.until.IsZero() {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(ps.cache) >= profileCacheSize {
		now := ps.now()
		for k, e := range ps.cache {
			if now.After(e.until) {
				delete(ps.cache, k)
			}
		}
		for k := range ps.cache {
			if len(ps.cache) < profileCacheSize/2 {
				break
			}
			delete(ps.cache, k)
		}
	}
	ps.cache[u] = c
}

// cacheTTL is how long to keep a profile by its Cache-Control: its
// max-age, within UCP's floor of 60 s and an hour.
func cacheTTL(cc string) time.Duration {
	ttl := profileMinTTL
	for _, d := range strings.Split(cc, ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		if strings.EqualFold(name, "max-age") {
			if n, err := strconv.Atoi(strings.Trim(val, `"`)); err == nil {
				ttl = time.Duration(n) * time.Second
			}
		}
	}
	return min(max(ttl, profileMinTTL), profileMaxTTL)
}

// agentHeader reads the profile's URL from a UCP-Agent header, a
// dictionary structured field (RFC 8941): profile="https://…".
func agentHeader(h string) (string, bool) {
	for _, member := range splitOutsideQuotes(h, ',') {
		key, val, ok := strings.Cut(strings.TrimSpace(member), "=")
		if !ok || strings.TrimSpace(key) != "profile" {
			continue
		}
		val = strings.TrimSpace(val)
		if i := strings.IndexByte(val, ';'); i >= 0 && !strings.HasPrefix(val, `"`) {
			val = val[:i]
		}
		if !strings.HasPrefix(val, `"`) {
			return "", false
		}
		s, err := strconv.Unquote(val[:strings.LastIndexByte(val, '"')+1])
		if err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if quoted {
				i++
			}
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// negotiate reads the agent's profile and checks that it supports the
// capability the operation needs, at the release the profile declares,
// which the answer is then written in. A refusal is a ucpError; an agent
// that lacks the capability gets UCP's capabilities_incompatible outcome
// (ok false, no error).
func (s *Server) negotiate(ctx context.Context, win *Window, profileURL, capability string) (version string, ok bool, err *ucpError) {
	p, perr := s.profiles.get(ctx, win.client, profileURL)
	if perr != nil {
		if perr.status == http.StatusTooManyRequests {
			s.metrics.limited.WithLabelValues("profile_fetch").Inc()
		}
		return "", false, perr
	}
	return p.Version, p.Capabilities[capability], nil
}

// profileWait applies the per-profile limit to a request naming
// profileURL: how long it must wait, or 0 to go ahead (and be counted).
func (s *Server) profileWait(profileURL string) time.Duration {
	if s.agents == nil || profileURL == "" {
		return 0
	}
	d := s.agents.Wait(profileURL, time.Now())
	if d > 0 {
		s.metrics.limited.WithLabelValues("profile").Inc()
	}
	return d
}

// incompatible is UCP's answer, at release v, to an agent whose profile
// shares no version of the capability an operation needs.
func incompatible(win *Window, v, capability string) map[string]any {
	out := map[string]any{
		"ucp": map[string]any{"version": v, "status": "error", "capabilities": map[string]any{}},
		"messages": []message{{Type: "error", Code: "capabilities_incompatible", Severity: "unrecoverable",
			Content: "The agent's profile does not support " + capability + " at version " + v + "."}},
	}
	if u := win.continueURL(); u != "" {
		out["continue_url"] = u
	}
	return out
}

// continueURL is where a buyer goes on when negotiation fails (UCP's
// continue_url): the home page of the company's storefront, the scheme
// and host of its product URL template; the window's own home page when
// the company has none.
func (w *Window) continueURL() string {
	if w.pages {
		return w.Base + "/"
	}
	u, err := url.Parse(strings.ReplaceAll(w.Shop.ProductURL, "{handle}", "h"))
	if w.Shop.ProductURL == "" || err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/"
}

// refusal is a transport error's body: UCP's code and content, and, when
// negotiation failed, where the buyer may go on.
func refusal(win *Window, e *ucpError) map[string]string {
	out := map[string]string{"code": e.code, "content": e.content}
	if e.rpc == rpcNegotiation {
		if u := win.continueURL(); u != "" {
			out["continue_url"] = u
		}
	}
	return out
}
