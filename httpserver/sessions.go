package httpserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionIdleTimeout closes the sessions of clients that went away.
const sessionIdleTimeout = 30 * time.Minute

// streamable serves the Streamable HTTP protocol so that any instance behind
// a load balancer can answer any request, without sticky sessions.
//
// A session lives in the memory of the instance that answered its
// initialize. A request of that session which reaches this instance is
// served in it. A request of a session this instance does not know (made
// by another instance, or ended by the idle timeout) is served statelessly:
// nothing a tool does depends on session state, since every request
// carries its own token and every tool call its own tenant_id. A session
// its client ended (DELETE), on whichever instance, is recorded in the
// database: every instance then answers its requests 404, as the protocol
// asks (ended). Standalone server-to-client streams (GET) exist only on the
// session's instance; elsewhere GET answers 405, which clients read as "no
// such stream". A session this instance closed itself (its user opened one
// more past the cap) is answered 404 too, as MCP asks of a session the
// server terminated. Requests of the sessionless protocol revision
// (2026-07-28 and later) are always served statelessly.
func (s *Server) streamable() http.Handler {
	getServer := func(*http.Request) *mcp.Server { return s.mcp.MCP() }
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: sessionIdleTimeout})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Logger: s.log, Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			// Shutdown waits for these: closing a session while its answer
			// is being written would cut the answer off.
			s.exchanges.Add(1)
			defer s.exchanges.Add(-1)
		}
		id := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodDelete && id != "" && r.Header.Get("Mcp-Protocol-Version") < sessionlessProtocol {
			if err := s.svc.EndMCPSession(r.Context(), id); err != nil {
				s.unavailable(w, "end MCP session", err)
				return
			}
		}
		switch {
		case r.Header.Get("Mcp-Protocol-Version") >= sessionlessProtocol:
			stateless.ServeHTTP(w, r)
		case id == "":
			s.sessions.serveNew(w, r, stateful)
		case r.Method == http.MethodDelete && s.hasSession(id):
			s.sessions.serve(id, w, r, stateful)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent) // nothing else of it lives here
		case s.hasSession(id) && !s.ended.elsewhere(r.Context(), id):
			s.sessions.serve(id, w, r, stateful)
		case s.held.closedHere(id):
			http.Error(w, "session not found: the server closed it", http.StatusNotFound)
		case s.ended.ended(w, r, id):
		case r.Method == http.MethodPost:
			stateless.ServeHTTP(w, r)
		default:
			w.Header().Set("Allow", "POST")
			http.Error(w, "no server-to-client stream for this session on this instance", http.StatusMethodNotAllowed)
		}
	})
}

// sessionlessProtocol is the first protocol revision without sessions.
const sessionlessProtocol = "2026-07-28"

// hasSession reports whether this instance holds the session.
func (s *Server) hasSession(id string) bool { return s.held.get(id) != nil }

// heldSessions are the sessions this instance holds, by id, so that a
// request finds its session by a map read: the SDK's Server.Sessions
// copies the list of every session at each call, and every request of a
// session walked it (with 5,000 sessions open, 40 KB copied and 5,000 ids
// compared a request). The SDK hands each session to the server's
// middleware with its initialize (capture), where it waits, by id, until
// the initialize's answer hands its id out (add): neither walks the
// sessions. A session leaves when it closes, however it closes (its
// client's DELETE, the idle timeout, the session cap, shutdown): one
// goroutine a session waits for that.
type heldSessions struct {
	mu   sync.Mutex
	byID map[string]*mcp.ServerSession
	// opening are the sessions whose initialize is being answered, by id.
	opening map[string]*mcp.ServerSession
	// gone, if set, is told the id of each session that closed.
	gone func(id string)
	// closed are the sessions this instance closed on purpose (one more
	// of their user's past the cap), by id, with when: MCP asks that a
	// session the server terminated be answered 404, which tells its
	// client to start another, rather than served as if it lived.
	closed map[string]time.Time
}

// maxClosedSessions bounds the closed sessions remembered: beyond it,
// those closed longer ago than the idle timeout are forgotten.
const maxClosedSessions = 10_000

// close closes the session this instance holds, and remembers it.
func (h *heldSessions) close(id string) bool {
	ss := h.get(id)
	if ss == nil {
		return false
	}
	now := time.Now()
	h.mu.Lock()
	if h.closed == nil {
		h.closed = map[string]time.Time{}
	}
	h.closed[id] = now
	if len(h.closed) > maxClosedSessions {
		for k, at := range h.closed {
			if now.Sub(at) > sessionIdleTimeout {
				delete(h.closed, k)
			}
		}
	}
	h.mu.Unlock()
	ss.Close()
	return true
}

// closedHere reports whether this instance closed the session on purpose.
func (h *heldSessions) closedHere(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.closed[id]
	return ok
}

// capture is the SDK middleware that notes each session as its
// initialize arrives, so that add finds it by its id.
func (h *heldSessions) capture(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
				h.initializing(ss)
			}
		}
		return next(ctx, method, req)
	}
}

// initializing notes a session whose initialize is being answered, until
// it closes.
func (h *heldSessions) initializing(ss *mcp.ServerSession) {
	id := ss.ID()
	h.mu.Lock()
	if h.opening == nil {
		h.opening = map[string]*mcp.ServerSession{}
	}
	h.opening[id] = ss
	h.mu.Unlock()
	go func() {
		_ = ss.Wait()
		h.mu.Lock()
		if h.opening[id] == ss {
			delete(h.opening, id)
		}
		if h.byID[id] == ss {
			delete(h.byID, id)
		}
		gone := h.gone
		h.mu.Unlock()
		if gone != nil {
			gone(id)
		}
	}()
}

// add records the session with that id, whose initialize's answer hands
// the id out.
func (h *heldSessions) add(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := h.opening[id]
	if ss == nil {
		return
	}
	delete(h.opening, id)
	if h.byID == nil {
		h.byID = map[string]*mcp.ServerSession{}
	}
	h.byID[id] = ss
}

// get returns the session with that id, or nil if this instance does not
// hold it.
func (h *heldSessions) get(id string) *mcp.ServerSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

// endedSessions answers the requests of sessions their clients ended
// (DELETE) on any instance: 404, "session not found", as MCP asks of a
// terminated session. A session this instance does not hold is looked up
// at every request of it (a round trip, on the instances that do not
// hold it, in a deployment without sticky sessions); one it holds, at most
// once a second, since its requests are the hot path: a DELETE that
// reached another instance ends it here within that second.
type endedSessions struct {
	s *Server

	mu      sync.Mutex
	checked map[string]time.Time // held sessions, by id: when last looked up
}

// heldCheckEvery is how often a held session is looked up.
var heldCheckEvery = time.Second

// ended answers the request 404 if its session was ended, and reports
// whether it did.
func (e *endedSessions) ended(w http.ResponseWriter, r *http.Request, id string) bool {
	ended, err := e.s.svc.MCPSessionEnded(r.Context(), id)
	switch {
	case err != nil:
		e.s.unavailable(w, "read ended MCP session", err)
		return true
	case ended:
		http.Error(w, "session not found: its client ended it", http.StatusNotFound)
		return true
	}
	return false
}

// maxCheckedSessions bounds the sessions whose last check is remembered:
// beyond it, those idle past their timeout are forgotten.
const maxCheckedSessions = 10_000

// elsewhere reports whether a session this instance holds was ended on
// another instance, and if so closes it here too. It looks at most once a
// second per session; a failed lookup keeps the session.
func (e *endedSessions) elsewhere(ctx context.Context, id string) bool {
	now := time.Now()
	e.mu.Lock()
	if e.checked == nil {
		e.checked = map[string]time.Time{}
	}
	last, seen := e.checked[id]
	if seen && now.Sub(last) < heldCheckEvery {
		e.mu.Unlock()
		return false
	}
	e.checked[id] = now
	if len(e.checked) > maxCheckedSessions {
		for k, t := range e.checked {
			if now.Sub(t) > sessionIdleTimeout {
				delete(e.checked, k)
			}
		}
	}
	e.mu.Unlock()
	ended, err := e.s.svc.MCPSessionEnded(ctx, id)
	if err != nil || !ended {
		return false
	}
	if ss := e.s.held.get(id); ss != nil {
		e.s.log.Info("session closed: its client ended it on another instance", "session", id)
		go ss.Close() // its in-flight requests finish; this one is answered 404
	}
	return true
}

// sessionCap bounds the sessions one user holds on this instance
// (Limits.SessionsPerUser). When a user opens one more, their least
// recently used session with no request in flight is closed first; if every
// one is busy, the new one is refused. The sessions are kept by user too,
// so that opening one walks the user's own, not every user's: a session
// leaves both when it closes (forget).
type sessionCap struct {
	s   *Server
	max int

	mu     sync.Mutex
	uses   map[string]*sessionUse            // by session id
	byUser map[string]map[string]*sessionUse // by user, then session id
}

type sessionUse struct {
	user string
	last time.Time
	busy int
}

func newSessionCap(s *Server, max int) *sessionCap {
	return &sessionCap{s: s, max: max, uses: map[string]*sessionUse{}, byUser: map[string]map[string]*sessionUse{}}
}

// forget drops a session that closed.
func (c *sessionCap) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(id)
}

// drop removes a session from both indexes; c.mu is held.
func (c *sessionCap) drop(id string) {
	u := c.uses[id]
	if u == nil {
		return
	}
	delete(c.uses, id)
	if mine := c.byUser[u.user]; mine != nil {
		delete(mine, id)
		if len(mine) == 0 {
			delete(c.byUser, u.user)
		}
	}
}

// serveNew serves a request that opens a session (an initialize without
// Mcp-Session-Id), making room for it first.
func (c *sessionCap) serveNew(w http.ResponseWriter, r *http.Request, next http.Handler) {
	caller := callerOf(r)
	if r.Method != http.MethodPost {
		next.ServeHTTP(w, r)
		return
	}
	capped := c.max > 0 && caller != nil
	if capped && !c.makeRoom(caller.User.ID) {
		c.s.limits.tooMany(w, "sessions", time.Second)
		return
	}
	// The session is held, and counted among its user's, from before its id
	// reaches the client, whose next request may come before this one's
	// handler returns: counted only after, a session could be missed by the
	// room made for the user's next one.
	start := time.Now()
	opened := func(id string) {
		c.s.held.add(id)
		if !capped {
			return
		}
		u := &sessionUse{user: caller.User.ID, last: start}
		c.mu.Lock()
		c.uses[id] = u
		if c.byUser[u.user] == nil {
			c.byUser[u.user] = map[string]*sessionUse{}
		}
		c.byUser[u.user][id] = u
		c.mu.Unlock()
	}
	next.ServeHTTP(&sessionIDWriter{ResponseWriter: w, opened: opened}, r)
}

// serve serves a request of an open session, keeping it busy meanwhile.
// A session's last use is when its latest request began, not ended: a
// client that reads its answer goes on before the handler returns, so an
// end time would let a request the client made earlier count as the later
// use (and the wrong session be closed as the least recently used). Only
// a POST is a use: the client opens its stream of server messages (a GET)
// on its own, whenever it likes.
func (c *sessionCap) serve(id string, w http.ResponseWriter, r *http.Request, next http.Handler) {
	c.mu.Lock()
	u := c.uses[id]
	if u != nil && r.Method == http.MethodPost {
		u.last = time.Now()
		u.busy++
	}
	c.mu.Unlock()
	defer func() {
		if u == nil || r.Method != http.MethodPost {
			return
		}
		c.mu.Lock()
		u.busy--
		c.mu.Unlock()
	}()
	next.ServeHTTP(w, r)
}

// makeRoom closes the user's least recently used idle sessions until the
// user holds fewer than max, forgetting those of theirs that ended on
// their own. It reports whether there is room.
func (c *sessionCap) makeRoom(user string) bool {
	open := func(id string) bool { return c.s.held.get(id) != nil }
	closed := map[string]bool{}
	c.mu.Lock()
	var (
		held   int
		oldest string
	)
	for {
		held, oldest = 0, ""
		for id, u := range c.byUser[user] {
			if closed[id] || !open(id) {
				c.drop(id)
				continue
			}
			held++
			if u.busy == 0 && (oldest == "" || u.last.Before(c.uses[oldest].last)) {
				oldest = id
			}
		}
		if held < c.max || oldest == "" {
			break
		}
		c.drop(oldest)
		closed[oldest] = true
		c.mu.Unlock()
		c.close(oldest)
		c.mu.Lock()
	}
	c.mu.Unlock()
	return held < c.max
}

func (c *sessionCap) close(id string) {
	if c.s.held.close(id) {
		c.s.log.Info("session closed: too many sessions of one user", "session", id)
	}
}

// sessionIDWriter notes the session id a response hands out, and calls
// opened with it before the response's header is written.
type sessionIDWriter struct {
	http.ResponseWriter
	id     string
	opened func(id string)
}

func (w *sessionIDWriter) note() {
	if w.id != "" {
		return
	}
	if w.id = w.Header().Get("Mcp-Session-Id"); w.id != "" {
		w.opened(w.id)
	}
}

func (w *sessionIDWriter) WriteHeader(code int) {
	w.note()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionIDWriter) Write(p []byte) (int, error) {
	w.note()
	return w.ResponseWriter.Write(p)
}

func (w *sessionIDWriter) Flush() {
	w.note()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *sessionIDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
