package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Request kinds, as reported.
const (
	opPage   = "GET /study"
	opAnswer = "POST /study/answer"
	opGrade  = "POST /study/grade"
	opHello  = "GET /hello"
	opInsert = "BEGIN;INSERT;COMMIT"
)

// learner is one simulated user: a browser with its own cookie jar, on a
// transport shared by all learners.
type learner struct {
	base     string
	login    string
	password string
	client   *http.Client
	rng      *rand.Rand
	body     bytes.Buffer
	// think is the mean pause before each study request, as a learner
	// reads the card or the feedback; 0 sends the next request at once.
	think time.Duration
	// graded counts the reviews this learner has recorded, warm-up included.
	graded int
	// card is the answer form of the card on screen: the grade's answer
	// carries the next one, as in the browser. Empty before the first page.
	card form
	// csrf is the CSRF token of the learner's pages, sent with htmx
	// requests.
	csrf string
	// header is the header of the last answer, kept as send read it.
	header http.Header
	// keep, when set, is given each study answer that passed its checks
	// (see captureReview).
	keep func(op string, header http.Header, body []byte)
}

func newLearner(base, login, password string, transport http.RoundTripper, seed uint64) *learner {
	jar, _ := cookiejar.New(nil) // never fails without options
	return &learner{
		base: base, login: login, password: password,
		client: &http.Client{
			Transport: transport,
			Jar:       jar,
			Timeout:   requestTimeout,
			// Redirects are answers to check, not to follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		rng: rand.New(rand.NewPCG(seed, 0x6b71)),
	}
}

// requestTimeout bounds every request of the benchmark.
const requestTimeout = 10 * time.Second

// send makes one request and reads the whole answer into l.body. form, when
// not nil, is posted url-encoded; htmx adds the headers htmx sends, with the
// CSRF token of form.
func (l *learner) send(ctx context.Context, method, path string, form url.Values, htmx bool) (int, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, l.base+path, body)
	if err != nil {
		return 0, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Current-URL", l.base+"/study")
		// htmx sends the page's token in a header; the answer form has
		// none of its own (it is a GET without script), so the last token
		// seen in a form stands for the page's.
		if tok := form.Get("_csrf"); tok != "" {
			l.csrf = tok
		}
		if l.csrf != "" {
			req.Header.Set("X-CSRF-Token", l.csrf)
		}
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	l.header = resp.Header
	l.body.Reset()
	if _, err := l.body.ReadFrom(resp.Body); err != nil {
		return resp.StatusCode, err
	}
	return resp.StatusCode, nil
}

// expect checks a status code.
func expect(op string, got, want int, body []byte) error {
	if got != want {
		return fmt.Errorf("%s: status %d, want %d: %.120q", op, got, want, body)
	}
	return nil
}

// signIn signs in through the sign-in form, as a browser does.
func (l *learner) signIn(ctx context.Context) error {
	f, err := l.pageForm(ctx, "/login", `action="/login"`)
	if err != nil {
		return err
	}
	f.hidden.Set("login", l.login)
	f.hidden.Set("password", l.password)
	code, err := l.send(ctx, http.MethodPost, "/login", f.hidden, false)
	if err != nil {
		return fmt.Errorf("sign in %s: %w", l.login, err)
	}
	return expect("sign in "+l.login, code, http.StatusSeeOther, l.body.Bytes())
}

// subscribeAll subscribes to every deck on the decks page with the htmx
// form, and returns how many decks there were.
func (l *learner) subscribeAll(ctx context.Context) (int, error) {
	code, err := l.send(ctx, http.MethodGet, "/decks", nil, false)
	if err != nil {
		return 0, err
	}
	if err := expect("GET /decks", code, http.StatusOK, l.body.Bytes()); err != nil {
		return 0, err
	}
	page := bytes.Clone(l.body.Bytes())
	forms := parseForms(page, "/subscription")
	for _, f := range forms {
		f.hidden.Set("subscribed", "1")
		code, err := l.send(ctx, http.MethodPost, f.action, f.hidden, true)
		if err != nil {
			return 0, err
		}
		if err := expect("POST "+f.action, code, http.StatusOK, l.body.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(forms), nil
}

// pageForm gets a page and returns its first form whose opening tag
// contains mark.
func (l *learner) pageForm(ctx context.Context, path, mark string) (form, error) {
	code, err := l.send(ctx, http.MethodGet, path, nil, false)
	if err != nil {
		return form{}, fmt.Errorf("GET %s: %w", path, err)
	}
	if err := expect("GET "+path, code, http.StatusOK, l.body.Bytes()); err != nil {
		return form{}, err
	}
	forms := parseForms(l.body.Bytes(), mark)
	if len(forms) == 0 {
		return form{}, fmt.Errorf("GET %s: no form with %s", path, mark)
	}
	return forms[0], nil
}

// Marks of the study fragments in the pages.
var (
	markAnswerForm      = `class="study-answer"`
	markGradeForm       = `class="study-grade"`
	markStudy           = []byte(`id="study"`)
	markAnswerFormBytes = []byte(markAnswerForm)
)

// errQueueEmpty means the learner had nothing to study: it has seen every
// card and the next ones are not due yet, so the page measured was the empty
// queue. Give the server more decks (-copies in process), or run shorter.
var errQueueEmpty = errors.New("study queue empty: every card seen, none due yet (more decks, or a shorter run)")

// nextCard loads the next-card page and returns its answer form.
func (l *learner) nextCard(ctx context.Context, rec *recorder) (form, error) {
	start := time.Now()
	code, err := l.send(ctx, http.MethodGet, "/study", nil, false)
	if err == nil {
		err = expect(opPage, code, http.StatusOK, l.body.Bytes())
	}
	if err != nil {
		rec.fail(opPage, err)
		return form{}, err
	}
	rec.observe(opPage, time.Since(start))
	forms := parseForms(l.body.Bytes(), markAnswerForm)
	if len(forms) == 0 {
		rec.fail(opPage, errQueueEmpty)
		return form{}, errQueueEmpty
	}
	return forms[0], nil
}

// studyOnce is one review, as a browser with htmx makes it: an answer
// (right or wrong, at random) to the card on screen, then a grade, the
// preselected one most of the time. The grade's answer carries the next
// card, so the next-card page is loaded only for the first card.
func (l *learner) studyOnce(ctx context.Context, rec *recorder) error {
	l.pause(ctx)
	if l.card.action == "" {
		f, err := l.nextCard(ctx, rec)
		if err != nil {
			return err
		}
		l.card = f
	}
	q := l.card
	l.card = form{}
	answer := l.answer(q)
	l.pause(ctx)
	start := time.Now()
	code, err := l.send(ctx, http.MethodPost, "/study/answer", answer, true)
	if err == nil {
		err = expect(opAnswer, code, http.StatusOK, l.body.Bytes())
	}
	var grades []form
	if err == nil {
		if grades = parseForms(l.body.Bytes(), markGradeForm); len(grades) == 0 {
			err = fmt.Errorf("no grade form in %.120q", l.body.Bytes())
		}
	}
	if err != nil {
		rec.fail(opAnswer, err)
		return err
	}
	rec.observe(opAnswer, time.Since(start))
	if l.keep != nil {
		l.keep(opAnswer, l.header, l.body.Bytes())
	}

	grade := l.grade(grades[0])
	l.pause(ctx)
	start = time.Now()
	code, err = l.send(ctx, http.MethodPost, "/study/grade", grade, true)
	if err == nil {
		err = expect(opGrade, code, http.StatusOK, l.body.Bytes())
	}
	if err == nil && !bytes.Contains(l.body.Bytes(), markStudy) {
		err = fmt.Errorf("grade answer without the study area: %.120q", l.body.Bytes())
	}
	if err != nil {
		rec.fail(opGrade, err)
		return err
	}
	rec.observe(opGrade, time.Since(start))
	if l.keep != nil {
		l.keep(opGrade, l.header, l.body.Bytes())
	}
	l.graded++
	forms := parseForms(l.body.Bytes(), markAnswerForm)
	if len(forms) == 0 {
		rec.fail(opGrade, errQueueEmpty)
		return errQueueEmpty
	}
	l.card = forms[0]
	return nil
}

// reply is one answer of the server, as the echo-study phase replays it.
type reply struct {
	header http.Header
	body   []byte
}

// captureReview makes one review as studyOnce does and returns the
// server's answers to its answer and its grade.
func (l *learner) captureReview(ctx context.Context) (answered, graded reply, err error) {
	l.keep = func(op string, h http.Header, body []byte) {
		r := reply{header: h.Clone(), body: bytes.Clone(body)}
		if op == opAnswer {
			answered = r
		} else {
			graded = r
		}
	}
	defer func() { l.keep = nil }()
	if err := l.studyOnce(ctx, newRecorder()); err != nil {
		return reply{}, reply{}, fmt.Errorf("%s: a review to replay: %w", l.login, err)
	}
	return answered, graded, nil
}

// pause waits about l.think (between half and one and a half times it), or
// until ctx ends.
func (l *learner) pause(ctx context.Context) {
	if l.think <= 0 {
		return
	}
	d := l.think/2 + time.Duration(l.rng.Int64N(int64(l.think)+1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// pageOnce only loads the next-card page, and checks that it holds an
// answer form without reading the form.
func (l *learner) pageOnce(ctx context.Context, rec *recorder) error {
	start := time.Now()
	code, err := l.send(ctx, http.MethodGet, "/study", nil, false)
	if err == nil {
		err = expect(opPage, code, http.StatusOK, l.body.Bytes())
	}
	if err == nil && !bytes.Contains(l.body.Bytes(), markAnswerFormBytes) {
		err = errQueueEmpty
	}
	if err != nil {
		rec.fail(opPage, err)
		return err
	}
	rec.observe(opPage, time.Since(start))
	return nil
}

// answer fills the answer form's controls at random.
func (l *learner) answer(f form) url.Values {
	v := cloneValues(f.hidden)
	for name, values := range f.radios {
		v.Set(name, values[l.rng.IntN(len(values))])
	}
	for name, values := range f.checks {
		for _, x := range values {
			if l.rng.IntN(2) == 0 {
				v.Add(name, x)
			}
		}
	}
	for _, name := range f.texts {
		words := []string{"", "ImageVolume", "1.36", "GA", "beta", "kubelet"}
		v.Add(name, words[l.rng.IntN(len(words))])
	}
	for _, s := range f.selects {
		v.Set(s.name, s.selected)
	}
	return v
}

// grade picks a rating: the preselected button four times out of five,
// otherwise any.
func (l *learner) grade(f form) url.Values {
	v := cloneValues(f.hidden)
	rating := ""
	for _, b := range f.buttons {
		if b.name == "rating" && b.pressed {
			rating = b.value
		}
	}
	if rating == "" || l.rng.IntN(5) == 0 {
		rating = strconv.Itoa(1 + l.rng.IntN(4))
	}
	v.Set("rating", rating)
	return v
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+4)
	for k, x := range v {
		out[k] = append([]string(nil), x...)
	}
	return out
}

// form is what a browser would submit from one <form>: its hidden fields
// and the controls a learner fills in.
type form struct {
	action  string
	hidden  url.Values
	radios  map[string][]string
	checks  map[string][]string
	texts   []string // names of text inputs, in page order
	selects []selectField
	buttons []button
}

type selectField struct{ name, selected string }

type button struct {
	name, value string
	pressed     bool
}

// The pages are kubequiz's own templ output: attributes in double quotes,
// with <, >, & and quotes escaped inside values. That is all this reader
// handles; it is not a general HTML parser. It is kept cheap because the
// load generator shares the CPUs with the server it measures.

// tagAt reads the tag starting at page[i] == '<': its name, whether it
// closes, its attribute text and the index after it.
func tagAt(page []byte, i int) (name []byte, closing bool, raw []byte, next int) {
	end := bytes.IndexByte(page[i:], '>')
	if end < 0 {
		return nil, false, nil, len(page)
	}
	t := page[i+1 : i+end]
	next = i + end + 1
	if len(t) > 0 && t[0] == '/' {
		closing, t = true, t[1:]
	}
	n := 0
	for n < len(t) && (t[n] >= 'a' && t[n] <= 'z' || t[n] >= 'A' && t[n] <= 'Z') {
		n++
	}
	return t[:n], closing, t[n:], next
}

// attr is one attribute of a tag, as written in the page.
type attr struct{ name, value []byte }

// attrList is the attributes of one tag. It keeps the page's bytes and
// makes strings only of the values asked for.
type attrList []attr

// get returns the unescaped value of the attribute name; a bare name has
// the value "".
func (l attrList) get(name string) (string, bool) {
	for _, a := range l {
		if string(a.name) == name {
			if bytes.IndexByte(a.value, '&') >= 0 {
				return html.UnescapeString(string(a.value)), true
			}
			return string(a.value), true
		}
	}
	return "", false
}

// has tells whether the attribute name is there, bare or with a value.
func (l attrList) has(name string) bool {
	_, ok := l.get(name)
	return ok
}

func (l attrList) value(name string) string {
	v, _ := l.get(name)
	return v
}

// attrs reads name="value" pairs and bare names into buf.
func attrs(raw []byte, buf attrList) attrList {
	m := buf[:0]
	for i := 0; i < len(raw); {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '/' || raw[i] == '\r') {
			i++
		}
		start := i
		for i < len(raw) && raw[i] != '=' && raw[i] != ' ' && raw[i] != '\n' && raw[i] != '\t' && raw[i] != '/' {
			i++
		}
		if i == start {
			i++
			continue
		}
		name := raw[start:i]
		if i+1 < len(raw) && raw[i] == '=' && raw[i+1] == '"' {
			end := bytes.IndexByte(raw[i+2:], '"')
			if end < 0 {
				break
			}
			m = append(m, attr{name: name, value: raw[i+2 : i+2+end]})
			i += end + 3
			continue
		}
		m = append(m, attr{name: name})
	}
	return m
}

var formOpen = []byte("<form")

// parseForms returns every form whose opening tag contains mark.
func parseForms(page []byte, mark string) []form {
	var out []form
	for off := 0; ; {
		j := bytes.Index(page[off:], formOpen)
		if j < 0 {
			return out
		}
		_, _, raw, next := tagAt(page, off+j)
		off = next
		if !bytes.Contains(raw, []byte(mark)) {
			continue
		}
		f, end := readForm(page, raw, off)
		out = append(out, f)
		off = end
	}
}

// readForm reads the controls of a form whose opening tag's attributes are
// raw, from i up to its closing tag.
func readForm(page, raw []byte, i int) (form, int) {
	var buf [12]attr
	a := attrs(raw, buf[:])
	action := a.value("hx-post")
	if action == "" {
		action = a.value("action")
	}
	f := form{action: action, hidden: url.Values{}, radios: map[string][]string{}, checks: map[string][]string{}}
	var sel *selectField
	for i < len(page) {
		j := bytes.IndexByte(page[i:], '<')
		if j < 0 {
			break
		}
		name, closing, raw, next := tagAt(page, i+j)
		i = next
		if closing {
			switch string(name) {
			case "form":
				return f, i
			case "select":
				sel = nil
			}
			continue
		}
		switch string(name) {
		case "input":
			a := attrs(raw, buf[:])
			switch a.value("type") {
			case "hidden":
				f.hidden.Add(a.value("name"), a.value("value"))
			case "radio":
				n := a.value("name")
				f.radios[n] = append(f.radios[n], a.value("value"))
			case "checkbox":
				n := a.value("name")
				f.checks[n] = append(f.checks[n], a.value("value"))
			case "text", "":
				if n := a.value("name"); n != "" {
					f.texts = append(f.texts, n)
				}
			}
		case "select":
			f.selects = append(f.selects, selectField{name: attrs(raw, buf[:]).value("name")})
			sel = &f.selects[len(f.selects)-1]
		case "option":
			if a := attrs(raw, buf[:]); sel != nil {
				if _, ok := a.get("selected"); ok {
					sel.selected = a.value("value")
				}
			}
		case "button":
			if a := attrs(raw, buf[:]); a.value("name") != "" {
				f.buttons = append(f.buttons, button{name: a.value("name"), value: a.value("value"), pressed: a.has("data-preselected")})
			}
		}
	}
	return f, i
}
