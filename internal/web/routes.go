package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"kubequiz/static"
)

// method is what a route answers.
type method int

const (
	get  method = iota // a page: GET and HEAD
	post               // a form action: POST
)

// guard is who may use a route.
type guard int

const (
	anyone  guard = iota // everyone; the handler checks what it needs
	members              // a signed-in account (requireUser)
	admins               // a signed-in admin (requireUser, requireAdmin)
)

// route is one row of the route table.
type route struct {
	method  method
	path    string
	guard   guard
	handler echo.HandlerFunc
	// getLeadsTo is, for a form action, the page a GET of its path leads
	// to: after a refused form the address bar shows the action's URL, and
	// a learner who opens it again gets the page that holds the form, not
	// "method not allowed". It is the action's own path when a page of
	// the table serves that path. The page's parameters (":id") take the
	// values of the action's path.
	getLeadsTo string
}

// routeTable is every route kubequiz serves: its method, path, guard and
// handler, and for a form action the page a GET of it leads to. routes
// registers them all, and nothing else registers a route.
func (s *Server) routeTable() []route {
	a := &accounts{Server: s, hash: s.passwords}
	in := s.ingest
	return []route{
		{get, "/", anyone, s.home, ""},
		{get, "/healthz", anyone, s.healthz, ""},
		{get, static.URLPrefix + "*", anyone, s.staticFile, ""},

		// Accounts: accounts.go, accounts_setup.go, accounts_admin.go.
		{get, "/login", anyone, a.loginPage, ""},
		{post, "/login", anyone, a.login, "/login"},
		{post, "/logout", anyone, a.logout, "/"},
		{get, "/register", anyone, a.registerPage, ""},
		{post, "/register", anyone, a.register, "/register"},
		{get, "/setup", anyone, a.setupPage, ""},
		{post, "/setup", anyone, a.setup, "/setup"},
		{get, "/account", members, a.accountPage, ""},
		{post, "/account/name", members, a.changeName, "/account"},
		{post, "/account/limits", members, a.changeLimits, "/account"},
		{post, "/account/timezone", members, a.changeTimezone, "/account"},
		{post, "/account/retention", members, a.changeRetention, "/account"},
		{post, "/account/password", members, a.changePassword, "/account"},
		{get, "/admin/users", admins, a.adminUsers, ""},
		{post, "/admin/users/registration", admins, a.setRegistration, "/admin/users"},
		{post, "/admin/users/invites", admins, a.createInvite, "/admin/users"},
		{post, "/admin/users/invites/revoke", admins, a.revokeInvites, "/admin/users"},
		{post, "/admin/users/:id/disable", admins, a.disableUser, "/admin/users"},
		{post, "/admin/users/:id/enable", admins, a.enableUser, "/admin/users"},
		{post, "/admin/users/:id/signout", admins, a.signOutUser, "/admin/users"},

		// The decks page and the review loop: study.go. Every form works
		// without script (the answer form as a GET, which changes nothing;
		// the others as POSTs); htmx, when present, posts them and swaps
		// the answer into the page.
		{get, "/decks", members, s.decks, ""},
		{post, "/decks/:slug/subscription", members, s.setSubscription, "/decks"},
		{get, "/study", members, s.study, ""},
		{get, "/study/:slug", members, s.study, ""},
		{get, "/study/answer", members, s.answer, ""},
		{post, "/study/answer", members, s.answer, "/study/answer"},
		{post, "/study/grade", members, s.grade, "/study"},
		{post, "/study/undo", members, s.undo, "/study"},
		{get, "/study/group/:id", members, s.study, ""},

		// Study groups: groups.go, groups_progress.go. A user outside a
		// group gets a 404 for it and for every route under it, a member
		// a 403 for what only organizers may do (the store checks both).
		// The invite link's page is open to anyone: a visitor signed out
		// sees the group's name and signs in or registers first.
		{get, "/groups", members, s.groups, ""},
		{post, "/groups", members, s.createGroup, "/groups"},
		{get, "/groups/:id", members, s.groupPage, ""},
		{get, "/groups/:id/progress", members, s.groupProgress, ""},
		{get, "/groups/:id/progress.csv", members, s.groupExport, ""},
		{post, "/groups/:id/meetup-mode", members, s.setMeetupMode, "/groups/:id"},
		{post, "/groups/:id/leave", members, s.leaveGroup, "/groups/:id"},
		{post, "/groups/:id/invite", members, s.newGroupInvite, "/groups/:id"},
		{post, "/groups/:id/invite/revoke", members, s.revokeGroupInvite, "/groups/:id"},
		{post, "/groups/:id/decks/:slug/presenter", members, s.setPresenter, "/groups/:id"},
		{post, "/groups/:id/members/:user/role", members, s.setGroupRole, "/groups/:id"},
		{post, "/groups/:id/members/:user/handover", members, s.handOverGroup, "/groups/:id"},
		{post, "/groups/:id/members/:user/remove", members, s.removeGroupMember, "/groups/:id"},
		{get, "/groups/:id/delete", members, s.deleteGroupPage, ""},
		{post, "/groups/:id/delete", members, s.deleteGroup, "/groups/:id/delete"},
		{get, "/groups/join/:code", anyone, s.joinPage, ""},
		{post, "/groups/join/:code", members, s.joinGroup, "/groups/join/:code"},

		// The learner's progress: stats.go.
		{get, "/stats", members, s.statsPage, ""},
		// The learner's own data as CSV: export.go.
		{get, "/export/reviews.csv", members, s.exportReviews, ""},
		{get, "/export/cards.csv", members, s.exportCards, ""},

		// A feature's stages over every stored document, which the study
		// feedback links (features.go).
		{get, "/features/:name", members, s.feature, ""},

		// Question files: upload YAML files, preview the dry run, then
		// apply or cancel (admin_import.go).
		{get, "/admin/import", admins, s.importForm, ""},
		{post, "/admin/import", admins, s.importUpload, "/admin/import"},
		{get, "/admin/import/:id", admins, s.importPreview, ""},
		{post, "/admin/import/:id/apply", admins, s.importApply, "/admin/import/:id"},
		{get, "/admin/import/:id/done", admins, s.importDone, ""},
		{post, "/admin/import/:id/cancel", admins, s.importCancel, "/admin/import/:id"},

		// Changelogs: upload, watch the parse, preview, save as drafts, then
		// publish, edit or retire questions (admin_ingest.go).
		{get, "/admin/ingest", admins, in.index, ""},
		{post, "/admin/ingest", admins, in.upload, "/admin/ingest"},
		{get, "/admin/ingest/:id", admins, in.preview, ""},
		{get, "/admin/ingest/:id/status", admins, in.status, ""},
		{post, "/admin/ingest/:id/apply", admins, in.apply, "/admin/ingest/:id"},
		{post, "/admin/ingest/:id/cancel", admins, in.cancel, "/admin/ingest/:id"},
		// A document's questions, a page at a time, filtered (a GET form):
		// publish or retire the chosen ones, or every one of the filter once
		// its count is confirmed on a page of its own; the wording proposed
		// for published questions, accepted or dismissed (admin_review.go).
		{get, "/admin/ingest/documents/:doc", admins, in.document, ""},
		{post, "/admin/ingest/documents/:doc/publish", admins, in.publish, "/admin/ingest/documents/:doc"},
		{post, "/admin/ingest/documents/:doc/retire", admins, in.retire, "/admin/ingest/documents/:doc"},
		{get, "/admin/ingest/documents/:doc/publish-all", admins, in.publishAllPage, ""},
		{post, "/admin/ingest/documents/:doc/publish-all", admins, in.publishAll, "/admin/ingest/documents/:doc/publish-all"},
		{get, "/admin/ingest/documents/:doc/retire-all", admins, in.retireAllPage, ""},
		{post, "/admin/ingest/documents/:doc/retire-all", admins, in.retireAll, "/admin/ingest/documents/:doc/retire-all"},
		{post, "/admin/ingest/documents/:doc/proposals/:q/accept", admins, in.acceptProposal, "/admin/ingest/documents/:doc"},
		{post, "/admin/ingest/documents/:doc/proposals/:q/dismiss", admins, in.dismissProposal, "/admin/ingest/documents/:doc"},
		{get, "/admin/ingest/questions/:q", admins, in.editForm, ""},
		{post, "/admin/ingest/questions/:q", admins, in.edit, "/admin/ingest/questions/:q"},
	}
}

// routes registers the middleware, every route of the table, and the GET
// of each form action that leads to its page (formPages). It registers
// each route on its own, not in echo Groups, which would add catch-all
// routes: an unknown path gets a plain 404.
func (s *Server) routes() {
	e := s.echo
	e.Pre(s.pre()...)
	e.Use(s.middleware()...)
	getHead := []string{http.MethodGet, http.MethodHead}
	table := s.routeTable()
	s.formLeadsTo = map[string]string{}
	for _, r := range table {
		switch r.method {
		case get:
			e.Match(getHead, r.path, r.handler, s.guarded(r.guard)...)
		case post:
			e.POST(r.path, r.handler, s.guarded(r.guard)...)
			s.formLeadsTo[r.path] = r.getLeadsTo
		}
	}
	for _, f := range formPages(table) {
		e.Match(getHead, f.path, leadTo(f.page))
	}
}

// guarded is the middleware of a guard.
func (s *Server) guarded(g guard) []echo.MiddlewareFunc {
	switch g {
	case members:
		return []echo.MiddlewareFunc{s.requireUser}
	case admins:
		return []echo.MiddlewareFunc{s.requireUser, s.requireAdmin}
	}
	return nil
}

// formPage is a GET route that leads from a form action's path to page.
type formPage struct{ path, page string }

// formPages are the GET routes of the form actions that no page serves,
// each to the page a GET of it leads to (route.getLeadsTo), in the table's
// order. Each page checks its own access, so these GETs are open to
// anyone. A page with a parameter (one upload, one document) is where a
// GET of any path one segment below it leads, whatever the action: a page
// of its own there (/admin/import/:id/done) is a static segment and wins.
func formPages(table []route) []formPage {
	var out []formPage
	seen := map[string]bool{}
	for _, r := range table {
		if r.method != post || r.getLeadsTo == r.path {
			continue
		}
		path := r.path
		if strings.Contains(r.getLeadsTo, "/:") && path[:strings.LastIndex(path, "/")] == r.getLeadsTo {
			path = r.getLeadsTo + "/:action"
		}
		if !seen[path] {
			seen[path] = true
			out = append(out, formPage{path, r.getLeadsTo})
		}
	}
	return out
}

// leadTo answers a GET with a redirect to page, its parameters filled in
// from the request's path.
func leadTo(page string) echo.HandlerFunc {
	return func(c echo.Context) error {
		return c.Redirect(http.StatusSeeOther, fillParams(c, page))
	}
}

// fillParams is page with its parameters (":id") filled in from the
// request's path.
func fillParams(c echo.Context, page string) string {
	parts := strings.Split(page, "/")
	for i, p := range parts {
		if name, ok := strings.CutPrefix(p, ":"); ok {
			parts[i] = url.PathEscape(c.Param(name))
		}
	}
	return strings.Join(parts, "/")
}

// formPageOf is the page that holds the form a POST was sent from, as
// far as the route table tells: the page a GET of its action leads to
// (route.getLeadsTo), with the request's parameters; "/" when the request
// is no form action of the table.
func (s *Server) formPageOf(c echo.Context) string {
	if page, ok := s.formLeadsTo[c.Path()]; ok && c.Request().Method == http.MethodPost {
		return fillParams(c, page)
	}
	return "/"
}

// staticFile serves an embedded file. At the URL pages give it, which
// carries its content hash and never changes under it, browsers may cache
// it for good; at any other (no hash, or another file's or version's) they
// ask again each time.
func (s *Server) staticFile(c echo.Context) error {
	name := c.Param("*")
	versioned := s.assets.URL(name)
	if name == "" || versioned == "" {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	if c.Request().URL.RequestURI() == versioned {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	// The content hash is the file's entity tag: a browser asking again
	// with it gets a 304 (http.ServeContent compares If-None-Match).
	h.Set("ETag", `"`+s.assets.Hash(name)+`"`)
	http.StripPrefix(static.URLPrefix, http.FileServerFS(static.FS())).ServeHTTP(c.Response(), c.Request())
	return nil
}
