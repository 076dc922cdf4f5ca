package feed_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/feed"
	"github.com/vitrine/vitrine/internal/testkit"
)

// serve runs a feed's handler the way a server mounts it, over a real
// HTTP connection.
func serve(t *testing.T, src feed.Source, kind feed.Kind, stamp *string, modified time.Time) *httptest.Server {
	t.Helper()
	return serveLogged(t, src, kind, stamp, modified, nil)
}

func serveLogged(t *testing.T, src feed.Source, kind feed.Kind, stamp *string, modified time.Time, log *slog.Logger) *httptest.Server {
	t.Helper()
	win := window()
	win.Log = log
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		feed.Serve(w, r, win, src, kind, *stamp, modified)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, method, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The feed is a gzip file: a client must get its bytes as they are.
	req.Header.Set("Accept-Encoding", "identity")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	_, err = io.Copy(&b, res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, []byte(b.String())
}

// An unchanged feed is answered 304 without a body, by its ETag or its
// date; a changed catalog (another stamp) gets the whole feed again.
func TestServeAnswersUnchangedFeeds304(t *testing.T) {
	modified := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for _, kind := range feed.Kinds {
		t.Run(kind.String(), func(t *testing.T) {
			stamp := "v1"
			srv := serve(t, catalog(), kind, &stamp, modified)
			res, body := get(t, "GET", srv.URL, nil)
			etag := res.Header.Get("ETag")
			if res.StatusCode != 200 || etag == "" || res.Header.Get("Last-Modified") != "Thu, 03 Dec 2026 10:00:00 GMT" ||
				res.Header.Get("Cache-Control") == "" || res.Header.Get("Content-Type") != kind.ContentType() || res.Header.Get("Content-Encoding") != "" {
				t.Fatalf("GET: %d %v", res.StatusCode, res.Header)
			}
			switch kind {
			case feed.Google:
				parseGoogle(t, body)
			case feed.OpenAI:
				parseOpenAI(t, body)
			}
			for name, h := range map[string]map[string]string{
				"If-None-Match":      {"If-None-Match": etag},
				"a list":             {"If-None-Match": `"other", W/` + etag},
				"If-Modified-Since":  {"If-Modified-Since": "Thu, 03 Dec 2026 10:00:00 GMT"},
				"a later date":       {"If-Modified-Since": "Fri, 04 Dec 2026 10:00:00 GMT"},
				"both, ETag matches": {"If-None-Match": etag, "If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT"},
			} {
				res, body := get(t, "GET", srv.URL, h)
				if res.StatusCode != http.StatusNotModified || len(body) != 0 || res.Header.Get("ETag") != etag {
					t.Errorf("%s: %d, %d bytes, ETag %q; want 304 with the same ETag", name, res.StatusCode, len(body), res.Header.Get("ETag"))
				}
			}
			for name, h := range map[string]map[string]string{
				"another ETag":          {"If-None-Match": `"other"`},
				"an earlier date":       {"If-Modified-Since": "Wed, 02 Dec 2026 10:00:00 GMT"},
				"ETag differs, date ok": {"If-None-Match": `"other"`, "If-Modified-Since": "Fri, 04 Dec 2026 10:00:00 GMT"},
			} {
				if res, _ := get(t, "GET", srv.URL, h); res.StatusCode != 200 {
					t.Errorf("%s: %d; want 200", name, res.StatusCode)
				}
			}
			stamp = "v2"
			res, body = get(t, "GET", srv.URL, map[string]string{"If-None-Match": etag})
			if res.StatusCode != 200 || res.Header.Get("ETag") == etag || len(body) == 0 {
				t.Errorf("after the catalog changed: %d, ETag %q (was %q), %d bytes", res.StatusCode, res.Header.Get("ETag"), etag, len(body))
			}
			res, body = get(t, "HEAD", srv.URL, nil)
			if res.StatusCode != 200 || len(body) != 0 || res.Header.Get("ETag") == "" {
				t.Errorf("HEAD: %d, %d bytes, %v", res.StatusCode, len(body), res.Header)
			}
			if res, _ := get(t, "POST", srv.URL, nil); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("POST: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
			}
		})
	}
}

// The same catalog served at two roots (a window's path and its own
// domain) is two feeds: their ETags differ.
func TestETagFollowsTheWindow(t *testing.T) {
	a, b := window(), window()
	b.BaseURL = "https://shop.example"
	if feed.ETag(a, feed.Google, "s") == feed.ETag(b, feed.Google, "s") {
		t.Error("two windows' feeds share an ETag")
	}
	if feed.ETag(a, feed.Google, "s") == feed.ETag(a, feed.OpenAI, "s") {
		t.Error("two feeds share an ETag")
	}
	if first, again := feed.ETag(a, feed.Google, "s"), feed.ETag(window(), feed.Google, "s"); first != again {
		t.Error("the ETag of one feed changes")
	}
}

type failing struct{ after int }

func (f *failing) PublishedProducts(_ context.Context, _, _ string, limit int) ([]*vitrine.Product, error) {
	if f.after == 0 {
		return nil, errors.New("database is down: SELECT secret FROM products")
	}
	f.after--
	out := make([]*vitrine.Product, limit)
	for i := range out {
		out[i] = mug(vitrine.NewID())
		out[i].Variants[0].SKU = "SKU-" + out[i].ID[:8]
	}
	return out, nil
}

// A store that fails at once is a 500 that says nothing of it; one that
// fails midway cuts the transfer, so no client takes a part for the whole.
func TestServeFailures(t *testing.T) {
	stamp := "v1"
	var log testkit.SyncBuffer
	srv := serveLogged(t, &failing{}, feed.Google, &stamp, time.Time{}, slog.New(slog.NewTextHandler(&log, nil)))
	res, body := get(t, "GET", srv.URL, nil)
	if res.StatusCode != 500 || strings.Contains(string(body), "SELECT") || res.Header.Get("ETag") != "" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("a failing store: %d %q %v", res.StatusCode, body, res.Header)
	}
	// The operator finds the failure by the request id the client got.
	id := strings.TrimSuffix(strings.TrimPrefix(string(body), "Internal error: the feed could not be read. Report request id "), " to the operator if it persists\n")
	if !vitrine.ValidID(id) || !strings.Contains(log.String(), "request_id="+id) || !strings.Contains(log.String(), "SELECT secret") {
		t.Errorf("answer %q, log %q", body, log.String())
	}
	for _, kind := range feed.Kinds {
		srv := serve(t, &failing{after: 2}, kind, &stamp, time.Time{})
		req, _ := http.NewRequest("GET", srv.URL, nil)
		req.Header.Set("Accept-Encoding", "identity")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, err = io.Copy(&b, res.Body)
		res.Body.Close()
		if err == nil {
			t.Errorf("%s: a feed cut midway was read whole (%d bytes)", kind, b.Len())
		}
	}
}
