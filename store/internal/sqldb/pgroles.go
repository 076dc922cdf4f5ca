package sqldb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
)

// Who the application's connections act as on PostgreSQL, so that
// row-level security binds them (docs/storage.md):
//
//   - a login that is neither superuser nor BYPASSRLS (the usual account of
//     managed PostgreSQL, NOCREATEROLE) acts as itself: it owns the tables,
//     and their policies are forced, so they bind their owner too. Vitrine
//     creates no role and grants nothing outside the database;
//   - a superuser or BYPASSRLS login (development, say) switches to a
//     NOLOGIN role of this database alone, vitrine_app_<database>, which
//     cannot bypass the policies and is granted this database's tables
//     only.
//
// Releases before this one had one role, vitrine_app, for the whole
// cluster: whoever was granted it for one database read every other
// database migrated the same way. Migrating revokes what vitrine_app holds
// in this database.

// legacyAppRole is the cluster-wide role of earlier releases. The embedded
// migrations still name the application's role so; migrate puts the role
// of this database's mode in its place.
const legacyAppRole = "vitrine_app"

// pgMode is how the application's connections meet row-level security.
type pgMode struct {
	// login is the user of the URL; database, the database's name.
	login, database string
	// bypasses says that the login is a superuser or BYPASSRLS.
	bypasses bool
}

// appRole is the role the connections act as: the login itself, or the
// database's own role.
func (m pgMode) appRole() string {
	if !m.bypasses {
		return m.login
	}
	return AppRoleName(m.database)
}

// String says which mode is set up, for the operator.
func (m pgMode) String() string {
	if !m.bypasses {
		return fmt.Sprintf("connections act as %s, the owner of the tables, under forced row-level security", m.login)
	}
	return fmt.Sprintf("%s bypasses row-level security, so connections switch to role %s, which belongs to database %s alone and cannot bypass it",
		m.login, AppRoleName(m.database), m.database)
}

// AppRoleName is the role a superuser or BYPASSRLS login switches to in
// the database of that name: one role per database, at most 63 bytes.
func AppRoleName(database string) string {
	name := legacyAppRole + "_" + database
	if len(name) <= 63 {
		return name
	}
	h := sha256.Sum256([]byte(database))
	return legacyAppRole + "_" + database[:38] + "_" + hex.EncodeToString(h[:6])
}

const modeQuery = `SELECT current_user, current_database(), r.rolsuper OR r.rolbypassrls FROM pg_roles r WHERE r.rolname = current_user`

func readMode(row interface{ Scan(...any) error }) (pgMode, error) {
	var m pgMode
	if err := row.Scan(&m.login, &m.database, &m.bypasses); err != nil {
		return m, fmt.Errorf("read the login's attributes: %w", err)
	}
	return m, nil
}

// ident quotes a role name for SQL.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// prepareRole makes sure, before the migrations run, that the role the
// connections will act as exists and that the login may switch to it.
func prepareRole(ctx context.Context, db *sql.DB, m pgMode) error {
	if strings.ContainsAny(m.login, `'"`) {
		return fmt.Errorf("the login %q has a quote in its name; use another login", m.login)
	}
	if !m.bypasses {
		return nil
	}
	role := ident(m.appRole())
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, m.appRole()).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		_, err := db.ExecContext(ctx, `CREATE ROLE `+role+` NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE`)
		if err != nil && db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, m.appRole()).Scan(&exists) == nil && exists {
			err = nil // another instance, starting at the same time, made it
		}
		if err != nil {
			return fmt.Errorf("%s bypasses row-level security, so Vitrine serves through role %s, which it cannot create: %w "+
				"(connect as the database's owner without BYPASSRLS instead, or have an administrator create that role NOLOGIN)",
				m.login, m.appRole(), err)
		}
	}
	var member bool
	if err := db.QueryRowContext(ctx, `SELECT pg_has_role(current_user, $1, 'MEMBER')`, m.appRole()).Scan(&member); err != nil {
		return err
	}
	if !member {
		if _, err := db.ExecContext(ctx, `GRANT `+role+` TO `+ident(m.login)); err != nil {
			return fmt.Errorf("let %s switch to role %s: %w", m.login, m.appRole(), err)
		}
	}
	return nil
}

var (
	createLegacyRole = regexp.MustCompile(`(?m)^\s*CREATE ROLE vitrine_app NOLOGIN;`)
	legacyRoleName   = regexp.MustCompile(`\bvitrine_app\b`)
)

// migrationsFor returns the embedded migrations with the application's role
// named as mode m has it. The role itself is made by prepareRole, if any.
func migrationsFor(fsys fs.FS, m pgMode) (fs.FS, error) {
	out := fstest.MapFS{}
	role := ident(m.appRole())
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		text := createLegacyRole.ReplaceAllString(string(data), "    NULL; -- the role is prepared by vitrine migrate (store/internal/sqldb/pgroles.go)")
		text = legacyRoleName.ReplaceAllString(text, role)
		out[path] = &fstest.MapFile{Data: []byte(text), Mode: 0o444}
		return nil
	})
	return out, err
}

// appGrants is what the database's own role may do, granted again at every
// migration so that a database first migrated by an earlier release (whose
// grants went to vitrine_app) gets them. New tables go here and in their
// migration. The stock movements are insert-only, but for a company's
// purge; the audit log too, but for the removal of old events by its
// retention and a company's purge.
const appGrants = `
GRANT USAGE ON SCHEMA public TO %[1]s;
GRANT SELECT, INSERT, UPDATE, DELETE ON users, tenants, memberships, roles, api_tokens, products, idempotency_keys TO %[1]s;
GRANT SELECT, INSERT ON audit_events, stock_movements, server_keys TO %[1]s;
GRANT DELETE ON audit_events TO %[1]s;
GRANT SELECT, INSERT, UPDATE, DELETE ON sign_in_failures, password_links TO %[1]s;
GRANT SELECT, INSERT, UPDATE, DELETE ON oauth_clients, oauth_grants, oauth_sessions, web_sessions TO %[1]s;
GRANT SELECT, INSERT, DELETE ON mcp_sessions_ended TO %[1]s;
GRANT SELECT, UPDATE ON access_epoch TO %[1]s;
GRANT SELECT, INSERT, DELETE ON product_words TO %[1]s;
GRANT SELECT, INSERT, UPDATE, DELETE ON shops TO %[1]s;
GRANT SELECT, INSERT, DELETE ON catalog_changes TO %[1]s;
GRANT SELECT, INSERT, UPDATE, DELETE ON markets, market_prices TO %[1]s;
GRANT SELECT, INSERT, UPDATE ON deleted_tenants, leases TO %[1]s;
GRANT DELETE ON stock_movements TO %[1]s;
GRANT EXECUTE ON FUNCTION app_tenant(), app_user(), app_all_tenants() TO %[1]s;
GRANT SELECT ON goose_db_version TO %[1]s;`

// revokeLegacy takes from the cluster-wide role of earlier releases what it
// holds in this database, so that nobody reaches it through that role.
const revokeLegacy = `DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'vitrine_app') THEN
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM vitrine_app;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM vitrine_app;
        REVOKE ALL ON SCHEMA public FROM vitrine_app;
    END IF;
END
$$`

// finishRoles runs after the migrations: the database's own role gets its
// grants, and the legacy role loses what it held here.
func finishRoles(ctx context.Context, db *sql.DB, m pgMode) error {
	if m.bypasses {
		if _, err := db.ExecContext(ctx, fmt.Sprintf(appGrants, ident(m.appRole()))); err != nil {
			return fmt.Errorf("grant role %s: %w", m.appRole(), err)
		}
	}
	if m.appRole() != legacyAppRole {
		if _, err := db.ExecContext(ctx, revokeLegacy); err != nil {
			return fmt.Errorf("revoke what role %s holds in this database: %w", legacyAppRole, err)
		}
	}
	return nil
}

// RowSecurity says how the application's connections meet PostgreSQL's
// row-level security, as the last Migrate set it up; "" before any
// Migrate.
func (d *pgDB) RowSecurity() string {
	if d.mode.login != "" {
		return d.mode.String()
	}
	return ""
}
