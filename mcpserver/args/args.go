// Package args checks a tool call's arguments against the tool's input
// schema and decodes them, with errors written for a model fixing its call.
package args

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	segjson "github.com/segmentio/encoding/json"
	"github.com/vitrine/vitrine"
)

// Decode checks raw tool arguments (as the SDK hands them, absent or null
// for none) against the tool's input schema and decodes them into dst, in
// one pass over them. Every failure is a ValidationError naming the
// argument at fault, so that the agent can correct itself; Decode returns
// the first in the order of the checks: the arguments must be an object
// (Malformed), then of each object its required arguments, in the
// schema's order, then its arguments by name, each checked whole, an
// array's length before its items. Written here rather than with
// jsonschema's own validator, whose messages are written for schema
// authors ("validating /properties/price: type: ...") rather than for a
// model fixing its call.
//
// The leads, top-level arguments the caller reads before the others are
// checked (Lead), are filled in whatever the failure.
func Decode(raw json.RawMessage, schema *jsonschema.Schema, dst any, leads ...*Lead) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	d := decoder{raw: raw, leads: leads}
	d.tok.Reset(raw)
	defer d.tok.Reset(nil) // its stack back to the pool
	if !d.next() {
		return malformed("arguments must be a JSON object")
	}
	if d.tok.Delim != '{' {
		return malformed("arguments must be a JSON object, not %s", d.kind())
	}
	err := d.object("", schema, reflect.ValueOf(dst).Elem(), true)
	if d.err != nil {
		return malformed("arguments must be a JSON object")
	}
	if err == nil {
		err = d.unread
	}
	return err
}

// Malformed reports whether err is Decode's answer to arguments that are
// not an object, which comes before any other check.
func Malformed(err error) bool {
	e := vitrine.AsError(err)
	return e != nil && e.Field == "arguments"
}

func malformed(format string, a ...any) error { return vitrine.Invalid("arguments", format, a...) }

// A Lead is a top-level argument read before the others are checked: the
// tenant_id, which must be known before anything else is looked at, or
// the argument that names the call's target, for the audit log.
type Lead struct {
	Name string
	// kind is the JSON kind of its value, as errors word it; "" when the
	// argument is absent or null.
	kind string
	str  string
}

// Given returns the argument's value if it is a string, else "".
func (l *Lead) Given() string { return l.str }

// String returns the argument's value, or the ValidationError of a
// required string argument that is absent or not a string.
func (l *Lead) String() (string, error) {
	switch l.kind {
	case "":
		return "", vitrine.Invalid(l.Name, "%s is required", l.Name)
	case "a string":
		return l.str, nil
	}
	return "", vitrine.Invalid(l.Name, "%s must be a string, not %s", l.Name, l.kind)
}

// Keyed is an argument object that keeps which of its arguments a call
// gave (not null): Decode tells it each.
type Keyed interface{ Given(name string) }

type decoder struct {
	raw   []byte
	tok   segjson.Tokenizer
	leads []*Lead
	err   error // malformed JSON, which the SDK's own pass already refuses
	// unread is the first value that passed its checks but could not be
	// decoded (a number past float64's range, into an any).
	unread error
}

// next moves to the next token.
func (d *decoder) next() bool {
	if d.err != nil {
		return false
	}
	if !d.tok.Next() {
		if d.err = d.tok.Err; d.err == nil {
			d.err = fmt.Errorf("unexpected end")
		}
		return false
	}
	return true
}

// kind is the JSON kind of the value at the current token, as errors word
// it.
func (d *decoder) kind() string {
	switch d.tok.Kind().Class() {
	case segjson.Null:
		return "null"
	case segjson.String:
		return "a string"
	case segjson.Num:
		return "a number"
	case segjson.Bool:
		return "a boolean"
	case segjson.Array:
		return "an array"
	}
	return "an object"
}

// start and end are the offsets in raw of the current token.
func (d *decoder) start() int { return len(d.raw) - d.tok.Remaining() - len(d.tok.Value) }
func (d *decoder) end() int   { return len(d.raw) - d.tok.Remaining() }

// skip moves past the value at the current token.
func (d *decoder) skip() {
	if d.tok.Delim != '{' && d.tok.Delim != '[' {
		return
	}
	depth := d.tok.Depth
	for d.next() {
		if (d.tok.Delim == '}' || d.tok.Delim == ']') && d.tok.Depth == depth {
			return
		}
	}
}

// str is the string at the current token, unescaped as encoding/json does
// (an invalid UTF-8 byte made U+FFFD).
func (d *decoder) str() string {
	v := d.tok.Value
	if d.tok.Kind() == segjson.Unescaped || bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1])
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		d.err = err
	}
	return s
}

// keyError is the failure of one argument of an object.
type keyError struct {
	name string
	err  error
}

// object checks and decodes the object at the current token into dst (a
// struct, a map, or nothing when !dst.IsValid()).
func (d *decoder) object(path string, s *jsonschema.Schema, dst reflect.Value, top bool) error {
	var (
		fields map[string][]int
		keyed  Keyed
		errs   []keyError
		given  = make([]bool, len(s.Required))
	)
	switch {
	case !dst.IsValid():
	case dst.Kind() == reflect.Struct:
		fields = fieldsOf(dst.Type())
		keyed, _ = dst.Addr().Interface().(Keyed)
	case dst.Kind() == reflect.Map:
		if dst.IsNil() {
			dst.Set(reflect.MakeMap(dst.Type()))
		}
	}
	for d.next() && d.tok.Delim != '}' {
		if d.tok.Delim == ',' && !d.next() {
			break
		}
		name := d.str()
		if d.next(); !d.next() { // the colon, then the value
			break
		}
		errs = slices.DeleteFunc(errs, func(e keyError) bool { return e.name == name }) // the last of two wins
		at := join(path, name)
		prop, ok := s.Properties[name]
		if !ok && isMap(s) {
			// An object of any keys (option name to value, say): each value
			// as its schema says.
			prop, ok = s.AdditionalProperties, true
		}
		var field reflect.Value
		if ok && dst.IsValid() {
			if fields != nil {
				field = fieldByIndex(dst, fields[name])
			} else if dst.Kind() == reflect.Map {
				field = reflect.New(dst.Type().Elem()).Elem()
			}
		}
		var err error
		kind := d.kind()
		null := kind == "null"
		switch {
		case !ok:
			err = vitrine.Invalid(at, "unknown argument %q; the arguments are: %s", at, strings.Join(s.PropertyOrder, ", "))
			d.skip()
		case null: // null stands for "not given"
			if field.IsValid() {
				field.SetZero()
			}
			if dst.IsValid() && dst.Kind() == reflect.Map {
				dst.SetMapIndex(reflect.ValueOf(name).Convert(dst.Type().Key()), reflect.Value{})
			}
		default:
			err = d.value(at, prop, field)
			if dst.IsValid() && dst.Kind() == reflect.Map {
				dst.SetMapIndex(reflect.ValueOf(name).Convert(dst.Type().Key()), field)
			}
			if keyed != nil {
				keyed.Given(name)
			}
		}
		if i := slices.Index(s.Required, name); i >= 0 {
			given[i] = !null
		}
		if top {
			d.lead(name, kind, field)
		}
		if err != nil {
			errs = append(errs, keyError{name, err})
		}
	}
	if d.err != nil {
		return nil
	}
	for i, name := range s.Required {
		if !given[i] {
			return vitrine.Invalid(join(path, name), "%s is required", join(path, name))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	// Report the arguments in a stable order.
	return slices.MinFunc(errs, func(a, b keyError) int { return strings.Compare(a.name, b.name) }).err
}

// lead fills in the leads named name, from the value of that kind just
// read into field (the current token, when a string).
func (d *decoder) lead(name, kind string, field reflect.Value) {
	for _, l := range d.leads {
		if l.Name != name {
			continue
		}
		l.kind, l.str = kind, ""
		switch {
		case kind == "null":
			l.kind = ""
		case kind != "a string":
		case field.IsValid() && field.Kind() == reflect.String:
			l.str = field.String()
		default:
			l.str = d.str()
		}
	}
}

// openSchema is the schema of a value the schema leaves open. Shared, read
// only: a jsonschema.Schema is large, and one made in value would sit in
// its frame, at each level of its recursion (the goroutine's stack grown,
// and copied, at every call).
var openSchema = &jsonschema.Schema{}

// value checks and decodes the value at the current token into dst
// (nothing when !dst.IsValid()), and moves past it.
func (d *decoder) value(path string, s *jsonschema.Schema, dst reflect.Value) error {
	if s == nil {
		s = openSchema
	}
	switch {
	case dst.IsValid() && dst.Kind() == reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		err := d.value(path, s, p.Elem())
		dst.Set(p)
		return err
	case dst.IsValid() && (dst.Kind() == reflect.Interface || s.Type == "" || s.Type == "number"):
		// A value of any type, a number, or one the schema leaves open, is
		// checked, then decoded as encoding/json decodes it.
		from := d.start()
		err := d.value(path, s, reflect.Value{})
		if err == nil && d.err == nil && d.unread == nil {
			if uerr := json.Unmarshal(d.raw[from:d.end()], dst.Addr().Interface()); uerr != nil {
				// Not a failed check: reported when none failed.
				d.unread = vitrine.Invalid("arguments", "arguments could not be read: %v", uerr)
			}
		}
		return err
	}
	kind := d.kind()
	mismatch := func(want string) error {
		d.skip()
		return vitrine.Invalid(path, "%s must be %s, not %s", path, want, kind)
	}
	var v any
	switch s.Type {
	case "string":
		if d.tok.Kind().Class() != segjson.String {
			return mismatch("a string")
		}
		str := d.str()
		if dst.IsValid() {
			dst.SetString(str)
		}
		if strings.ContainsRune(str, 0) {
			// PostgreSQL's text cannot hold it, and no catalog needs it.
			return vitrine.Invalid(path, "%s must not contain the NUL character (\\u0000)", path)
		}
		if s.MaxLength != nil && utf8.RuneCountInString(str) > *s.MaxLength {
			return vitrine.Invalid(path, "%s must be at most %d characters long", path, *s.MaxLength)
		}
		v = str
	case "integer":
		if d.tok.Kind().Class() != segjson.Num {
			return mismatch("an integer")
		}
		n := json.Number(d.tok.Value)
		i, err := integer(n)
		if err != nil {
			return vitrine.Invalid(path, "%s must be an integer; got %s", path, n)
		}
		if s.Minimum != nil && float64(i) < *s.Minimum {
			return vitrine.Invalid(path, "%s must be at least %s; got %d", path, num(*s.Minimum), i)
		}
		if s.Maximum != nil && float64(i) > *s.Maximum {
			return vitrine.Invalid(path, "%s must be at most %s; got %d", path, num(*s.Maximum), i)
		}
		if dst.IsValid() {
			dst.SetInt(i)
		}
		v = i
	case "number":
		if d.tok.Kind().Class() != segjson.Num {
			return mismatch("a number")
		}
		v = json.Number(d.tok.Value)
	case "boolean":
		if d.tok.Kind().Class() != segjson.Bool {
			return mismatch("true or false")
		}
		if dst.IsValid() {
			dst.SetBool(d.tok.Kind() == segjson.True)
		}
		v = d.tok.Kind() == segjson.True
	case "array":
		if d.tok.Delim != '[' {
			return mismatch("an array")
		}
		return d.array(path, s, dst)
	case "object":
		if d.tok.Delim != '{' {
			return mismatch("an object")
		}
		return d.object(path, s, dst, false)
	default:
		d.skip()
		return nil
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		quoted := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			quoted[i] = fmt.Sprintf("%q", e)
		}
		return vitrine.Invalid(path, "%s must be one of %s; got %q", path, strings.Join(quoted, ", "), v)
	}
	return nil
}

// array checks and decodes the array at the current token into dst (a
// slice, or nothing).
func (d *decoder) array(path string, s *jsonschema.Schema, dst reflect.Value) error {
	var (
		first error
		n     int
		items reflect.Value
	)
	if dst.IsValid() {
		items = reflect.MakeSlice(dst.Type(), 0, 0)
	}
	for d.next() && d.tok.Delim != ']' {
		if d.tok.Delim == ',' && !d.next() {
			break
		}
		var item reflect.Value
		if items.IsValid() {
			item = reflect.New(items.Type().Elem()).Elem()
		}
		if err := d.value(path+"["+strconv.Itoa(n)+"]", s.Items, item); err != nil && first == nil {
			first = err
		}
		if items.IsValid() {
			items = reflect.Append(items, item)
		}
		n++
	}
	if dst.IsValid() {
		dst.Set(items)
	}
	switch {
	case s.MinItems != nil && n < *s.MinItems:
		return vitrine.Invalid(path, "%s must hold at least %d items", path, *s.MinItems)
	case s.MaxItems != nil && n > *s.MaxItems:
		return vitrine.Invalid(path, "%s holds %d items; the limit is %d", path, n, *s.MaxItems)
	}
	return first
}

// fieldsOf returns the fields of a struct by their JSON names, those of
// embedded structs included, as encoding/json finds them: a field of an
// outer struct hides one of the same name deeper in.
func fieldsOf(t reflect.Type) map[string][]int {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string][]int)
	}
	out := map[string][]int{}
	var walk func(t reflect.Type, index []int)
	depth := map[string]int{}
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			at := append(slices.Clone(index), i)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, at)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if d, ok := depth[name]; !ok || len(at) < d {
				out[name], depth[name] = at, len(at)
			}
		}
	}
	walk(t, nil)
	fieldCache.Store(t, out)
	return out
}

var fieldCache sync.Map

// fieldByIndex is v's field at index, allocating the embedded structs on
// its way that are pointers.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// isMap reports whether an object's schema takes keys of its own choosing:
// additionalProperties is a schema, not false (which jsonschema-go writes
// as {"not": {}}).
func isMap(s *jsonschema.Schema) bool {
	return s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil && len(s.Properties) == 0
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
