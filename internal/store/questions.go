package store

import (
	"encoding/json"
	"fmt"

	"kubequiz/internal/quiz"
)

// StoredQuestion is a question as kept in the database: the question itself
// plus its row id, deck and life-cycle fields.
type StoredQuestion struct {
	ID        int64
	DeckID    int64
	DeckSlug  string
	Position  int
	Status    quiz.Status
	Origin    quiz.Origin
	Generator string
	Question  quiz.Question
}

// questionColumns lists, in scanQuestion's order, the columns a query must
// select from questions q joined with decks d.
const questionColumns = `q.id, q.deck_id, d.slug, q.position, q.status, q.origin, q.generator,
	q.ext_id, q.type, q.prompt, q.payload, q.explanation, q.release, q.sig, q.kind,
	q.pr_numbers, q.source_url, q.tags`

type scanner interface{ Scan(dest ...any) error }

// scanQuestion reads one row selected with questionColumns.
func scanQuestion(row scanner) (StoredQuestion, error) {
	var (
		sq                    StoredQuestion
		q                     = &sq.Question
		payload, prs, tags    string
		status, origin, qtype string
	)
	err := row.Scan(&sq.ID, &sq.DeckID, &sq.DeckSlug, &sq.Position, &status, &origin, &sq.Generator,
		&q.ExtID, &qtype, &q.Prompt, &payload, &q.Explanation, &q.Source.Release, &q.Source.SIG, &q.Source.Kind,
		&prs, &q.Source.URL, &tags)
	if err != nil {
		return sq, err
	}
	sq.Status, sq.Origin, q.Type = quiz.Status(status), quiz.Origin(origin), quiz.Type(qtype)
	var p quiz.Payload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return sq, fmt.Errorf("question %d payload: %w", sq.ID, err)
	}
	q.SetPayload(p)
	if err := json.Unmarshal([]byte(prs), &q.Source.PRs); err != nil {
		return sq, fmt.Errorf("question %d pr_numbers: %w", sq.ID, err)
	}
	if err := json.Unmarshal([]byte(tags), &q.Tags); err != nil {
		return sq, fmt.Errorf("question %d tags: %w", sq.ID, err)
	}
	return sq, nil
}

// scanExtras scans questionColumns followed by more columns.
type scanExtras struct {
	row   scanner
	extra []any
}

func (s scanExtras) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }

// encodeQuestion returns the JSON columns of q.
func encodeQuestion(q quiz.Question) (payload, prs, tags string, err error) {
	b, err := json.Marshal(q.Payload())
	if err != nil {
		return "", "", "", err
	}
	p := q.Source.PRs
	if p == nil {
		p = []int{}
	}
	pb, err := json.Marshal(p)
	if err != nil {
		return "", "", "", err
	}
	t := q.Tags
	if t == nil {
		t = []string{}
	}
	tb, err := json.Marshal(t)
	if err != nil {
		return "", "", "", err
	}
	return string(b), string(pb), string(tb), nil
}
