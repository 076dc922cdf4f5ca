package vitrine

import (
	"fmt"
	"slices"
	"strings"
)

// Toolset is a group of tools that a person grants together. What a client
// lists and may call is the tools of the toolsets its token grants (and
// the deployment serves): since MCP 2026-07-28, tools/list varies by the
// authorization presented, never by what earlier requests did. A new
// toolset is one entry in Toolsets; everything that grants, lists or
// refuses reads this list.
type Toolset struct {
	// Name is how tools, tokens and scopes name it (its scope is
	// ToolsetScope(Name)).
	Name string
	// About says in a few words what its tools do, for the person granting
	// it and the agent asking for it.
	About string
	// Icon is the file name of its SVG icon, served by the binary (the
	// MCP server names it on each of the toolset's tools).
	Icon string
	// Default toolsets are granted unless the grant says otherwise: the
	// catalog's daily work, whose tools/list stays within an agent's
	// context budget. The others are granted when asked for.
	Default bool
}

// Toolsets are the toolsets, in the order their tools are listed.
var Toolsets = []Toolset{
	{Name: "tenants", About: "Your companies, what you may do in each, and your invitations.", Icon: "tenants.svg", Default: true},
	{Name: "products", About: "The catalog: find, read and write products and their stock.", Icon: "products.svg", Default: true},
	{Name: "inventory", About: "Stock movements and bulk imports.", Icon: "inventory.svg"},
	{Name: "catalog", About: "A product's variants one at a time, the company's categories and attributes.", Icon: "catalog.svg"},
	{Name: "members", About: "A company's members, their roles and grants.", Icon: "members.svg"},
	{Name: "roles", About: "The permission catalog and custom roles.", Icon: "roles.svg"},
	{Name: "audit", About: "The audit log of every call.", Icon: "audit.svg"},
	{Name: "shop", About: "The shop window: what the company publishes to shopping agents and feeds.", Icon: "shop.svg"},
	{Name: "company", About: "A company's whole life: export, delete and restore it.", Icon: "company.svg"},
}

// The access scopes: write grants every tool of the toolsets granted, read
// only those that change nothing.
const (
	ScopeRead  = "vitrine:read"
	ScopeWrite = "vitrine:write"
)

// toolsetScopePrefix starts the scope that grants a toolset.
const toolsetScopePrefix = "vitrine:toolset:"

// ToolsetScope is the OAuth scope that grants the toolset.
func ToolsetScope(name string) string { return toolsetScopePrefix + name }

// ToolsetNamed returns the toolset of that name.
func ToolsetNamed(name string) (Toolset, bool) {
	i := slices.IndexFunc(Toolsets, func(ts Toolset) bool { return ts.Name == name })
	if i < 0 {
		return Toolset{}, false
	}
	return Toolsets[i], true
}

// ToolsetNames returns the names of every toolset, in listing order.
func ToolsetNames() []string {
	names := make([]string, len(Toolsets))
	for i, ts := range Toolsets {
		names[i] = ts.Name
	}
	return names
}

// DefaultToolsets returns the names of the toolsets granted by default.
func DefaultToolsets() []string {
	var names []string
	for _, ts := range Toolsets {
		if ts.Default {
			names = append(names, ts.Name)
		}
	}
	return names
}

// ParseToolsets reads toolset names as a person writes them (a flag, a
// form): names of Toolsets, "all" for every one; empty names are skipped.
// It returns them in listing order, each once, or a ValidationError of
// field that lists the toolsets.
func ParseToolsets(field string, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch _, known := ToolsetNamed(n); {
		case n == "":
		case n == "all":
			return ToolsetNames(), nil
		case known:
			out = append(out, n)
		default:
			return nil, Invalid(field, "there is no toolset %q; the toolsets are %s, or all", n, strings.Join(ToolsetNames(), ", "))
		}
	}
	return inListingOrder(out), nil
}

// inListingOrder returns names in the order of Toolsets, each once,
// without the names of no toolset.
func inListingOrder(names []string) []string {
	out := []string{}
	for _, ts := range Toolsets {
		if slices.Contains(names, ts.Name) {
			out = append(out, ts.Name)
		}
	}
	return out
}

// ToolsetsOfScopes returns the toolsets an OAuth scope set grants: those
// of its toolset scopes, or the default toolsets when it holds none (a
// grant made before toolsets were granted, or an identity provider set up
// with vitrine:read and vitrine:write only). Scopes of no toolset are
// ignored.
func ToolsetsOfScopes(scopes []string) []string {
	var names []string
	for _, s := range scopes {
		if n, ok := strings.CutPrefix(s, toolsetScopePrefix); ok {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return DefaultToolsets()
	}
	return inListingOrder(names)
}

// Scopes returns the OAuth scopes of a grant: its access (read, or read
// and write) and its toolsets.
func Scopes(readOnly bool, toolsets []string) []string {
	scopes := []string{ScopeRead}
	if !readOnly {
		scopes = append(scopes, ScopeWrite)
	}
	for _, n := range inListingOrder(toolsets) {
		scopes = append(scopes, ToolsetScope(n))
	}
	return scopes
}

// AllScopes returns every scope there is: the access scopes and one per
// toolset.
func AllScopes() []string { return Scopes(false, ToolsetNames()) }

// EncodeToolsets and DecodeToolsets turn a token's toolsets into the text
// it is stored as (names separated by spaces) and back.
func EncodeToolsets(names []string) string { return strings.Join(inListingOrder(names), " ") }

// DecodeToolsets reads what EncodeToolsets wrote.
func DecodeToolsets(s string) []string { return inListingOrder(strings.Fields(s)) }

// Grants reports whether the token grants the toolset.
func (t *Token) Grants(toolset string) bool { return slices.Contains(t.Toolsets, toolset) }

// ToolsetList says toolset names in prose ("members, roles and audit").
func ToolsetList(names []string) string {
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return fmt.Sprintf("%s and %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}
