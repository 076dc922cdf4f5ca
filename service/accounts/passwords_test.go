package accounts

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

var ctx = context.Background()

// clock is a time the test moves by hand, shared by instances.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// instance is one server's accounts on the test database, on the shared
// clock, counting its argon2id verifications.
type instance struct {
	*Accounts
	verifications atomic.Int64
}

func newInstance(t *testing.T, url string, c *clock) *instance {
	in := &instance{Accounts: New(dbtest.Open(t, url), nil)}
	in.now = c.Now
	verify := in.pw.verify
	in.pw.verify = func(password, hash string) (bool, error) {
		in.verifications.Add(1)
		return verify(password, hash)
	}
	return in
}

const anaPassword = "correct horse battery staple"

// signInWorld is a database with ana (a password), bia (none) and caio (a
// password, disabled), and one instance of the accounts on it.
func signInWorld(t *testing.T, url string) (*instance, *clock) {
	t.Helper()
	c := &clock{now: vitrine.Now()}
	s := newInstance(t, url, c)
	op := s.Operator()
	for _, email := range []string{"ana@example.com", "bia@example.com", "caio@example.com"} {
		if _, err := op.CreateUser(ctx, email, "User"); err != nil {
			t.Fatal(err)
		}
	}
	for _, email := range []string{"ana@example.com", "caio@example.com"} {
		if err := op.SetPassword(ctx, email, anaPassword); err != nil {
			t.Fatal(err)
		}
	}
	disabled := true
	if _, err := op.UpdateUser(ctx, "caio@example.com", UserChanges{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func signInError(t *testing.T, err error) *SignInError {
	t.Helper()
	var se *SignInError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SignInError", err)
	}
	return se
}

func TestSignIn(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		s, _ := signInWorld(t, url)
		u, err := s.SignIn(ctx, "  ANA@example.com", anaPassword)
		if err != nil || u.Email != "ana@example.com" {
			t.Fatalf("SignIn with the right password = %+v, %v", u, err)
		}
		// Every refusal is the same error, after one argon2id verification.
		for _, c := range []struct{ what, email, password string }{
			{"wrong password", "ana@example.com", anaPassword + "!"},
			{"unknown email", "nobody@example.com", anaPassword},
			{"user without a password", "bia@example.com", anaPassword},
			{"disabled user", "caio@example.com", anaPassword},
			{"not an email", "not an email", anaPassword},
			{"empty password", "ana@example.com", ""},
			{"overlong password", "ana@example.com", strings.Repeat("x", 5000)},
		} {
			before := s.verifications.Load()
			u, err := s.SignIn(ctx, c.email, c.password)
			if se := signInError(t, err); u != nil || *se != (SignInError{}) || err.Error() != "wrong email or password" {
				t.Errorf("%s: SignIn = %+v, %v", c.what, u, err)
			}
			if n := s.verifications.Load() - before; n != 1 {
				t.Errorf("%s: %d argon2id verifications, want 1", c.what, n)
			}
		}
	})
}

func TestSignInLockout(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		s, c := signInWorld(t, url)
		// Two instances on the same database count the same failures.
		instances := []*instance{s, newInstance(t, url, c)}
		fail := func(i int, email string) {
			t.Helper()
			if se := signInError(t, second(instances[i%2].SignIn(ctx, email, "wrong password!"))); se.RetryAfter != 0 {
				t.Fatalf("failure %d of %s refused as locked: %v", i+1, email, se)
			}
		}
		for _, email := range []string{"ana@example.com", "ghost@example.com"} {
			for i := range lockFree {
				fail(i, email)
			}
			// Locked for 1s, then 2s, then 4s: refused, even with the right
			// password, without verifying it.
			for _, lock := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
				for i, in := range instances {
					before := in.verifications.Load()
					se := signInError(t, second(in.SignIn(ctx, strings.ToUpper(email), anaPassword)))
					if se.RetryAfter != lock || in.verifications.Load() != before {
						t.Fatalf("%s, instance %d, locked for %v: %+v after %d verifications", email, i, lock, se, in.verifications.Load()-before)
					}
					if want := "too many attempts, try again in " + lock.String(); se.Error() != want {
						t.Errorf("message %q, want %q", se.Error(), want)
					}
				}
				c.advance(lock - time.Millisecond)
				if se := signInError(t, second(s.SignIn(ctx, email, anaPassword))); se.RetryAfter != time.Millisecond || se.Error() != "too many attempts, try again in 1s" {
					t.Fatalf("a millisecond before the lock ends: %v", se)
				}
				c.advance(time.Millisecond)
				fail(1, email)
			}
		}
		// Ana's right password, once her lock is over, resets her count:
		// five more failures before the next lock.
		c.advance(8 * time.Second)
		if _, err := instances[1].SignIn(ctx, "ana@example.com", anaPassword); err != nil {
			t.Fatal(err)
		}
		for i := range lockFree {
			fail(i, "ana@example.com")
		}
		if se := signInError(t, second(s.SignIn(ctx, "ana@example.com", anaPassword))); se.RetryAfter != time.Second {
			t.Fatalf("after the count was reset and five failures: %+v", se)
		}
		// Setting her password forgets her failures too.
		if err := s.Operator().SetPassword(ctx, "ana@example.com", "another good password"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SignIn(ctx, "ana@example.com", "another good password"); err != nil {
			t.Fatal(err)
		}
	})
}

func second[T any](_ T, err error) error { return err }

func TestLockGrowth(t *testing.T) {
	for failures, want := range map[int]time.Duration{1: 0, 4: 0, 5: time.Second, 6: 2 * time.Second, 7: 4 * time.Second,
		14: 512 * time.Second, 15: maxLock, 100: maxLock, 1 << 40: maxLock} {
		if got := lockFor(failures); got != want {
			t.Errorf("lockFor(%d) = %v, want %v", failures, got, want)
		}
	}
}

func TestSetPassword(t *testing.T) {
	s, _ := signInWorld(t, dbtest.SQLiteURL(t))
	op := s.Operator()
	for _, c := range []struct{ what, password, want string }{
		{"11 characters", "short-pass!", "password is 11 characters long; it needs at least 12"},
		{"the email", "ANA@example.com", "password must not be the email address"},
		{"257 characters", strings.Repeat("ç", 257), "password is 257 characters long; the limit is 256"},
		{"invalid UTF-8", "\xff" + strings.Repeat("a", 20), "password must be valid UTF-8"},
	} {
		err := op.SetPassword(ctx, "ana@example.com", c.password)
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "password" || e.Message != c.want {
			t.Errorf("%s: %v", c.what, err)
		}
	}
	// Characters, not bytes, are counted; 12 and 256 are fine.
	for _, pw := range []string{strings.Repeat("ç", 12), strings.Repeat("ç", 256)} {
		if err := op.SetPassword(ctx, "bia@example.com", pw); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SignIn(ctx, "bia@example.com", pw); err != nil {
			t.Fatal(err)
		}
	}
	err := op.SetPassword(ctx, "nobody@example.com", anaPassword)
	if e := vitrine.AsError(err); e == nil || e.Type != vitrine.NotFoundError || !strings.HasPrefix(e.Message, "User not found") {
		t.Errorf("unknown email: %v", err)
	}
	// Stored as argon2id with the library's default parameters, never as
	// the password.
	_, hash, err := s.store.UserPassword(ctx, "ana@example.com")
	if err != nil || !strings.HasPrefix(hash, "$argon2id$v=19$m=65536,t=1,p=") || strings.Contains(hash, anaPassword) {
		t.Errorf("stored hash %q, %v", hash, err)
	}
}

func TestPasswordLinks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		s, c := signInWorld(t, url)
		op := s.Operator()
		wantNotFound := func(what string, err error) {
			t.Helper()
			if vitrine.TypeOf(err) != vitrine.NotFoundError {
				t.Errorf("%s: %v, want a NotFoundError", what, err)
			}
		}
		secret, expires, err := op.CreatePasswordLink(ctx, "BIA@example.com", time.Hour)
		if err != nil || len(secret) != 43 || !expires.Equal(vitrine.Timestamp(c.Now().Add(time.Hour))) {
			t.Fatalf("CreatePasswordLink = %q, %v, %v", secret, expires, err)
		}
		if u, err := s.PasswordLinkUser(ctx, secret); err != nil || u.Email != "bia@example.com" {
			t.Fatalf("PasswordLinkUser = %+v, %v", u, err)
		}
		for _, bad := range []string{"", "x", secret[:42], secret + "A", strings.Repeat("A", 43)} {
			_, err := s.PasswordLinkUser(ctx, bad)
			wantNotFound("link "+bad, err)
		}
		// A password that breaks the rules leaves the link valid.
		_, err = s.RedeemPasswordLink(ctx, secret, "bia@example.com")
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "password" {
			t.Fatalf("redeem with the email as password: %v", err)
		}
		u, err := s.RedeemPasswordLink(ctx, secret, "bia's new password")
		if err != nil || u.Email != "bia@example.com" {
			t.Fatalf("RedeemPasswordLink = %+v, %v", u, err)
		}
		if _, err := s.SignIn(ctx, "bia@example.com", "bia's new password"); err != nil {
			t.Fatal(err)
		}
		// One time only.
		_, err = s.RedeemPasswordLink(ctx, secret, "yet another password")
		wantNotFound("redeemed twice", err)
		_, err = s.PasswordLinkUser(ctx, secret)
		wantNotFound("a used link", err)

		// A newer link makes the older one useless.
		older, _, _ := op.CreatePasswordLink(ctx, "ana@example.com", time.Hour)
		newer, _, _ := op.CreatePasswordLink(ctx, "ana@example.com", 2*time.Hour)
		_, err = s.RedeemPasswordLink(ctx, older, "ana's new password")
		wantNotFound("an older link", err)
		// It expires after its ttl.
		c.advance(2*time.Hour - time.Microsecond)
		if _, err := s.PasswordLinkUser(ctx, newer); err != nil {
			t.Fatalf("a link just before it expires: %v", err)
		}
		c.advance(time.Microsecond)
		_, err = s.PasswordLinkUser(ctx, newer)
		wantNotFound("an expired link", err)
		_, err = s.RedeemPasswordLink(ctx, newer, "ana's new password")
		wantNotFound("redeeming an expired link", err)
		if _, err := s.SignIn(ctx, "ana@example.com", anaPassword); err != nil {
			t.Fatalf("an expired link changed the password: %v", err)
		}

		_, _, err = op.CreatePasswordLink(ctx, "nobody@example.com", time.Hour)
		wantNotFound("a link for nobody", err)
		if _, _, err := op.CreatePasswordLink(ctx, "caio@example.com", time.Hour); vitrine.TypeOf(err) != vitrine.ConflictError {
			t.Errorf("a link for a disabled user: %v", err)
		}
		if _, _, err := op.CreatePasswordLink(ctx, "ana@example.com", 0); vitrine.TypeOf(err) != vitrine.ValidationError {
			t.Errorf("a link that never lives: %v", err)
		}
	})
}
