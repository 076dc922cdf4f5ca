package mcpserver_test

import (
	"testing"

	"github.com/vitrine/vitrine/internal/dbtest"
	"github.com/vitrine/vitrine/internal/testkit"
)

type attributeOut struct {
	Key    string
	Public bool
}

// An attribute is private until save_attribute says public; list_attributes
// shows which are; an update that does not say keeps it.
func TestAttributePublicThroughTheTools(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		w := newWorld(t, url)
		cs := w.session("memory", owner)
		tn := w.tenants["technova"]
		if a := testkit.OK[attributeOut](t, cs, "save_attribute", map[string]any{"tenant_id": tn, "key": "material", "type": "text"}); a.Public {
			t.Errorf("a new attribute is public: %+v", a)
		}
		if a := testkit.OK[attributeOut](t, cs, "save_attribute", map[string]any{"tenant_id": tn, "key": "material", "public": true}); !a.Public {
			t.Errorf("made public: %+v", a)
		}
		if a := testkit.OK[attributeOut](t, cs, "save_attribute", map[string]any{"tenant_id": tn, "key": "material", "name": "Fabric"}); !a.Public {
			t.Errorf("renamed, it stays public: %+v", a)
		}
		list := testkit.OK[struct{ Attributes []attributeOut }](t, cs, "list_attributes", map[string]any{"tenant_id": tn})
		public := map[string]bool{}
		for _, a := range list.Attributes {
			public[a.Key] = a.Public
		}
		if !public["material"] {
			t.Errorf("list_attributes: %+v", list.Attributes)
		}
	})
}
