// Package args checks a tool call's arguments against the tool's input
// schema and decodes them, with errors written for a model fixing its call.
package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vitrine/vitrine"
)

// Decode checks raw tool arguments against the tool's input schema and
// decodes them into dst. Every failure is a ValidationError naming the
// argument at fault, so that the agent can correct itself. Written here
// rather than with jsonschema's own validator, whose messages are written
// for schema authors ("validating /properties/price: type: ...") rather
// than for a model fixing its call.
func Decode(args map[string]any, schema *jsonschema.Schema, dst any) error {
	if err := checkObject("", args, schema); err != nil {
		return err
	}
	// The values are now of the right types; integers are normalised to
	// int64 so that 1e3 or 5.0 decode like 1000 and 5.
	data, err := json.Marshal(args)
	if err != nil {
		return vitrine.Invalid("arguments", "arguments could not be read: %v", err)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return vitrine.Invalid("arguments", "arguments could not be read: %v", err)
	}
	return nil
}

// Parse reads the arguments object; absent arguments are an empty one.
func Parse(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, vitrine.Invalid("arguments", "arguments must be a JSON object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, vitrine.Invalid("arguments", "arguments must be a JSON object, not %s", kindOf(v))
	}
	return obj, nil
}

// String reads one string argument before the others are checked: the
// tenant_id, which must be known before anything else is looked at.
func String(args map[string]any, name string) (string, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return "", vitrine.Invalid(name, "%s is required", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", vitrine.Invalid(name, "%s must be a string, not %s", name, kindOf(v))
	}
	return s, nil
}

func checkObject(path string, obj map[string]any, s *jsonschema.Schema) error {
	for _, name := range s.Required {
		if v, ok := obj[name]; !ok || v == nil {
			return vitrine.Invalid(join(path, name), "%s is required", join(path, name))
		}
	}
	// Report unknown arguments in a stable order.
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		prop, ok := s.Properties[name]
		if !ok && isMap(s) {
			// An object of any keys (option name to value, say): each value
			// as its schema says.
			prop, ok = s.AdditionalProperties, true
		}
		if !ok {
			return vitrine.Invalid(join(path, name), "unknown argument %q; the arguments are: %s", join(path, name), strings.Join(s.PropertyOrder, ", "))
		}
		v := obj[name]
		if v == nil && !slices.Contains(s.Required, name) {
			delete(obj, name) // null stands for "not given"
			continue
		}
		nv, err := checkValue(join(path, name), v, prop)
		if err != nil {
			return err
		}
		obj[name] = nv
	}
	return nil
}

// isMap reports whether an object's schema takes keys of its own choosing:
// additionalProperties is a schema, not false (which jsonschema-go writes
// as {"not": {}}).
func isMap(s *jsonschema.Schema) bool {
	return s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil && len(s.Properties) == 0
}

func checkValue(path string, v any, s *jsonschema.Schema) (any, error) {
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return nil, vitrine.Invalid(path, "%s must be a string, not %s", path, kindOf(v))
		}
		if strings.ContainsRune(str, 0) {
			// PostgreSQL's text cannot hold it, and no catalog needs it.
			return nil, vitrine.Invalid(path, "%s must not contain the NUL character (\\u0000)", path)
		}
		if s.MaxLength != nil && utf8.RuneCountInString(str) > *s.MaxLength {
			return nil, vitrine.Invalid(path, "%s must be at most %d characters long", path, *s.MaxLength)
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return nil, vitrine.Invalid(path, "%s must be an integer, not %s", path, kindOf(v))
		}
		i, err := integer(n)
		if err != nil {
			return nil, vitrine.Invalid(path, "%s must be an integer; got %s", path, n)
		}
		if s.Minimum != nil && float64(i) < *s.Minimum {
			return nil, vitrine.Invalid(path, "%s must be at least %s; got %d", path, num(*s.Minimum), i)
		}
		if s.Maximum != nil && float64(i) > *s.Maximum {
			return nil, vitrine.Invalid(path, "%s must be at most %s; got %d", path, num(*s.Maximum), i)
		}
		v = i
	case "number":
		if _, ok := v.(json.Number); !ok {
			return nil, vitrine.Invalid(path, "%s must be a number, not %s", path, kindOf(v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return nil, vitrine.Invalid(path, "%s must be true or false, not %s", path, kindOf(v))
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return nil, vitrine.Invalid(path, "%s must be an array, not %s", path, kindOf(v))
		}
		if s.MinItems != nil && len(items) < *s.MinItems {
			return nil, vitrine.Invalid(path, "%s must hold at least %d items", path, *s.MinItems)
		}
		if s.MaxItems != nil && len(items) > *s.MaxItems {
			return nil, vitrine.Invalid(path, "%s holds %d items; the limit is %d", path, len(items), *s.MaxItems)
		}
		for i, item := range items {
			nv, err := checkValue(path+"["+strconv.Itoa(i)+"]", item, s.Items)
			if err != nil {
				return nil, err
			}
			items[i] = nv
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, vitrine.Invalid(path, "%s must be an object, not %s", path, kindOf(v))
		}
		if err := checkObject(path, obj, s); err != nil {
			return nil, err
		}
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		quoted := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			quoted[i] = fmt.Sprintf("%q", e)
		}
		return nil, vitrine.Invalid(path, "%s must be one of %s; got %q", path, strings.Join(quoted, ", "), v)
	}
	return v, nil
}

// integer reads a JSON number that holds a whole value within int64.
func integer(n json.Number) (int64, error) {
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, fmt.Errorf("not an integer")
	}
	return int64(f), nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
