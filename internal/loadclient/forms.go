package loadclient

import (
	"bytes"
	"html"
	"net/url"
)

// Form is what a browser would submit from one <form>: its hidden fields
// and the controls a learner fills in.
type Form struct {
	// Action is the form's hx-post, or its action without htmx.
	Action  string
	Hidden  url.Values
	Radios  map[string][]string
	Checks  map[string][]string
	Texts   []string // names of text inputs, in page order
	Selects []Select
	Buttons []Button
}

// Select is a select control and the value of its selected option.
type Select struct{ Name, Selected string }

// Button is a submit button with a name, and whether the page preselects
// it (data-preselected).
type Button struct {
	Name, Value string
	Pressed     bool
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

// ParseForms returns every form of page whose opening tag contains mark.
func ParseForms(page []byte, mark string) []Form {
	var out []Form
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
func readForm(page, raw []byte, i int) (Form, int) {
	var buf [12]attr
	a := attrs(raw, buf[:])
	action := a.value("hx-post")
	if action == "" {
		action = a.value("action")
	}
	f := Form{Action: action, Hidden: url.Values{}, Radios: map[string][]string{}, Checks: map[string][]string{}}
	var sel *Select
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
				f.Hidden.Add(a.value("name"), a.value("value"))
			case "radio":
				n := a.value("name")
				f.Radios[n] = append(f.Radios[n], a.value("value"))
			case "checkbox":
				n := a.value("name")
				f.Checks[n] = append(f.Checks[n], a.value("value"))
			case "text", "":
				if n := a.value("name"); n != "" {
					f.Texts = append(f.Texts, n)
				}
			}
		case "select":
			f.Selects = append(f.Selects, Select{Name: attrs(raw, buf[:]).value("name")})
			sel = &f.Selects[len(f.Selects)-1]
		case "option":
			if a := attrs(raw, buf[:]); sel != nil {
				if _, ok := a.get("selected"); ok {
					sel.Selected = a.value("value")
				}
			}
		case "button":
			if a := attrs(raw, buf[:]); a.value("name") != "" {
				f.Buttons = append(f.Buttons, Button{Name: a.value("name"), Value: a.value("value"), Pressed: a.has("data-preselected")})
			}
		}
	}
	return f, i
}
