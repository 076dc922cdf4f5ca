package vitrine

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"Maçã": "maca", "MACA": "maca", "São João": "sao joao", "Ação Ünïcode": "acao unicode", "straße": "strasse"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"TechNova Comércio Eletrônico": "technova-comercio-eletronico",
		"  Loja São João!! ":           "loja-sao-joao",
		"***":                          "empresa",
		strings.Repeat("ab ", 40):      strings.TrimSuffix(strings.Repeat("ab-", 21), "-"),
	} {
		got := Slugify(in)
		if got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
		if _, err := ValidateSlug("slug", got); err != nil {
			t.Errorf("Slugify(%q) = %q is not a valid slug: %v", in, got, err)
		}
	}
}

func TestValidateSKU(t *testing.T) {
	for _, ok := range []string{"NB-DELL-5440", "a", "A1.b_c/d-e", strings.Repeat("x", 64)} {
		if _, key, err := ValidateSKU("sku", ok); err != nil || key != strings.ToLower(ok) {
			t.Errorf("ValidateSKU(%q) = %q, %v", ok, key, err)
		}
	}
	for _, bad := range []string{"", "-AB", "AB-", "A B", "maçã", strings.Repeat("x", 65), "A\x00B", "A;DROP"} {
		if _, _, err := ValidateSKU("sku", bad); TypeOf(err) != ValidationError {
			t.Errorf("ValidateSKU(%q) accepted", bad)
		}
	}
}

func TestNormalizeEmail(t *testing.T) {
	addr, key, err := NormalizeEmail("email", " Ana.Souza@TechNova.example ")
	if err != nil || addr != "Ana.Souza@TechNova.example" || key != "ana.souza@technova.example" {
		t.Errorf("NormalizeEmail = %q, %q, %v", addr, key, err)
	}
	for _, bad := range []string{"", "ana", "ana@", "Ana <ana@x.example>", "ana@localhost", "a b@x.example"} {
		if _, _, err := NormalizeEmail("email", bad); TypeOf(err) != ValidationError {
			t.Errorf("NormalizeEmail(%q) accepted", bad)
		}
	}
}

func TestPermissionSet(t *testing.T) {
	member, _ := BuiltinRole(RoleMember)
	if member.Permissions.Has(ProductsDelete) || !member.Permissions.Has(ProductsUpdate) {
		t.Errorf("member: %v", member.Permissions.List())
	}
	owner, _ := BuiltinRole(RoleOwner)
	if owner.Permissions.Len() != len(Permissions) || !owner.Permissions.Covers(member.Permissions) {
		t.Errorf("owner holds %v", owner.Permissions.List())
	}
	admin, _ := BuiltinRole(RoleAdmin)
	if admin.Permissions.Has(TenantsDelete) || admin.Permissions.Len() != len(Permissions)-1 {
		t.Errorf("admin holds %v", admin.Permissions.List())
	}
	s := NewPermissionSet(ProductsRead, AuditRead)
	if back := ParsePermissionSet(s.String() + " retired:permission"); back != s {
		t.Errorf("round trip %q = %v", s.String(), back.List())
	}
	if NewPermissionSet("nonsense:thing") != 0 || KnownPermission("nonsense:thing") {
		t.Error("unknown permission counted")
	}
	if ReadPermissions.Has(ProductsCreate) || !ReadPermissions.Has(AuditRead) {
		t.Errorf("read permissions: %v", ReadPermissions.List())
	}
}

func TestTokenSecret(t *testing.T) {
	s := NewTokenSecret()
	prefix, ok := TokenLookupPrefix(s)
	if !ok || !strings.HasPrefix(s, TokenPrefix) || len(prefix) != len(TokenPrefix)+8 {
		t.Fatalf("secret %q prefix %q", s, prefix)
	}
	tok := Token{Hash: HashToken(s)}
	if !tok.Matches(s) || tok.Matches(NewTokenSecret()) {
		t.Error("Matches")
	}
	if NewTokenSecret() == s {
		t.Error("two secrets alike")
	}
	for _, bad := range []string{"", "vtr_short", "ghp_" + s[4:], s + "x"} {
		if _, ok := TokenLookupPrefix(bad); ok {
			t.Errorf("TokenLookupPrefix(%q) accepted", bad)
		}
	}
}

func TestSearchWords(t *testing.T) {
	for in, want := range map[string]string{
		"a a a A á": "a", "note notebook NO": "notebook", "dell note dell": "dell note", "": "", "x-y x": "x y",
		strings.Repeat("a ", 100): "a",
	} {
		if got := strings.Join(SearchWords(in), " "); got != want {
			t.Errorf("SearchWords(%q) = %q, want %q", in, got, want)
		}
	}
}
