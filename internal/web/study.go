package web

func (s *Server) studyRoutes(r guarded) {}
