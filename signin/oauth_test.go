package signin

import "testing"

func TestScopeIncludes(t *testing.T) {
	for _, c := range []struct {
		scope, other string
		want         bool
	}{
		{"vitrine:read vitrine:write", "vitrine:read", true},
		{"vitrine:read", "vitrine:read vitrine:write", false},
		{"vitrine:write  vitrine:read", "vitrine:read vitrine:write", true},
		{"vitrine:read vitrine:toolset:products", "vitrine:read vitrine:toolset:members", false},
		{"", "", true},
		{"vitrine:read", "", true},
		{"", "vitrine:read", false},
	} {
		if got := ScopeIncludes(c.scope, c.other); got != c.want {
			t.Errorf("ScopeIncludes(%q, %q) = %v", c.scope, c.other, got)
		}
	}
}
