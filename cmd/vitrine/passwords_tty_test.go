//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service/accounts"
	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal: what is written to the returned
// keyboard is what the program reads from tty.
func openTerminal(t *testing.T) (tty, keyboard *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty, ptmx
}

// On a terminal, set-password asks twice, on stderr, and sets the password
// only when both answers agree.
func TestSetPasswordOnATerminal(t *testing.T) {
	url := dbtest.SQLiteURL(t)
	d := "--db=" + url
	must(t, "migrate", d)
	mustJSON(t, "user", "create", d, "--email", "ana@acme.example", "--name", "Ana")
	acc := accounts.New(dbtest.Open(t, url), nil)
	type answer struct {
		typed, want string
		code        int
	}
	for _, c := range []answer{
		{"first password!\nother password\n", "the two passwords differ; nothing was changed", 1},
		{"short\n", "password is 5 characters long", 1},
		{"typed on a terminal\ntyped on a terminal\n", "", 0},
	} {
		tty, keyboard := openTerminal(t)
		if _, err := keyboard.WriteString(c.typed); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run(ctx, []string{"user", "set-password", d, "--email", "ana@acme.example"}, tty, &out, &errb)
		if code != c.code || !strings.HasPrefix(errb.String(), "New password for ana@acme.example (at least 12 characters): ") ||
			!strings.Contains(errb.String(), c.want) {
			t.Errorf("typing %q: exit %d, stdout %q, stderr %q", c.typed, code, out.String(), errb.String())
		}
		if strings.Count(c.typed, "\n") == 2 && !strings.Contains(errb.String(), "The same password again: ") {
			t.Errorf("typing %q: not asked again: %q", c.typed, errb.String())
		}
	}
	if _, err := acc.SignIn(ctx, "ana@acme.example", "typed on a terminal"); err != nil {
		t.Fatal(err)
	}
}
