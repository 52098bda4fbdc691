package web

func (s *Server) ingestRoutes(r guarded) {}
