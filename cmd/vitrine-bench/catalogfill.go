package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/accounts"
	"github.com/vitrine/vitrine/store"
)

// The shape of the generated catalog: what a shop of furniture and
// clothes holds, in the counts the catalog's targets name.
var (
	catalogSizes  = []string{"XS", "S", "M", "L", "XL"}
	catalogColors = []string{"Azul", "Verde", "Preto", "Branco", "Cinza", "Vermelho", "Bege", "Marrom"}
	// catalogVendors (50), catalogTags (100) and the product types (nouns,
	// 20) are what the filters and facets pick from.
	catalogVendors = func() []string {
		out := make([]string, 50)
		for i := range out {
			out[i] = fmt.Sprintf("Fornecedor %02d", i+1)
		}
		return out
	}()
	catalogTags = func() []string {
		out := make([]string, 100)
		for i := range out {
			out[i] = fmt.Sprintf("coleção-%02d", i+1)
		}
		return out
	}()
	catalogRoots = []string{"Casa", "Escritório", "Jardim", "Roupas", "Infantil"}
)

// The option filtered on, and the vendor, tag and query of the filtered lists.
const (
	filterSize   = "M"
	filterVendor = "Fornecedor 07"
	filterTag    = "coleção-42"
	// filterQuery is the text query of a faceted list: a type of 20,
	// and a word of names (about a tenth of the products).
	filterQuery = "cadeira"
)

// leaf is a category products go in, with its path (as files name it).
type leaf struct {
	vitrine.ProductCategory
	path string
}

// catalogDB is a database for the catalog's scenarios: a user who owns
// every company made in it, and a token of theirs for every tool.
type catalogDB struct {
	db     *store.DB
	svc    *service.Service
	author string
	email  string
	token  string
}

func openCatalogDB(ctx context.Context, url string) (*catalogDB, error) {
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		return nil, err
	}
	svc := service.New(db, nil)
	op := svc.Operator()
	u, err := op.CreateUser(ctx, "bench@vitrine.example", "Bench")
	if err != nil {
		db.Close()
		return nil, err
	}
	_, token, err := op.CreateToken(ctx, accounts.NewToken{Email: u.Email, Name: "bench", Toolsets: []string{"all"}})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &catalogDB{db: db, svc: svc, author: u.ID, email: u.Email, token: token}, nil
}

// reopenCatalogDB opens a database openCatalogDB filled, with a new token
// of its user.
func reopenCatalogDB(ctx context.Context, url string) (*catalogDB, error) {
	db, err := store.Open(ctx, url, store.Options{MustExist: true})
	if err != nil {
		return nil, err
	}
	svc := service.New(db, nil)
	op := svc.Operator()
	u, err := op.User(ctx, "email", "bench@vitrine.example")
	if err != nil {
		db.Close()
		return nil, err
	}
	_, token, err := op.CreateToken(ctx, accounts.NewToken{Email: u.Email, Name: "bench", Toolsets: []string{"all"}})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &catalogDB{db: db, svc: svc, author: u.ID, email: u.Email, token: token}, nil
}

func (c *catalogDB) Close() error { return c.db.Close() }

// company makes a company owned by the benchmark's user.
func (c *catalogDB) company(ctx context.Context, slug string) (string, error) {
	t, err := c.svc.Operator().CreateTenant(ctx, "Bench "+slug, slug, c.email)
	if err != nil {
		return "", err
	}
	return t.ID, nil
}

// categories makes the company's tree of 30 categories: 5 at the root,
// 5 under each; products go in the 25 below.
func (c *catalogDB) categories(ctx context.Context, tenantID string) ([]leaf, error) {
	var leaves []leaf
	now := vitrine.Now()
	save := func(parent, name, path string, pos int) (string, error) {
		cat := &vitrine.Category{ID: vitrine.NewID(), TenantID: tenantID, ParentID: parent, Name: name, Handle: vitrine.HandleOf(path),
			Position: pos, CreatedAt: now, UpdatedAt: now}
		return cat.ID, c.db.SaveCategory(ctx, benchChange, cat, false)
	}
	for i, root := range catalogRoots {
		rootID, err := save("", root, root, i+1)
		if err != nil {
			return nil, err
		}
		for j := range 5 {
			name := fmt.Sprintf("%s %d", root, j+1)
			path := root + " > " + name
			id, err := save(rootID, name, path, j+1)
			if err != nil {
				return nil, err
			}
			leaves = append(leaves, leaf{vitrine.ProductCategory{ID: id, Name: name}, path})
		}
	}
	return leaves, nil
}

// syntheticLeaves is the same tree for products that go to a file, not a
// database: ids of no company, paths as the file names them.
func syntheticLeaves() []leaf {
	var leaves []leaf
	for _, root := range catalogRoots {
		for j := range 5 {
			name := fmt.Sprintf("%s %d", root, j+1)
			leaves = append(leaves, leaf{vitrine.ProductCategory{ID: vitrine.NewID(), Name: name}, root + " > " + name})
		}
	}
	return leaves
}

// catalogProduct is product i of a generated catalog: three variants (3 of
// 5 sizes, in one of 8 colors), a vendor of 50, a type of 20, 3 tags of
// 100, a category of the 25 leaves, one image; one product in five on
// sale; most active. The same i and rng state give the same product.
func catalogProduct(rng *rand.Rand, tenantID, author, prefix string, i int, leaves []leaf) *vitrine.Product {
	sku := fmt.Sprintf("%s%07d", prefix, i)
	p := baseProduct(rng, tenantID, author, sku, i, leaves)
	sizes := slices.Clone(catalogSizes)
	rng.Shuffle(len(sizes), func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
	sizes = sizes[:3]
	color := catalogColors[rng.IntN(len(catalogColors))]
	price := int64(1000 + rng.IntN(200000))
	sale := rng.IntN(5) == 0
	for _, s := range sizes {
		p.Variants = append(p.Variants, variant(sku+"-"+s, map[string]string{"Size": s, "Color": color}, price, int64(rng.IntN(20)), sale))
	}
	p.Media = []vitrine.Media{{URL: "https://cdn.vitrine.example/p/" + sku + ".jpg", Alt: p.Name}}
	return finish(p)
}

// richProduct is a product of 10 variants (Size × Color) and 10 images,
// the one get_product is measured on beside a product of one variant.
func richProduct(rng *rand.Rand, tenantID, author string, i int, leaves []leaf) *vitrine.Product {
	sku := fmt.Sprintf("R%07d", i)
	p := baseProduct(rng, tenantID, author, sku, i, leaves)
	price := int64(1000 + rng.IntN(200000))
	for _, color := range catalogColors[:2] {
		for _, s := range catalogSizes {
			p.Variants = append(p.Variants, variant(sku+"-"+s+"-"+color, map[string]string{"Size": s, "Color": color}, price, int64(rng.IntN(20)), i%5 == 0))
		}
	}
	for k := range 10 {
		p.Media = append(p.Media, vitrine.Media{URL: fmt.Sprintf("https://cdn.vitrine.example/p/%s-%d.jpg", sku, k+1), Alt: fmt.Sprintf("%s, foto %d", p.Name, k+1)})
	}
	p.Variants[0].Image = p.Media[0].URL
	return finish(p)
}

// singleProduct is the same kind of product with one variant and one
// image: the seed's product, and the baseline of richProduct's reads.
func singleProduct(rng *rand.Rand, tenantID, author string, i int, leaves []leaf) *vitrine.Product {
	sku := fmt.Sprintf("S%07d", i)
	p := baseProduct(rng, tenantID, author, sku, i, leaves)
	p.SetOneVariant(vitrine.NewID(), sku, int64(1000+rng.IntN(200000)), int64(rng.IntN(20)))
	p.Media = []vitrine.Media{{URL: "https://cdn.vitrine.example/p/" + sku + ".jpg", Alt: p.Name}}
	return finish(p)
}

func baseProduct(rng *rand.Rand, tenantID, author, sku string, i int, leaves []leaf) *vitrine.Product {
	now := vitrine.Now()
	name, description := productText(rng, i, false)
	status := vitrine.ProductActive
	switch n := rng.IntN(20); {
	case n < 2:
		status = vitrine.ProductDraft
	case n < 3:
		status = vitrine.ProductArchived
	}
	tags := make([]string, 0, 3)
	for len(tags) < 3 {
		if t := catalogTags[rng.IntN(len(catalogTags))]; !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return &vitrine.Product{ID: vitrine.NewID(), TenantID: tenantID, Handle: vitrine.HandleOf(sku), Name: name, Description: description,
		Vendor: catalogVendors[rng.IntN(len(catalogVendors))], ProductType: nouns[rng.IntN(len(nouns))], Tags: tags, Status: status,
		Categories: []vitrine.ProductCategory{leaves[rng.IntN(len(leaves))].ProductCategory},
		Currency:   "BRL", Version: 1, CreatedAt: now, CreatedBy: author, UpdatedAt: now, UpdatedBy: author}
}

func variant(sku string, options map[string]string, price, stock int64, sale bool) *vitrine.Variant {
	v := &vitrine.Variant{ID: vitrine.NewID(), SKU: sku, Options: options, Price: price, Stock: stock,
		Policy: vitrine.PolicyDeny, RequiresShipping: true, Taxable: true}
	if sale {
		c := price * 12 / 10
		v.CompareAtPrice = &c
	}
	return v
}

// finish puts the product in its one form (options from the variants,
// positions, summary), as the service does before a write.
func finish(p *vitrine.Product) *vitrine.Product {
	if err := p.ValidateCatalog(nil); err != nil {
		panic(fmt.Sprintf("a generated product is invalid: %v", err))
	}
	return p
}

// fillCatalog writes count products made by gen(rng, i) into the
// company, through the store in batches, a few at once, as fill does; it
// returns up to 10,000 of their ids, sampled evenly, the variants
// written and the rates of the fill's first and last tenths.
func (c *catalogDB) fillCatalog(ctx context.Context, count int, gen func(rng *rand.Rand, i int) *vitrine.Product) (sample []string, variants int, rates fillRates, err error) {
	rng := rand.New(rand.NewPCG(3, 4))
	every := max(1, count/10000)
	i := 0
	rates, err = writeProducts(ctx, c.db, 2000, func() *vitrine.Product {
		if i == count {
			return nil
		}
		p := gen(rng, i)
		variants += len(p.Variants)
		if i%every == 0 && len(sample) < 10000 {
			sample = append(sample, p.ID)
		}
		i++
		return p
	})
	if err != nil {
		return nil, 0, rates, err
	}
	return sample, variants, rates, nil
}
