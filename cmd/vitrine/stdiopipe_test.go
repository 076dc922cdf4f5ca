package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Requests piped into vitrine stdio, stdin then closed: every request is
// answered before the process ends, the last one too.
func TestStdioAnswersEveryPipedRequest(t *testing.T) {
	bin := binary(t)
	db := filepath.Join(t.TempDir(), "pipe.db")
	var w struct {
		Users []struct{ Email, Token string }
	}
	json.Unmarshal([]byte(must(t, "demo", "--db", db, "--json")), &w)
	const n = 8
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_products","arguments":{"tenant_id":"technova","limit":100,"detail":"full"}}}`+"\n", i)
	}
	cmd := exec.Command(bin, "stdio", "--db", db)
	cmd.Env = append(os.Environ(), "VITRINE_TOKEN="+w.Users[0].Token)
	cmd.Stdin = strings.NewReader(in.String())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("vitrine stdio: %v\n%s", err, errb.String())
	}
	ids := map[int]bool{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.ID != nil && msg.Result != nil {
			ids[*msg.ID] = true
		}
	}
	for i := 0; i <= n; i++ {
		if !ids[i] {
			t.Errorf("request %d was not answered (answers: %v)\n%s", i, ids, errb.String())
		}
	}
}
