package service_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/vitrine/vitrine"
	"github.com/vitrine/vitrine/service"
)

func TestCursor(t *testing.T) {
	type pos struct{ N int }
	cs := service.NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	c := cs.Encode("tenant-a|name", pos{7})
	var got pos
	if err := cs.Decode("cursor", c, "tenant-a|name", &got); err != nil || got.N != 7 {
		t.Fatalf("round trip: %v %v", got, err)
	}
	body, _, _ := strings.Cut(c, ".")
	forged := base64.RawURLEncoding.EncodeToString([]byte(`{"N":8}`)) + c[len(body):]
	otherKey := service.NewCursors([]byte("another key, of another database")).Encode("tenant-a|name", pos{7})
	for name, bad := range map[string]string{
		"other query": c, "garbage": "not a cursor!", "empty json": "e30", "long": strings.Repeat("A", 2000),
		"unsigned": body, "forged position": forged, "other key": otherKey,
	} {
		scope := "tenant-a|name"
		if name == "other query" {
			scope = "tenant-b|name"
		}
		err := cs.Decode("cursor", bad, scope, &got)
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "cursor" {
			t.Errorf("%s: Decode = %v, want ValidationError on cursor", name, err)
		}
	}
}

// A signed cursor still holds only positions a list can reach: a product
// key's relevance rank is 0 to 2 × vitrine.MatchLevels, and its id an id.
func TestCursorBounds(t *testing.T) {
	cs := service.NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	id := vitrine.NewID()
	for name, k := range map[string]vitrine.ProductKey{
		"rank below": {Rank: -4611686018427387904, ID: id}, "rank above": {Rank: vitrine.RankTiers*vitrine.MatchLevels + 1, ID: id}, "bad id": {Rank: 1, ID: "x"},
		"long name": {Name: strings.Repeat("a", 1000), ID: id},
	} {
		var got vitrine.ProductKey
		err := cs.Decode("cursor", cs.Encode("s", k), "s", &got)
		if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "cursor" {
			t.Errorf("%s: Decode = %v, want ValidationError on cursor", name, err)
		}
	}
	var m vitrine.MemberKey
	if err := cs.Decode("cursor", cs.Encode("s", vitrine.MemberKey{Email: "a@b.c", UserID: "nope"}), "s", &m); vitrine.TypeOf(err) != vitrine.ValidationError {
		t.Errorf("member key with a bad id: %v", err)
	}
}

func FuzzDecodeCursor(f *testing.F) {
	type pos struct {
		N string `json:"n"`
		I int    `json:"i"`
	}
	cs := service.NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	f.Add(cs.Encode("scope", pos{"a", 1}), "scope")
	f.Add("e30", "scope")
	f.Add("not a cursor", "")
	f.Add(strings.Repeat("A", 2000), "x")
	f.Fuzz(func(t *testing.T, cursor, scope string) {
		var p pos
		err := cs.Decode("cursor", cursor, scope, &p)
		if err != nil {
			if e := vitrine.AsError(err); e == nil || e.Type != vitrine.ValidationError || e.Field != "cursor" {
				t.Fatalf("Decode(%q): %v", cursor, err)
			}
			return
		}
		if again := cs.Encode(scope, p); cs.Decode("cursor", again, scope, &p) != nil {
			t.Fatalf("a decoded position does not encode back: %+v", p)
		}
	})
}
