// Package static embeds the files served under /static: the vendored htmx
// and Pico CSS releases (their versions in the file names, their sha256 in
// SHA256SUMS) and kubequiz's own stylesheet.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
)

//go:embed *.js *.css *.svg
var files embed.FS

// The files pages link to.
const (
	HTMX      = "htmx-2.0.11.min.js"
	Pico      = "pico-2.1.1.min.css"
	AppCSS    = "app.css"
	AppJS     = "app.js"
	Favicon   = "favicon.svg"
	URLPrefix = "/static/"
)

// Assets serves the embedded files and knows each one's content hash, the
// version in its cache-busting URL.
type Assets struct {
	hashes, urls map[string]string // both built once: pages ask for URLs on every render
}

// FS is the embedded file tree.
func FS() fs.FS { return files }

// New hashes every embedded file once, so that URLs change whenever a file's
// content does and browsers may cache them for good.
func New() (*Assets, error) {
	a := &Assets{hashes: map[string]string{}, urls: map[string]string{}}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a.hashes[name] = hex.EncodeToString(sum[:6])
		a.urls[name] = URLPrefix + name + "?v=" + a.hashes[name]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: hash files: %w", err)
	}
	return a, nil
}

// URL returns the versioned URL of an embedded file, or "" if there is none.
func (a *Assets) URL(name string) string { return a.urls[name] }

// Hash returns the content hash of an embedded file (its URL's version),
// or "" if there is none.
func (a *Assets) Hash(name string) string { return a.hashes[name] }
