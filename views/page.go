// Package views holds the templ components that render kubequiz's pages and
// htmx fragments. Components take plain values and quiz types, never store rows.
package views

import "fmt"

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

// UploadLimits are an upload form's limits, as the server holds them.
type UploadLimits struct {
	Files    int
	FileSize string // "256 KiB"
	Total    string // the body limit, "" when the files' own limits keep under it
}

// Text says the limits: "複数可、20 個まで、1 ファイル 256 KiB まで".
func (l UploadLimits) Text() string {
	s := fmt.Sprintf("複数可、%d 個まで、1 ファイル %s まで", l.Files, l.FileSize)
	if l.Total != "" {
		s += "、合計 " + l.Total + " まで"
	}
	return s
}

// boolValue is a form value for b: "1" or "0".
func boolValue(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
