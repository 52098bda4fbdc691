package bank

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"kubequiz/internal/quiz"
)

// The keys of each mapping of the format, in the order of questions/README.md.
func rootKeys() []string { return []string{"deck", "questions"} }

func deckKeys() []string {
	return []string{"slug", "title", "release", "sig", "language", "description"}
}

func questionKeys() []string {
	return []string{"id", "type", "prompt", "choices", "answer", "answers", "accept", "items", "explanation", "source", "tags"}
}

func sourceKeys() []string { return []string{"release", "sig", "kind", "prs", "url"} }

// sourceKinds are the values of source.kind: the changelog kinds, plus
// "concept" for background knowledge.
func sourceKinds() []string {
	return []string{"urgent-upgrade-note", "deprecation", "api-change", "feature", "documentation",
		"failing-test", "bug", "cleanup", "uncategorized", "dependency", "highlight", "concept"}
}

// reservedSlugs are the study pages' own paths (/study/answer,
// /study/grade): a deck of such a slug could not be studied on its own.
var reservedSlugs = []string{"answer", "grade"}

// validSlug reports whether s matches ^[a-z0-9][a-z0-9-]*$.
func validSlug(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

func (d *decoder) file(root *yaml.Node) *File {
	f := &File{}
	if root.Kind != yaml.MappingNode {
		if root.Kind != yaml.AliasNode {
			d.atf(root, "", "expected a mapping with deck and questions, got %s", kindName(root))
		}
		return f
	}
	keys := d.fields(root, "", rootKeys())
	switch n := keys["deck"]; {
	case n == nil:
		d.at(root, "deck", "is missing")
	case isNull(n):
		d.at(n, "deck", "is empty")
	default:
		f.Deck = d.deck(n)
	}
	n := keys["questions"]
	switch {
	case n == nil:
		d.at(root, "questions", "is missing")
	case isNull(n):
		d.at(n, "questions", "is empty: a deck needs at least one question")
	case n.Kind == yaml.AliasNode:
	case n.Kind != yaml.SequenceNode:
		d.atf(n, "questions", "expected a list of questions, got %s", kindName(n))
	case len(n.Content) == 0:
		d.at(n, "questions", "is empty: a deck needs at least one question")
	default:
		ids := map[string][]idAt{}
		var order []string
		for i, qn := range n.Content {
			q, idNode := d.question(qn, fmt.Sprintf("questions[%d]", i))
			f.Questions = append(f.Questions, q)
			f.Lines = append(f.Lines, qn.Line)
			if idNode != nil && strings.TrimSpace(q.ExtID) != "" {
				if len(ids[q.ExtID]) == 0 {
					order = append(order, q.ExtID)
				}
				ids[q.ExtID] = append(ids[q.ExtID], idAt{idNode, i})
			}
		}
		for _, id := range order {
			d.duplicateID(id, ids[id])
		}
	}
	return f
}

// idAt is where a question id was written: its node and question index.
type idAt struct {
	node  *yaml.Node
	index int
}

// duplicateID reports every use of an id written more than once: the first
// names the lines of the others, each other one names the first.
func (d *decoder) duplicateID(id string, uses []idAt) {
	if len(uses) < 2 {
		return
	}
	first := uses[0]
	others := make([]string, 0, len(uses)-1)
	for _, u := range uses[1:] {
		others = append(others, strconv.Itoa(u.node.Line))
		d.atf(u.node, fmt.Sprintf("questions[%d].id", u.index), "duplicate id %q, first used at line %d", clip(id), first.node.Line)
	}
	word := "line"
	if len(others) > 1 {
		word = "lines"
	}
	d.atf(first.node, fmt.Sprintf("questions[%d].id", first.index), "duplicate id %q, used again at %s %s", clip(id), word, strings.Join(others, ", "))
}

func (d *decoder) deck(n *yaml.Node) quiz.Deck {
	var deck quiz.Deck
	if n.Kind != yaml.MappingNode {
		if n.Kind != yaml.AliasNode {
			d.atf(n, "deck", "expected a mapping, got %s", kindName(n))
		}
		return deck
	}
	keys := d.fields(n, "deck", deckKeys())
	text := func(key string, required bool) string {
		v, ok := keys[key]
		if !ok {
			if required {
				d.at(n, "deck."+key, "is missing")
			}
			return ""
		}
		s, ok := d.text(v, "deck."+key)
		if ok && required && strings.TrimSpace(s) == "" {
			d.at(v, "deck."+key, "is empty")
		}
		return s
	}
	deck.Slug = text("slug", true)
	deck.Title = text("title", true)
	deck.Release = text("release", true)
	deck.SIG = text("sig", false)
	deck.Language = text("language", true)
	deck.Description = text("description", false)
	if v := keys["slug"]; v != nil && deck.Slug != "" && !validSlug(deck.Slug) {
		d.atf(v, "deck.slug", "%q is not a slug: use lower-case letters, digits and dashes", clip(deck.Slug))
	}
	if v := keys["slug"]; v != nil && slices.Contains(reservedSlugs, deck.Slug) {
		d.atf(v, "deck.slug", "%q is reserved: /study/%s is a study action, not a deck's page; choose another slug", deck.Slug, deck.Slug)
	}
	if v := keys["language"]; v != nil && deck.Language != "" && deck.Language != "ja" && deck.Language != "en" {
		d.atf(v, "deck.language", "%q is not a supported language (want ja or en)", clip(deck.Language))
	}
	return deck
}

// question maps one entry of the questions list. It returns the question and
// the node of its id, if any.
func (d *decoder) question(n *yaml.Node, path string) (quiz.Question, *yaml.Node) {
	var q quiz.Question
	if n.Kind != yaml.MappingNode {
		if n.Kind != yaml.AliasNode {
			d.atf(n, path, "expected a question (a mapping), got %s", kindName(n))
		}
		return q, nil
	}
	qd := &questionDecoder{decoder: d, path: path, node: n, nodes: map[string]*yaml.Node{}, reported: map[string]bool{}}
	keys := d.fields(n, path, questionKeys())
	for _, key := range []string{"id", "type", "prompt", "explanation"} {
		if _, ok := keys[key]; !ok {
			qd.report(n, key, "is missing")
		}
	}
	switch v := keys["source"]; {
	case v == nil:
		qd.report(n, "source", "is missing: every question needs a source with at least one PR number")
	case isNull(v):
		qd.report(v, "source", "is empty: every question needs a source with at least one PR number")
	}
	q.ExtID = qd.str(keys, "id")
	q.Type = quiz.Type(qd.str(keys, "type"))
	q.Prompt = qd.str(keys, "prompt")
	q.Choices = qd.strs(keys, "choices")
	if q.Type == quiz.TrueFalse {
		q.Truth = qd.truth(keys)
	} else {
		q.Answer = qd.str(keys, "answer")
	}
	q.Answers = qd.strs(keys, "answers")
	q.Accept = qd.strs(keys, "accept")
	q.Items = qd.strs(keys, "items")
	q.Explanation = qd.str(keys, "explanation")
	if v := keys["source"]; v != nil && !isNull(v) {
		q.Source = qd.source(v)
	}
	q.Tags = qd.strs(keys, "tags")
	for i, tag := range q.Tags {
		if strings.TrimSpace(tag) == "" {
			field := fmt.Sprintf("tags[%d]", i)
			qd.report(qd.nodes[field], field, "is empty")
		}
	}
	qd.validate(q)
	return q, keys["id"]
}

// questionDecoder maps the fields of one question, remembering the node of
// each field (so that quiz.Validate's problems can be placed) and which
// fields already have a problem (so that Validate does not repeat it).
type questionDecoder struct {
	*decoder
	path     string
	node     *yaml.Node
	nodes    map[string]*yaml.Node // field ("choices[1]", "source.prs") to value node
	reported map[string]bool
}

func (qd *questionDecoder) report(n *yaml.Node, field, msg string) {
	if n == nil {
		n = qd.node
	}
	qd.reported[field] = true
	qd.at(n, qd.path+"."+field, msg)
}

func (qd *questionDecoder) str(keys map[string]*yaml.Node, field string) string {
	v := keys[field]
	if v == nil {
		return ""
	}
	qd.nodes[field] = v
	s, ok := qd.text(v, qd.path+"."+field)
	if !ok {
		qd.reported[field] = true
	}
	return s
}

func (qd *questionDecoder) strs(keys map[string]*yaml.Node, field string) []string {
	v := keys[field]
	if v == nil {
		return nil
	}
	qd.nodes[field] = v
	items, ok := qd.list(v, qd.path+"."+field)
	if !ok {
		qd.reported[field] = true
		return nil
	}
	var out []string
	for i, item := range items {
		elem := fmt.Sprintf("%s[%d]", field, i)
		qd.nodes[elem] = item
		s, ok := qd.text(item, qd.path+"."+elem)
		if !ok {
			qd.reported[elem] = true
		}
		out = append(out, s)
	}
	return out
}

// truth maps the answer of a true_false question, which must be a YAML
// boolean. A missing answer is left to quiz.Validate.
func (qd *questionDecoder) truth(keys map[string]*yaml.Node) *bool {
	v := keys["answer"]
	if v == nil || isNull(v) || v.Kind == yaml.AliasNode {
		return nil
	}
	qd.nodes["answer"] = v
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!bool":
		b := strings.EqualFold(v.Value, "true")
		return &b
	case v.Kind == yaml.ScalarNode && v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		qd.report(v, "answer", fmt.Sprintf("expected true or false, got the quoted text %q (write true or false without quotes)", clip(v.Value)))
	case v.Kind == yaml.ScalarNode:
		qd.report(v, "answer", fmt.Sprintf("expected true or false, got %s %q", kindName(v), clip(v.Value)))
	default:
		qd.report(v, "answer", fmt.Sprintf("expected true or false, got %s", kindName(v)))
	}
	return nil
}

func (qd *questionDecoder) source(n *yaml.Node) quiz.Source {
	var src quiz.Source
	qd.nodes["source"] = n
	if n.Kind != yaml.MappingNode {
		if n.Kind != yaml.AliasNode {
			qd.report(n, "source", "expected a mapping, got "+kindName(n))
		} else {
			qd.reported["source"] = true
		}
		return src
	}
	keys := qd.fields(n, qd.path+".source", sourceKeys())
	src.Release = qd.str(keys, "release")
	src.SIG = qd.str(keys, "sig")
	src.Kind = qd.str(keys, "kind")
	src.URL = qd.str(keys, "url")
	prs := keys["prs"]
	if prs == nil || isNull(prs) {
		qd.report(n, "source.prs", "is missing: a source needs at least one PR number")
	} else {
		src.PRs = qd.prs(prs)
	}
	if v := keys["kind"]; v != nil && src.Kind != "" && !slices.Contains(sourceKinds(), src.Kind) {
		qd.report(v, "source.kind", fmt.Sprintf("%q is not a changelog kind (want one of %s)", clip(src.Kind), strings.Join(sourceKinds(), ", ")))
	}
	if v := keys["url"]; v != nil && src.URL != "" {
		if u, err := url.Parse(src.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			qd.report(v, "source.url", fmt.Sprintf("%q is not an http or https address", clip(src.URL)))
		}
	}
	return src
}

func (qd *questionDecoder) prs(n *yaml.Node) []int {
	qd.nodes["source.prs"] = n
	items, ok := qd.list(n, qd.path+".source.prs")
	if !ok {
		qd.reported["source.prs"] = true
		return nil
	}
	if len(items) == 0 {
		qd.report(n, "source.prs", "is empty: a source needs at least one PR number")
		return nil
	}
	var prs []int
	for i, item := range items {
		field := fmt.Sprintf("source.prs[%d]", i)
		qd.nodes[field] = item
		pr, msg := prNumber(item)
		if msg != "" {
			if item.Kind != yaml.AliasNode {
				qd.report(item, field, msg)
			}
			qd.reported[field] = true
		}
		prs = append(prs, pr) // keeps the indexes of quiz.Validate's problems
	}
	return prs
}

// prNumber reads a PR number written as a plain decimal integer.
func prNumber(n *yaml.Node) (int, string) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		if isNull(n) {
			return 0, "is empty"
		}
		if n.Kind == yaml.ScalarNode {
			return 0, fmt.Sprintf("expected a PR number, got %s %q", kindName(n), clip(n.Value))
		}
		return 0, "expected a PR number, got " + kindName(n)
	}
	digits := strings.TrimLeft(n.Value, "+-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Sprintf("%q: write the PR number in decimal", n.Value)
	}
	pr, err := strconv.Atoi(n.Value)
	if err != nil {
		return 0, fmt.Sprintf("%q is out of range", n.Value)
	}
	return pr, ""
}

// validate runs quiz.Validate and places each of its problems at the node
// of its field, falling back to the enclosing field and then the question.
// Problems of fields that already have one are left out.
func (qd *questionDecoder) validate(q quiz.Question) {
	var ve *quiz.ValidationError
	if err := q.Validate(); !errors.As(err, &ve) {
		return
	}
	for _, fe := range ve.Problems {
		field := fe.Field
		if field == "truth" {
			field = "answer"
		}
		if qd.covered(field) {
			continue
		}
		n := qd.node
		for f := field; f != ""; f = parentField(f) {
			if v, ok := qd.nodes[f]; ok {
				n = v
				break
			}
		}
		qd.at(n, qd.path+"."+field, fe.Msg)
	}
}

// covered reports whether field, or a field enclosing it, already has a
// problem. The answers are judged against the choices, so a problem with
// the choices or one of them covers the answers too.
func (qd *questionDecoder) covered(field string) bool {
	if field == "answer" || field == "answers" || strings.HasPrefix(field, "answers[") {
		for f := range qd.reported {
			if f == "choices" || strings.HasPrefix(f, "choices[") {
				return true
			}
		}
	}
	for f := field; f != ""; f = parentField(f) {
		if qd.reported[f] {
			return true
		}
	}
	return false
}

// parentField returns the field enclosing f: "choices" for "choices[1]",
// "source" for "source.prs", "" at the top.
func parentField(f string) string {
	i := strings.LastIndexAny(f, ".[")
	if i < 0 {
		return ""
	}
	return f[:i]
}

// fields checks the keys of a mapping against the known ones and returns
// the value node of each known key. Unknown keys, duplicate keys and keys
// that are not names are reported.
func (d *decoder) fields(n *yaml.Node, path string, known []string) map[string]*yaml.Node {
	keys := map[string]*yaml.Node{}
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMergeKey(k) || k.Kind == yaml.AliasNode {
			continue // reported by hazards
		}
		if k.Kind != yaml.ScalarNode {
			d.atf(k, path, "a key must be a name, got %s", kindName(k))
			continue
		}
		name := k.Value
		field := join(path, name)
		if prev, dup := first[name]; dup {
			d.atf(k, field, "duplicate key %q, first defined at %d:%d", clip(name), prev.Line, prev.Column)
			continue
		}
		first[name] = k
		if !slices.Contains(known, name) {
			d.atf(k, field, "unknown field %q%s", clip(name), suggest(name, known))
			continue
		}
		keys[name] = v
	}
	return keys
}

// text reads a string field. Scalars of any type keep their text (so 1.30
// stays "1.30"); null is the empty string.
func (d *decoder) text(n *yaml.Node, field string) (string, bool) {
	switch n.Kind {
	case yaml.AliasNode:
		return "", false // reported by hazards
	case yaml.ScalarNode:
		if isNull(n) {
			return "", true
		}
		if len(n.Value) > maxTextLen {
			d.atf(n, field, "is %d bytes long, over the limit of %d", len(n.Value), maxTextLen)
			return "", false
		}
		return n.Value, true
	}
	d.atf(n, field, "expected text, got %s", kindName(n))
	return "", false
}

// list reads a list field: null is the empty list.
func (d *decoder) list(n *yaml.Node, field string) ([]*yaml.Node, bool) {
	switch {
	case n.Kind == yaml.AliasNode:
		return nil, false // reported by hazards
	case isNull(n):
		return nil, true
	case n.Kind != yaml.SequenceNode:
		d.atf(n, field, "expected a list, got %s", kindName(n))
		return nil, false
	case len(n.Content) > maxListLen:
		d.atf(n, field, "has %d entries, over the limit of %d", len(n.Content), maxListLen)
		return nil, false
	}
	return n.Content, true
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// kindName names what a node holds, for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		}
		return "text"
	}
	return "a document"
}

// clip shortens s for a message.
func clip(s string) string {
	const limit = 40
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "..."
}

// suggest returns a hint naming the known key closest to name.
func suggest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(name), k); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (known fields: " + strings.Join(known, ", ") + ")"
}

// editDistance is the Levenshtein distance between two short strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 {
		return len(ra)
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
