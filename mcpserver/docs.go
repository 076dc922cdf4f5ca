package mcpserver

import (
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
)

// PermissionsDoc renders docs/permissions.md from the code: the permission
// catalog, the built-in roles, and which role may call which tool. A test
// fails when the file drifts from it.
func PermissionsDoc(tools []*Tool) string {
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
		if t.Permission != "" {
			need = "`" + string(t.Permission) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |", t.Name, t.Toolset, need)
		for _, r := range vitrine.BuiltinRoles {
			fmt.Fprintf(&b, " %s |", yes(t.Permission == "" || r.Permissions.Has(t.Permission)))
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
