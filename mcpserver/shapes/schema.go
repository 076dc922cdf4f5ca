package shapes

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// The structs of the tools' arguments and results are the single source of
// their JSON schemas: jsonschema.For derives each schema from its struct,
// and the named types below carry their constraints (enums, bounds) into
// every schema that uses them.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[vitrine.ProductStatus](): {Type: "string", Enum: enum(vitrine.ProductStatuses)},
	reflect.TypeFor[vitrine.ProductSort]():   {Type: "string", Enum: enum(vitrine.ProductSorts)},
	reflect.TypeFor[pageLimit]():             {Type: "integer", Minimum: ptr(1.0), Maximum: ptr(float64(vitrine.MaxPageLimit))},
	reflect.TypeFor[productDetail]():         {Type: "string", Enum: []any{"summary", "full"}},
	reflect.TypeFor[vitrine.FacetName]():     {Type: "string", Enum: enum(vitrine.FacetNames)},
	reflect.TypeFor[policyName]():            {Type: "string", Enum: []any{string(vitrine.PolicyDeny), string(vitrine.PolicyContinue)}},
	reflect.TypeFor[weightUnit]():            {Type: "string", Enum: enum(vitrine.WeightUnits)},
	reflect.TypeFor[imageURL]():              {Type: "string", MaxLength: ptr(vitrine.MaxURLLength)},
	reflect.TypeFor[attributeType]():         {Type: "string", Enum: enum(vitrine.AttributeTypes)},
	reflect.TypeFor[importFormat]():          {Type: "string", Enum: []any{"products", "shopify"}},
	reflect.TypeFor[translationFormat]():     {Type: "string", Enum: []any{catalog.TranslationsShopify, catalog.TranslationsJSONL}},
	reflect.TypeFor[exportFormat]():          {Type: "string", Enum: []any{"jsonl", "shopify"}},
	reflect.TypeFor[longCSV]():               {Type: "string", MaxLength: ptr(maxCSVLength)},
	reflect.TypeFor[sku]():                   {Type: "string", MaxLength: ptr(vitrine.MaxSKULength)},
	reflect.TypeFor[shortText]():             {Type: "string", MaxLength: ptr(200)},
	reflect.TypeFor[vitrine.QueryText]():     {Type: "string", MaxLength: ptr(200)}, // a filter's texts, bounded as names are
	reflect.TypeFor[longText]():              {Type: "string", MaxLength: ptr(vitrine.MaxDescriptionLength)},
	reflect.TypeFor[vitrine.Decimal]():       {Type: "string", MaxLength: ptr(40)},
	reflect.TypeFor[vitrine.CurrencyCode]():  {Type: "string", Pattern: "^[A-Za-z]{3}$"}, // checked by the service, which says more
	reflect.TypeFor[slug]():                  {Type: "string", MaxLength: ptr(63)},
	reflect.TypeFor[vitrine.LocaleTag]():     {Type: "string", MaxLength: ptr(35)},
	reflect.TypeFor[handle]():                {Type: "string", MaxLength: ptr(vitrine.MaxHandleLength)},
	reflect.TypeFor[email]():                 {Type: "string", MaxLength: ptr(254)},
	reflect.TypeFor[roleName]():              {Type: "string", MaxLength: ptr(40)},
	reflect.TypeFor[roleText]():              {Type: "string", MaxLength: ptr(500)},
	reflect.TypeFor[pageCursor]():            {Type: "string", MaxLength: ptr(service.MaxCursorLength)},
	reflect.TypeFor[ToolsetName]():           {Type: "string", Enum: toolsetEnum()},
	reflect.TypeFor[stockLevel]():            {Type: "integer", Minimum: ptr(0.0), Maximum: ptr(float64(vitrine.MaxStock))},
	reflect.TypeFor[memberStatus]():          {Type: "string", Enum: enum(vitrine.SettableMembershipStatuses)},
	reflect.TypeFor[importMode]():            {Type: "string", Enum: enum(catalog.ImportModes)},
	reflect.TypeFor[auditOutcome]():          {Type: "string", Enum: append([]any{vitrine.OutcomeOK}, enum(vitrine.ErrorTypes)...)},
	reflect.TypeFor[permissionName]():        {Type: "string", Enum: permissionEnum()},
	reflect.TypeFor[shopURLTemplate]():       {Type: "string", MaxLength: ptr(vitrine.MaxShopURLLength)},
	reflect.TypeFor[countryCode]():           {Type: "string", MaxLength: ptr(2)},
	reflect.TypeFor[domainName]():            {Type: "string", MaxLength: ptr(253)},
	reflect.TypeFor[stockShown]():            {Type: "string", Enum: []any{string(vitrine.StockAvailability), string(vitrine.StockExact)}},
	reflect.TypeFor[feedAttribute]():         {Type: "string", Enum: feedAttributes()},
	reflect.TypeFor[shopChannel]():           {Type: "string", Enum: enum(vitrine.ShopChannels)},
	reflect.TypeFor[marketLocale]():          {Type: "string", MaxLength: ptr(35)},
	reflect.TypeFor[rounding]():              {Type: "string", Enum: enum(vitrine.Roundings)},
	reflect.TypeFor[synonymWord]():           {Type: "string", MaxLength: ptr(vitrine.MaxSynonymLength)},
	reflect.TypeFor[localeTag]():             {Type: "string", MaxLength: ptr(35)},
	// A record's fields left out when they hold their default (ProductOut).
	reflect.TypeFor[defaultTrue](): {Type: "boolean", Default: json.RawMessage("true")},
	reflect.TypeFor[policyOut]():   {Type: "string", Enum: []any{string(vitrine.PolicyDeny), string(vitrine.PolicyContinue)}, Default: json.RawMessage(`"deny"`)},
	reflect.TypeFor[atIndex]():     {Type: "integer", Description: "Default: its place, from 1."},
}

// enum is a schema enum of the domain's values: the domain states them, the
// schemas follow.
func enum[T ~string](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

type pageCursor string

// OutputSchemaFor derives the schema of a result: its fields and their
// types, said once. A result carries every field of its struct but those
// marked omitempty (which the docs and the field's description tell), so
// "required" would repeat every name of every result in every tools/list,
// at the agent's expense; and additionalProperties would forbid a result
// to grow.
func OutputSchemaFor[T any]() *jsonschema.Schema {
	s := SchemaFor[T]()
	openObjects(s)
	return s
}

func openObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties, s.Required = nil, nil
	for _, p := range s.Properties {
		openObjects(p)
	}
	openObjects(s.Items)
}

// SchemaFor derives the schema of T. Optional fields (omitempty) are
// pointers in Go so that "absent" differs from "zero"; in the schema they
// keep their plain type, since an agent omits them rather than send null.
func SchemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	simplify(s)
	stateDefaults(reflect.TypeFor[T](), s)
	return s
}

// stateDefaults sets in s the default of each field of t that states one
// in its tag (`default:"[]"`, JSON), all the way down: what a result
// leaves out when it is empty.
func stateDefaults(t reflect.Type, s *jsonschema.Schema) {
	for s != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		if t.Kind() == reflect.Slice {
			s = s.Items
		}
		t = t.Elem()
	}
	if s == nil || t.Kind() != reflect.Struct {
		return
	}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if f.Anonymous || !f.IsExported() || name == "" || name == "-" || p == nil {
			continue
		}
		if d, ok := f.Tag.Lookup("default"); ok {
			if !json.Valid([]byte(d)) {
				panic(fmt.Sprintf("%s.%s: default %q is not JSON", t, f.Name, d))
			}
			p.Default = json.RawMessage(d)
		}
		stateDefaults(f.Type, p)
	}
}

// simplify replaces ["null", T] unions with T, all the way down.
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

func toolsetEnum() []any { return enum(vitrine.ToolsetNames()) }

func permissionEnum() []any {
	out := make([]any, len(vitrine.Permissions))
	for i, p := range vitrine.Permissions {
		out[i] = string(p.Name)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
