package mcpserver

import (
	"slices"
	"testing"
)

// The translations toolset's tools, named as issue 47 names them, each
// with a description and the operation that checks its permission.
func TestTranslationToolsDefined(t *testing.T) {
	var got []string
	for _, tool := range translationTools() {
		got = append(got, tool.Name)
		if tool.Toolset != "translations" || tool.Description == "" || tool.Op == "" || tool.Title == "" {
			t.Errorf("%s: %+v", tool.Name, tool)
		}
	}
	if want := []string{"get_translations", "translate_product", "translate_category"}; !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
}
