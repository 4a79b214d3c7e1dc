package mcp

// Connected reports whether the toolset has an open connection.
func (s *Toolset) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil && s.conn.alive()
}
