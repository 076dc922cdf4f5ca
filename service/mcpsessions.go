package service

import "context"

// EndMCPSession records that a client ended its MCP session (protocol
// 2025-11-25), so that every instance refuses a later request of it,
// whichever instance held it.
func (s *Service) EndMCPSession(ctx context.Context, id string) error {
	return s.store.EndMCPSession(ctx, id, s.now())
}

// MCPSessionEnded reports whether a client ended the session.
func (s *Service) MCPSessionEnded(ctx context.Context, id string) (bool, error) {
	return s.store.MCPSessionEnded(ctx, id)
}
