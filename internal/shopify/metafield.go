package shopify

import (
	"fmt"
	"strings"
)

// Metafield is a product metafield column of the header, read as a text
// attribute. The caller creates the attribute definitions it lacks (type
// text) before it imports the products.
type Metafield struct {
	Column    string // as written: "Material (product.metafields.custom.material)"
	Name      string // "Material"
	Namespace string // "custom"
	Key       string // "material", Shopify's
	Attribute string // the key of Product.Attributes: AttributeKey(Key), or AttributeKey(Namespace_Key) when two columns would share one
	index     int
}

// metafield takes the header's column i, name, which metafieldRE matched as
// m, as an attribute; attrs holds the attribute keys taken, by column.
// A variant metafield, or one whose key another column has, is reported
// as not imported.
func (rd *Reader) metafield(name string, i int, m []string, attrs map[string]string) {
	if strings.EqualFold(m[2], "variant") {
		rd.unmodelled = append(rd.unmodelled, Issue{Column: name, Message: "not modelled: Vitrine's attributes are the product's; variant metafields are not imported"})
		return
	}
	mf := Metafield{Column: name, Name: m[1], Namespace: m[3], Key: m[4], Attribute: AttributeKey(m[4]), index: i}
	if _, taken := attrs[mf.Attribute]; taken {
		mf.Attribute = AttributeKey(m[3] + "_" + m[4])
	}
	if other, taken := attrs[mf.Attribute]; taken {
		rd.unmodelled = append(rd.unmodelled, Issue{Column: name, Message: fmt.Sprintf("not imported: its attribute key %q is that of the column %q already", mf.Attribute, other)})
		return
	}
	attrs[mf.Attribute] = name
	rd.metafields = append(rd.metafields, mf)
}

// attributes reads the metafield cells of a product's first row: nil when
// they are all blank.
func (r *Reader) attributes(first *row) map[string]any {
	var attrs map[string]any
	for _, m := range r.metafields {
		if m.index >= len(first.cells) {
			continue
		}
		if v := strings.TrimSpace(first.cells[m.index]); v != "" {
			if attrs == nil {
				attrs = map[string]any{}
			}
			attrs[m.Attribute] = v
		}
	}
	return attrs
}

// noteMetafields notes the metafield cells of a following row that differ
// from the first row's: a product's metafields are read from its first row.
func (r *Reader) noteMetafields(b *builder, first, rw *row) {
	for _, m := range r.metafields {
		if m.index < len(rw.cells) && m.index < len(first.cells) {
			if s := strings.TrimSpace(rw.cells[m.index]); s != "" && s != strings.TrimSpace(first.cells[m.index]) {
				b.issues = append(b.issues, Issue{Line: rw.line, Column: m.Column, Handle: b.handle,
					Message: fmt.Sprintf("ignored: the product's metafields are read from its first row (line %d)", first.line),
					Kind:    m.Column + "\x00ignored: metafields"})
			}
		}
	}
}
