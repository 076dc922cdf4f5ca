package catalog_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/productfile"
	"github.com/vitrine/vitrine/service"
	"github.com/vitrine/vitrine/service/catalog"
)

// BenchmarkTranslationImport imports 10,000 products from JSON Lines (as
// vitrine product import does: batches of 1,000), then their Shopify
// translation CSV in one locale (title, body_html and product_type, three
// rows a product), and reports both rates in products a second and their
// ratio (issue 47 asks the CSV's ≥ 0.5× the JSON Lines'). One iteration is
// the measure: go test ./service/catalog -run '^$' -bench TranslationImport -benchtime 1x
func BenchmarkTranslationImport(b *testing.B) {
	const n = 10000
	var jl, csv bytes.Buffer
	csv.WriteString("Type,Identification,Field,Locale,Market,Status,Default content,Translated content\n")
	for i := range n {
		fmt.Fprintf(&jl, `{"handle":"produto-%d","name":"Produto %d","description":"<p>Uma descrição do produto %d.</p>","product_type":"Móveis","sku":"SKU-%d","price":"19.90","stock":3}`+"\n", i, i, i, i)
		fmt.Fprintf(&csv, "PRODUCT,produto-%d,title,es,,,Produto %d,Producto %d\n", i, i, i)
		fmt.Fprintf(&csv, "PRODUCT,produto-%d,body_html,es,,,<p>Uma descrição do produto %d.</p>,<p>Una descripción del producto %d.</p>\n", i, i, i)
		fmt.Fprintf(&csv, "PRODUCT,produto-%d,product_type,es,,,Móveis,Muebles\n", i)
	}
	for _, d := range dbtest.Dialects() {
		b.Run(d.Name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				st := dbtest.Open(b, d.URL(b))
				svc := service.New(st, nil)
				if _, err := svc.Operator().CreateUser(ctx, email("olga"), "olga"); err != nil {
					b.Fatal(err)
				}
				if _, err := svc.Operator().CreateTenant(ctx, "Bench", "bench", email("olga")); err != nil {
					b.Fatal(err)
				}
				a, err := svc.Operator().Actor(ctx, "bench", "", "bench")
				if err != nil {
					b.Fatal(err)
				}
				ten, err := st.TenantByID(ctx, a.TenantID)
				if err != nil {
					b.Fatal(err)
				}
				ten.Locales = []string{"pt-BR", "es"}
				if err := st.UpdateTenant(ctx, a.Change(), ten); err != nil {
					b.Fatal(err)
				}
				cat := catalog.New(svc)
				b.StartTimer()

				start := time.Now()
				importJSONLines(b, cat, a, jl.Bytes())
				products := time.Since(start)

				start = time.Now()
				res, err := cat.ImportTranslationsFile(ctx, a, bytes.NewReader(csv.Bytes()), "shopify", 0, nil)
				if err != nil || res.Created != 3*n {
					b.Fatalf("translations: %v %v", res, err)
				}
				translations := time.Since(start)

				b.ReportMetric(n/products.Seconds(), "jsonl_products/s")
				b.ReportMetric(n/translations.Seconds(), "csv_products/s")
				b.ReportMetric(products.Seconds()/translations.Seconds(), "ratio")
			}
		})
	}
}

// importJSONLines imports a product file as vitrine product import does.
func importJSONLines(b *testing.B, cat *catalog.Catalog, a *service.Access, file []byte) {
	rd, err := productfile.NewReader(bytes.NewReader(file), productfile.JSONLines)
	if err != nil {
		b.Fatal(err)
	}
	var batch []catalog.ImportRow
	flush := func() {
		if len(batch) == 0 {
			return
		}
		sum, err := cat.ImportProducts(ctx, a, batch, "create", false, nil)
		if err != nil || sum.Failed > 0 {
			b.Fatalf("import: %v %+v", err, sum)
		}
		batch = batch[:0]
	}
	for {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		p := row.Product
		np := catalog.NewProduct{Name: p.Name, Description: p.Description, ProductType: p.ProductType, Handle: p.Handle, SKU: p.SKU, Price: p.Price}
		if p.Stock != nil {
			np.Stock = *p.Stock
		}
		batch = append(batch, catalog.ImportRow{NewProduct: np, Given: row.Given})
		if len(batch) == 1000 {
			flush()
		}
	}
	flush()
}
