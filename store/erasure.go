package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/store/internal/sqldb"
)

// EraseUser removes a person (vitrine.UserStore): their memberships of any
// status, personal and OAuth tokens, OAuth grants (with their codes and
// refresh tokens), browser sessions, password links and sign-in
// failures, and last their user's row, the only one that holds their name
// and email. What they did stays under their id: audit events, the
// products they wrote, stock movements. A person who is the only active
// owner of a company is refused with a ConflictError naming it, checked
// in the same transaction.
func (db *DB) EraseUser(ctx context.Context, userID string) error {
	if !validIDs(userID) {
		return vitrine.NotFound("User")
	}
	err := db.d.Write(ctx, operator, func(c sqldb.Conn) error {
		var n int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = $1`, userID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return vitrine.NotFound("User")
		}
		only, err := sqldb.Collect(ctx, c, func(r sqldb.Row) (s string, err error) { return s, r.Scan(&s) },
			`SELECT t.slug FROM memberships m JOIN tenants t ON t.id = m.tenant_id
			WHERE m.user_id = $1 AND m.role = 'owner' AND m.status = 'active'
				AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.tenant_id = m.tenant_id AND o.user_id <> $1
					AND o.role = 'owner' AND o.status = 'active')
			ORDER BY t.slug`, userID)
		if err != nil {
			return err
		}
		if len(only) > 0 {
			return &vitrine.SoleOwnerError{Slugs: only, Err: vitrine.Conflict("email", "This person is the only owner of %s: make another member owner there (update_member), "+
				"or delete the company (delete_tenant), first", strings.Join(only, ", "))}
		}
		for _, q := range []string{
			`DELETE FROM memberships WHERE user_id = $1`,
			`DELETE FROM api_tokens WHERE user_id = $1`,
			`DELETE FROM oauth_grants WHERE user_id = $1`,
			`DELETE FROM web_sessions WHERE user_id = $1`,
			`DELETE FROM password_links WHERE user_id = $1`,
			`DELETE FROM sign_in_failures WHERE email_key = (SELECT email_key FROM users WHERE id = $1)`,
			`DELETE FROM users WHERE id = $1`,
		} {
			if _, err := c.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		if vitrine.AsError(err) != nil {
			return err
		}
		return fmt.Errorf("erase user: %w", err)
	}
	return nil
}
