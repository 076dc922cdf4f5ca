package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/internal/dbtest"
)

type translationAnswer struct {
	Created, Updated, Removed, Unchanged, Skipped, Failed int
	Rows                                                  []struct {
		Line                           int
		Ref, ID, Field, Locale, Status string
		Note                           string
		Error                          *struct{ Type, Message string }
	}
	RowsOmitted int `json:"rows_omitted"`
}

// import_translations writes a company's translations from a file, each
// line with its outcome; a line naming another company's product (by
// handle or id) fails as a product nobody has; a viewer may not; the
// answer is bounded.
func TestImportTranslationsTool(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		for _, slug := range []string{"technova", "mercado-verde"} {
			ten, err := w.db.TenantBySlug(ctx, slug)
			if err != nil {
				t.Fatal(err)
			}
			ten.Locales = []string{"pt-BR", "es"}
			if err := w.db.UpdateTenant(ctx, vitrine.Change{}, ten); err != nil {
				t.Fatal(err)
			}
		}
		technova, verde := w.tenants["technova"], w.tenants["mercado-verde"]
		theirs, err := w.db.ProductsByHandle(ctx, verde, []string{"maca-fuji-kg"})
		if err != nil || len(theirs) == 0 {
			t.Fatal(theirs, err)
		}
		cs := w.sessionWithToken("memory", w.token(owner, []string{"translations"}))
		call := func(args map[string]any) (translationAnswer, *mcp.CallToolResult) {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "import_translations", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			var out translationAnswer
			if !res.IsError {
				if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
					t.Fatal(err)
				}
			}
			return out, res
		}
		csv := "Type,Identification,Field,Locale,Market,Status,Default content,Translated content\n" +
			"PRODUCT,notebook-dell-inspiron-15,title,es,,,x,Portátil Dell\n" +
			"PRODUCT," + theirs["maca-fuji-kg"].Handle + ",title,es,,,x,Y\n" +
			"PRODUCT," + theirs["maca-fuji-kg"].ID + ",title,es,,,x,Y\n" +
			"PRODUCT,notebook-dell-inspiron-15,weight,es,,,x,Y\n"
		out, _ := call(map[string]any{"tenant_id": technova, "format": "shopify", "text": csv})
		if out.Created != 1 || out.Failed != 3 || len(out.Rows) != 4 || out.Rows[0].Status != "created" || out.Rows[0].ID == "" || out.Rows[0].Error != nil ||
			!strings.Contains(out.Rows[1].Error.Message, "no product with handle or id") || !strings.Contains(out.Rows[3].Error.Message, `"weight"`) {
			t.Fatalf("%+v", out)
		}
		ts, err := w.db.Translations(ctx, verde, vitrine.TranslateProduct, []string{theirs["maca-fuji-kg"].ID}, "")
		if err != nil || len(ts) != 0 {
			t.Fatalf("the other company's product was translated: %v %v", ts, err)
		}

		// JSON Lines.
		out, _ = call(map[string]any{"tenant_id": technova, "format": "jsonl",
			"text": `{"handle":"notebook-dell-inspiron-15","translations":{"es":{"name":"Portátil Dell Inspiron","product_type":"Portátil"}}}`})
		if out.Updated != 1 || out.Created != 1 {
			t.Fatalf("jsonl: %+v", out)
		}

		// A viewer may not.
		vs := w.sessionWithToken("memory", w.token(viewer, []string{"translations"}))
		res, err := vs.CallTool(ctx, &mcp.CallToolParams{Name: "import_translations", Arguments: map[string]any{"tenant_id": technova, "format": "jsonl", "text": "{}"}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "PermissionError") {
			t.Fatalf("a viewer: %v %s", err, res.Content[0].(*mcp.TextContent).Text)
		}

		// Bounded: 10,000 rows, every one failing, answer within 16 KiB;
		// one row more is refused whole.
		var b strings.Builder
		b.WriteString("Type,Identification,Field,Locale,Market,Status,Default content,Translated content\n")
		for i := range 10000 {
			fmt.Fprintf(&b, "PRODUCT,nobody-%d,title,es,,,x,y\n", i)
		}
		out, res = call(map[string]any{"tenant_id": technova, "format": "shopify", "text": b.String()})
		wire, _ := json.Marshal(res)
		if out.Failed != 10000 || len(out.Rows)+out.RowsOmitted != 10000 || len(wire) > 16<<10 {
			t.Fatalf("10,000 rows: %d bytes, %d failed, %d listed", len(wire), out.Failed, len(out.Rows))
		}
		b.WriteString("PRODUCT,one-more,title,es,,,x,y\n")
		_, res = call(map[string]any{"tenant_id": technova, "format": "shopify", "text": b.String()})
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "more than 10000 rows") {
			t.Fatalf("10,001 rows: %+v", res)
		}
	})
}
