// Package demo fills a database with a small, realistic world: two
// companies, users of every built-in role (one of them with an inactive
// membership, one in both companies) and their catalogs: products with
// options and variants at different prices, vendors, types, tags, a tree
// of categories, typed attributes, images served by the binary,
// compare-at prices, drafts and sold-out stock. TechNova's shop window is
// open; Mercado Verde's is closed.
package demo

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	shopwindow "github.com/vitrine/vitrine/service/shop"
)

// User is a demo user and the token and password made for them by this
// run.
type User struct {
	Email string `json:"email"`
	Name  string `json:"name"`
	// Roles says where the user belongs: "owner of technova".
	Roles string `json:"roles"`
	Token string `json:"token"`
	// Password signs them in on the server's pages.
	Password string `json:"password"`
}

// Tenant is a demo company.
type Tenant struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// World is what Seed made or found.
type World struct {
	Tenants []Tenant `json:"tenants"`
	Users   []User   `json:"users"`
}

type member struct {
	email, name string
	roles       []membership
}

type membership struct {
	tenant, role string
	status       string
}

// tenants are the demo companies, each with its catalog (catalog.go).
var tenants = []struct {
	name, slug, owner string
	catalog           *shop
	// window opens the company's shop window, whose own pages are its
	// product pages (no product_url of the company's).
	window bool
}{
	{"TechNova Comércio Eletrônico", "technova", "ana@technova.example", technovaShop, true},
	{"Mercado Verde", "mercado-verde", "marina@mercadoverde.example", mercadoVerdeShop, false},
}

var members = []member{
	{"ana@technova.example", "Ana Souza", []membership{{"technova", "owner", "active"}}},
	{"bruno@technova.example", "Bruno Lima", []membership{{"technova", "admin", "active"}}},
	{"carla@technova.example", "Carla Mendes", []membership{{"technova", "member", "active"}, {"mercado-verde", "viewer", "active"}}},
	{"diego@technova.example", "Diego Rocha", []membership{{"technova", "viewer", "active"}}},
	{"elisa@technova.example", "Elisa Prado", []membership{{"technova", "member", "inactive"}}},
	{"marina@mercadoverde.example", "Marina Costa", []membership{{"mercado-verde", "owner", "active"}}},
}

// DefaultBaseURL is where make demo serves: the demo's images are there
// unless SeedAt is told otherwise.
const DefaultBaseURL = "http://127.0.0.1:8080"

// Seed is SeedAt for a server at DefaultBaseURL.
func Seed(ctx context.Context, svc *service.Service) (*World, error) {
	return SeedAt(ctx, svc, DefaultBaseURL)
}

// SeedAt creates the demo world, or completes it where an earlier run left
// it, and makes a fresh token and password for every demo user. baseURL is
// where clients reach the server (its public URL): the products' images
// are there, under ImagesPath, which the server serves from the binary, so
// that the views show them with no other network. A company's catalog is
// made once, with the company: a later run at another URL keeps the
// images' URLs of the first.
func SeedAt(ctx context.Context, svc *service.Service, baseURL string) (*World, error) {
	w := &World{}
	op := svc.Operator()
	for _, m := range members {
		if _, err := op.CreateUser(ctx, m.email, m.name); err != nil && vitrine.TypeOf(err) != vitrine.ConflictError {
			return nil, fmt.Errorf("demo user %s: %w", m.email, err)
		}
	}
	for _, t := range tenants {
		tenant, created, err := op.EnsureTenant(ctx, t.name, t.slug, t.owner)
		if err != nil {
			return nil, fmt.Errorf("demo tenant %s: %w", t.slug, err)
		}
		w.Tenants = append(w.Tenants, Tenant{ID: tenant.ID, Name: tenant.Name, Slug: tenant.Slug})
		if created {
			if err := fill(ctx, svc, tenant.ID, t.owner, t.catalog, ImagesURL(baseURL)); err != nil {
				return nil, fmt.Errorf("demo products of %s: %w", t.slug, err)
			}
			if err := openWindow(ctx, svc, t.slug, t.owner, t.window); err != nil {
				return nil, fmt.Errorf("demo shop window of %s: %w", t.slug, err)
			}
		}
	}
	for _, m := range members {
		var roles string
		for _, ms := range m.roles {
			if _, err := op.AddMember(ctx, ms.tenant, m.email, ms.role, ms.status); err != nil && vitrine.TypeOf(err) != vitrine.ConflictError {
				return nil, fmt.Errorf("demo membership %s in %s: %w", m.email, ms.tenant, err)
			}
			if roles != "" {
				roles += ", "
			}
			roles += ms.role + " of " + ms.tenant
			if ms.status == "inactive" {
				roles += " (inactive)"
			}
		}
		// The tokens an earlier run printed stop working: only the newest
		// run's are in use.
		if err := revokeDemoTokens(ctx, op, m.email); err != nil {
			return nil, fmt.Errorf("demo tokens of %s: %w", m.email, err)
		}
		// Every toolset, so that every tool can be tried; a token made
		// otherwise grants the catalog unless asked for more.
		_, secret, err := op.CreateToken(ctx, accounts.NewToken{Email: m.email, Name: demoTokenName, Toolsets: vitrine.ToolsetNames()})
		if err != nil {
			return nil, fmt.Errorf("demo token for %s: %w", m.email, err)
		}
		// Random, as a demo database may be served beyond this machine.
		password := rand.Text()
		if err := op.SetPassword(ctx, m.email, password); err != nil {
			return nil, fmt.Errorf("demo password for %s: %w", m.email, err)
		}
		w.Users = append(w.Users, User{Email: m.email, Name: m.name, Roles: roles, Token: secret, Password: password})
	}
	return w, nil
}

// openWindow opens the company's shop window, selling to Brazil, without
// a storefront of its own: shoppers' agents and people find its active
// products under /shops/{slug}/, its pages the product pages the window
// hands out (docs/shop.md). Otherwise the window stays closed.
func openWindow(ctx context.Context, svc *service.Service, slug, owner string, window bool) error {
	if !window {
		return nil
	}
	a, err := svc.Operator().Actor(ctx, slug, owner, "vitrine demo")
	if err != nil {
		return err
	}
	open, country := true, "BR"
	_, err = shopwindow.New(svc).Update(ctx, a, shopwindow.Changes{Open: &open, Country: &country})
	return err
}

// demoTokenName names the tokens the demo makes.
const demoTokenName = "demo"

// revokeDemoTokens revokes the user's tokens an earlier run made.
func revokeDemoTokens(ctx context.Context, op *service.Operator, email string) error {
	tokens, err := op.ListTokens(ctx, email)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		if t.Name == demoTokenName && t.RevokedAt == nil {
			if _, err := op.RevokeToken(ctx, t.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
