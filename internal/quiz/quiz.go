// Package quiz holds the domain types shared by every part of kubequiz:
// decks, questions of the seven types, answers and how they are graded.
// It does no I/O.
package quiz

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
)

// Sentinel errors that the web layer maps to HTTP statuses.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict")
	ErrForbidden = errors.New("forbidden")
	ErrInvalid   = errors.New("invalid input")
)

// Type is the kind of a question; it decides the answer form and the grading.
type Type string

// The question types (design section 5).
const (
	SingleChoice Type = "single_choice"
	MultiChoice  Type = "multi_choice"
	TrueFalse    Type = "true_false"
	Cloze        Type = "cloze"
	Typed        Type = "typed"
	Order        Type = "order"
	Flashcard    Type = "flashcard"
)

// Types lists every question type in a fixed order.
func Types() []Type {
	return []Type{SingleChoice, MultiChoice, TrueFalse, Cloze, Typed, Order, Flashcard}
}

// Valid reports whether t is one of the known types.
func (t Type) Valid() bool {
	for _, k := range Types() {
		if t == k {
			return true
		}
	}
	return false
}

// Status is where a question is in its life: drafts never reach learners and
// retired questions are kept (with their history) but no longer served.
type Status string

// Question statuses.
const (
	Draft     Status = "draft"
	Published Status = "published"
	Retired   Status = "retired"
)

// Origin tells where a question came from.
type Origin string

// Question origins.
const (
	FromYAML      Origin = "yaml"
	FromGenerator Origin = "generated"
)

// Deck is a named set of questions, usually one release and one SIG.
type Deck struct {
	Slug        string `json:"slug"`
	Title       string `json:"title"`
	Release     string `json:"release"`
	SIG         string `json:"sig"`
	Language    string `json:"language"`
	Description string `json:"description,omitempty"`
}

// Source is the provenance of a question: the changelog facts it rests on.
type Source struct {
	Release string `json:"release,omitempty"`
	SIG     string `json:"sig,omitempty"`
	Kind    string `json:"kind,omitempty"`
	PRs     []int  `json:"prs,omitempty"`
	URL     string `json:"url,omitempty"`
}

// PRURL returns the upstream pull-request address for a PR number.
func PRURL(n int) string {
	return "https://github.com/kubernetes/kubernetes/pull/" + strconv.Itoa(n)
}

// Question is one quiz item. Which answer fields are used depends on Type:
//
//	single_choice  Choices, Answer (one of Choices)
//	multi_choice   Choices, Answers (a non-empty subset of Choices)
//	true_false     Truth
//	cloze          Prompt with one or more gaps written {{answer}} or {{answer|alternative}}
//	typed          Answer, Accept (further accepted spellings)
//	order          Items, in the correct order (shown shuffled)
//	flashcard      Answer (the back of the card; the learner grades themself)
type Question struct {
	ExtID       string   `json:"id"`
	Type        Type     `json:"type"`
	Prompt      string   `json:"prompt"`
	Choices     []string `json:"choices,omitempty"`
	Answer      string   `json:"answer,omitempty"`
	Answers     []string `json:"answers,omitempty"`
	Truth       *bool    `json:"truth,omitempty"`
	Accept      []string `json:"accept,omitempty"`
	Items       []string `json:"items,omitempty"`
	Explanation string   `json:"explanation"`
	Source      Source   `json:"source"`
	Tags        []string `json:"tags,omitempty"`
}

// Payload is the type-specific part of a question, as stored in one JSON column.
type Payload struct {
	Choices []string `json:"choices,omitempty"`
	Answer  string   `json:"answer,omitempty"`
	Answers []string `json:"answers,omitempty"`
	Truth   *bool    `json:"truth,omitempty"`
	Accept  []string `json:"accept,omitempty"`
	Items   []string `json:"items,omitempty"`
}

// Payload returns the type-specific fields of q.
func (q Question) Payload() Payload {
	return Payload{Choices: q.Choices, Answer: q.Answer, Answers: q.Answers, Truth: q.Truth, Accept: q.Accept, Items: q.Items}
}

// SetPayload copies p's fields into q.
func (q *Question) SetPayload(p Payload) {
	q.Choices, q.Answer, q.Answers, q.Truth, q.Accept, q.Items = p.Choices, p.Answer, p.Answers, p.Truth, p.Accept, p.Items
}

// ContentHash is a stable digest of everything a learner sees of q. An import
// compares it to tell an unchanged question from an updated one.
func (q Question) ContentHash() string {
	b, err := json.Marshal(q)
	if err != nil {
		// Marshalling a struct of strings, ints and bools cannot fail.
		panic("quiz: marshal question: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// AnswerKey is a short digest of what decides how a response to q is
// read and graded: its type, prompt and payload (choices, answers, items).
// A page that puts q to a learner carries it, so that an answer to a
// version of q that has been edited since is told apart. The explanation
// and source are left out: editing them changes no answer.
func (q Question) AnswerKey() string {
	b, err := json.Marshal(struct {
		Type    Type    `json:"type"`
		Prompt  string  `json:"prompt"`
		Payload Payload `json:"payload"`
	}{q.Type, q.Prompt, q.Payload()})
	if err != nil {
		// Marshalling a struct of strings, ints and bools cannot fail.
		panic("quiz: marshal answer key: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:AnswerKeyBytes])
}

// AnswerKeyBytes is the length of an answer key before hex encoding.
const AnswerKeyBytes = 8

// DeckSummary is a deck with how many published questions it holds.
type DeckSummary struct {
	Deck
	ID        int64 `json:"id"`
	Questions int   `json:"questions"`
}
