package wire

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The text content made once reads back as the SDK's own encoding does.
func TestEncodedText(t *testing.T) {
	for _, s := range []string{"", `{"a":"b\"c","d":[1,2]}`, "tab\there\nnew\r\x00\x1f", "é 日本 \u2028\u2029 <>&", "bad \xff\xfe utf8", `back\slash`} {
		c := Text(s)
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(&mcp.TextContent{Text: s})
		var a, b map[string]any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%q: invalid JSON %s", s, got)
		}
		json.Unmarshal(want, &b)
		if a["type"] != "text" || a["text"] != b["text"] {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}
