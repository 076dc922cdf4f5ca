package accounts

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/alexedwards/argon2id"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/signin"
	"golang.org/x/crypto/argon2"
)

// Locking out an email: the first lockFree failures in a row cost nothing;
// each failure after them locks the email for twice as long as the one
// before, from firstLock up to maxLock. Failures forgotten after
// forgetFailures without a new one start over.
const (
	lockFree       = 5
	firstLock      = time.Second
	maxLock        = 15 * time.Minute
	forgetFailures = 24 * time.Hour
)

// lockFor is how long an email stays locked after its failures-th failure
// in a row.
func lockFor(failures int) time.Duration {
	if failures < lockFree {
		return 0
	}
	n := failures - lockFree
	if n >= 20 {
		return maxLock
	}
	return min(firstLock<<n, maxLock)
}

// SignInError refuses a sign-in. It says the same whichever of the email
// and the password was wrong, whether the user has no password or is
// disabled: it tells nobody which emails have an account.
type SignInError struct {
	// RetryAfter, when positive, says that the email is locked after too
	// many failures, and for how long still.
	RetryAfter time.Duration
}

func (e *SignInError) Error() string {
	if e.RetryAfter > 0 {
		// In whole seconds, rounded up: "try again in 0s" would be false.
		wait := (e.RetryAfter + time.Second - 1).Truncate(time.Second)
		return "too many attempts, try again in " + wait.String()
	}
	return "wrong email or password"
}

// passwords hashes and verifies passwords with argon2id.
type passwords struct {
	params *argon2id.Params
	// dummy is a hash of the same parameters that no password matches:
	// an email without a password (or without a user) is verified against
	// it, so that it takes as long to refuse as a wrong password.
	dummy string
	// verify is argon2id's; the tests count its calls.
	verify func(password, hash string) (bool, error)
	// slots bound the hashes computed at once: each takes params.Memory.
	slots chan struct{}
}

func newPasswords() *passwords {
	p := argon2id.DefaultParams
	salt := base64.RawStdEncoding.EncodeToString(make([]byte, p.SaltLength))
	key := base64.RawStdEncoding.EncodeToString(make([]byte, p.KeyLength))
	return &passwords{
		params: p,
		dummy:  fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Iterations, p.Parallelism, salt, key),
		verify: argon2id.ComparePasswordAndHash,
		slots:  make(chan struct{}, max(2, runtime.GOMAXPROCS(0))),
	}
}

func (p *passwords) acquire(ctx context.Context) (release func(), err error) {
	select {
	case p.slots <- struct{}{}:
		return func() { <-p.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *passwords) hash(ctx context.Context, password string) (string, error) {
	release, err := p.acquire(ctx)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	defer release()
	h, err := argon2id.CreateHash(password, p.params)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return h, nil
}

// check verifies password against hash, or against the dummy hash when
// hash is "": either way, one argon2id verification.
func (p *passwords) check(ctx context.Context, password, hash string) (bool, error) {
	if hash == "" {
		hash = p.dummy
	}
	release, err := p.acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("verify password: %w", err)
	}
	defer release()
	ok, err := p.verify(password, hash)
	if err != nil {
		return false, fmt.Errorf("verify password: %w", err)
	}
	return ok, nil
}

// SignIn checks an email and password and returns the user. A wrong
// password, an unknown email, a user without a password and a disabled
// user are the same *SignInError, after the same work (one argon2id
// verification). Failures in a row lock the email, whether or not it has
// a user, for longer and longer (lockFor); the count is kept in the
// database, so every instance agrees, and a success resets it. While the
// email is locked, SignIn refuses with RetryAfter set, without checking
// the password. (The failure that starts a lock is answered like any
// other; the next attempt learns of the lock.)
func (a *Accounts) SignIn(ctx context.Context, email, password string) (*vitrine.User, error) {
	now := a.now()
	// An address no user can have is refused all the same, but not counted.
	_, key, keyErr := vitrine.NormalizeEmail("email", email)
	var (
		failures signin.Failures
		u        *vitrine.User
		hash     string
		err      error
	)
	if keyErr == nil {
		if failures, err = a.store.SignInFailures(ctx, key); err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
		if wait := failures.LockedUntil.Sub(now); wait > 0 {
			return nil, &SignInError{RetryAfter: wait}
		}
		u, hash, err = a.store.UserPassword(ctx, key)
		if vitrine.TypeOf(err) == vitrine.NotFoundError {
			u, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
	}
	if len(password) > 4*signin.MaxPasswordLen {
		// Longer than any password can be: refused after the same work.
		password, hash = "", ""
	}
	ok, err := a.pw.check(ctx, password, hash)
	if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	if ok && hash != "" && u != nil && !u.Disabled {
		if failures.Failures > 0 {
			if err := a.store.ClearSignInFailures(ctx, key); err != nil {
				return nil, fmt.Errorf("sign in: %w", err)
			}
		}
		return u, nil
	}
	if keyErr == nil {
		f, err := a.store.RecordSignInFailure(ctx, key, now, now.Add(-forgetFailures), lockFor)
		if err != nil {
			return nil, fmt.Errorf("sign in: %w", err)
		}
		if !f.LockedUntil.IsZero() {
			a.log.Warn("sign-in locked after failures in a row", "email", key, "failures", f.Failures, "locked_until", f.LockedUntil)
		}
	}
	return nil, &SignInError{}
}

// SetPassword sets the password of the user with that email: between
// signin.MinPasswordLen and signin.MaxPasswordLen characters, and not
// the email. It forgets the email's failed sign-ins.
func (o *Operator) SetPassword(ctx context.Context, email, password string) error {
	if err := signin.ValidatePassword("password", password, email); err != nil {
		return err
	}
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return err
	}
	hash, err := o.a.pw.hash(ctx, password)
	if err != nil {
		return err
	}
	return o.a.store.SetPassword(ctx, u.ID, hash, o.a.now())
}

// maxLinkTTL is the longest a password link may live.
const maxLinkTTL = 30 * 24 * time.Hour

// CreatePasswordLink makes a one-time secret with which the user with that
// email sets their password, valid for ttl. Only its SHA-256 is stored;
// the user's older unused links stop working.
func (o *Operator) CreatePasswordLink(ctx context.Context, email string, ttl time.Duration) (secret string, expires time.Time, err error) {
	if ttl <= 0 || ttl > maxLinkTTL {
		return "", time.Time{}, vitrine.Invalid("expires", "the link must expire within 30 days (720h); got %s", ttl)
	}
	u, err := o.User(ctx, "email", email)
	if err != nil {
		return "", time.Time{}, err
	}
	if u.Disabled {
		return "", time.Time{}, vitrine.Conflict("email", "%s is disabled: enable them first (vitrine user update --enable)", u.Email)
	}
	b := make([]byte, 32)
	rand.Read(b)
	secret = base64.RawURLEncoding.EncodeToString(b)
	now := o.a.now()
	l := &signin.PasswordLink{ID: vitrine.NewID(), UserID: u.ID, Hash: vitrine.HashToken(secret),
		ExpiresAt: vitrine.Timestamp(now.Add(ttl)), CreatedAt: now}
	if err := o.a.store.CreatePasswordLink(ctx, l); err != nil {
		return "", time.Time{}, err
	}
	return secret, l.ExpiresAt, nil
}

// errNoLink answers a password link that is unknown, used, replaced by a
// newer one, or expired, or whose user is disabled.
var errNoLink = vitrine.NotFound("Password link")

// PasswordLinkUser returns the user of a valid password link: unused,
// unexpired, and of a user who is not disabled; else NotFoundError.
func (a *Accounts) PasswordLinkUser(ctx context.Context, secret string) (*vitrine.User, error) {
	if len(secret) != 43 || strings.ContainsAny(secret, "+/=") {
		return nil, errNoLink
	}
	if _, err := base64.RawURLEncoding.Strict().DecodeString(secret); err != nil {
		return nil, errNoLink
	}
	_, u, err := a.store.PasswordLink(ctx, vitrine.HashToken(secret), a.now())
	if vitrine.TypeOf(err) == vitrine.NotFoundError || err == nil && u.Disabled {
		return nil, errNoLink
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// RedeemPasswordLink sets the password of a valid link's user (the rules
// of SetPassword) and uses the link up, in one transaction. A link used,
// expired or unknown is NotFoundError; a password that breaks the rules
// is a ValidationError that leaves the link valid.
func (a *Accounts) RedeemPasswordLink(ctx context.Context, secret, password string) (*vitrine.User, error) {
	u, err := a.PasswordLinkUser(ctx, secret)
	if err != nil {
		return nil, err
	}
	if err := signin.ValidatePassword("password", password, u.Email); err != nil {
		return nil, err
	}
	hash, err := a.pw.hash(ctx, password)
	if err != nil {
		return nil, err
	}
	u, err = a.store.RedeemPasswordLink(ctx, vitrine.HashToken(secret), hash, a.now())
	if vitrine.TypeOf(err) == vitrine.NotFoundError {
		return nil, errNoLink
	}
	return u, err
}
