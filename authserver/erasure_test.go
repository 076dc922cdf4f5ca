package authserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

// "Delete my account" on the account page: a form like the page's others
// (its CSRF token, the person's own email typed to confirm); refused
// while the person is a company's only owner; otherwise everything that
// lets them act ends, their name and email are in no row of any table,
// and their events stay under their id.
func TestDeleteMyAccount(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbURL string) {
		c := newClusterWith(t, dbURL, clusterConfig{instances: 1})
		owner := signedIn(t, c, "ana@technova.example", c.password("ana@technova.example"))
		form := owner.do("GET", c.url+"/account", nil).fields()
		form.Set("email", "ana@technova.example")
		if p := owner.do("POST", c.url+"/account/delete", form); p.status != http.StatusConflict || !strings.Contains(p.body, "only owner") ||
			!strings.Contains(p.body, "technova") {
			t.Errorf("the only owner deletes her account: %d %s", p.status, p.body)
		}
		if !onAccount(owner, c) {
			t.Error("the refused owner was signed out")
		}

		const email, name = "carla@technova.example", "Carla Mendes"
		carla := signedIn(t, c, email, c.password(email))
		form = carla.do("GET", c.url+"/account", nil).fields()
		bad := url.Values{"csrf": {"forged"}, "email": {email}}
		if p := carla.do("POST", c.url+"/account/delete", bad); p.status != http.StatusForbidden {
			t.Errorf("without the page's CSRF token: %d", p.status)
		}
		form.Set("email", "someone@else.example")
		if p := carla.do("POST", c.url+"/account/delete", form); p.status != http.StatusBadRequest {
			t.Errorf("another email typed: %d", p.status)
		}
		u, err := c.svc.Accounts().Operator().User(ctx, "email", email)
		if err != nil {
			t.Fatal(err)
		}
		form.Set("email", strings.ToUpper(email))
		if p := carla.do("POST", c.url+"/account/delete", form); p.status != http.StatusOK || !strings.Contains(p.body, "Your account was deleted") {
			t.Fatalf("delete my account: %d %s", p.status, p.body)
		} else if strings.Contains(p.body, email) {
			t.Error("the page that says the account was deleted shows the person still signed in")
		}
		if onAccount(carla, c) {
			t.Error("the deleted person's browser still opens the account page")
		}
		if _, err := c.svc.Accounts().Operator().User(ctx, "email", email); vitrine.TypeOf(err) != vitrine.NotFoundError {
			t.Errorf("the user is still found: %v", err)
		}
		for table, n := range mentions(t, dbURL, strings.ToLower(email), strings.ToLower(name)) {
			t.Errorf("%s still holds her email or name in %d rows", table, n)
		}
		for _, table := range []string{"memberships", "api_tokens", "oauth_grants", "web_sessions"} {
			if n := dbtest.Query(t, dbURL, `SELECT count(*) FROM `+table+` WHERE user_id = $1`, u.ID)[0][0]; n != "0" {
				t.Errorf("%s keeps %s rows of hers", table, n)
			}
		}
		if n := dbtest.Query(t, dbURL, `SELECT count(*) FROM audit_events WHERE user_id = $1 AND tool = 'delete_account'`, u.ID)[0][0]; n != "1" {
			t.Errorf("%s events of the deletion under her id", n)
		}
	})
}

// mentions counts, in every column of every table, the rows that hold
// any of the words (lowercase).
func mentions(t *testing.T, dbURL string, words ...string) map[string]int {
	t.Helper()
	q := `SELECT m.name, p.name FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%') m,
		pragma_table_info(m.name) p`
	if dbtest.IsPostgres(dbURL) {
		q = `SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t
			ON t.table_name = c.table_name AND t.table_schema = c.table_schema
			WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'`
	}
	out := map[string]int{}
	for _, col := range dbtest.Query(t, dbURL, q) {
		for _, w := range words {
			rows := dbtest.Query(t, dbURL, `SELECT count(*) FROM "`+col[0]+`" WHERE lower(CAST("`+col[1]+`" AS TEXT)) LIKE $1`, "%"+w+"%")
			if rows[0][0] != "0" {
				out[col[0]+"."+col[1]]++
			}
		}
	}
	return out
}
