package args_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver/args"
)

// The arguments of a tool, with what the tools' arguments use: named types
// with constraints, embedded structs, optional fields as pointers, maps of
// strings and of any values, arrays of objects, and objects that keep
// which fields they were given.
type (
	status string
	limit  int
	level  int64
	short  string
	tenant struct {
		TenantID string `json:"tenant_id"`
	}
	page struct {
		Limit  limit  `json:"limit,omitempty"`
		Cursor string `json:"cursor,omitempty"`
	}
	fields struct {
		Name   short             `json:"name"`
		Stock  *level            `json:"stock,omitempty"`
		Tags   []string          `json:"tags,omitempty"`
		Opts   map[string]string `json:"options,omitempty"`
		Attrs  map[string]any    `json:"attributes,omitempty"`
		Active *bool             `json:"active,omitempty"`
	}
	row struct {
		fields
		given map[string]bool
	}
	input struct {
		tenant
		page
		ID       string    `json:"id"`
		Status   *status   `json:"status,omitempty"`
		Rows     []row     `json:"rows,omitempty"`
		Statuses []status  `json:"statuses,omitempty"`
		Variant  *fields   `json:"variant,omitempty"`
		Weights  *[]level  `json:"weights,omitempty"`
		Skip     string    `json:"-"`
		Hidden   string    `json:"hidden,omitempty"`
		Deep     [][]short `json:"deep,omitempty"`
	}
)

func (r *row) Given(name string) {
	if r.given == nil {
		r.given = map[string]bool{}
	}
	r.given[name] = true
}

var schema = func() *jsonschema.Schema {
	s, err := jsonschema.For[input](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[status](): {Type: "string", Enum: []any{"draft", "active"}},
		reflect.TypeFor[limit]():  {Type: "integer", Minimum: ptr(1.0), Maximum: ptr(100.0)},
		reflect.TypeFor[level]():  {Type: "integer", Minimum: ptr(0.0), Maximum: ptr(1e9)},
		reflect.TypeFor[short]():  {Type: "string", MaxLength: ptr(5)},
	}})
	if err != nil {
		panic(err)
	}
	simplify(s)
	s.Properties["rows"].MaxItems = ptr(3)
	s.Properties["statuses"].MinItems = ptr(1)
	return s
}()

func ptr[T any](v T) *T { return &v }

// simplify replaces ["null", T] unions with T, as mcpserver's schemas do.
func simplify(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		for _, t := range s.Types {
			if t != "null" {
				s.Type = t
			}
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		simplify(p)
	}
	simplify(s.Items)
}

var cases = []string{
	``, `null`, ` {} `, `[]`, `"x"`, `7`, `true`,
	`{"tenant_id":"t","id":"p"}`,
	`{"tenant_id":"t","id":"p","name":"x"}`,
	`{"tenant_id":7,"id":"p","limit":"x"}`,
	`{"tenant_id":null,"id":null}`,
	`{"id":"p","tenant_id":"t","limit":1e2,"cursor":"c"}`,
	`{"id":"p","tenant_id":"t","limit":5.0}`, `{"id":"p","tenant_id":"t","limit":5.5}`,
	`{"id":"p","tenant_id":"t","limit":0}`, `{"id":"p","tenant_id":"t","limit":101}`,
	`{"id":"p","tenant_id":"t","limit":1e400}`, `{"id":"p","tenant_id":"t","limit":-9223372036854775809}`,
	`{"id":"p","tenant_id":"t","status":"active"}`, `{"id":"p","tenant_id":"t","status":"gone"}`,
	`{"id":"p","tenant_id":"t","status":null}`, `{"id":"p","tenant_id":"t","status":1}`,
	`{"id":"p\u0000","tenant_id":"t"}`, `{"id":"ma\u00e7\u00e3 \ud83d\ude00","tenant_id":"t\"\\\/\b\f\n\r\t"}`,
	"{\"id\":\"\xff\xfe a\",\"tenant_id\":\"t\"}",
	`{"id":"p","tenant_id":"t","rows":[{"name":"a"},{"name":"b","stock":3,"tags":["x"]},{}]}`,
	`{"id":"p","tenant_id":"t","rows":[{"name":"a","stock":null,"active":false}]}`,
	`{"id":"p","tenant_id":"t","rows":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":"d"}]}`,
	`{"id":"p","tenant_id":"t","rows":[{"name":"toolong"},{"nome":"b"}]}`,
	`{"id":"p","tenant_id":"t","rows":{"name":"a"}}`,
	`{"id":"p","tenant_id":"t","statuses":[]}`, `{"id":"p","tenant_id":"t","statuses":["draft",null,"x"]}`,
	`{"id":"p","tenant_id":"t","variant":{"name":"v","options":{"Size":"M","Color":null},"attributes":{"a":1,"b":[1,{"c":null}],"d":"x","e":1e400}}}`,
	`{"id":"p","tenant_id":"t","variant":{"name":"v","options":{"Size":7}}}`,
	`{"id":"p","tenant_id":"t","variant":{"name":"v","attributes":{"big":12345678901234567890,"f":1.5e3}}}`,
	`{"id":"p","tenant_id":"t","weights":[1,2,3e2]}`, `{"id":"p","tenant_id":"t","weights":[-1]}`,
	`{"id":"p","tenant_id":"t","deep":[["a","b"],[],["toolong"]]}`,
	`{"id":"p","tenant_id":"t","zzz":1,"aaa":2}`, `{"id":"p","tenant_id":"t","Skip":"x"}`, `{"id":"p","tenant_id":"t","ID":"x"}`,
	`{"id":"p","tenant_id":"t","id":"q"}`, `{"id":"p","tenant_id":"t","id":null}`, `{"id":7,"tenant_id":"t","id":"q"}`,
	`{"id":"p","tenant_id":"t","status":"gone","status":"draft"}`,
	`{"id":"p","tenant_id":"t","variant":{"name":"v","tags":["a"]},"variant":{"name":"w"}}`,
	`{"id":"p","tenant_id":"t","hidden":"h","active":true}`,
	`{"id":{"a":[1,2,{"b":"c"}]},"tenant_id":[null]}`,
	`{"tenant_id":"t","limit":true,"id":false,"cursor":{},"name":[]}`,
}

// The one pass decodes what checking a map of the arguments, then
// encoding and decoding it again, did, and fails with the same first
// error.
func TestDecodeAsBefore(t *testing.T) {
	for _, c := range cases {
		compare(t, c)
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range cases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if json.Valid([]byte(raw)) || strings.TrimSpace(raw) == "" {
			compare(t, raw)
		}
	})
}

func compare(t *testing.T, raw string) {
	t.Helper()
	var got, want input
	lead, target := args.Lead{Name: "tenant_id"}, args.Lead{Name: "id"}
	err := args.Decode(json.RawMessage(raw), schema, &got, &lead, &target)
	werr := before(json.RawMessage(raw), &want)
	if !sameError(err, werr) {
		t.Fatalf("%s: got %v, want %v", raw, err, werr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\ngot  %#v\nwant %#v", raw, got, want)
	}
	obj, perr := parse(json.RawMessage(raw))
	if perr != nil {
		if !args.Malformed(err) {
			t.Fatalf("%s: %v is not the malformed arguments' error", raw, err)
		}
		return
	}
	wantID, wantErr := stringArg(obj, "tenant_id")
	if id, err := lead.String(); id != wantID || !sameError(err, wantErr) {
		t.Fatalf("%s: tenant_id %q %v, want %q %v", raw, id, err, wantID, wantErr)
	}
	if named, _ := obj["id"].(string); target.Given() != named {
		t.Fatalf("%s: target %q, want %q", raw, target.Given(), named)
	}
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ea, eb := vitrine.AsError(a), vitrine.AsError(b)
	if strings.Contains(eb.Message, "could not be read") {
		// encoding/json's words, which name where it was decoding to.
		return strings.Contains(ea.Message, "could not be read")
	}
	return ea != nil && eb != nil && *ea == *eb
}

// before is how the arguments were decoded before the one pass: read into a
// map, checked against the schema, then encoded and decoded into dst.
func before(raw json.RawMessage, dst *input) error {
	obj, err := parse(raw)
	if err != nil {
		return err
	}
	if err := checkObject("", obj, schema); err != nil {
		return err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return vitrine.Invalid("arguments", "arguments could not be read: %v", err)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return vitrine.Invalid("arguments", "arguments could not be read: %v", err)
	}
	// The rows' given fields, as their UnmarshalJSON read them.
	rows, _ := obj["rows"].([]any)
	for i, r := range rows {
		for k := range r.(map[string]any) {
			dst.Rows[i].Given(k)
		}
	}
	return nil
}

func parse(raw json.RawMessage) (map[string]any, error) {
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

func stringArg(args map[string]any, name string) (string, error) {
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
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		prop, ok := s.Properties[name]
		if !ok && isMap(s) {
			prop, ok = s.AdditionalProperties, true
		}
		if !ok {
			return vitrine.Invalid(join(path, name), "unknown argument %q; the arguments are: %s", join(path, name), strings.Join(s.PropertyOrder, ", "))
		}
		v := obj[name]
		if v == nil && !slices.Contains(s.Required, name) {
			delete(obj, name)
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

// What decoding a call's arguments costs, in one pass and as before (a
// map, checked, encoded and decoded again).
func BenchmarkDecode(b *testing.B) {
	raw := json.RawMessage(`{"tenant_id":"0198c0de-7e57-7000-8000-000000000001","id":"0198c0de-7e57-7000-8000-000000000002",` +
		`"variant":{"name":"Caf\u00e9","tags":["a","b"],"options":{"Size":"M"},"stock":7},"statuses":["draft"],"limit":20}`)
	b.Run("one pass", func(b *testing.B) {
		for b.Loop() {
			var in input
			if err := args.Decode(raw, schema, &in, &args.Lead{Name: "tenant_id"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("before", func(b *testing.B) {
		for b.Loop() {
			var in input
			if err := before(raw, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
