package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vitrine/vitrine/internal/dbtest"
)

// Several `vitrine migrate` and `vitrine serve` processes started at the
// same moment on one PostgreSQL database all succeed, with a superuser
// login (the database's own role is prepared and granted) and with a
// plain owner login: they take turns under the migration lock.
func TestProcessesStartingTogether(t *testing.T) {
	bin := binary(t)
	for name, newURL := range map[string]func(testing.TB) string{"superuser": dbtest.PostgresURL, "owner": dbtest.PostgresOwnerURL} {
		t.Run(name, func(t *testing.T) {
			url := newURL(t)
			const n = 5
			// A fresh database, then one already migrated (every start
			// still grants).
			for round := range 2 {
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						out, err := exec.Command(bin, "migrate", "--db", url).CombinedOutput()
						if err != nil {
							t.Errorf("round %d: vitrine migrate: %v\n%s", round, err, out)
						}
					})
				}
				wg.Wait()
			}
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { serveStarts(t, bin, url) })
			}
			wg.Wait()
		})
	}
}

// serveStarts runs `vitrine serve` until it listens, then stops it; an
// exit before it listens fails t.
func serveStarts(t *testing.T, bin, db string) {
	cmd := exec.Command(bin, "serve", "--db", db, "--addr", "127.0.0.1:0", "--log-format", "json")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return
	}
	var log bytes.Buffer
	listening := make(chan bool, 1)
	go func() {
		re := regexp.MustCompile(`"url":"http://[^"]+/mcp"`)
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !found && re.MatchString(sc.Text()) {
				found = true
				listening <- true
			}
		}
		if !found {
			listening <- false
		}
	}()
	select {
	case ok := <-listening:
		if !ok {
			cmd.Wait()
			t.Errorf("vitrine serve exited at start: %s", strings.TrimSpace(log.String()))
			return
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Error("vitrine serve did not start within 30s")
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("vitrine serve after SIGTERM: %v", err)
	}
}
