// Package views holds the templ components that render kubequiz's pages and
// htmx fragments. Components take plain values and quiz types, never store rows.
package views

// Page carries what the base layout needs on every page.
type Page struct {
	Title string
	// Asset URLs, versioned by content hash.
	CSS     []string
	Scripts []string
	Icon    string
	// CSRFToken is sent by htmx as a header and by plain forms as a field.
	CSRFToken string
	// User is the signed-in user's display name, empty when signed out.
	User    string
	IsAdmin bool
}
