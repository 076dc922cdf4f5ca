package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call calls a tool and returns its text content, checking the shape
// of the result: an error carries no structured content, and a success
// carries the same JSON as structured content and as text.
func Call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	// One text content; a success may add resource links after it (an
	// export's archive), never anything else.
	if len(res.Content) == 0 || (res.IsError && len(res.Content) != 1) {
		t.Fatalf("%s: %d contents, want 1", name, len(res.Content))
	}
	for _, c := range res.Content[1:] {
		if _, ok := c.(*mcp.ResourceLink); !ok {
			t.Fatalf("%s: a content after the text is %T, not a resource link", name, c)
		}
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", name, res.Content[0])
	}
	if res.IsError {
		if res.StructuredContent != nil {
			t.Errorf("%s: error result carries structured content %v", name, res.StructuredContent)
		}
		return tc.Text, true
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if !JSONEqual(sc, []byte(tc.Text)) {
		t.Errorf("%s: structured content %s differs from text %s", name, sc, tc.Text)
	}
	return tc.Text, false
}

// OK calls a tool that must succeed and decodes its result.
func OK[T any](t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) T {
	t.Helper()
	text, isErr := Call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	var out T
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, text)
	}
	return out
}

// Fails calls a tool that must fail with exactly the error JSON want.
func Fails(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	text, isErr := Call(t, cs, name, args)
	if !isErr || text != want {
		t.Errorf("%s(%v)\n got %s (isError %v)\nwant %s", name, args, text, isErr, want)
	}
}

// ErrorOf calls a tool that must fail and returns its decoded error.
func ErrorOf(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	text, isErr := Call(t, cs, name, args)
	if !isErr {
		t.Fatalf("%s(%v) succeeded: %s", name, args, text)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		t.Fatalf("error text is not JSON: %s", text)
	}
	if !bytes.HasPrefix([]byte(text), []byte(`{"error":true,"type":"`)) {
		t.Errorf("error JSON does not start with error, type: %s", text)
	}
	return e
}

// CallJSON calls a tool from any goroutine: a tool error is returned as an
// error holding its JSON.
func CallJSON[T any](cs *mcp.ClientSession, name string, args map[string]any) (T, error) {
	var out T
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return out, err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return out, errors.New(text)
	}
	return out, json.Unmarshal([]byte(text), &out)
}

// JSONEqual reports whether two JSON texts hold the same value.
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
