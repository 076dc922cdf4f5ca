package mcpserver

import (
	"net/http"
	"sync"
	"time"

	"github.com/vitrine/vitrine"
)

// sessionCap bounds the sessions one user holds on this instance
// (Limits.SessionsPerUser). When a user opens one more, their least
// recently used session with no request in flight is closed first; if every
// one is busy, the new one is refused.
type sessionCap struct {
	s   *Server
	max int

	mu   sync.Mutex
	uses map[string]*sessionUse // by session id
}

type sessionUse struct {
	user string
	last time.Time
	busy int
}

func newSessionCap(s *Server, max int) *sessionCap {
	return &sessionCap{s: s, max: max, uses: map[string]*sessionUse{}}
}

// serveNew serves a request that opens a session (an initialize without
// Mcp-Session-Id), making room for it first.
func (c *sessionCap) serveNew(w http.ResponseWriter, r *http.Request, next http.Handler) {
	caller, _ := r.Context().Value(callerContextKey{}).(*vitrine.Caller)
	if c.max <= 0 || caller == nil || r.Method != http.MethodPost {
		next.ServeHTTP(w, r)
		return
	}
	if !c.makeRoom(caller.User.ID) {
		c.s.limits.tooMany(w, "sessions", time.Second)
		return
	}
	rw := &sessionIDWriter{ResponseWriter: w}
	next.ServeHTTP(rw, r)
	if rw.id != "" {
		c.mu.Lock()
		c.uses[rw.id] = &sessionUse{user: caller.User.ID, last: time.Now()}
		c.mu.Unlock()
	}
}

// serve serves a request of an open session, keeping it busy meanwhile.
func (c *sessionCap) serve(id string, w http.ResponseWriter, r *http.Request, next http.Handler) {
	c.mu.Lock()
	u := c.uses[id]
	if u != nil && r.Method == http.MethodPost {
		u.busy++
	}
	c.mu.Unlock()
	defer func() {
		if u == nil {
			return
		}
		c.mu.Lock()
		u.last = time.Now()
		if r.Method == http.MethodPost {
			u.busy--
		}
		c.mu.Unlock()
	}()
	next.ServeHTTP(w, r)
}

// makeRoom closes the user's least recently used idle sessions until the
// user holds fewer than max, forgetting the sessions that ended on their
// own. It reports whether there is room.
func (c *sessionCap) makeRoom(user string) bool {
	open := map[string]bool{}
	for ss := range c.s.mcp.Sessions() {
		open[ss.ID()] = true
	}
	c.mu.Lock()
	var (
		held   int
		oldest string
	)
	for {
		held, oldest = 0, ""
		for id, u := range c.uses {
			if !open[id] {
				delete(c.uses, id)
				continue
			}
			if u.user != user {
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
		delete(c.uses, oldest)
		open[oldest] = false
		c.mu.Unlock()
		c.close(oldest)
		c.mu.Lock()
	}
	c.mu.Unlock()
	return held < c.max
}

func (c *sessionCap) close(id string) {
	for ss := range c.s.mcp.Sessions() {
		if ss.ID() == id {
			c.s.log.Info("session closed: too many sessions of one user", "session", id)
			ss.Close()
			return
		}
	}
}

// sessionIDWriter notes the session id a response hands out.
type sessionIDWriter struct {
	http.ResponseWriter
	id string
}

func (w *sessionIDWriter) WriteHeader(code int) {
	w.id = w.Header().Get("Mcp-Session-Id")
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionIDWriter) Write(p []byte) (int, error) {
	if w.id == "" {
		w.id = w.Header().Get("Mcp-Session-Id")
	}
	return w.ResponseWriter.Write(p)
}

func (w *sessionIDWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *sessionIDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
