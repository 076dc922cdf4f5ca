package vitrine

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
)

// A cursor is opaque to agents: base64url JSON holding a keyset position and
// a digest of the query it belongs to, so that a cursor replayed against
// another query is refused instead of silently skipping rows.
type cursor struct {
	Scope string          `json:"s"`
	Pos   json.RawMessage `json:"k"`
}

// MaxCursorLength bounds what DecodeCursor reads, and the cursor argument.
const MaxCursorLength = 1024

func cursorScope(scope string) string {
	h := sha256.Sum256([]byte(scope))
	return hex.EncodeToString(h[:6])
}

// EncodeCursor returns the cursor for position pos in the list that scope
// describes.
func EncodeCursor(scope string, pos any) string {
	raw, err := json.Marshal(pos)
	if err != nil {
		panic(err) // positions are plain structs
	}
	data, _ := json.Marshal(cursor{Scope: cursorScope(scope), Pos: raw})
	return base64.RawURLEncoding.EncodeToString(data)
}

// DecodeCursor reads a cursor made by EncodeCursor for the same scope into pos.
func DecodeCursor(field, s, scope string, pos any) error {
	invalid := Invalid(field, "%s is not a cursor from this list; pass the next_cursor of the previous page unchanged, with the same filters", field)
	if len(s) > MaxCursorLength {
		return invalid
	}
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return invalid
	}
	var c cursor
	if json.Unmarshal(data, &c) != nil || c.Scope != cursorScope(scope) || json.Unmarshal(c.Pos, pos) != nil {
		return invalid
	}
	return nil
}
