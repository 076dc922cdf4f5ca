package service

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/vitrine/vitrine"
)

// cursorKeyName names the key that signs list cursors in the database.
const cursorKeyName = "cursor"

// cursors returns the signer of list cursors, reading its key from the
// database the first time (or storing a new one there, if this is the
// first server ever to need it).
func (s *Service) cursors(ctx context.Context) (*vitrine.Cursors, error) {
	s.cursorMu.Lock()
	defer s.cursorMu.Unlock()
	if s.cursor != nil {
		return s.cursor, nil
	}
	fresh := make([]byte, vitrine.CursorKeyLength)
	rand.Read(fresh)
	key, err := s.store.ServerKey(ctx, cursorKeyName, fresh)
	if err != nil {
		return nil, err
	}
	s.cursor = vitrine.NewCursors(key)
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
