package store_test

import (
	"testing"
	"time"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/signin"
)

// A connected app shows its client and the last use of its tokens; revoking
// it revokes its tokens and ends its refresh tokens, and it is listed no
// more.
func TestOAuthGrants(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		u := f.user("ana@example.com")
		now := vitrine.Now()
		client := &signin.OAuthClient{ID: "vc_test", Kind: "registered", CreatedAt: now, FetchedAt: now,
			Metadata: signin.ClientMetadata{ClientName: "Agent", RedirectURIs: []string{"http://127.0.0.1/cb"}}}
		if err := f.db.SaveOAuthClient(ctx, client); err != nil {
			t.Fatal(err)
		}
		g := &signin.OAuthGrant{ID: vitrine.NewID(), UserID: u.ID, ClientID: client.ID, Scope: "vitrine:read", CreatedAt: now, UpdatedAt: now}
		if err := f.db.SaveOAuthGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
		again := &signin.OAuthGrant{ID: vitrine.NewID(), UserID: u.ID, ClientID: client.ID, Scope: "vitrine:read vitrine:write", CreatedAt: now, UpdatedAt: now}
		if err := f.db.SaveOAuthGrant(ctx, again); err != nil || again.ID != g.ID {
			t.Fatalf("approving the same client again: %v, id %s want %s", err, again.ID, g.ID)
		}
		exp := now.Add(time.Hour)
		secret := vitrine.NewTokenSecret()
		prefix, _ := vitrine.TokenLookupPrefix(secret)
		tok := &vitrine.Token{ID: vitrine.NewID(), UserID: u.ID, Name: "Agent (connected app)", Prefix: prefix, Hash: vitrine.HashToken(secret),
			ExpiresAt: &exp, CreatedAt: now}
		if err := f.db.CreateGrantToken(ctx, tok, g.ID, "family-1"); err != nil {
			t.Fatal(err)
		}
		used := now.Add(time.Minute)
		if err := f.db.TouchToken(ctx, tok.ID, used); err != nil {
			t.Fatal(err)
		}
		grants, err := f.db.OAuthGrantsOfUser(ctx, u.ID)
		if err != nil || len(grants) != 1 {
			t.Fatalf("grants: %v %v", grants, err)
		}
		if got := grants[0]; got.Scope != "vitrine:read vitrine:write" || got.Client.Metadata.ClientName != "Agent" ||
			got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) {
			t.Errorf("grant: %+v (last used %v)", got, got.LastUsedAt)
		}
		if personal, _ := f.db.TokensOfUser(ctx, u.ID); len(personal) != 0 {
			t.Errorf("an app's token is listed among personal tokens: %v", personal)
		}
		wantType(t, f.db.RevokeOAuthGrant(ctx, vitrine.NewID(), g.ID, now), vitrine.NotFoundError) // not another's
		if err := f.db.RevokeOAuthGrant(ctx, u.ID, g.ID, now); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := f.db.TokenByPrefix(ctx, prefix); got == nil || got.RevokedAt == nil {
			t.Errorf("the app's token after revocation: %+v", got)
		}
		if grants, _ := f.db.OAuthGrantsOfUser(ctx, u.ID); len(grants) != 0 {
			t.Errorf("a revoked grant is listed: %v", grants)
		}
	})
}

// What the authorization server keeps does not grow without end: codes,
// PKCE requests and refresh tokens past their expiry, browser sessions
// past theirs, and clients nobody approved, registered (or fetched) long
// ago, are purged; nothing else is.
func TestPurgeOAuth(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		u := f.user("ana@example.com")
		now := vitrine.Now()
		old, recent := now.Add(-8*24*time.Hour), now.Add(-time.Hour)
		client := func(id, kind string, at time.Time) {
			t.Helper()
			if err := f.db.SaveOAuthClient(ctx, &signin.OAuthClient{ID: id, Kind: kind, CreatedAt: at, FetchedAt: at,
				Metadata: signin.ClientMetadata{RedirectURIs: []string{"http://127.0.0.1/cb"}}}); err != nil {
				t.Fatal(err)
			}
		}
		client("vc_old_unused", "registered", old)
		client("vc_recent_unused", "registered", recent)
		client("vc_old_approved", "registered", old)
		client("https://app.example/old.json", "metadata", old)
		client("https://app.example/recent.json", "metadata", recent)
		g := &signin.OAuthGrant{ID: vitrine.NewID(), UserID: u.ID, ClientID: "vc_old_approved", Scope: "vitrine:read", CreatedAt: old, UpdatedAt: old}
		if err := f.db.SaveOAuthGrant(ctx, g); err != nil {
			t.Fatal(err)
		}
		session := func(sig string, expires time.Time) {
			t.Helper()
			if err := f.db.CreateOAuthSession(ctx, &signin.OAuthSession{Kind: "refresh", Signature: sig, RequestID: "r-" + sig, GrantID: g.ID,
				Request: []byte("{}"), Active: true, ExpiresAt: expires, CreatedAt: old}); err != nil {
				t.Fatal(err)
			}
		}
		session("expired", now.Add(-time.Minute))
		session("live", now.Add(time.Hour))
		for id, expires := range map[string]time.Time{"expired-browser": now.Add(-time.Minute), "live-browser": now.Add(time.Hour)} {
			if err := f.db.CreateWebSession(ctx, &signin.WebSession{ID: id, UserID: u.ID, CreatedAt: old, ExpiresAt: expires}); err != nil {
				t.Fatal(err)
			}
		}
		n, err := f.db.PurgeOAuth(ctx, now, now.Add(-7*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for id, kept := range map[string]bool{"vc_old_unused": false, "vc_recent_unused": true, "vc_old_approved": true,
			"https://app.example/old.json": false, "https://app.example/recent.json": true} {
			_, err := f.db.OAuthClient(ctx, id)
			if (err == nil) != kept {
				t.Errorf("client %s: %v, kept %v", id, err, kept)
			}
		}
		for sig, kept := range map[string]bool{"expired": false, "live": true} {
			_, err := f.db.OAuthSession(ctx, "refresh", sig)
			if (err == nil) != kept {
				t.Errorf("refresh token %s: %v, kept %v", sig, err, kept)
			}
		}
		if _, _, err := f.db.WebSession(ctx, "live-browser", now); err != nil {
			t.Errorf("the live browser session: %v", err)
		}
		if n < 3 {
			t.Errorf("PurgeOAuth removed %d rows, want at least 3", n)
		}
		if again, err := f.db.PurgeOAuth(ctx, now, now.Add(-7*24*time.Hour)); err != nil || again != 0 {
			t.Errorf("purging again: %d, %v", again, err)
		}
	})
}
