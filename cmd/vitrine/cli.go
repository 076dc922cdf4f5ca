package main

import (
	"runtime/debug"

	"github.com/alecthomas/kong"
)

// CLI is the command line. Every flag has a VITRINE_* environment twin
// (kong.DefaultEnvars): --shutdown-timeout is VITRINE_SHUTDOWN_TIMEOUT.
type CLI struct {
	Globals

	Serve     ServeCmd     `cmd:"" help:"Serve MCP over Streamable HTTP (default http://127.0.0.1:8080/mcp)."`
	Stdio     StdioCmd     `cmd:"" help:"Serve MCP over stdio, as the user of the token in VITRINE_TOKEN."`
	Migrate   MigrateCmd   `cmd:"" help:"Bring the database schema up to date (serve also does, at start)."`
	Demo      DemoCmd      `cmd:"" help:"Fill the database with demo companies, users and products, and print their tokens and passwords."`
	User      UserCmd      `cmd:"" help:"Manage users."`
	Audit     AuditCmd     `cmd:"" help:"Read the audit log."`
	Tenant    TenantCmd    `cmd:"" help:"Manage companies (tenants)."`
	Member    MemberCmd    `cmd:"" help:"Manage memberships."`
	Product   ProductCmd   `cmd:"" help:"Import and export a company's products."`
	Category  CategoryCmd  `cmd:"" help:"Manage a company's categories."`
	Attribute AttributeCmd `cmd:"" help:"Manage a company's attribute definitions."`
	Shop      ShopCmd      `cmd:"" help:"Show, open and close a company's shop window."`
	Market    MarketCmd    `cmd:"" help:"Save, list and delete a company's markets: countries with their own currency, prices and assortment."`
	Token     TokenCmd     `cmd:"" help:"Manage personal access tokens."`
	Version   VersionCmd   `cmd:"" help:"Print the version, the commit and the Go version."`

	Translation TranslationCmd `cmd:"" help:"Import and export a company's translations (Shopify's translation CSV, JSON Lines)."`
}

// Globals are the flags every command takes.
type Globals struct {
	DB string `name:"db" default:"vitrine.db" placeholder:"URL" help:"Database: a SQLite file path (or sqlite:PATH), or a postgres:// URL."`
}

// stdioCLI is the command line of vitrine stdio alone, which run parses
// when the command is stdio. Agents start vitrine stdio at every
// conversation, and building the model of the whole command line (kong
// interpolates every flag's help) was a fifth of its start.
// TestStdioCommandLine checks that both parse and help alike.
type stdioCLI struct {
	Globals

	Stdio StdioCmd `cmd:"" help:"Serve MCP over stdio, as the user of the token in VITRINE_TOKEN."`
}

// UserCmd groups the user commands.
type UserCmd struct {
	Create UserCreateCmd `cmd:"" help:"Create a user."`
	Update UserUpdateCmd `cmd:"" help:"Rename, disable or enable a user, or link their OAuth subject."`
	List   UserListCmd   `cmd:"" help:"List every user."`
	Delete UserDeleteCmd `cmd:"" help:"Erase a person: memberships, tokens, apps and sessions end, name and email go; their audit events stay under their id."`

	SetPassword UserSetPasswordCmd `cmd:"" name:"set-password" help:"Set a user's password, read from standard input (or asked for on a terminal)."`
	Invite      UserInviteCmd      `cmd:"" help:"Print a one-time, expiring link where a user sets their password."`
}

// AuditCmd groups the audit commands.
type AuditCmd struct {
	List  AuditListCmd  `cmd:"" help:"List a company's audit events, newest first."`
	Prune AuditPruneCmd `cmd:"" help:"Remove the audit events older than a date, of every company (serve's --audit-retention does it in the background)."`
}

// TenantCmd groups the tenant commands.
type TenantCmd struct {
	Create TenantCreateCmd `cmd:"" help:"Create a company with its first owner."`
	Update TenantUpdateCmd `cmd:"" help:"Change a company's name, slug or currency."`
	List   TenantListCmd   `cmd:"" help:"List every company."`
	Export TenantExportCmd `cmd:"" help:"Write a company's whole archive: settings, window, catalog, roles, members, audit."`
	Import TenantImportCmd `cmd:"" help:"Bring a company's archive into this database, its ids kept."`

	Delete  TenantDeleteCmd  `cmd:"" help:"Schedule a company's deletion (vitrine serve purges it after the grace period), or purge it --now."`
	Restore TenantRestoreCmd `cmd:"" help:"Cancel a company's scheduled deletion: it comes back whole."`
	Deleted TenantDeletedCmd `cmd:"" help:"List the companies deleted: when, by whom, the rows removed."`
}

// MemberCmd groups the membership commands.
type MemberCmd struct {
	Add    MemberAddCmd    `cmd:"" help:"Add a user to a company with a role."`
	Update MemberUpdateCmd `cmd:"" help:"Change a member's role or status."`
	Remove MemberRemoveCmd `cmd:"" help:"Take a user out of a company."`
}

// TokenCmd groups the token commands.
type TokenCmd struct {
	Create TokenCreateCmd `cmd:"" help:"Create a personal access token; it is printed once."`
	List   TokenListCmd   `cmd:"" help:"List a user's tokens."`
	Revoke TokenRevokeCmd `cmd:"" help:"Revoke a token: it is refused from the next request on."`
}

// VersionCmd prints build information.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(e *env, k *kong.Context) error {
	_, err := e.stdout.Write([]byte(k.Model.Vars()["version"] + "\n"))
	return err
}

// Version is set at build time with -ldflags "-X main.Version=v1.2.3".
var Version = "dev"

func version() string {
	v := "vitrine " + Version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	commit, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		v += " commit " + commit
		if dirty {
			v += "-dirty"
		}
	}
	return v + " " + info.GoVersion
}
