package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"kubequiz/internal/loadclient"
)

// admin is the one admin of the soak: it imports question files and
// ingests changelogs through the admin pages, as a browser without
// script does.
type admin struct {
	b   *loadclient.Browser
	rec *routeRecorder
	// What it did, and what failed.
	Imports   int `json:"imports"`
	Reimports int `json:"reimports"`
	Ingests   int `json:"ingests"`
	failures  failures
}

var (
	importPreviewPath = regexp.MustCompile(`^/admin/import/[^/?]+$`)
	ingestPreviewPath = regexp.MustCompile(`^/admin/ingest/[^/?]+\?`)
)

// importFiles uploads files on the import page, loads the preview and
// applies it, then loads the page of what was imported.
func (a *admin) importFiles(ctx context.Context, files []loadclient.File) error {
	f, err := a.b.PageForm(ctx, "/admin/import", `action="/admin/import"`)
	if err != nil {
		return err
	}
	loc, err := a.expectRedirect(a.b.SendFiles(ctx, "/admin/import", f.Hidden, "files", files))("upload", importPreviewPath)
	if err != nil {
		return err
	}
	apply, err := a.b.PageForm(ctx, loc, `/apply"`)
	if err != nil {
		return fmt.Errorf("import preview: %w", err)
	}
	apply.Hidden.Set("action", "apply")
	done, err := a.expectRedirect(a.b.Send(ctx, http.MethodPost, apply.Action, apply.Hidden, false))("apply", regexp.MustCompile(`^`+regexp.QuoteMeta(loc)+`/done$`))
	if err != nil {
		return err
	}
	return a.get(ctx, done)
}

// ingest uploads a changelog on the ingest page for release, waits for
// its preview, saves it as drafts and loads the page it leads to.
func (a *admin) ingest(ctx context.Context, file loadclient.File, release string) error {
	f, err := a.b.PageForm(ctx, "/admin/ingest", `action="/admin/ingest"`)
	if err != nil {
		return err
	}
	fields := f.Hidden
	for _, s := range f.Selects {
		fields.Set(s.Name, s.Selected)
	}
	fields.Set("release", release)
	fields.Set("sig", "")
	preview, err := a.expectRedirect(a.b.SendFiles(ctx, "/admin/ingest", fields, "files", []loadclient.File{file}))("upload", ingestPreviewPath)
	if err != nil {
		return err
	}
	// A save that finds the stored history moved since the preview shows
	// the preview again: save that one.
	for attempt := 0; ; attempt++ {
		apply, err := a.waitPreview(ctx, preview)
		if err != nil {
			return err
		}
		code, err := a.b.Send(ctx, http.MethodPost, apply.Action, apply.Hidden, false)
		if err != nil {
			return fmt.Errorf("ingest apply: %w", err)
		}
		if err := loadclient.Expect("ingest apply", code, http.StatusSeeOther, a.b.Body()); err != nil {
			return err
		}
		next := a.b.Header().Get("Location")
		if strings.Contains(next, "again=1") && attempt < 3 {
			preview = next
			continue
		}
		if !strings.HasPrefix(next, "/admin/ingest") {
			return fmt.Errorf("ingest apply: redirect to %q", next)
		}
		return a.get(ctx, next)
	}
}

// previewTimeout bounds the wait for an ingest's preview.
const previewTimeout = time.Minute

// waitPreview loads the ingest preview page until the parse has finished
// and returns its save form.
func (a *admin) waitPreview(ctx context.Context, page string) (loadclient.Form, error) {
	deadline := time.Now().Add(previewTimeout)
	for {
		code, err := a.b.Send(ctx, http.MethodGet, page, nil, false)
		if err != nil {
			return loadclient.Form{}, fmt.Errorf("ingest preview: %w", err)
		}
		if err := loadclient.Expect("ingest preview", code, http.StatusOK, a.b.Body()); err != nil {
			return loadclient.Form{}, err
		}
		if forms := loadclient.ParseForms(a.b.Body(), `/apply"`); len(forms) > 0 {
			return forms[0], nil
		}
		if !bytes.Contains(a.b.Body(), []byte(`id="ingest-progress"`)) {
			return loadclient.Form{}, fmt.Errorf("ingest preview: neither progress nor a save form: %.200q", a.b.Body())
		}
		if time.Now().After(deadline) {
			return loadclient.Form{}, fmt.Errorf("ingest preview: not ready after %s", previewTimeout)
		}
		select {
		case <-time.After(250 * time.Millisecond): // the page's own poll is every 500 ms
		case <-ctx.Done():
			return loadclient.Form{}, ctx.Err()
		}
	}
}

// expectRedirect checks a form's answer: a 303 to a path that matches
// want, which it returns.
func (a *admin) expectRedirect(code int, err error) func(op string, want *regexp.Regexp) (string, error) {
	return func(op string, want *regexp.Regexp) (string, error) {
		if err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
		if err := loadclient.Expect(op, code, http.StatusSeeOther, a.b.Body()); err != nil {
			return "", err
		}
		loc := a.b.Header().Get("Location")
		if !want.MatchString(loc) {
			return "", fmt.Errorf("%s: redirect to %q, want %s", op, loc, want)
		}
		return loc, nil
	}
}

// get loads a page and expects it.
func (a *admin) get(ctx context.Context, page string) error {
	if _, err := url.Parse(page); err != nil {
		return err
	}
	code, err := a.b.Send(ctx, http.MethodGet, page, nil, false)
	if err != nil {
		return fmt.Errorf("GET %s: %w", page, err)
	}
	return loadclient.Expect("GET "+page, code, http.StatusOK, a.b.Body())
}

// cycle is the admin's round n: a new generated deck, the previous one
// imported again with one question changed, and a changelog ingested.
// Each step's failure is recorded and the round goes on.
func (a *admin) cycle(ctx context.Context, n int) {
	if err := a.importFiles(ctx, []loadclient.File{soakDeck(n, 0)}); err != nil {
		a.failures.add(fmt.Errorf("admin: import of a new deck: %w", err))
	} else {
		a.Imports++
	}
	if n > 0 {
		if err := a.importFiles(ctx, []loadclient.File{soakDeck(n-1, 1)}); err != nil {
			a.failures.add(fmt.Errorf("admin: re-import: %w", err))
		} else {
			a.Reimports++
		}
	}
	file, release := soakChangelog(n, a.b.Rand())
	if err := a.ingest(ctx, file, release); err != nil {
		a.failures.add(fmt.Errorf("admin: ingest: %w", err))
	} else {
		a.Ingests++
	}
}

// run has the admin do a round every `every` (the first after a random
// part of it) until stop is closed.
func (a *admin) run(ctx context.Context, stop <-chan struct{}, every time.Duration) {
	wait := time.Duration(a.b.Rand().Int64N(int64(every) + 1))
	for n := 0; ; n++ {
		if !sleep(ctx, stop, wait) {
			return
		}
		a.cycle(ctx, n)
		wait = every
	}
}

// sleep waits d, and reports false when stop is closed or ctx ends first.
func sleep(ctx context.Context, stop <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// failures counts failed steps and keeps the first messages.
type failures struct {
	n      int
	sample []string
}

func (f *failures) add(err error) {
	f.n++
	if len(f.sample) < 3 {
		f.sample = append(f.sample, clip(err.Error(), 300))
	}
}

func (f *failures) merge(o failures) {
	f.n += o.n
	for _, s := range o.sample {
		if len(f.sample) < 5 {
			f.sample = append(f.sample, s)
		}
	}
}
