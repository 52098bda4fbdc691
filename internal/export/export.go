// Package export writes a learner's own data as CSV tables: their reviews
// and their cards, as the store reads them (store.DB.ExportReviews and
// ExportCards), through the spreadsheet-safe writer of internal/csvx. The
// web page and the kubequiz export command both write with it, so the two
// give the same file.
//
// The columns, and what they hold:
//
// reviews.csv, one row per review, earliest first:
//
//	reviewed_at           when the review was recorded, ISO 8601 in UTC
//	deck                  the slug of the question's deck
//	question_id           the question's stable id (its id in the YAML file, or the generator's)
//	prompt                the question as it reads now (a cloze with its {{gaps}})
//	type                  the question type (single_choice, cloze, ...)
//	rating                1 to 4
//	rating_label          the rating's name: もう一度, 難しい, 正解, 簡単
//	correct               1 when the answer was right (a flashcard: rated 難しい or better), else 0
//	answer                the learner's answer as the study page's feedback shows it
//	elapsed_ms            how long the learner took to answer, in milliseconds
//	interval_before_days  the interval the card had been scheduled for when it was
//	                      reviewed: its due time then minus the time of its previous
//	                      review, in days; empty for the first review of a new card
//	interval_after_days   the interval this review scheduled: the card's new due time
//	                      minus the review's time, in days (fractions for learning steps:
//	                      10 minutes is 0.006944)
//	state_before          the card's state before the review: new, learning, review
//	                      or relearning
//
// cards.csv, one row per card, in question order: a card exists once the
// learner has graded its question, so questions never graded (of
// subscribed decks or any other) have no row.
//
//	deck, question_id, prompt  as in reviews.csv
//	state                 learning, review or relearning
//	due                   when the card is next due, ISO 8601 in UTC
//	stability             FSRS stability, in days
//	difficulty            FSRS difficulty, 1 to 10
//	retrievability        the probability of recalling the card at the export's time,
//	                      by the forgetting curve of the learner's scheduler
//	reps, lapses          reviews, and lapses (Again on a card in review)
//	last_review           the card's last review, ISO 8601 in UTC
//
// Days carry at most six decimals. Numbers are written as numbers; only
// text cells that start like a formula are neutralised (csvx).
package export

import (
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"time"

	"kubequiz/internal/csvx"
	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// Options change how a table is written.
type Options struct {
	// BOM starts the file with a UTF-8 byte order mark, so that Excel reads
	// its Japanese text as UTF-8.
	BOM bool
}

// ReviewColumns returns the header of reviews.csv.
func ReviewColumns() []string {
	return []string{"reviewed_at", "deck", "question_id", "prompt", "type", "rating", "rating_label", "correct",
		"answer", "elapsed_ms", "interval_before_days", "interval_after_days", "state_before"}
}

// CardColumns returns the header of cards.csv.
func CardColumns() []string {
	return []string{"deck", "question_id", "prompt", "state", "due", "stability", "difficulty", "retrievability",
		"reps", "lapses", "last_review"}
}

// WriteReviews writes reviews.csv to w: the header, then a record per
// review, and returns how many records it wrote. The reviews are read in a
// goroutine of their own, a few hundred rows ahead of the writing
// (readAhead), which has ended when WriteReviews returns. On an error (the
// reviews' or w's) the output stops short: what reached w stays, the
// buffered rest is dropped.
func WriteReviews(w io.Writer, reviews iter.Seq2[store.ExportedReview, error], opt Options) (int, error) {
	cw := csvx.NewWriter(w, csvx.Options{BOM: opt.BOM}, ReviewColumns()...)
	n := 0
	for r, err := range readAhead(reviews, aheadBatch) {
		if err != nil {
			return n, fmt.Errorf("write reviews.csv: %w", err)
		}
		q := r.Question
		cw.Time(r.ReviewedAt)
		cw.Text(r.Deck)
		cw.Text(q.ExtID)
		cw.Text(q.Prompt)
		cw.Text(string(q.Type))
		cw.Int(int64(r.Rating))
		cw.Text(quiz.RatingLabel(r.Rating))
		cw.Int(boolInt(r.Correct))
		cw.Text(q.AnswerText(r.Response))
		cw.Int(r.Duration.Milliseconds())
		if r.PreviousReview.IsZero() {
			cw.Empty()
		} else {
			cw.Float(days(r.DueBefore.Sub(r.PreviousReview)))
		}
		cw.Float(days(r.DueAfter.Sub(r.ReviewedAt)))
		cw.Text(StateWord(r.StateBefore))
		if err := cw.End(); err != nil {
			return n, fmt.Errorf("write reviews.csv: %w", err)
		}
		n++
	}
	if err := cw.Flush(); err != nil {
		return n, fmt.Errorf("write reviews.csv: %w", err)
	}
	return n, nil
}

// WriteCards writes cards.csv to w: the header, then a record per card,
// and returns how many records it wrote. Errors are as WriteReviews's.
func WriteCards(w io.Writer, cards iter.Seq2[store.ExportedCard, error], opt Options) (int, error) {
	cw := csvx.NewWriter(w, csvx.Options{BOM: opt.BOM}, CardColumns()...)
	n := 0
	for c, err := range readAhead(cards, aheadBatch) {
		if err != nil {
			return n, fmt.Errorf("write cards.csv: %w", err)
		}
		cw.Text(c.Deck)
		cw.Text(c.Question.ExtID)
		cw.Text(c.Question.Prompt)
		cw.Text(StateWord(c.Card.State))
		cw.Time(c.Card.Due)
		cw.Float(c.Card.Stability)
		cw.Float(c.Card.Difficulty)
		cw.Float(c.Retrievability)
		cw.Int(int64(c.Card.Reps))
		cw.Int(int64(c.Card.Lapses))
		cw.Time(c.Card.LastReview)
		if err := cw.End(); err != nil {
			return n, fmt.Errorf("write cards.csv: %w", err)
		}
		n++
	}
	if err := cw.Flush(); err != nil {
		return n, fmt.Errorf("write cards.csv: %w", err)
	}
	return n, nil
}

// stateWords are the states' words in the tables, by fsrs.State.
var stateWords = [...]string{fsrs.New: "new", fsrs.Learning: "learning", fsrs.Review: "review", fsrs.Relearning: "relearning"}

// StateWord is a card state as the tables write it: new, learning, review
// or relearning ("state 7" for a state that is none of those).
func StateWord(s fsrs.State) string {
	if !s.Valid() {
		return "state " + strconv.Itoa(int(s))
	}
	return stateWords[s]
}

// days is d in days, rounded to six decimals.
func days(d time.Duration) float64 {
	return math.Round(float64(d.Milliseconds())/86.4) / 1e6
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
