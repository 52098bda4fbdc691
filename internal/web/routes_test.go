package web

import "testing"

// TestRouteTable: each path and method is in the table once, and each
// form action names the page a GET of it leads to, which is a page of the
// table: its own path only when a page serves that path.
func TestRouteTable(t *testing.T) {
	ts := newTestServer(t)
	table := ts.routeTable()
	pages := map[string]bool{}
	type key struct {
		method method
		path   string
	}
	seen := map[key]bool{}
	for _, r := range table {
		if seen[key{r.method, r.path}] {
			t.Errorf("%s is in the table twice for the same method", r.path)
		}
		seen[key{r.method, r.path}] = true
		if r.method == get {
			pages[r.path] = true
		}
		if r.handler == nil {
			t.Errorf("%s has no handler", r.path)
		}
	}
	for _, r := range table {
		switch {
		case r.method == get && r.getLeadsTo != "":
			t.Errorf("page %s leads to %s: only a form action leads to a page", r.path, r.getLeadsTo)
		case r.method != post:
		case r.getLeadsTo == "":
			t.Errorf("form action %s names no page for a GET of it", r.path)
		case !pages[r.getLeadsTo]:
			t.Errorf("form action %s leads to %s, which is no page of the table", r.path, r.getLeadsTo)
		case pages[r.path] && r.getLeadsTo != r.path:
			t.Errorf("form action %s leads to %s, but a page serves its path", r.path, r.getLeadsTo)
		}
	}
}
