package service

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
)

// cursorKeyName names the key that signs list cursors in the database.
const cursorKeyName = "cursor"

// cursors returns the signer of list cursors, reading its key from the
// database the first time (or storing a new one there, if this is the
// first server ever to need it).
func (s *Service) cursors(ctx context.Context) (*Cursors, error) {
	s.cursorMu.Lock()
	defer s.cursorMu.Unlock()
	if s.cursor != nil {
		return s.cursor, nil
	}
	fresh := make([]byte, CursorKeyLength)
	rand.Read(fresh)
	key, err := s.store.ServerKey(ctx, cursorKeyName, fresh)
	if err != nil {
		return nil, err
	}
	s.cursor = NewCursors(key)
	return s.cursor, nil
}

// SealState returns a token, signed like cursors, that says the server
// itself issued it for scope, valid for ttl: a multi round-trip call's
// requestState, which proves that a retry answers a question the server
// asked rather than one the client made up.
func (s *Service) SealState(ctx context.Context, scope string, ttl time.Duration) (string, error) {
	cs, err := s.cursors(ctx)
	if err != nil {
		return "", err
	}
	return cs.Encode("state\x00"+scope, s.now().Add(ttl).Unix()), nil
}

// OpenState reports whether state is a token SealState issued for scope
// that has not expired.
func (s *Service) OpenState(ctx context.Context, scope, state string) (bool, error) {
	cs, err := s.cursors(ctx)
	if err != nil {
		return false, err
	}
	var expires int64
	if cs.Decode("state", state, "state\x00"+scope, &expires) != nil {
		return false, nil
	}
	return s.now().Unix() < expires, nil
}

// Cursors makes and reads the cursors of lists. A cursor is opaque to
// agents: base64url JSON holding a keyset position, then a MAC of that
// position and of the query it belongs to, under a key the database keeps
// (so every instance agrees, and a restart keeps cursors valid). A cursor
// an agent wrote itself, or one replayed against another query, is refused
// before its position is read.
type Cursors struct {
	key []byte
}

// NewCursors returns the cursors signed with key.
func NewCursors(key []byte) *Cursors { return &Cursors{key: key} }

// CursorKeyLength is the length of a cursor key in bytes.
const CursorKeyLength = 32

// MaxCursorLength bounds what Decode reads, and the cursor argument.
const MaxCursorLength = 1024

// cursorMACLength is the length of a cursor's MAC in bytes: 128 bits.
const cursorMACLength = 16

// A cursorPosition checks its own bounds once its MAC is verified: what a
// cursor may hold is bounded even under a leaked key.
type cursorPosition interface{ ValidCursor() bool }

func (c *Cursors) mac(scope string, pos []byte) []byte {
	h := hmac.New(sha256.New, c.key)
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write(pos)
	return h.Sum(nil)[:cursorMACLength]
}

// Encode returns the cursor for position pos in the list that scope
// describes.
func (c *Cursors) Encode(scope string, pos any) string {
	raw, err := json.Marshal(pos)
	if err != nil {
		panic(err) // positions are plain structs
	}
	return base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(c.mac(scope, raw))
}

// Decode reads a cursor made by Encode for the same scope into pos. Any
// other string is a ValidationError naming field.
func (c *Cursors) Decode(field, s, scope string, pos any) error {
	invalid := vitrine.Invalid(field, "%s is not a cursor from this list; pass the next_cursor of the previous page unchanged, with the same filters", field)
	if len(s) > MaxCursorLength {
		return invalid
	}
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return invalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return invalid
	}
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, c.mac(scope, raw)) {
		return invalid
	}
	if json.Unmarshal(raw, pos) != nil {
		return invalid
	}
	if p, ok := pos.(cursorPosition); ok && !p.ValidCursor() {
		return invalid
	}
	return nil
}
