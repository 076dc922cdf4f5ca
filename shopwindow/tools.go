package shopwindow

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// The window's three tools as data. Each takes UCP's arguments,
// {"meta": {"ucp-agent": {"profile": URL}}, "catalog": <the operation's
// request>}, and answers the operation's UCP response. Their schemas are
// derived from the Go types the window decodes and encodes (catalog.go,
// ucp.go), as the admin tools' are; testdata/toolsnaps holds what
// tools/list shows of each (make docs).
var toolOps = []struct {
	name, op, title, description string
	schemas                      func() toolSchemas
}{
	{"search_catalog", "search", "Search the catalog",
		"Search this shop's products by words (query) and filters (categories, price in minor units); pagination by cursor. UCP dev.ucp.shopping.catalog.search.",
		deriveSchemas[searchRequest, searchResponse]("catalog_search.json", "search_response")},
	{"lookup_catalog", "lookup", "Look products up",
		"Look up to 50 products or variants up at once by product id, variant id, SKU or handle; each variant says which ids resolved to it (inputs). UCP dev.ucp.shopping.catalog.lookup.",
		deriveSchemas[lookupRequest, lookupResponse]("catalog_lookup.json", "lookup_response")},
	{"get_product", "product", "Get a product",
		"Get one product by product or variant id, with option availability relative to the selected options, the featured variant first. UCP dev.ucp.shopping.catalog.lookup.",
		deriveSchemas[productRequest, productResponse]("catalog_lookup.json", "get_product_response")},
}

// toolArgs are a tool call's arguments, the catalog's request left
// encoded: each operation decodes its own (Server.run), as REST does.
type toolArgs = toolInput[json.RawMessage]

// toolInput are the arguments of a tool whose operation takes a C.
type toolInput[C any] struct {
	Meta    toolMeta `json:"meta"`
	Catalog C        `json:"catalog"`
}

// toolMeta is UCP's meta of a call: the agent's profile, which the window
// negotiates with.
type toolMeta struct {
	Agent struct {
		Profile profileURL `json:"profile" jsonschema:"The URL of the agent's UCP profile."`
	} `json:"ucp-agent"`
}

// profileURL is the URL of an agent's profile.
type profileURL string

// toolSchemas are a tool's input and output schemas, as tools/list shows
// them.
type toolSchemas struct{ in, out json.RawMessage }

// deriveSchemas derives, once, the schemas of a tool whose request is In
// and whose answer is Out, UCP's response schema named def in file (of
// the version the window speaks).
//
// The input schema states what the operations check (catalog.go's
// bounds), and leaves objects open: the window ignores what UCP's
// requests may carry beyond what it reads (signals, attribution, a
// context's other hints), so an agent may send them.
//
// The output schema is the answer's fields and their types, none required
// and no object closed (an answer with ucp.status "error" carries
// messages and no products), each of UCP's own types in it named by its
// UCP schema rather than spelled out again (ucpTypes), the whole by the
// response schema it conforms to. It names them in descriptions, not in
// $ref: a client that compiles an output schema (the TypeScript SDK does,
// at tools/list) cannot resolve a remote reference, and would fail the
// list.
func deriveSchemas[In, Out any](file, def string) func() toolSchemas {
	return sync.OnceValue(func() toolSchemas {
		in := schemaFor[toolInput[In]](inputTypes)
		open(in, false)
		stateBounds(in.Properties["catalog"])
		out := schemaFor[Out](ucpTypes)
		open(out, true)
		out.Description = "UCP's " + def + ": " + schemaBase + file + "#/$defs/" + def
		if p := out.Properties["product"]; p != nil && def == "get_product_response" {
			// The product of get_product is detail_product: with its
			// effective selection and the options' availability.
			p.Description = "UCP's detail_product: " + schemaBase + file + "#/$defs/detail_product"
		}
		return toolSchemas{in: marshal(in), out: marshal(out)}
	})
}

// inputTypes carry constraints into every input schema that uses them.
var inputTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[profileURL](): {Type: "string", Format: "uri"},
}

// ucpTypes are the types of the answers that are UCP's own, each named
// by its schema.
var ucpTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[envelope]():   ucpType("response_catalog_schema", "ucp.json#/$defs/response_catalog_schema"),
	reflect.TypeFor[product]():    ucpType("product", "shopping/types/product.json"),
	reflect.TypeFor[pagination](): ucpType("pagination", "common/types/pagination.json#/$defs/response"),
	reflect.TypeFor[message]():    ucpType("message", "common/types/message.json"),
}

// ucpType is an object of UCP's schema name, at path under UCP's schemas.
func ucpType(name, path string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Description: "UCP's " + name + ": " + specBase(Version) + "/schemas/" + path}
}

func schemaFor[T any](types map[reflect.Type]*jsonschema.Schema) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	return s
}

// open lets every object of s hold more properties than it names, and
// replaces the ["null", T] unions of pointers with T (an agent omits a
// field rather than send null); with unrequire, no property is required.
func open(s *jsonschema.Schema, unrequire bool) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type = s.Types[slices.IndexFunc(s.Types, func(t string) bool { return t != "null" })]
		s.Types = nil
	}
	s.AdditionalProperties = nil
	if unrequire {
		s.Required = nil
	}
	for _, p := range s.Properties {
		open(p, unrequire)
	}
	open(s.Items, unrequire)
}

// stateBounds states in a request's schema the bounds its operation
// checks: a page's size (clamped to maxSearchLimit, not refused), the
// number of ids of a lookup, prices that are not negative.
func stateBounds(req *jsonschema.Schema) {
	if p := property(req, "pagination", "limit"); p != nil {
		p.Minimum, p.Default = ptr(1.0), json.RawMessage(fmt.Sprint(defaultSearchLimit))
	}
	if p := property(req, "ids"); p != nil {
		p.MinItems, p.MaxItems = ptr(1), ptr(maxLookupIDs)
	}
	for _, bound := range []string{"min", "max"} {
		if p := property(req, "filters", "price", bound); p != nil {
			p.Minimum = ptr(0.0)
		}
	}
}

// property is the schema of s's property at path, or nil.
func property(s *jsonschema.Schema, path ...string) *jsonschema.Schema {
	for _, name := range path {
		if s == nil {
			return nil
		}
		s = s.Properties[name]
	}
	return s
}

func marshal(s *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}
