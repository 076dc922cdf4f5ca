package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --dev-insecure-agent-profiles is said loudly at start; a --shop-domain
// that is no host name stops the server before it listens; the windows
// are served at /shops/ (a company's window, closed by default, not
// found).
func TestServeShopFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "v.db")
	limit, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var errs bytes.Buffer
	code := run(limit, []string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--shop-domain", "https://shops.example"}, strings.NewReader(""), io.Discard, &errs)
	if code == 0 || limit.Err() != nil || !strings.HasPrefix(errs.String(), "vitrine: --shop-domain must be a host name") {
		t.Errorf("a --shop-domain with a scheme: exit %d, %s", code, errs.String())
	}
	srv := serveHere(t, "--db", db, "--shop-domain", "shops.example", "--dev-insecure-agent-profiles")
	if log := srv.stderr.String(); !strings.Contains(log, `"level":"WARN","msg":"INSECURE: shopping agents' profiles are fetched over http`) {
		t.Errorf("no warning at start:\n%s", log)
	}
	res, err := http.Get(srv.url + "/shops/nobody/.well-known/ucp")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("an absent window: %d", res.StatusCode)
	}
	if code := srv.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
