package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/store"
	"golang.org/x/sync/errgroup"
)

// The words of the generated catalog: rareWord is in 3 products, commonWord
// in one product of ten.
const (
	rareWord   = "zanzibar"
	commonWord = "premium"
)

var (
	nouns      = strings.Fields("cadeira mesa luminária tapete estante poltrona sofá cortina espelho vaso relógio quadro almofada banqueta cômoda cabide prateleira lixeira baú escrivaninha")
	adjectives = strings.Fields("azul verde rústico moderno compacto dobrável clássico industrial escandinavo minimalista grande pequeno alto baixo redondo quadrado")
	materials  = strings.Fields("madeira metal vidro bambu couro linho algodão mármore cerâmica acrílico palha veludo")
)

// benchWorld is a filled database and what the scenarios need of it.
type benchWorld struct {
	db      *store.DB
	tenants []string // the first holds most products
	token   string
	author  string
	sample  []string // product ids of the first tenant
}

// fill makes a catalog of size products: nine tenths in one big tenant,
// the rest spread over nine small ones. It writes through the store in
// large transactions, not through tools.
func fill(ctx context.Context, url string, size int) (*benchWorld, error) {
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		return nil, err
	}
	svc := service.New(db, nil)
	op := svc.Operator()
	u, err := op.CreateUser(ctx, "bench@vitrine.example", "Bench")
	if err != nil {
		return nil, err
	}
	w := &benchWorld{db: db, author: u.ID}
	for i := range 10 {
		t, err := op.CreateTenant(ctx, fmt.Sprintf("Bench %d", i), fmt.Sprintf("bench-%d", i), u.Email)
		if err != nil {
			return nil, err
		}
		w.tenants = append(w.tenants, t.ID)
	}
	if _, w.token, err = op.CreateToken(ctx, accounts.NewToken{Email: u.Email, Name: "bench", Toolsets: []string{"all"}}); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	big := size * 9 / 10
	counts := spread(size, big)
	tn, i := 0, 0
	_, err = writeProducts(ctx, db, 5000, func() *vitrine.Product {
		for tn < len(counts) && i == counts[tn] {
			tn, i = tn+1, 0
		}
		if tn == len(counts) {
			return nil
		}
		p := benchProduct(w.tenants[tn], u.ID, fmt.Sprintf("B%d-%07d", tn, i), i)
		p.Name, p.Description = productText(rng, i, tn == 0)
		if tn == 0 && len(w.sample) < 10000 && rng.IntN(max(1, counts[tn]/10000)) == 0 {
			w.sample = append(w.sample, p.ID)
		}
		i++
		return p
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// writeProducts writes the products next makes (nil after the last)
// through the store in large transactions, batches of up to batch products
// of one company. Batches are made in order (the random text is the same
// at every run) and written by a few writers at once: PostgreSQL overlaps
// their round trips; SQLite's single writer takes them in turn. It
// returns the rates of the first and the last tenth of the products
// written.
func writeProducts(ctx context.Context, db *store.DB, batch int, next func() *vitrine.Product) (fillRates, error) {
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []vitrine.ProductWrite)
	var (
		mu      sync.Mutex
		written []commit
		start   = time.Now()
	)
	for range 4 {
		g.Go(func() error {
			for writes := range batches {
				if _, err := db.WriteProducts(gctx, benchChange, writes[0].Create.TenantID, writes, true, nil); err != nil {
					return err
				}
				mu.Lock()
				written = append(written, commit{at: time.Now(), products: len(writes)})
				mu.Unlock()
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(batches)
		writes := make([]vitrine.ProductWrite, 0, batch)
		send := func() error {
			if len(writes) == 0 {
				return nil
			}
			select {
			case batches <- writes:
				writes = make([]vitrine.ProductWrite, 0, batch)
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		for p := next(); p != nil; p = next() {
			if len(writes) == batch || len(writes) > 0 && writes[0].Create.TenantID != p.TenantID {
				if err := send(); err != nil {
					return err
				}
			}
			writes = append(writes, vitrine.ProductWrite{Create: p})
		}
		return send()
	})
	if err := g.Wait(); err != nil {
		return fillRates{}, err
	}
	return tenths(start, written), nil
}

// commit is a batch of a fill, committed.
type commit struct {
	at       time.Time
	products int
}

// fillRates are the products a second of the first and of the last tenth
// of a fill, by the times their batches committed: a fill that slows as
// the company grows shows a last tenth slower than its first.
type fillRates struct{ first, last float64 }

// tenths reads a fill's rates from its batches, in the order they
// committed, from start: the first tenth's, from start to the commit that
// passes a tenth of the products; the last tenth's, from the commit that
// passes nine tenths to the last.
func tenths(start time.Time, written []commit) fillRates {
	total := 0
	for _, c := range written {
		total += c.products
	}
	var r fillRates
	done := 0
	for _, c := range written {
		done += c.products
		if r.first == 0 && done*10 >= total && c.at.After(start) {
			r.first = float64(done) / c.at.Sub(start).Seconds()
		}
		if done*10 >= total*9 {
			if end := written[len(written)-1].at; end.After(c.at) {
				r.last = float64(total-done) / end.Sub(c.at).Seconds()
			}
			break
		}
	}
	return r
}

// spread returns how many products each tenant gets.
func spread(size, big int) []int {
	out := []int{big}
	for i := range 9 {
		n := (size - big) / 9
		if i < (size-big)%9 {
			n++
		}
		out = append(out, n)
	}
	return out
}

func productText(rng *rand.Rand, i int, big bool) (name, description string) {
	name = nouns[rng.IntN(len(nouns))] + " " + adjectives[rng.IntN(len(adjectives))] + " de " + materials[rng.IntN(len(materials))]
	if i%10 == 3 {
		name += " " + commonWord
	}
	if big && (i == 7 || i == 70007 || i == 700007) {
		name += " " + rareWord
	}
	description = "Feito em " + materials[rng.IntN(len(materials))] + ", acabamento " + adjectives[rng.IntN(len(adjectives))] + "."
	return strings.ToUpper(name[:1]) + name[1:], description
}

func benchProduct(tenantID, author, sku string, i int) *vitrine.Product {
	now := vitrine.Now()
	p := &vitrine.Product{ID: vitrine.NewID(), TenantID: tenantID, Handle: vitrine.HandleOf(sku), Name: "Produto " + sku,
		Currency: "BRL", Status: vitrine.ProductActive, Version: 1,
		CreatedAt: now, CreatedBy: author, UpdatedAt: now, UpdatedBy: author}
	p.SetOneVariant(vitrine.NewID(), sku, int64(1000+i%50000), int64(i%40))
	return p
}

// deepCursor walks the first tenant's list, 50 a page, to the cursor of the
// given page, and finds the same position in the store.
func deepCursor(ctx context.Context, cs *mcp.ClientSession, w *benchWorld, tenant string, page int) (string, *vitrine.ProductKey, error) {
	cursor := ""
	for range page - 1 {
		args := map[string]any{"tenant_id": tenant, "limit": 50}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_products", Arguments: args})
		if err != nil {
			return "", nil, err
		}
		next, _ := res.StructuredContent.(map[string]any)["next_cursor"].(string)
		if next == "" {
			return "", nil, fmt.Errorf("the list ends before page %d", page)
		}
		cursor = next
	}
	var key *vitrine.ProductKey
	for left := (page - 1) * 50; left > 0; {
		n := min(left, 1000)
		ps, err := w.db.ListProducts(ctx, tenant, filterOf(vitrine.ProductQuery{Sort: vitrine.SortName}, n, key))
		if err != nil {
			return "", nil, err
		}
		k := vitrine.KeyOf(ps[len(ps)-1], vitrine.SortName)
		key = &k
		left -= n
	}
	return cursor, key, nil
}

// filterOf is q in its one form, reading limit products after after: the
// store's own read, which the benchmark measures beside the tool's.
func filterOf(q vitrine.ProductQuery, limit int, after *vitrine.ProductKey) vitrine.ProductFilter {
	f, err := vitrine.NewProductFilter(q)
	if err != nil {
		panic(err) // the benchmark's own queries
	}
	return f.Page(limit, after)
}

// benchChange is the change the benchmark's own writes make, outside any
// call: no audit event.
var benchChange = vitrine.Change{Reason: "benchmark"}
