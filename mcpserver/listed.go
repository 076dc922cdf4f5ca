package mcpserver

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vitrine/vitrine/mcpserver/shapes"
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
		in, out = s[0], s[1]
	} else {
		in, out = encodeSchema(t.InputSchema(), false), encodeSchema(t.OutputSchema(), true)
	}
	if t.ResultAs != "" {
		out = json.RawMessage(`{"type":"object","description":"As ` + t.ResultAs + `."}`)
	}
	return in, out
}

func encodeSchema(s *jsonschema.Schema, output bool) json.RawMessage {
	if s == nil {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("schema %v: %v", s, err)) // the schemas are made from Go types
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	unsay(m, true, output)
	if output {
		nameScalars(m)
	}
	data, err = json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return data
}

// nameScalars lists, in a result's schema, the plain fields (a string,
// a number, a flag, with nothing more to say of them) by name in the
// object's description, rather than one schema each; one that the result
// leaves out at times (its description says when: shapes.LeftOutWhen) is
// named with "?", as the arguments' optional fields are.
func nameScalars(m map[string]any) {
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return
	}
	var names []string
	for n, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := pm["default"]; ok {
			delete(pm, "type") // the default's
		}
		switch pm["type"] {
		case "string", "integer", "boolean":
			if d, _ := pm["description"].(string); len(pm) == 2 && strings.HasPrefix(d, shapes.LeftOutWhen) {
				// A field a result leaves out at times: named with "?",
				// the rule in the docs and the full schema.
				names = append(names, n+"?")
				delete(props, n)
			} else if len(pm) == 1 {
				names = append(names, n)
				delete(props, n)
			}
		default:
			nameScalars(pm)
		}
	}
	if len(names) == 0 {
		return
	}
	slices.Sort(names)
	desc, _ := m["description"].(string)
	if desc != "" {
		desc += " "
	}
	m["description"] = desc + "Also: " + strings.Join(names, ", ") + "."
	if len(props) == 0 {
		delete(m, "properties")
	}
}

// unsay leaves out of the listed schema what costs the agent's context
// and tells a client nothing it needs before a call: the bounds of text
// fields of 200 characters and more (the server holds them, and its
// ValidationError names the field and its limit) and, below the top, that
// an object takes no other property.
func unsay(m map[string]any, top, output bool) {
	if n, ok := m["maxLength"].(float64); ok && n >= 200 {
		delete(m, "maxLength")
	}
	if !top && m["additionalProperties"] == false {
		delete(m, "additionalProperties")
	}
	for _, k := range []string{"properties"} {
		if props, ok := m[k].(map[string]any); ok {
			for _, p := range props {
				if pm, ok := p.(map[string]any); ok {
					unsay(pm, false, output)
				}
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := m[k].(map[string]any); ok {
			unsay(sub, false, output)
		}
	}
	// An array of objects (a product's variants, media, options) lists
	// its items' fields by name, "?" after the optional ones of an input:
	// their types and descriptions are the server's to check, and its
	// ValidationError names the item and the field. A result's items
	// keep only the fields left out at their default, with it.
	if items, ok := m["items"].(map[string]any); ok && !top {
		if props, ok := items["properties"].(map[string]any); ok && len(props) > 1 {
			required := map[string]bool{}
			if rs, ok := items["required"].([]any); ok {
				for _, r := range rs {
					required[r.(string)] = true
				}
			}
			_, input := items["required"]
			// What a result leaves out when it holds its default (a
			// variant's inventory_policy, ...) is said with its default,
			// the other fields by name: a client gets every value back.
			kept := map[string]any{}
			if output {
				kept = defaultsOf(props)
			}
			var names []string
			for _, n := range slices.Sorted(maps.Keys(props)) {
				switch {
				case kept[n] != nil:
				case input && !required[n]:
					names = append(names, n+"?")
				default:
					names = append(names, n)
				}
			}
			desc, _ := m["description"].(string)
			if desc != "" {
				desc += " "
			}
			m["description"] = desc + "Each: {" + strings.Join(names, ", ") + "}."
			switch {
			case len(kept) > 0:
				m["items"] = map[string]any{"type": "object", "properties": kept}
			case output:
				delete(m, "items") // "Each" says they are objects
			default:
				m["items"] = map[string]any{"type": "object"}
			}
		}
	}
}

// defaultsOf returns, of an object's properties, those whose default the
// schema states ("default", or a description that says it), with only
// that: their type is the value's.
func defaultsOf(props map[string]any) map[string]any {
	kept := map[string]any{}
	for n, p := range props {
		pm, _ := p.(map[string]any)
		if d, ok := pm["default"]; ok {
			kept[n] = map[string]any{"default": d}
		} else if desc, _ := pm["description"].(string); strings.HasPrefix(desc, "Default: ") {
			kept[n] = map[string]any{"description": desc}
		}
	}
	return kept
}

// SchemasFile renders schemas.tsv from the tools (make docs).
func SchemasFile(tools []*Tool) string {
	tools = slices.SortedFunc(slices.Values(tools), func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", t.Name, encodeSchema(t.InputSchema(), false), encodeSchema(t.OutputSchema(), true))
	}
	return b.String()
}
