package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/accounts"
)

// runWithStdin runs the command line in process with stdin as its
// standard input (not a terminal).
func runWithStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(ctx, args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestPasswordCommands(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		d := "--db=" + url
		must(t, "migrate", d)
		mustJSON(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
		acc := accounts.New(dbtest.Open(t, url), nil)

		// The first line of standard input, without its line end.
		for _, c := range []struct{ stdin, password string }{
			{"a long enough password\nignored second line\n", "a long enough password"},
			{"windows line end here\r\n", "windows line end here"},
			{"no line end at all", "no line end at all"},
		} {
			for _, flags := range [][]string{nil, {"--password-stdin"}} {
				args := append([]string{"user", "set-password", d, "--email", "ANA@acme.example"}, flags...)
				out, errs, code := runWithStdin(t, c.stdin, args...)
				if code != 0 || out != "Set the password of ANA@acme.example.\n" {
					t.Fatalf("set-password %q %v: exit %d, %q, %q", c.stdin, flags, code, out, errs)
				}
				if _, err := acc.SignIn(ctx, "ana@acme.example", c.password); err != nil {
					t.Fatalf("sign in with the password set from %q: %v", c.stdin, err)
				}
			}
		}
		for _, c := range []struct{ stdin, email, want string }{
			{"", "ana@acme.example", "no password on standard input"},
			{"\nsecond line\n", "ana@acme.example", "no password on standard input"},
			{"too short\n", "ana@acme.example", "password is 9 characters long; it needs at least 12"},
			{"ana@acme.example\n", "ana@acme.example", "password must not be the email address"},
			{"a long enough password\n", "nobody@acme.example", "User not found"},
		} {
			out, errs, code := runWithStdin(t, c.stdin, "user", "set-password", d, "--email", c.email)
			if code != 1 || out != "" || !strings.Contains(errs, c.want) {
				t.Errorf("set-password from %q: exit %d, %q, %q; want a failure mentioning %q", c.stdin, code, out, errs, c.want)
			}
		}
		// The last password set still signs in; the refused ones changed nothing.
		if _, err := acc.SignIn(ctx, "ana@acme.example", "no line end at all"); err != nil {
			t.Fatal(err)
		}

		// invite --json prints a link that the set-password page accepts.
		inv := mustJSON(t, "user", "invite", d, "--email", "Ana@acme.example")
		link, _ := inv["link"].(string)
		token, ok := strings.CutPrefix(link, "http://127.0.0.1:8080/password?token=")
		if !ok || inv["email"] != "Ana@acme.example" || len(inv) != 3 {
			t.Fatalf("invite --json: %v", inv)
		}
		expires, err := time.Parse(time.RFC3339, inv["expires_at"].(string))
		if err != nil || time.Until(expires) < 71*time.Hour || time.Until(expires) > 72*time.Hour {
			t.Errorf("expires_at %v: want 72h from now", inv["expires_at"])
		}
		if u, err := acc.PasswordLinkUser(ctx, token); err != nil || u.Email != "ana@acme.example" {
			t.Fatalf("PasswordLinkUser(the invite's token) = %+v, %v", u, err)
		}
		// A newer invitation replaces it; --public-url and VITRINE_PUBLIC_URL
		// set the link's base.
		t.Setenv("VITRINE_PUBLIC_URL", "https://vitrine.example/base/")
		inv = mustJSON(t, "user", "invite", d, "--email", "ana@acme.example", "--expires", "7d")
		newer, ok := strings.CutPrefix(inv["link"].(string), "https://vitrine.example/base/password?token=")
		if !ok {
			t.Fatalf("invite with VITRINE_PUBLIC_URL: %v", inv)
		}
		if _, err := acc.PasswordLinkUser(ctx, token); err == nil {
			t.Error("the older invitation still works")
		}
		if _, err := acc.RedeemPasswordLink(ctx, newer, "set through the link"); err != nil {
			t.Fatal(err)
		}
		if _, err := acc.SignIn(ctx, "ana@acme.example", "set through the link"); err != nil {
			t.Fatal(err)
		}
		out := must(t, "user", "invite", d, "--email", "ana@acme.example", "--public-url", "https://mcp.example.com")
		if !strings.HasPrefix(out, "https://mcp.example.com/password?token=") || !strings.Contains(out, "it works once") {
			t.Errorf("invite: %q", out)
		}
		fails(t, "User not found", "user", "invite", d, "--email", "nobody@acme.example")
		fails(t, "the link must expire within 30 days", "user", "invite", d, "--email", "ana@acme.example", "--expires", "31d")
		fails(t, "--public-url must be an http or https URL", "user", "invite", d, "--email", "ana@acme.example", "--public-url", "mcp.example.com")
	})
}

func TestDemoPasswords(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		var w struct {
			Users []struct{ Email, Token, Password string }
		}
		out := must(t, "demo", "--db="+url, "--json")
		if err := json.Unmarshal([]byte(out), &w); err != nil || len(w.Users) != 6 {
			t.Fatalf("demo --json: %s", out)
		}
		acc := accounts.New(dbtest.Open(t, url), nil)
		seen := map[string]bool{}
		for _, u := range w.Users {
			if len(u.Password) < 20 || seen[u.Password] {
				t.Errorf("%s's password %q: want a fresh one of 20 characters or more", u.Email, u.Password)
			}
			seen[u.Password] = true
			if got, err := acc.SignIn(ctx, u.Email, u.Password); err != nil || got.Email != u.Email {
				t.Errorf("sign in as %s with the demo password: %+v, %v", u.Email, got, err)
			}
		}
		// The text output prints each password beside its token; a new
		// run, new passwords.
		text := must(t, "demo", "--db="+url)
		if !strings.Contains(text, "  password: ") || strings.Contains(text, w.Users[0].Password) {
			t.Errorf("demo output:\n%s", text)
		}
		if _, err := acc.SignIn(ctx, w.Users[0].Email, w.Users[0].Password); err == nil {
			t.Error("the previous run's password still signs in")
		}
	})
}
