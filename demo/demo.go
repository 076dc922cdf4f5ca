// Package demo fills a database with a small, realistic world: two
// companies, users of every built-in role (one of them with an inactive
// membership, one in both companies) and their products.
package demo

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/service/catalog"
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

type product struct {
	sku, name, description, price string
	stock                         int64
	status                        string
}

var tenants = []struct {
	name, slug, owner string
	products          []product
}{
	{"TechNova Comércio Eletrônico", "technova", "ana@technova.example", []product{
		{"NB-DELL-5440", "Notebook Dell Inspiron 15", "Intel Core i7, 16 GB RAM, SSD 512 GB, tela 15,6\" Full HD.", "4599.90", 12, ""},
		{"MS-LOGI-MX3S", "Mouse Logitech MX Master 3S", "Mouse sem fio, 8.000 DPI, cliques silenciosos.", "649.90", 40, ""},
		{"MN-LG-29WQ600", "Monitor LG UltraWide 29\"", "IPS, 2560x1080, HDR10, 100 Hz.", "1299.00", 7, ""},
		{"KB-KEYC-K2", "Teclado Mecânico Keychron K2", "Layout compacto 75%, Bluetooth, switches Brown.", "799.00", 0, ""},
		{"HS-JBL-T520", "Fone de Ouvido JBL Tune 520BT", "Bluetooth 5.3, até 57 horas de bateria.", "299.90", 25, ""},
		{"CH-ERGO-01", "Cadeira Ergonômica Flexform", "Apoio lombar ajustável. Fora de linha.", "1899.00", 3, "archived"},
	}},
	{"Mercado Verde", "mercado-verde", "marina@mercadoverde.example", []product{
		{"FR-MACA-FUJI", "Maçã Fuji (kg)", "Maçã Fuji nacional, vendida por quilo.", "12.90", 150, ""},
		{"CF-ESP-500", "Café Especial Torrado 500 g", "Grãos arábica do sul de Minas, torra média.", "39.90", 60, ""},
		{"AZ-OLIVA-500", "Azeite Extravirgem 500 ml", "Acidez máxima de 0,3%.", "49.90", 30, ""},
		{"PA-INTEGRAL", "Pão Integral", "Fermentação natural, 450 g.", "9.50", 20, ""},
	}},
}

var members = []member{
	{"ana@technova.example", "Ana Souza", []membership{{"technova", "owner", "active"}}},
	{"bruno@technova.example", "Bruno Lima", []membership{{"technova", "admin", "active"}}},
	{"carla@technova.example", "Carla Mendes", []membership{{"technova", "member", "active"}, {"mercado-verde", "viewer", "active"}}},
	{"diego@technova.example", "Diego Rocha", []membership{{"technova", "viewer", "active"}}},
	{"elisa@technova.example", "Elisa Prado", []membership{{"technova", "member", "inactive"}}},
	{"marina@mercadoverde.example", "Marina Costa", []membership{{"mercado-verde", "owner", "active"}}},
}

// Seed creates the demo world, or completes it where an earlier run left
// it, and makes a fresh token and password for every demo user.
func Seed(ctx context.Context, svc *service.Service) (*World, error) {
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
			if err := addProducts(ctx, svc, tenant.ID, t.owner, t.products); err != nil {
				return nil, fmt.Errorf("demo products of %s: %w", t.slug, err)
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

func addProducts(ctx context.Context, svc *service.Service, tenantID, ownerEmail string, ps []product) error {
	caller, err := svc.Operator().ActAs(ctx, ownerEmail, "demo data")
	if err != nil {
		return err
	}
	a, err := svc.Access(ctx, caller, tenantID)
	if err != nil {
		return err
	}
	cat := catalog.New(svc)
	for _, p := range ps {
		_, err := cat.CreateProduct(ctx, a, catalog.NewProduct{SKU: p.sku, Name: p.name, Description: p.description,
			Price: p.price, Stock: p.stock, Status: p.status}, "")
		if err != nil && vitrine.TypeOf(err) != vitrine.ConflictError {
			return fmt.Errorf("%s: %w", p.sku, err)
		}
	}
	return nil
}
