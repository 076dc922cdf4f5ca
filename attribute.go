package vitrine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AttributeType is the type of an attribute's values.
type AttributeType string

// The attribute types.
const (
	AttributeText    AttributeType = "text"
	AttributeNumber  AttributeType = "number"
	AttributeBoolean AttributeType = "boolean"
	AttributeEnum    AttributeType = "enum"
)

// AttributeTypes lists the attribute types.
var AttributeTypes = []AttributeType{AttributeText, AttributeNumber, AttributeBoolean, AttributeEnum}

// Attribute is a company's definition of a product field of its own.
type Attribute struct {
	TenantID string
	Key      string
	Name     string
	Type     AttributeType
	Values   []string // of an enum
	// Public attributes are shown in the company's shop window and feeds;
	// the others are kept to the company (the default).
	Public    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Limits of a product's attribute values.
const (
	MaxAttributes       = 50
	MaxAttributeTextLen = 1000
	// MaxEnumValues bounds an enum attribute's allowed values.
	MaxEnumValues = 1000
	// enumValuesShown is how many allowed values a refusal names.
	enumValuesShown = 10
)

// Check validates a value of the attribute and returns it in its one form:
// a string, a float64 or a bool.
func (a *Attribute) Check(field string, v any) (any, error) {
	switch a.Type {
	case AttributeText:
		s, ok := v.(string)
		if !ok {
			return nil, Invalid(field, "%s is a text attribute; got %s", field, describe(v))
		}
		return ValidateText(field, s, MaxAttributeTextLen)
	case AttributeNumber:
		f, ok := 0.0, false
		switch n := v.(type) {
		case float64:
			f, ok = n, true
		case int:
			f, ok = float64(n), true
		case int64:
			f, ok = float64(n), true
		case string:
			x, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			f, ok = x, err == nil
		}
		if !ok {
			return nil, Invalid(field, "%s is a number attribute; got %s", field, describe(v))
		}
		// NaN and the infinities have no JSON form: a product holding one
		// could not be answered.
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, Invalid(field, "%s is a number attribute and takes finite numbers only; got %s", field, describe(v))
		}
		return f, nil
	case AttributeBoolean:
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			if x, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
				return x, nil
			}
		}
		return nil, Invalid(field, "%s is a true/false attribute; got %s", field, describe(v))
	case AttributeEnum:
		s, ok := v.(string)
		if ok && slices.Contains(a.Values, strings.TrimSpace(s)) {
			return strings.TrimSpace(s), nil
		}
		if len(a.Values) <= enumValuesShown {
			return nil, Invalid(field, "%s must be one of %s; got %s", field, Quoted(a.Values), describe(v))
		}
		// A long list is named by a few of its values and its count: the
		// refusal stays short whatever the definition holds.
		return nil, Invalid(field, "%s must be one of the %d values of the attribute (list_attributes lists them), such as %s; got %s",
			field, len(a.Values), Quoted(a.Values[:enumValuesShown]), describe(v))
	}
	return nil, Invalid(field, "%s has an unknown type %q", field, a.Type)
}

// AttributeString is an attribute value's canonical text, as it is indexed
// and exported.
func AttributeString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func (p *Product) validateAttributes(defs map[string]*Attribute) error {
	if len(p.Attributes) > MaxAttributes {
		return Invalid("attributes", "a product has at most %d attributes; got %d", MaxAttributes, len(p.Attributes))
	}
	for _, key := range slices.Sorted(maps.Keys(p.Attributes)) {
		f := "attributes." + key
		def := defs[key]
		if def == nil {
			return Invalid(f, "no attribute %q is defined in this company; its admins define attributes (save_attribute)", key)
		}
		v, err := def.Check(f, p.Attributes[key])
		if err != nil {
			return err
		}
		p.Attributes[key] = v
	}
	return nil
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	case bool, float64, int, int64:
		return fmt.Sprintf("%v", x)
	}
	return fmt.Sprintf("a %T", v)
}
