// Package questions embeds the bundled question bank, so that a new server
// has decks to study from its first start.
package questions

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var files embed.FS

// FS returns the bundled question files.
func FS() fs.FS { return files }
