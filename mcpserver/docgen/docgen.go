// Package docgen renders the docs generated from the tools as data:
// docs/permissions.md, docs/tools.md and the README's table of tools. A
// test in mcpserver fails when a checked-in file drifts from them.
package docgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/mcpserver"
)

// PermissionsDoc renders docs/permissions.md from the code: the permission
// catalog, the built-in roles, and which role may call which tool. A test
// fails when the file drifts from it.
func PermissionsDoc(tools []*mcpserver.Tool) string {
	var b strings.Builder
	b.WriteString("# Permissions\n\n")
	b.WriteString("<!-- Generated from the code by `make docs`; a test fails when this file drifts. -->\n\n")
	b.WriteString("A member's permissions in a company are those of their role, plus those granted to them on top of it " +
		"(`grant_permission`). A read-only token narrows them to the permissions that only read.\n\n")
	b.WriteString("## The catalog\n\n| permission | allows | reads only |\n| --- | --- | --- |\n")
	for _, p := range vitrine.Permissions {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, p.Description, yes(p.Name.ReadOnly()))
	}
	b.WriteString("\n## Built-in roles\n\n| role | | permissions |\n| --- | --- | --- |\n")
	for _, r := range vitrine.BuiltinRoles {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Name, r.Description, code(r.Permissions.Strings()))
	}
	b.WriteString("\nCompanies may add custom roles (`create_role`) holding any set of permissions.\n")
	b.WriteString("\n## Who may call what\n\n")
	b.WriteString("Tools without a permission act on the caller alone. Any other tool answers `PermissionError` to a caller " +
		"whose membership lacks its permission, before it looks at anything else.\n\n")
	b.WriteString("| tool | toolset | needs |")
	for _, r := range vitrine.BuiltinRoles {
		fmt.Fprintf(&b, " %s |", r.Name)
	}
	b.WriteString("\n| --- | --- | --- |")
	for range vitrine.BuiltinRoles {
		b.WriteString(" :-: |")
	}
	b.WriteString("\n")
	for _, t := range tools {
		need := "—"
		if t.Permission() != "" {
			need = "`" + string(t.Permission()) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |", t.Name, t.Toolset, need)
		for _, r := range vitrine.BuiltinRoles {
			fmt.Fprintf(&b, " %s |", yes(t.Permission() == "" || r.Permissions.Has(t.Permission())))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Rules of team management\n\n" +
		"- A company always keeps at least one active owner: removing, demoting or deactivating the last one is a `ConflictError`.\n" +
		"- Nobody grants a role or a permission beyond what they hold themselves.\n" +
		"- Nobody changes a member who holds permissions they do not hold.\n" +
		"- Only an owner changes an owner, or makes one.\n" +
		"- Breaking any of these is a `PermissionError`, recorded in the audit log like every call.\n" +
		"- Every change applies from the member's very next call, on every server instance: nothing is cached.\n")
	b.WriteString("\n## Why export_tenant needs tenants:delete\n\n" +
		"Its archive holds the whole company: every member's email, the audit log and the catalog, as much as deleting the company " +
		"gives away. So it is the owner's alone, as deleting is (an admin holds every other permission). A permission of its own " +
		"(`tenants:export`) would have been granted with `admin`'s \"all but deleting\" unless excluded too, and held by no custom " +
		"role until each learned it: one owner-only permission says the same with nothing to learn.\n")
	return b.String()
}

func yes(b bool) string {
	if b {
		return "✓"
	}
	return ""
}

func code(names []string) string {
	if len(names) == 0 {
		return "—"
	}
	return "`" + strings.Join(names, "`, `") + "`"
}

// ToolsDoc renders docs/tools.md: every tool with its parameters, its
// result, its permission and its annotations, from the code.
// localizedNote says of a Localized field who sees it listed.
const localizedNote = "Listed only to a token granted translations, so that the default grant's list keeps within 16 KiB; it works for every caller."

func ToolsDoc(tools []*mcpserver.Tool) string {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("<!-- Generated from the code by `make docs`; a test fails when this file drifts. -->\n\n")
	b.WriteString("Every tenant-scoped tool takes `tenant_id` first: the company's id, or its slug (resolved among your own " +
		"companies only; another's answers as an unknown id does); errors follow [the error contract](errors.md); who may " +
		"call what is in [permissions.md](permissions.md). Optional parameters are marked with `?`.\n\n")
	fmt.Fprintf(&b, "A client lists and calls the tools of the toolsets its token grants (and the deployment serves: "+
		"`--toolsets`): %s unless the grant says otherwise, the others when the person grants them (the consent page, "+
		"a personal token's toolsets, an identity provider's scopes `vitrine:toolset:<name>`). `request_toolset` lists "+
		"the toolsets a caller's grant lacks, and asks for one.\n", code(vitrine.DefaultToolsets()))
	toolset := ""
	for _, t := range tools {
		if t.Toolset != toolset {
			toolset = t.Toolset
			fmt.Fprintf(&b, "\n## %s\n", toolsetTitle(toolset))
		}
		fmt.Fprintf(&b, "\n### `%s` — %s\n\n%s\n\n", t.Name, t.Title, t.Description)
		need := "a valid token (acts on the caller)"
		if t.Permission() != "" {
			need = "`" + string(t.Permission()) + "`"
		}
		fmt.Fprintf(&b, "- **Needs:** %s\n- **Annotations:** %s\n\n", need, annotations(t))
		b.WriteString("| parameter | type | description |\n| --- | --- | --- |\n")
		for _, name := range t.InputSchema().PropertyOrder {
			p := t.InputSchema().Properties[name]
			opt := "?"
			if slices.Contains(t.InputSchema().Required, name) {
				opt = ""
			}
			desc := p.Description
			if t.IsLocalized(name, false) {
				desc = strings.TrimSpace(desc + " " + localizedNote)
			}
			fmt.Fprintf(&b, "| `%s%s` | %s | %s |\n", name, opt, typeOf(p), cell(desc))
		}
		if len(t.InputSchema().PropertyOrder) == 0 {
			b.WriteString("| — | | no parameters |\n")
		}
		fmt.Fprintf(&b, "\n**Result:** %s.\n", fields(t.OutputSchema()))
		for _, name := range t.OutputSchema().PropertyOrder {
			if t.IsLocalized(name, true) {
				fmt.Fprintf(&b, "\n`%s`: %s\n", name, localizedNote)
			}
		}
	}
	return b.String()
}

// toolsetTitle is a toolset's heading: its name, what it holds, and when
// it is granted.
func toolsetTitle(name string) string {
	ts, ok := vitrine.ToolsetNamed(name)
	if !ok {
		return "Toolset `" + name + "`: what else there is, in every grant"
	}
	when := "granted when asked for"
	if ts.Default {
		when = "granted by default"
	}
	return fmt.Sprintf("Toolset `%s` (%s)\n\n%s", ts.Name, when, ts.About)
}

// ToolsTable renders the table of tools the README holds.
func ToolsTable(tools []*mcpserver.Tool) string {
	var b strings.Builder
	b.WriteString("| toolset | tool | does | needs |\n| --- | --- | --- | --- |\n")
	for _, t := range tools {
		need := "a token"
		if t.Permission() != "" {
			need = "`" + string(t.Permission()) + "`"
		}
		// GitHub keeps a heading's underscores in its fragment: "`list_tenants`
		// — List my companies" is #list_tenants--list-my-companies.
		fmt.Fprintf(&b, "| %s | [`%s`](docs/tools.md#%s--%s) | %s | %s |\n", t.Toolset, t.Name,
			anchor(t.Name), anchor(t.Title), t.Title, need)
	}
	return b.String()
}

// anchor is how GitHub turns a heading's words into a fragment.
func anchor(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func annotations(t *mcpserver.Tool) string {
	var out []string
	if t.ReadOnly {
		out = append(out, "read-only")
	} else {
		out = append(out, "writes")
		if t.Destructive {
			out = append(out, "destructive")
		}
	}
	if t.Idempotent {
		out = append(out, "idempotent")
	}
	out = append(out, "closed world")
	return strings.Join(out, ", ")
}

func typeOf(s *jsonschema.Schema) string {
	t := s.Type
	switch {
	case len(s.Enum) > 0:
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = fmt.Sprintf("`%v`", v)
		}
		return strings.Join(vals, " \\| ")
	case t == "array" && s.Items != nil:
		if s.Items.Type == "object" {
			return "array of objects: " + strings.Join(s.Items.PropertyOrder, ", ")
		}
		return "array of " + typeOf(s.Items)
	case t == "integer" && s.Minimum != nil && s.Maximum != nil:
		return fmt.Sprintf("integer %v–%v", *s.Minimum, *s.Maximum)
	case t == "string" && s.MaxLength != nil:
		return fmt.Sprintf("string ≤ %d characters", *s.MaxLength)
	case t == "string" && s.Pattern != "":
		return "string `" + s.Pattern + "`"
	}
	return t
}

func fields(s *jsonschema.Schema) string {
	names := make([]string, len(s.PropertyOrder))
	for i, n := range s.PropertyOrder {
		names[i] = "`" + n + "`"
	}
	out := "an object with " + strings.Join(names, ", ")
	if d := defaults(s, ""); len(d) > 0 {
		out += "; left out when at its default: " + strings.Join(d, ", ")
	}
	return out
}

// defaults lists the fields of a result left out when they hold their
// default, with it: "`tags` []", "`variants[].taxable` true".
func defaults(s *jsonschema.Schema, prefix string) []string {
	var out []string
	for _, n := range s.PropertyOrder {
		p := s.Properties[n]
		switch {
		case p.Default != nil:
			out = append(out, "`"+prefix+n+"` "+string(p.Default))
		case strings.HasPrefix(p.Description, "Default: "):
			out = append(out, "`"+prefix+n+"` ("+strings.TrimSuffix(strings.ToLower(strings.TrimPrefix(p.Description, "Default: ")), ".")+")")
		}
		if p.Items != nil && p.Items.Properties != nil {
			out = append(out, defaults(p.Items, prefix+n+"[].")...)
		}
	}
	return out
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
