package web

func (s *Server) importRoutes(r guarded) {}
