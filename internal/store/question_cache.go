package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"kubequiz/internal/quiz"
)

// The study statements run on every request and each serves one question.
// Reading all of a question's columns and decoding its JSON is a large
// part of their cost, so they select only the question's identity, the
// columns the queue itself needs (deck, position, status) and the deck's
// slug and title, which change without the question's revision; the rest
// comes from questionCache.
//
// A cached question is used only for the revision the statement's own row
// shows. Every change of a questions row moves its revision on (migration
// 0011), whichever process makes it, so a copy is never used after its row
// changed. created_at is part of the key in case a row id is ever used
// again after a deletion.

// studyQuestionColumns lists, in questionRef.dests order, what the study
// statements select of questions q joined with decks d.
const studyQuestionColumns = `q.id, q.revision, q.created_at, q.deck_id, d.slug, q.position, q.status, d.title`

// questionRef is a question as a study statement reads it.
type questionRef struct {
	id, revision, created, deckID int64
	slug, status, deckTitle       string
	position                      int
}

func (r *questionRef) dests() []any {
	return []any{&r.id, &r.revision, &r.created, &r.deckID, &r.slug, &r.position, &r.status, &r.deckTitle}
}

// questionRevision identifies one revision of a question row.
type questionRevision struct{ revision, created int64 }

// questionCacheMax bounds the questions kept; a full cache is emptied.
const questionCacheMax = 20000

// questionCache holds the questions study requests have served. Callers
// share the quiz.Question values it returns and must not change them.
type questionCache struct {
	mu sync.RWMutex
	m  map[int64]cachedQuestion // by question id
}

// cachedQuestion is what one revision of a question fixes: everything but
// its deck, position and status.
type cachedQuestion struct {
	rev       questionRevision
	origin    quiz.Origin
	generator string
	question  quiz.Question
	answerKey string // question.AnswerKey()
}

// questionByRevisionQuery loads every column of question ?1 with its
// revision.
const questionByRevisionQuery = `SELECT ` + questionColumns + `, q.revision, q.created_at
	FROM questions q JOIN decks d ON d.id = q.deck_id WHERE q.id = +?1`

// resolve returns the study question ref points to and its answer key,
// from the cache when it holds ref's revision and otherwise read with q
// (in the same transaction as ref, where there is one).
func (c *questionCache) resolve(ctx context.Context, q querier, ref questionRef) (StoredQuestion, string, error) {
	sq := StoredQuestion{ID: ref.id, DeckID: ref.deckID, DeckSlug: ref.slug, Position: ref.position, Status: quiz.Status(ref.status)}
	c.mu.RLock()
	e, ok := c.m[ref.id]
	c.mu.RUnlock()
	if !ok || e.rev != (questionRevision{ref.revision, ref.created}) {
		var err error
		if e, err = c.load(ctx, q, ref.id); err != nil {
			return sq, "", err
		}
	}
	sq.Origin, sq.Generator, sq.Question = e.origin, e.generator, e.question
	return sq, e.answerKey, nil
}

// load reads question id and keeps it. The row read may be a revision newer
// than the one asked for, when it changed in between (outside a
// transaction): it is then the newer one that is served.
func (c *questionCache) load(ctx context.Context, q querier, id int64) (cachedQuestion, error) {
	var e cachedQuestion
	sq, err := scanQuestion(scanExtras{q.QueryRowContext(ctx, questionByRevisionQuery, id), []any{&e.rev.revision, &e.rev.created}})
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("question %d: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return e, fmt.Errorf("question %d: %w", id, err)
	}
	e.origin, e.generator, e.question = sq.Origin, sq.Generator, sq.Question
	e.answerKey = sq.Question.AnswerKey()
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.m[id]; ok && cur.rev.created == e.rev.created && cur.rev.revision > e.rev.revision {
		return e, nil // a newer revision is already kept
	}
	if c.m == nil || len(c.m) >= questionCacheMax {
		c.m = make(map[int64]cachedQuestion)
	}
	c.m[id] = e
	return e, nil
}
