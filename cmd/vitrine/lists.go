package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

// The list commands print a table, or with --json one JSON object per line
// (JSON Lines), which streams and pipes well.

// lister prints the records of a list command.
type lister struct {
	e    *env
	json bool
	tw   *tabwriter.Writer
	enc  *json.Encoder
}

func (e *env) lister(asJSON bool, header string) *lister {
	l := &lister{e: e, json: asJSON}
	if asJSON {
		l.enc = json.NewEncoder(e.stdout)
		l.enc.SetEscapeHTML(false)
		return l
	}
	l.tw = tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(l.tw, header)
	return l
}

func (l *lister) row(record any, cells ...any) error {
	if l.json {
		return l.enc.Encode(record)
	}
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(l.tw, "\t")
		}
		fmt.Fprint(l.tw, c)
	}
	_, err := fmt.Fprintln(l.tw)
	return err
}

func (l *lister) done() error {
	if l.tw != nil {
		return l.tw.Flush()
	}
	return nil
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

// TenantListCmd lists the companies, and when each scheduled for
// deletion goes.
type TenantListCmd struct {
	JSON bool `name:"json" help:"Print one JSON object per company."`
}

// Run lists every tenant.
func (c *TenantListCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	l := e.lister(c.JSON, "ID\tSLUG\tNAME\tCREATED\tDELETES")
	for after := ""; ; {
		ts, err := svc.Operator().ListTenants(e.ctx, after, 100)
		if err != nil {
			return err
		}
		for _, t := range ts {
			// A company scheduled for deletion says when it goes.
			row := map[string]any{"id": t.ID, "slug": t.Slug, "name": t.Name, "created_at": t.CreatedAt, "updated_at": t.UpdatedAt}
			var deletes *time.Time
			if !t.DeletesAt.IsZero() {
				deletes = &t.DeletesAt
				row["deletes_at"] = t.DeletesAt
			}
			if err := l.row(row, t.ID, t.Slug, t.Name, t.CreatedAt.Format(time.RFC3339), when(deletes)); err != nil {
				return err
			}
			after = t.Slug
		}
		if len(ts) < 100 {
			return l.done()
		}
	}
}

// UserListCmd lists the users.
type UserListCmd struct {
	JSON bool `name:"json" help:"Print one JSON object per user."`
}

// Run lists every user.
func (c *UserListCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	l := e.lister(c.JSON, "ID\tEMAIL\tNAME\tDISABLED")
	for after := ""; ; {
		us, err := svc.Operator().ListUsers(e.ctx, after, 100)
		if err != nil {
			return err
		}
		for _, u := range us {
			if err := l.row(map[string]any{"id": u.ID, "email": u.Email, "name": u.Name, "disabled": u.Disabled, "created_at": u.CreatedAt},
				u.ID, u.Email, u.Name, u.Disabled); err != nil {
				return err
			}
			after = u.Email
		}
		if len(us) < 100 {
			return l.done()
		}
	}
}

// TokenListCmd lists a user's tokens.
type TokenListCmd struct {
	Email string `required:"" help:"Email of the tokens' user."`
	JSON  bool   `name:"json" help:"Print one JSON object per token."`
}

// Run lists the tokens, newest first; never their secrets, which are not kept.
func (c *TokenListCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	ts, err := svc.Operator().ListTokens(e.ctx, c.Email)
	if err != nil {
		return err
	}
	l := e.lister(c.JSON, "ID\tNAME\tPREFIX\tREAD-ONLY\tTOOLSETS\tEXPIRES\tLAST USED\tREVOKED")
	for _, t := range ts {
		if err := l.row(tokenRecord(t), t.ID, t.Name, t.Prefix, t.ReadOnly, strings.Join(t.Toolsets, ","), when(t.ExpiresAt), when(t.LastUsedAt),
			when(t.RevokedAt)); err != nil {
			return err
		}
	}
	return l.done()
}

func tokenRecord(t *vitrine.Token) map[string]any {
	return map[string]any{"id": t.ID, "user_id": t.UserID, "name": t.Name, "prefix": t.Prefix, "read_only": t.ReadOnly,
		"toolsets": t.Toolsets, "expires_at": t.ExpiresAt, "last_used_at": t.LastUsedAt, "revoked_at": t.RevokedAt, "created_at": t.CreatedAt}
}

// TokenRevokeCmd revokes a token.
type TokenRevokeCmd struct {
	ID   string `required:"" help:"The token's id, from vitrine token list."`
	JSON bool   `name:"json" help:"Print the revoked token as one JSON object."`
}

// Run revokes the token.
func (c *TokenRevokeCmd) Run(e *env) error {
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	t, err := svc.Operator().Command("vitrine token revoke").RevokeToken(e.ctx, c.ID)
	if err != nil {
		return err
	}
	return e.print(c.JSON, tokenRecord(t), "Revoked token %q (%s); it is refused from the next request on.", t.Name, t.Prefix)
}

// AuditListCmd lists audit events.
type AuditListCmd struct {
	Tenant  string `xor:"where" placeholder:"ID|SLUG" help:"The company whose log to read (or --outside)."`
	Outside bool   `xor:"where" help:"Read instead the events outside any company (whoami, list_tenants, calls refused for want of a membership)."`
	User    string `placeholder:"EMAIL" help:"Only calls made by this user."`
	Tool    string `help:"Only calls of this tool."`
	Outcome string `help:"Only calls that ended so: ok, PermissionError, NotFoundError, ConflictError, ValidationError or Error."`
	Since   string `placeholder:"RFC3339" help:"Only calls at or after this time."`
	Until   string `placeholder:"RFC3339" help:"Only calls before this time."`
	Limit   int    `default:"50" help:"At most this many events."`
	JSON    bool   `name:"json" help:"Print one JSON object per event."`
}

// Run lists the events, newest first.
func (c *AuditListCmd) Run(e *env) error {
	if c.Tenant == "" && !c.Outside {
		return &usageError{"give --tenant ID|SLUG, or --outside for the events outside any company"}
	}
	if c.Limit < 1 {
		return &usageError{"--limit must be at least 1"}
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	op := svc.Operator()
	var t *vitrine.Tenant
	if !c.Outside {
		if t, err = op.Tenant(e.ctx, c.Tenant); err != nil {
			return err
		}
	}
	q := service.AuditQuery{Tool: c.Tool, Outcome: c.Outcome, Since: c.Since, Until: c.Until}
	if c.User != "" {
		u, err := op.User(e.ctx, "user", c.User)
		if err != nil {
			return err
		}
		q.UserID = u.ID
	}
	l := e.lister(c.JSON, "TIME\tACTOR\tUSER\tEMAIL\tTOOL\tTARGET\tOUTCOME\tREQUEST")
	for left := c.Limit; left > 0; {
		q.Limit = min(left, vitrine.MaxPageLimit)
		page, err := op.ListAudit(e.ctx, t, q)
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			rec := map[string]any{"id": ev.ID, "time": ev.Time, "tenant_id": ev.TenantID, "actor": ev.Actor, "user_id": ev.UserID,
				"user_email": ev.UserEmail, "token_id": ev.TokenID, "tool": ev.Tool, "target_id": ev.TargetID, "outcome": ev.Outcome,
				"request_id": ev.RequestID}
			if err := l.row(rec, ev.Time.Format(time.RFC3339), string(ev.Actor), cmp.Or(ev.UserID, "-"), cmp.Or(ev.UserEmail, "-"),
				ev.Tool, ev.TargetID, ev.Outcome, ev.RequestID); err != nil {
				return err
			}
		}
		left -= len(page.Events)
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	return l.done()
}
