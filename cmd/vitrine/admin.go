package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/store"
)

// open opens the database of --db, bringing its schema up to date, and the
// service over it.
func (e *env) open(log *slog.Logger) (*store.DB, *service.Service, error) {
	return e.openDB(log, true)
}

// openOrCreate is open for the commands that make a database (demo): a
// SQLite file that does not exist is created.
func (e *env) openOrCreate(log *slog.Logger) (*store.DB, *service.Service, error) {
	return e.openDB(log, false)
}

// openDB opens --db; mustExist refuses a SQLite file that is not there
// (a typo would otherwise read as an empty database).
func (e *env) openDB(log *slog.Logger, mustExist bool) (*store.DB, *service.Service, error) {
	if log == nil {
		log = discard
	}
	// A command's faceted list is one: it counts by the database, and
	// builds no facet index it would not read again.
	db, err := store.Open(e.ctx, e.flags.DB, store.Options{Logger: log, MustExist: mustExist, FacetIndexMemory: -1})
	if err != nil {
		return nil, nil, err
	}
	return db, service.New(db, log), nil
}

// print writes a record as one JSON object with --json, or as text.
func (e *env) print(asJSON bool, record any, text string, args ...any) error {
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(record)
	}
	_, err := fmt.Fprintf(e.stdout, text+"\n", args...)
	return err
}

// UserCreateCmd creates a user.
type UserCreateCmd struct {
	Email string `required:"" help:"The user's email; unique, without regard to case."`
	Name  string `required:"" help:"The user's name."`
	JSON  bool   `name:"json" help:"Print the new user as one JSON object."`
}

// Run creates the user.
func (c *UserCreateCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := svc.Operator().Command("vitrine user create").CreateUser(e.ctx, c.Email, c.Name)
	if err != nil {
		return err
	}
	return e.print(c.JSON, map[string]any{"id": u.ID, "email": u.Email, "name": u.Name, "created_at": u.CreatedAt},
		"Created user %s <%s> with id %s", u.Name, u.Email, u.ID)
}

// TenantCreateCmd creates a tenant with its first owner.
type TenantCreateCmd struct {
	Name     string `required:"" help:"The company's name."`
	Owner    string `required:"" placeholder:"EMAIL" help:"Email of the existing user who becomes its first owner."`
	Slug     string `help:"Short unique name (lowercase letters, digits, hyphens); derived from the name if omitted."`
	Currency string `placeholder:"CODE" help:"ISO 4217 code of its prices: of its new products, imports and price filters unless they say otherwise. Default: BRL."`
	JSON     bool   `name:"json" help:"Print the new company as one JSON object."`
}

// Run creates the tenant.
func (c *TenantCreateCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := svc.Operator().Command("vitrine tenant create").NewTenant(e.ctx, c.Name, c.Slug, c.Currency, c.Owner)
	if err != nil {
		return err
	}
	return e.print(c.JSON, map[string]any{"id": t.ID, "name": t.Name, "slug": t.Slug, "currency": t.Currency, "owner": c.Owner, "created_at": t.CreatedAt},
		"Created company %q (slug %s, currency %s) with id %s; owner %s", t.Name, t.Slug, t.Currency, t.ID, c.Owner)
}

// TenantUpdateCmd changes a company's name, slug, currency or locales.
type TenantUpdateCmd struct {
	Tenant   string   `arg:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Name     *string  `help:"Its new name."`
	Slug     *string  `help:"Its new slug."`
	Currency *string  `placeholder:"CODE" help:"ISO 4217 code of its new products, imports and price filters; the products it has keep theirs."`
	Locales  []string `placeholder:"TAG,..." help:"Its BCP 47 locales, the first its default (the catalog's own language), the others those it is translated into: pt-BR,es,en. A locale left out keeps its translations, unread until it is added again."`
	JSON     bool     `name:"json" help:"Print the company as one JSON object."`
}

// Run updates the tenant.
func (c *TenantUpdateCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := svc.Operator().Command("vitrine tenant update").UpdateTenant(e.ctx, c.Tenant, c.Name, c.Slug, c.Currency, c.Locales)
	if err != nil {
		return err
	}
	out := map[string]any{"id": t.ID, "name": t.Name, "slug": t.Slug, "currency": t.Currency, "updated_at": t.UpdatedAt}
	if t.Multilingual() {
		out["locales"] = t.Locales
		return e.print(c.JSON, out, "Company %q (slug %s, currency %s, locales %s) with id %s", t.Name, t.Slug, t.Currency, strings.Join(t.Locales, ","), t.ID)
	}
	return e.print(c.JSON, out, "Company %q (slug %s, currency %s) with id %s", t.Name, t.Slug, t.Currency, t.ID)
}

// MemberAddCmd adds a membership.
type MemberAddCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Email  string `required:"" help:"Email of the existing user to add."`
	Role   string `required:"" help:"owner, admin, member or viewer."`
	Status string `default:"active" enum:"active,inactive" help:"active or inactive."`
	JSON   bool   `name:"json" help:"Print the new membership as one JSON object."`
}

// Run adds the membership.
func (c *MemberAddCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := svc.Operator().Command("vitrine member add").AddMember(e.ctx, c.Tenant, c.Email, c.Role, c.Status)
	if err != nil {
		return withRoles(e, svc, c.Tenant, c.Role, err)
	}
	return e.print(c.JSON, memberRecord(m), "Added %s to %s as %s (%s)", c.Email, c.Tenant, m.Role, m.Status)
}

// TokenCreateCmd creates a personal access token.
type TokenCreateCmd struct {
	Email    string   `required:"" help:"Email of the token's user."`
	Name     string   `required:"" help:"A name to tell the token apart, such as \"laptop\"."`
	ReadOnly bool     `name:"read-only" help:"The token sees and calls only tools that change nothing."`
	Toolsets []string `default:"${default_toolset_list}" placeholder:"SET" help:"The toolsets the token grants: some of ${toolsets}, or all. Its holder lists and calls their tools only."`
	Expires  expiry   `placeholder:"WHEN" help:"When the token stops working: a lifetime (90d, 12h) or a date (2027-01-31, or RFC 3339). Never, if omitted."`
	JSON     bool     `name:"json" help:"Print the new token as one JSON object."`
}

// Run creates the token and prints its secret.
func (c *TokenCreateCmd) Run(e *env) error {
	in := accounts.NewToken{Email: c.Email, Name: c.Name, ReadOnly: c.ReadOnly, Toolsets: c.Toolsets, ExpiresAt: c.Expires.at}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	t, secret, err := svc.Operator().Command("vitrine token create").CreateToken(e.ctx, in)
	if err != nil {
		return err
	}
	expiry := "never expires"
	if t.ExpiresAt != nil {
		expiry = "expires " + t.ExpiresAt.Format(time.RFC3339)
	}
	return e.print(c.JSON, map[string]any{"id": t.ID, "user_id": t.UserID, "name": t.Name, "prefix": t.Prefix,
		"read_only": t.ReadOnly, "toolsets": t.Toolsets, "expires_at": t.ExpiresAt, "created_at": t.CreatedAt, "token": secret},
		"%s\n\nToken %q for %s, granting %s (%s). Store it now: it is not shown again.", secret, t.Name, c.Email,
		strings.Join(t.Toolsets, ", "), expiry)
}

// MigrateCmd brings the schema up to date.
type MigrateCmd struct{}

// Run applies the pending migrations and reports them.
func (MigrateCmd) Run(e *env) error {
	db, err := store.Open(e.ctx, e.flags.DB, store.Options{NoMigrate: true})
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.Migrate(e.ctx)
	if err != nil {
		return err
	}
	if rs := db.RowSecurity(); rs != "" {
		fmt.Fprintf(e.stdout, "Row-level security: %s.\n", rs)
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintf(e.stdout, "The %s schema is up to date.\n", db.Dialect())
		return err
	}
	for _, m := range applied {
		fmt.Fprintf(e.stdout, "applied %s\n", m.Name)
	}
	_, err = fmt.Fprintf(e.stdout, "Applied %d migration(s); the %s schema is up to date.\n", len(applied), db.Dialect())
	return err
}

// expiry is when a token stops working, as the operator writes it: a
// lifetime from now ("90d", "12h") or a moment ("2027-01-31", RFC 3339).
type expiry struct{ at *time.Time }

// Decode implements kong.MapperValue.
func (e *expiry) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("expires", &s); err != nil {
		return err
	}
	at, err := parseExpiry(s, time.Now())
	if err != nil {
		return err
	}
	e.at = &at
	return nil
}

func parseExpiry(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return now.AddDate(0, 0, n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--expires must be a positive lifetime such as 90d or 12h, or a date; got %q", s)
		}
		return now.Add(d), nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--expires must be a lifetime such as 90d or 12h, or a date such as 2027-01-31; got %q", s)
}

// MemberUpdateCmd changes a membership.
type MemberUpdateCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Email  string `required:"" help:"Email of the member."`
	Role   string `help:"The new role: owner, admin, member, viewer or a custom role."`
	Status string `enum:"active,inactive," default:"" help:"active or inactive (an inactive member reaches nothing, from the next call on)."`
	JSON   bool   `name:"json" help:"Print the membership as one JSON object."`
}

// Run changes the membership.
func (c *MemberUpdateCmd) Run(e *env) error {
	if c.Role == "" && c.Status == "" {
		return &usageError{"give --role, --status or both"}
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := svc.Operator().Command("vitrine member update").UpdateMember(e.ctx, c.Tenant, c.Email, service.MemberChanges{Role: c.Role, Status: c.Status})
	if err != nil {
		return withRoles(e, svc, c.Tenant, c.Role, err)
	}
	return e.print(c.JSON, memberRecord(m), "%s is now %s (%s) in %s", c.Email, m.Role, m.Status, c.Tenant)
}

// MemberRemoveCmd removes a membership.
type MemberRemoveCmd struct {
	Tenant string `required:"" placeholder:"ID|SLUG" help:"The company, by id or slug."`
	Email  string `required:"" help:"Email of the member."`
}

// Run removes the membership.
func (c *MemberRemoveCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := svc.Operator().Command("vitrine member remove").RemoveMember(e.ctx, c.Tenant, c.Email); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "Removed %s from %s\n", c.Email, c.Tenant)
	return err
}

func memberRecord(m *vitrine.Member) map[string]any {
	return map[string]any{"id": m.ID, "tenant_id": m.TenantID, "user_id": m.UserID, "email": m.Email, "role": m.Role,
		"status": m.Status, "granted_permissions": m.Grants.Strings(), "created_at": m.CreatedAt, "updated_at": m.UpdatedAt}
}

// UserUpdateCmd changes a user.
type UserUpdateCmd struct {
	Email   string  `required:"" help:"The user's email."`
	Name    *string `help:"A new name."`
	Subject *string `placeholder:"SUB" help:"Link the user to this OAuth subject (the \"sub\" claim), for --oauth-user-claim sub; \"\" unlinks."`
	Disable bool    `xor:"state" help:"Disable the user: their tokens are refused from the next request on, and every browser signed in as them is signed out."`
	Enable  bool    `xor:"state" help:"Enable a disabled user."`
	JSON    bool    `name:"json" help:"Print the user as one JSON object."`
}

// Run changes the user.
func (c *UserUpdateCmd) Run(e *env) error {
	ch := accounts.UserChanges{Name: c.Name, Subject: c.Subject}
	if c.Disable || c.Enable {
		ch.Disabled = &c.Disable
	}
	if ch == (accounts.UserChanges{}) {
		return &usageError{"give --name, --subject, --disable or --enable"}
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := svc.Operator().Command("vitrine user update").UpdateUser(e.ctx, c.Email, ch)
	if err != nil {
		return err
	}
	return e.print(c.JSON, map[string]any{"id": u.ID, "email": u.Email, "name": u.Name, "subject": u.Subject, "disabled": u.Disabled, "updated_at": u.UpdatedAt},
		"Updated %s <%s>: disabled %v, subject %q", u.Name, u.Email, u.Disabled, u.Subject)
}

// withRoles adds the company's roles to an error about a role it does not
// have, so that the operator can pick one.
func withRoles(e *env, svc *service.Service, tenant, role string, err error) error {
	if role == "" || vitrine.TypeOf(err) != vitrine.NotFoundError || !strings.HasPrefix(vitrine.AsError(err).Message, "Role") {
		return err
	}
	names, lerr := svc.Operator().RoleNames(e.ctx, tenant)
	if lerr != nil {
		return err
	}
	return fmt.Errorf("no role %q in %s; its roles: %s", role, tenant, strings.Join(names, ", "))
}
