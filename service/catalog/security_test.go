package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
	"github.com/vitrine/vitrine/store"
)

// Issue 31, finding 6: an enum holds at most 1,000 values, and a wrong
// value's refusal names a few of them and their count, not all.
func TestEnumAttributeBounds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		values := func(n int) *[]string {
			vs := make([]string, n)
			for i := range vs {
				vs[i] = fmt.Sprintf("v%d", i)
			}
			return &vs
		}
		_, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "huge", Type: "enum", Values: values(30_000)})
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "values" || !strings.Contains(e.Message, "1000") {
			t.Fatalf("30,000 values: %v, want a ValidationError on values naming the bound", err)
		}
		// Repeats count once.
		vs := append(*values(vitrine.MaxEnumValues), *values(vitrine.MaxEnumValues)...)
		at, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "size_code", Type: "enum", Values: &vs})
		if err != nil || len(at.Values) != vitrine.MaxEnumValues {
			t.Fatalf("1,000 values given twice: %v %v", at, err)
		}
		_, err = w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Shirt", Price: "1.00", Attributes: map[string]any{"size_code": "nope"}}, "")
		e := vitrine.AsError(err)
		if e == nil || e.Type != vitrine.ValidationError || e.Field != "attributes.size_code" {
			t.Fatalf("a wrong value: %v", err)
		}
		if len(e.Message) > 400 || !strings.Contains(e.Message, "1000") || !strings.Contains(e.Message, `"v0"`) || strings.Contains(e.Message, `"v999"`) {
			t.Errorf("the refusal names a few values and the count, not all (%d bytes): %s", len(e.Message), e.Message)
		}
		if _, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Shirt", Price: "1.00", Attributes: map[string]any{"size_code": "v999"}}, ""); err != nil {
			t.Errorf("an allowed value: %v", err)
		}
	})
}

// member adds a member (the built-in role, without catalog:manage) to the
// company and returns their access.
func member(t *testing.T, w *world, slug, name string) *service.Access {
	t.Helper()
	if _, err := w.svc.Operator().CreateUser(ctx, email(name), name); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Operator().AddMember(ctx, slug, email(name), vitrine.RoleMember, "active"); err != nil {
		t.Fatal(err)
	}
	a, err := w.svc.Operator().Actor(ctx, slug, email(name), "test")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Issue 31, finding 2: making a category or an attribute definition needs
// catalog:manage whatever the way in. A member's import uses what exists
// and says once what it left out, or refuses its products when atomic.
func TestImportNeedsCatalogManageToDefine(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		owner := shop(t, w, "acme")
		mia := member(t, w, "acme", "mia")
		clothing, err := w.cat.CreateCategory(ctx, owner, catalog.CategoryFields{Name: ptrTo("Clothing")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.cat.CreateAttribute(ctx, owner, catalog.AttributeFields{Key: "material", Type: "text"}); err != nil {
			t.Fatal(err)
		}
		csv := "Handle,Title,Product Category,Variant Price,Member Made (product.metafields.custom.member_made),Material (product.metafields.custom.material)\n" +
			"member-made,Member Made,Member Cat > Member Sub,1.00,yes,cotton\n" +
			"member-two,Member Two,Member Cat > Member Sub,1.00,yes,linen\n" +
			"in-clothing,In Clothing,Clothing,2.00,,wool\n"
		taxonomy := func() (int, int) {
			t.Helper()
			cats, err := w.cat.ListCategories(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			defs, err := w.cat.ListAttributes(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			return len(cats), len(defs)
		}

		// Atomic: the products that need a definition are refused, saying why.
		res, err := w.cat.ImportShopify(ctx, mia, strings.NewReader(csv), "", "create", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Written || res.Failed != 2 || res.Results[2].Status != catalog.RowSkipped {
			t.Fatalf("atomic: %+v", res.ImportSummary)
		}
		for _, r := range res.Results[:2] {
			if r.Err == nil || r.Err.Type != vitrine.ValidationError || !strings.Contains(r.Err.Message, "catalog:manage") || !strings.Contains(r.Err.Message, "line ") {
				t.Errorf("atomic, a refused product: %+v %v", r, r.Err)
			}
		}
		if c, d := taxonomy(); c != 1 || d != 1 {
			t.Fatalf("an atomic member import defined %d categories, %d attributes", c, d)
		}

		// Not atomic: every product comes in, with what exists, and a notice once each.
		res, err = w.cat.ImportShopify(ctx, mia, strings.NewReader(csv), "", "create", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Written || res.Created != 3 || res.Failed != 0 {
			t.Fatalf("a member's import: %+v %v", res.ImportSummary, res.Notices)
		}
		if c, d := taxonomy(); c != 1 || d != 1 {
			t.Errorf("a member's import defined %d categories, %d attributes", c, d)
		}
		var cat, attr int
		for _, n := range res.Notices {
			if strings.Contains(n.Message, "Member Cat > Member Sub") && strings.Contains(n.Message, "catalog:manage") {
				cat++
			}
			if strings.Contains(n.Message, "member_made") && strings.Contains(n.Message, "catalog:manage") {
				attr++
			}
		}
		if cat != 1 || attr != 1 {
			t.Errorf("notices (one for the category, one for the attribute): %+v", res.Notices)
		}
		p, err := w.cat.GetProduct(ctx, owner, res.Results[0].Product.ID, "")
		if err != nil || len(p.Categories) != 0 || p.Attributes["material"] != "cotton" || p.Attributes["member_made"] != nil {
			t.Errorf("a member's product: %+v %v", p, err)
		}
		p, err = w.cat.GetProduct(ctx, owner, res.Results[2].Product.ID, "")
		if err != nil || len(p.Categories) != 1 || p.Categories[0].ID != clothing.ID {
			t.Errorf("a member's product in an existing category: %+v %v", p, err)
		}

		// The owner's import makes them.
		csv2 := strings.NewReplacer("member-", "owner-", "in-clothing", "owner-clothing").Replace(csv)
		res, err = w.cat.ImportShopify(ctx, owner, strings.NewReader(csv2), "", "create", false, nil)
		if err != nil || res.Created != 3 {
			t.Fatalf("the owner's import: %+v %v", res, err)
		}
		if c, d := taxonomy(); c != 3 || d != 2 {
			t.Errorf("the owner's import defined %d categories, %d attributes", c, d)
		}
	})
}

// Issue 31, finding 2: a company holds at most MaxAttributesPerTenant
// attribute definitions, whatever the way in.
func TestAttributesPerCompanyAreCapped(t *testing.T) {
	defer catalog.SetMaxAttributesPerTenant(3)()
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		a := shop(t, w, "acme")
		for i := range 2 {
			if _, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: fmt.Sprintf("a%d", i), Type: "text"}); err != nil {
				t.Fatal(err)
			}
		}
		// An import defines the third, not the fourth: its values are left out, said once.
		csv := "Handle,Title,Variant Price,X (product.metafields.custom.x),Y (product.metafields.custom.y)\nhat,Hat,1.00,1,2\n"
		res, err := w.cat.ImportShopify(ctx, a, strings.NewReader(csv), "", "create", false, nil)
		if err != nil || res.Created != 1 {
			t.Fatalf("import: %+v %v", res, err)
		}
		if !slices.ContainsFunc(res.Notices, func(n catalog.Notice) bool {
			return strings.Contains(n.Message, `"y"`) && strings.Contains(n.Message, "3 attributes")
		}) {
			t.Errorf("notices: %+v", res.Notices)
		}
		_, err = w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "z", Type: "text"})
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "key" || !strings.Contains(e.Message, "at most 3") {
			t.Errorf("the fourth: %v", err)
		}
		// A definition that exists still changes.
		if _, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "a0", Name: ptrTo("A zero")}); err != nil {
			t.Errorf("renaming one at the cap: %v", err)
		}
	})
}

// Issue 31, finding 1: a one-handle CSV of 50,000 option values is refused
// at once, naming its line; an import whose context is done stops.
func TestShopifyImportStaysLinear(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	a := shop(t, w, "acme")
	var b strings.Builder
	b.WriteString("Handle,Title,Option1 Name,Option1 Value,Variant Price\nhuge,Huge,Size,v0,1.00\n")
	for i := 1; i < 50_000; i++ {
		fmt.Fprintf(&b, "huge,,,v%d,1.00\n", i)
	}
	b.WriteString("small,Small,,,2.00\n")
	res, err := w.cat.ImportShopify(ctx, a, strings.NewReader(b.String()), "", "create", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != 1 || res.Failed != 1 {
		t.Fatalf("%+v", res.ImportSummary)
	}
	if r := res.Results[0]; r.Err == nil || r.Err.Type != vitrine.ValidationError || r.Err.Field != "Variant Price" ||
		!strings.Contains(r.Err.Message, "line 102") || !strings.Contains(r.Err.Message, "at most 100 variants") {
		t.Errorf("the refused product: %+v %v", r, r.Err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = w.cat.ImportShopify(cctx, a, strings.NewReader(strings.ReplaceAll(b.String(), "small", "other")), "", "create", false, nil)
	if !errors.Is(err, context.Canceled) || vitrine.AsError(err) != nil {
		t.Fatalf("a cancelled import: %v, want context.Canceled", err)
	}
	if page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{}, 0, ""); err != nil || len(page.Products) != 1 {
		t.Errorf("after the cancelled import: %v %v, want the one product of before", page, err)
	}
}

// Issue 31, finding 4: a bounded Shopify import holds its products until
// the file's end: past the bound nothing is written, within it all is.
func TestShopifyImportAtMost(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	a := shop(t, w, "acme")
	file := func(n int) string {
		var b strings.Builder
		b.WriteString("Handle,Title,Variant Price\n")
		for i := range n {
			fmt.Fprintf(&b, "p-%d,P %d,1.00\n", i, i)
		}
		return b.String()
	}
	_, err := w.cat.ImportShopifyAtMost(ctx, a, strings.NewReader(file(4)), "", "create", false, 3, nil)
	if e := vitrine.AsError(err); e == nil || e.Field != "csv" || !strings.Contains(e.Message, "more than 3 products") || !strings.Contains(e.Message, "line 5") {
		t.Fatalf("4 products, at most 3: %v", err)
	}
	res, err := w.cat.ImportShopifyAtMost(ctx, a, strings.NewReader(file(3)), "", "create", false, 3, nil)
	if err != nil || res.Created != 3 {
		t.Fatalf("3 products, at most 3: %+v %v", res, err)
	}
	if page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{}, 0, ""); err != nil || len(page.Products) != 3 {
		t.Errorf("products: %v %v", page, err)
	}
}

// Issue 31, finding 3: two concurrent moves, A under B and B under A, never
// make a cycle: the tree's writes take turns per company (an advisory
// lock on PostgreSQL, through a least-privilege login too; SQLite has one
// writer). Every category stays listed, so the tools can repair it.
func TestConcurrentMovesMakeNoCycle(t *testing.T) {
	urls := map[string]func(testing.TB) string{"sqlite": dbtest.SQLiteURL, "postgres": dbtest.PostgresURL, "postgres-owner": dbtest.PostgresOwnerURL}
	for _, name := range []string{"sqlite", "postgres", "postgres-owner"} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, urls[name](t))
			a := shop(t, w, "acme")
			mk := func(name string) string {
				c, err := w.cat.CreateCategory(ctx, a, catalog.CategoryFields{Name: ptrTo(name)})
				if err != nil {
					t.Fatal(err)
				}
				return c.ID
			}
			x, y := mk("X"), mk("Y")
			root := ""
			for round := range 40 {
				for _, id := range []string{x, y} {
					if _, err := w.cat.UpdateCategory(ctx, a, id, catalog.CategoryFields{ParentID: &root}); err != nil {
						t.Fatalf("round %d, back to the root: %v", round, err)
					}
				}
				var wg sync.WaitGroup
				errs := make([]error, 2)
				start := make(chan struct{})
				for i, move := range [][2]string{{x, y}, {y, x}} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						_, errs[i] = w.cat.UpdateCategory(ctx, a, move[0], catalog.CategoryFields{ParentID: &move[1]})
					}()
				}
				close(start)
				wg.Wait()
				for _, err := range errs {
					if err != nil && vitrine.AsError(err) == nil {
						t.Fatalf("round %d: %v", round, err)
					}
				}
				if errs[0] == nil && errs[1] == nil {
					t.Fatalf("round %d: both moves succeeded", round)
				}
				cats, err := w.cat.ListCategories(ctx, a)
				if err != nil || len(cats) != 2 {
					t.Fatalf("round %d: %d categories listed, want 2 (%v)", round, len(cats), err)
				}
			}
		})
	}
}

// attributeQueries is a pgx tracer that keeps the statements reading
// product_attributes by value, with their arguments.
type attributeQueries struct {
	mu   sync.Mutex
	seen []tracedQuery
}

type tracedQuery struct {
	sql  string
	args []any
}

func (q *attributeQueries) keep(sql string, args []any) {
	if strings.Contains(sql, "FROM product_attributes WHERE") {
		q.mu.Lock()
		q.seen = append(q.seen, tracedQuery{sql, args})
		q.mu.Unlock()
	}
}

func (q *attributeQueries) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	q.keep(d.SQL, d.Args)
	return ctx
}

func (q *attributeQueries) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (q *attributeQueries) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (q *attributeQueries) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	q.keep(d.SQL, d.Args)
}

func (q *attributeQueries) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Issue 31, finding 8: a text attribute of 1,000 CJK characters (3,000
// bytes) is kept and found by value on both databases alike; on
// PostgreSQL the filter by value still reads an index.
func TestLongAttributeValueOnBothDatabases(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		tr := &attributeQueries{}
		db, err := store.Open(ctx, url, store.Options{Tracer: tr})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svc := service.New(db, nil)
		if _, err := svc.Operator().CreateUser(ctx, email("olga"), "olga"); err != nil {
			t.Fatal(err)
		}
		w := &world{svc: svc, cat: catalog.New(svc)}
		a := shop(t, w, "acme")
		if _, err := w.cat.SaveAttribute(ctx, a, catalog.AttributeFields{Key: "note", Type: "text"}); err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("漢", vitrine.MaxAttributeTextLen)
		p, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Long", Price: "1.00", Attributes: map[string]any{"note": long}}, "")
		if err != nil {
			t.Fatalf("a 1,000-character CJK value: %v", err)
		}
		if _, err := w.cat.CreateProduct(ctx, a, catalog.NewProduct{Name: "Other", Price: "1.00", Attributes: map[string]any{"note": long[:3*999]}}, ""); err != nil {
			t.Fatal(err)
		}
		page, err := w.cat.ListProducts(ctx, a, vitrine.ProductQuery{Attributes: map[string]any{"note": long}}, 0, "")
		if err != nil || len(page.Products) != 1 || page.Products[0].ID != p.ID {
			t.Fatalf("filtered by the long value: %v %v", page, err)
		}
		if !dbtest.IsPostgres(url) {
			return
		}
		tr.mu.Lock()
		seen := slices.Clone(tr.seen)
		tr.mu.Unlock()
		if len(seen) == 0 {
			t.Fatal("no statement read product_attributes by value")
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		// On so few rows any index will do; without sequential scans, and
		// without the primary key (in a transaction rolled back), the plan
		// shows whether the statement can read the index of values.
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck // nothing to keep
		for _, s := range []string{"SET LOCAL enable_seqscan = off", "ALTER TABLE product_attributes DROP CONSTRAINT product_attributes_pkey"} {
			if _, err := tx.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		q := seen[len(seen)-1]
		rows, err := tx.Query(ctx, "EXPLAIN "+q.sql, q.args...)
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v", q.sql, err)
		}
		var plan strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(line + "\n")
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		if !strings.Contains(plan.String(), "product_attributes_by_value") || !strings.Contains(plan.String(), "(md5(value) = ") {
			t.Errorf("the filter by value reads no index of the value:\n%s", plan.String())
		}
	})
}
