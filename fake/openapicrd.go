package fake

// customOpenAPIV3 returns the v3 documents of the custom resources served
// now, keyed by index key ("apis/example.com/v1").
func (s *Server) customOpenAPIV3() map[string][]byte {
	return nil
}
