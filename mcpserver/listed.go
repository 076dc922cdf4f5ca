package mcpserver

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemasFile holds the JSON of every tool's schemas, as tools/list shows
// them: one line per tool, its name, input schema and output schema
// separated by tabs (compact JSON holds no tab or newline). The schemas
// are derived from the tools' Go types (schema.go); deriving and encoding
// the hundred of them was half of a server's start, which agents pay at
// every conversation over stdio. So they are derived once, by make docs,
// into this file, and a test fails when it drifts from the code.
//
//go:embed schemas.tsv
var schemasFile string

// listedSchemas are schemasFile's schemas by tool name, read at the first
// listing.
var listedSchemas = sync.OnceValue(func() map[string][2]json.RawMessage {
	m := map[string][2]json.RawMessage{}
	for line := range strings.Lines(schemasFile) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) == 3 {
			m[f[0]] = [2]json.RawMessage{json.RawMessage(f[1]), json.RawMessage(f[2])}
		}
	}
	return m
})

// wireSchemas returns the tool's schemas as JSON: from schemasFile, or, for
// a tool make docs has not seen yet, derived and encoded here.
func (t *Tool) wireSchemas() (in, out json.RawMessage) {
	if s, ok := listedSchemas()[t.Name]; ok {
		return s[0], s[1]
	}
	return encodeSchema(t.InputSchema()), encodeSchema(t.OutputSchema())
}

func encodeSchema(s *jsonschema.Schema) json.RawMessage {
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("schema %v: %v", s, err)) // the schemas are made from Go types
	}
	return data
}

// SchemasFile renders schemas.tsv from the tools (make docs).
func SchemasFile(tools []*Tool) string {
	tools = slices.SortedFunc(slices.Values(tools), func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", t.Name, encodeSchema(t.InputSchema()), encodeSchema(t.OutputSchema()))
	}
	return b.String()
}
