package catalog_test

import (
	"context"
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

var ctx = context.Background()

func email(name string) string { return name + "@example.com" }

// world is a database with one service on it, its catalog, and olga, who
// owns the companies the tests make (shop).
type world struct {
	svc *service.Service
	cat *catalog.Catalog
}

func newWorld(t *testing.T, url string) *world {
	t.Helper()
	svc := service.New(dbtest.Open(t, url), nil)
	if _, err := svc.Operator().CreateUser(ctx, email("olga"), "olga"); err != nil {
		t.Fatal(err)
	}
	return &world{svc: svc, cat: catalog.New(svc)}
}
