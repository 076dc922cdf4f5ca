package store_test

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/signin"
	"github.com/vitrine/vitrine/store"
)

func TestPasswords(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana := f.user("Ana@Example.com")
		u, hash, err := f.db.UserPassword(ctx, "ana@example.COM")
		if err != nil || u.ID != ana.ID || hash != "" {
			t.Fatalf("UserPassword before any = %+v, %q, %v", u, hash, err)
		}
		_, _, err = f.db.UserPassword(ctx, "nobody@example.com")
		wantType(t, err, vitrine.NotFoundError)

		now := vitrine.Now()
		if _, err := f.db.RecordSignInFailure(ctx, "ana@example.com", now, now.Add(-time.Hour), func(int) time.Duration { return 0 }); err != nil {
			t.Fatal(err)
		}
		if err := f.db.SetPassword(ctx, ana.ID, "$argon2id$stand-in", now); err != nil {
			t.Fatal(err)
		}
		if _, hash, _ := f.db.UserPassword(ctx, ana.Email); hash != "$argon2id$stand-in" {
			t.Fatalf("hash after SetPassword = %q", hash)
		}
		// Setting a password forgets the email's failed sign-ins.
		if fs, err := f.db.SignInFailures(ctx, "ana@example.com"); err != nil || fs.Failures != 0 {
			t.Fatalf("failures after SetPassword = %+v, %v", fs, err)
		}
		wantType(t, f.db.SetPassword(ctx, vitrine.NewID(), "x", now), vitrine.NotFoundError)
		wantType(t, f.db.SetPassword(ctx, "not-an-id", "x", now), vitrine.NotFoundError)
	})
}

func TestSignInFailures(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		other := dbtest.Open(t, url) // another instance on the same database
		key := "ghost@example.com"   // no user has it: it is counted all the same
		now := vitrine.Now()
		lock := func(n int) time.Duration {
			if n < 3 {
				return 0
			}
			return time.Duration(n) * time.Second
		}
		if fs, err := f.db.SignInFailures(ctx, key); err != nil || fs != (signin.Failures{}) {
			t.Fatalf("no failures yet: %+v, %v", fs, err)
		}
		// Concurrent failures on two instances all count.
		var wg sync.WaitGroup
		for i := range 4 {
			db := f.db
			if i%2 == 1 {
				db = other
			}
			wg.Go(func() {
				if _, err := db.RecordSignInFailure(ctx, key, now, now.Add(-time.Hour), lock); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		fs, err := other.SignInFailures(ctx, key)
		if err != nil || fs.Failures != 4 || !fs.LockedUntil.Equal(now.Add(4*time.Second)) {
			t.Fatalf("after 4 failures: %+v, %v", fs, err)
		}
		// Failures last counted before forgetBefore start over.
		later := now.Add(48 * time.Hour)
		fs, err = f.db.RecordSignInFailure(ctx, key, later, later.Add(-24*time.Hour), lock)
		if err != nil || fs.Failures != 1 || !fs.LockedUntil.IsZero() {
			t.Fatalf("a failure after a quiet day: %+v, %v", fs, err)
		}
		if err := other.ClearSignInFailures(ctx, key); err != nil {
			t.Fatal(err)
		}
		if fs, _ := f.db.SignInFailures(ctx, key); fs.Failures != 0 {
			t.Fatalf("after clearing: %+v", fs)
		}
	})
}

func TestPasswordLinks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ana, bia := f.user("ana@example.com"), f.user("bia@example.com")
		now := vitrine.Now()
		link := func(u *vitrine.User, secret string, ttl time.Duration) *signin.PasswordLink {
			l := &signin.PasswordLink{ID: vitrine.NewID(), UserID: u.ID, Hash: vitrine.HashToken(secret), ExpiresAt: now.Add(ttl), CreatedAt: now}
			if err := f.db.CreatePasswordLink(ctx, l); err != nil {
				t.Fatal(err)
			}
			return l
		}
		first := link(ana, "first", time.Hour)
		l, u, err := f.db.PasswordLink(ctx, first.Hash, now)
		if err != nil || l.ID != first.ID || u.ID != ana.ID || !bytes.Equal(l.Hash, first.Hash) || !l.ExpiresAt.Equal(first.ExpiresAt) {
			t.Fatalf("PasswordLink = %+v, %+v, %v", l, u, err)
		}
		// A newer link of the same user replaces it; another user's stays.
		second := link(ana, "second", time.Hour)
		biaLink := link(bia, "bia", time.Hour)
		_, _, err = f.db.PasswordLink(ctx, first.Hash, now)
		wantType(t, err, vitrine.NotFoundError)
		if _, u, err := f.db.PasswordLink(ctx, biaLink.Hash, now); err != nil || u.ID != bia.ID {
			t.Fatalf("bia's link: %+v, %v", u, err)
		}
		// Expired at its expiry.
		_, _, err = f.db.PasswordLink(ctx, second.Hash, second.ExpiresAt)
		wantType(t, err, vitrine.NotFoundError)
		_, err = f.db.RedeemPasswordLink(ctx, second.Hash, "$argon2id$late", second.ExpiresAt)
		wantType(t, err, vitrine.NotFoundError)
		if _, hash, _ := f.db.UserPassword(ctx, ana.Email); hash != "" {
			t.Fatalf("an expired link set the password: %q", hash)
		}
		// Redeemed once: the password is set, and the link is used up.
		u, err = f.db.RedeemPasswordLink(ctx, second.Hash, "$argon2id$set", now)
		if err != nil || u.ID != ana.ID {
			t.Fatalf("RedeemPasswordLink = %+v, %v", u, err)
		}
		if _, hash, _ := f.db.UserPassword(ctx, ana.Email); hash != "$argon2id$set" {
			t.Fatalf("hash after redeeming = %q", hash)
		}
		_, err = f.db.RedeemPasswordLink(ctx, second.Hash, "$argon2id$again", now)
		wantType(t, err, vitrine.NotFoundError)
		_, _, err = f.db.PasswordLink(ctx, second.Hash, now)
		wantType(t, err, vitrine.NotFoundError)
		if _, hash, _ := f.db.UserPassword(ctx, ana.Email); hash != "$argon2id$set" {
			t.Fatalf("a used link set the password again: %q", hash)
		}

		// Redeemed at once on two instances: one wins, the other changes nothing.
		other := dbtest.Open(t, url)
		third := link(ana, "third", time.Hour)
		var (
			wg  sync.WaitGroup
			won atomic.Int32
		)
		for i, db := range []*store.DB{f.db, other} {
			wg.Go(func() {
				_, err := db.RedeemPasswordLink(ctx, third.Hash, fmt.Sprintf("$argon2id$race-%d", i), now)
				if err == nil {
					won.Add(1)
				} else if vitrine.TypeOf(err) != vitrine.NotFoundError {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d concurrent redemptions of one link succeeded", won.Load())
		}
	})
}
