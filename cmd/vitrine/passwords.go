package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/vitrine/vitrine/signin"
	"golang.org/x/term"
)

// UserSetPasswordCmd sets a user's password, for signing in on the
// server's pages.
type UserSetPasswordCmd struct {
	Email         string `required:"" help:"The user's email."`
	PasswordStdin bool   `name:"password-stdin" help:"Read the password from standard input, its first line (implied when standard input is not a terminal; on a terminal, the password is asked for twice, without echo)."`
}

// Run reads the password and sets it.
func (c *UserSetPasswordCmd) Run(e *env) error {
	var (
		password string
		err      error
	)
	if f, ok := e.stdin.(*os.File); ok && !c.PasswordStdin && term.IsTerminal(int(f.Fd())) {
		password, err = promptPassword(e, int(f.Fd()), c.Email)
	} else {
		password, err = firstLine(e.stdin)
	}
	if err != nil {
		return err
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := svc.Operator().Command("vitrine user set-password").SetPassword(e.ctx, c.Email, password); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "Set the password of %s.\n", strings.TrimSpace(c.Email))
	return err
}

// firstLine reads a password from a pipe or a file: its first line,
// without the line's end.
func firstLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from standard input: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", &usageError{"no password on standard input: write it there, on the first line (echo \"$PASSWORD\" | vitrine user set-password --email E)"}
	}
	return line, nil
}

// promptPassword asks for the password on the terminal, twice, without
// echoing it.
func promptPassword(e *env, fd int, email string) (string, error) {
	read := func(prompt string) (string, error) {
		fmt.Fprint(e.stderr, prompt)
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", fmt.Errorf("read the password from the terminal: %w", err)
		}
		return string(b), nil
	}
	password, err := read(fmt.Sprintf("New password for %s (at least %d characters): ", strings.TrimSpace(email), signin.MinPasswordLen))
	if err != nil {
		return "", err
	}
	if err := signin.ValidatePassword("password", password, email); err != nil {
		return "", err
	}
	again, err := read("The same password again: ")
	if err != nil {
		return "", err
	}
	if again != password {
		return "", &usageError{"the two passwords differ; nothing was changed"}
	}
	return password, nil
}

// UserInviteCmd prints a one-time link where a user sets their password.
type UserInviteCmd struct {
	Email     string   `required:"" help:"The user's email."`
	PublicURL string   `name:"public-url" default:"http://127.0.0.1:8080" placeholder:"URL" help:"The base URL people reach the server at (as vitrine serve --public-url); the link is URL/password?token=SECRET."`
	Expires   lifetime `default:"72h" placeholder:"DURATION" help:"How long the link works: 72h, 7d... up to 30d. It works once; a newer link for the same user replaces it."`
	JSON      bool     `name:"json" help:"Print the link as one JSON object."`
}

// Run creates the link and prints it.
func (c *UserInviteCmd) Run(e *env) error {
	base, err := url.Parse(strings.TrimRight(c.PublicURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" || base.Fragment != "" {
		return &usageError{fmt.Sprintf("--public-url must be an http or https URL without a query, such as https://mcp.example.com; got %q", c.PublicURL)}
	}
	db, svc, err := e.open(nil)
	if err != nil {
		return err
	}
	defer db.Close()
	secret, expires, err := svc.Operator().Command("vitrine user invite").CreatePasswordLink(e.ctx, c.Email, time.Duration(c.Expires))
	if err != nil {
		return err
	}
	link := base.String() + "/password?token=" + secret
	email := strings.TrimSpace(c.Email)
	return e.print(c.JSON, map[string]any{"email": email, "link": link, "expires_at": expires},
		"%s\n\nA link for %s to set their password: it works once, until %s. Send it to them privately; it is not shown again.",
		link, email, expires.Format(time.RFC3339))
}

// lifetime is a duration as the operator writes it: Go's (72h, 90m) or
// in days (7d).
type lifetime time.Duration

// Decode implements kong.MapperValue.
func (l *lifetime) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("duration", &s); err != nil {
		return err
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			*l = lifetime(time.Duration(n) * 24 * time.Hour)
			return nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("expected a positive duration such as 72h or 7d; got %q", s)
	}
	*l = lifetime(d)
	return nil
}
