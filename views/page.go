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

// boolValue is a form value for b: "1" or "0".
func boolValue(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
