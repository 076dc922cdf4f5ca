// Package wire makes the JSON the server hands the SDK already encoded, so
// that the SDK does not encode it again: a result's text content (the SDK
// would encode a whole page a second time, as a JSON string, on every
// call) and compact JSON without HTML escaping.
package wire

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Compact encodes v without HTML escaping, so that messages read as
// written.
func Compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only plain structs are encoded here
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// ResultSize is how many bytes v takes in a result that carries it twice,
// as successResult does: as structured content, and as a text content's
// JSON string, escaped.
func ResultSize(v any) int {
	c := Compact(v)
	return len(c) + len(appendJSONString(nil, c))
}

// preencoded is a text content whose wire form is made once.
type preencoded struct {
	*mcp.TextContent
	wire []byte
}

func (p preencoded) MarshalJSON() ([]byte, error) { return p.wire, nil }

// Text returns the text content of text with its wire form made once.
func Text(text string) mcp.Content {
	wire := make([]byte, 0, len(text)+len(text)/8+32)
	wire = append(wire, `{"type":"text","text":`...)
	wire = appendJSONString(wire, text)
	wire = append(wire, '}')
	return preencoded{TextContent: &mcp.TextContent{Text: text}, wire: wire}
}

// appendJSONString appends s as a JSON string, escaping what JSON needs
// and nothing else (as the SDK's encoder with HTML escaping off would, but
// without <, > and & escaped: both are valid JSON).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i += size
				start = i
				continue
			}
			if r == '\u2028' || r == '\u2029' {
				b = append(b, s[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, hex[r&0xf])
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
