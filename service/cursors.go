package service

import (
	"context"
	"crypto/rand"

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
