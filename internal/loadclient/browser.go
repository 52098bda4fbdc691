// Package loadclient is the simulated browser of kubequiz's load commands
// (cmd/kqload, cmd/kqsoak): a cookie jar of its own on a shared transport,
// signing in through the form, subscribing through the decks page and
// studying with the requests htmx makes, reading kubequiz's own pages with
// a small reader of their forms. It speaks HTTP only: it knows no package
// of the server.
package loadclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"
)

// RequestTimeout bounds every request of a Browser.
const RequestTimeout = 10 * time.Second

// Browser is one simulated user: a browser with its own cookie jar, on a
// transport shared by all of a run's browsers. A Browser is used by one
// goroutine at a time.
type Browser struct {
	// Base is the server's address, http://HOST:PORT.
	Base     string
	Login    string
	Password string
	// Think, when set, is the pause before each request of a review
	// (op is OpPage, OpAnswer or OpGrade), drawn with the browser's
	// random source; nil pauses none.
	Think func(rng *rand.Rand, op string) time.Duration
	// OnResponse, when set, is told of every answer: the request's method
	// and path (without its query), the status (0 when no answer came)
	// and the time from sending the request to reading its whole answer.
	OnResponse func(method, path string, status int, took time.Duration)
	// OnGraded, when set, is told of every grade the server acknowledged
	// with its study area.
	OnGraded func(Grade)
	// Stop, when closed, ends a pause at once, and StudyOnce returns
	// ErrStopped instead of sending its next request: a run ends between
	// requests, never cutting one off. Nil never stops.
	Stop <-chan struct{}

	client *http.Client
	rng    *rand.Rand
	body   bytes.Buffer
	// graded counts the reviews this browser has had acknowledged.
	graded int
	// card is the answer form of the card on screen: the grade's answer
	// carries the next one, as in the browser. Empty before the first page.
	card Form
	// csrf is the CSRF token of the browser's pages, sent with htmx
	// requests.
	csrf string
	// header is the header of the last answer, kept as send read it.
	header http.Header
	// keep, when set, is given each study answer that passed its checks
	// (see CaptureReview).
	keep func(op string, header http.Header, body []byte)
}

// New returns a browser of login on transport; seed seeds its answers,
// grades and pauses.
func New(base, login, password string, transport http.RoundTripper, seed uint64) *Browser {
	jar, _ := cookiejar.New(nil) // never fails without options
	return &Browser{
		Base: base, Login: login, Password: password,
		client: &http.Client{
			Transport: transport,
			Jar:       jar,
			Timeout:   RequestTimeout,
			// Redirects are answers to check, not to follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		rng: rand.New(rand.NewPCG(seed, 0x6b71)),
	}
}

// Rand is the browser's random source, seeded by New.
func (b *Browser) Rand() *rand.Rand { return b.rng }

// Body is the last answer's body, valid until the next request.
func (b *Browser) Body() []byte { return b.body.Bytes() }

// Header is the last answer's header.
func (b *Browser) Header() http.Header { return b.header }

// Graded is how many grades the server has acknowledged to this browser.
func (b *Browser) Graded() int { return b.graded }

// Cookies are the cookies the browser would send to path.
func (b *Browser) Cookies(path string) ([]*http.Cookie, error) {
	u, err := url.Parse(b.Base + path)
	if err != nil {
		return nil, err
	}
	return b.client.Jar.Cookies(u), nil
}

// SetCookies gives the browser cookies for path, as another browser of the
// same server had them.
func (b *Browser) SetCookies(path string, cs []*http.Cookie) error {
	u, err := url.Parse(b.Base + path)
	if err != nil {
		return err
	}
	b.client.Jar.SetCookies(u, cs)
	return nil
}

// Send makes one request and reads the whole answer (Body). form, when not
// nil, is posted url-encoded; htmx adds the headers htmx sends, with the
// CSRF token of form.
func (b *Browser) Send(ctx context.Context, method, path string, form url.Values, htmx bool) (int, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, b.Base+path, body)
	if err != nil {
		return 0, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Current-URL", b.Base+"/study")
		// htmx sends the page's token in a header; the answer form has
		// none of its own (it is a GET without script), so the last token
		// seen in a form stands for the page's.
		if tok := form.Get("_csrf"); tok != "" {
			b.csrf = tok
		}
		if b.csrf != "" {
			req.Header.Set("X-CSRF-Token", b.csrf)
		}
	}
	return b.do(req)
}

// File is one file of a multipart upload.
type File struct {
	Name string
	Data []byte
}

// SendFiles posts a multipart form, as a browser sends a form with
// enctype="multipart/form-data": fields, then files under the name field.
func (b *Browser) SendFiles(ctx context.Context, path string, fields url.Values, field string, files []File) (int, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, vs := range fields {
		for _, v := range vs {
			if err := w.WriteField(k, v); err != nil {
				return 0, err
			}
		}
	}
	for _, f := range files {
		part, err := w.CreateFormFile(field, f.Name)
		if err != nil {
			return 0, err
		}
		if _, err := part.Write(f.Data); err != nil {
			return 0, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.Base+path, &buf)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return b.do(req)
}

// do sends req, reads its answer into b.body and tells OnResponse.
func (b *Browser) do(req *http.Request) (int, error) {
	start := time.Now()
	status := 0
	defer func() {
		if b.OnResponse != nil {
			b.OnResponse(req.Method, req.URL.Path, status, time.Since(start))
		}
	}()
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b.header = resp.Header
	b.body.Reset()
	if _, err := b.body.ReadFrom(resp.Body); err != nil {
		return resp.StatusCode, err
	}
	status = resp.StatusCode
	return status, nil
}

// StatusError is an answer with another status than the one expected.
type StatusError struct {
	Op        string
	Got, Want int
	Body      string // the start of the answer's body
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: status %d, want %d: %q", e.Op, e.Got, e.Want, e.Body)
}

// Expect checks a status code, with the start of body for the error.
func Expect(op string, got, want int, body []byte) error {
	if got != want {
		return &StatusError{Op: op, Got: got, Want: want, Body: string(body[:min(len(body), 120)])}
	}
	return nil
}

// SignIn signs in through the sign-in form, as a browser does.
func (b *Browser) SignIn(ctx context.Context) error {
	f, err := b.PageForm(ctx, "/login", `action="/login"`)
	if err != nil {
		return err
	}
	f.Hidden.Set("login", b.Login)
	f.Hidden.Set("password", b.Password)
	code, err := b.Send(ctx, http.MethodPost, "/login", f.Hidden, false)
	if err != nil {
		return fmt.Errorf("sign in %s: %w", b.Login, err)
	}
	return Expect("sign in "+b.Login, code, http.StatusSeeOther, b.Body())
}

// SubscribeAll subscribes to every deck on the decks page with the htmx
// form, and returns how many decks there were.
func (b *Browser) SubscribeAll(ctx context.Context) (int, error) {
	code, err := b.Send(ctx, http.MethodGet, "/decks", nil, false)
	if err != nil {
		return 0, err
	}
	if err := Expect("GET /decks", code, http.StatusOK, b.Body()); err != nil {
		return 0, err
	}
	page := bytes.Clone(b.Body())
	forms := ParseForms(page, "/subscription")
	for _, f := range forms {
		f.Hidden.Set("subscribed", "1")
		code, err := b.Send(ctx, http.MethodPost, f.Action, f.Hidden, true)
		if err != nil {
			return 0, err
		}
		if err := Expect("POST "+f.Action, code, http.StatusOK, b.Body()); err != nil {
			return 0, err
		}
	}
	return len(forms), nil
}

// PageForm gets a page and returns its first form whose opening tag
// contains mark.
func (b *Browser) PageForm(ctx context.Context, path, mark string) (Form, error) {
	code, err := b.Send(ctx, http.MethodGet, path, nil, false)
	if err != nil {
		return Form{}, fmt.Errorf("GET %s: %w", path, err)
	}
	if err := Expect("GET "+path, code, http.StatusOK, b.Body()); err != nil {
		return Form{}, err
	}
	forms := ParseForms(b.Body(), mark)
	if len(forms) == 0 {
		return Form{}, fmt.Errorf("GET %s: no form with %s", path, mark)
	}
	return forms[0], nil
}
