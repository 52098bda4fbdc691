package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"kubequiz/internal/quiz"
)

// This file holds the learner's side of decks: subscriptions and the counts
// on the decks page, and the study day that every daily count shares.
// study_queue.go serves cards; study_review.go grades and records reviews.

// DeckProgress is a deck as one learner sees it on the decks page. Questions
// (from DeckSummary) counts the deck's published questions.
type DeckProgress struct {
	quiz.DeckSummary
	Subscribed bool
	// New counts published questions the learner has no card for.
	New int
	// Learning counts cards in the Learning or Relearning state.
	Learning int
	// Due counts cards due at the time asked (learning cards included).
	Due int
}

// deckProgressQuery counts, per deck with published questions, the learner's
// cards. ?1 user id, ?2 now (ms), ?3 a deck slug or ” for every deck. The
// plan walks questions_deck_status per deck and looks each card up by its
// primary key.
const deckProgressQuery = `
	SELECT d.id, d.slug, d.title, d.release, d.sig, d.language, d.description,
	       count(*),
	       count(*) - count(c.question_id),
	       coalesce(sum(c.state IN (1, 3)), 0),
	       coalesce(sum(c.due <= ?2), 0),
	       EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = ?1 AND s.deck_id = d.id)
	FROM decks d
	JOIN questions q ON q.deck_id = d.id AND q.status = 'published'
	LEFT JOIN cards c ON c.user_id = ?1 AND c.question_id = q.id
	WHERE ?3 = '' OR d.slug = ?3
	GROUP BY d.id
	ORDER BY d.slug`

// StudyDecks returns every deck that has published questions, with userID's
// counts at now and whether they subscribe to it, newest release first.
func (db *DB) StudyDecks(ctx context.Context, userID int64, now time.Time) ([]DeckProgress, error) {
	out, err := deckProgress(ctx, db.read, userID, "", now)
	if err != nil {
		return nil, fmt.Errorf("store: study decks of user %d: %w", userID, err)
	}
	return out, nil
}

func deckProgress(ctx context.Context, q querier, userID int64, slug string, now time.Time) ([]DeckProgress, error) {
	rows, err := q.QueryContext(ctx, deckProgressQuery, userID, ms(now), slug)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DeckProgress
	for rows.Next() {
		var d DeckProgress
		if err := rows.Scan(&d.ID, &d.Slug, &d.Title, &d.Release, &d.SIG, &d.Language, &d.Description,
			&d.Questions, &d.New, &d.Learning, &d.Due, &d.Subscribed); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b DeckProgress) int { return -quiz.CompareReleases(a.Release, b.Release) })
	return out, nil
}

// SetSubscription subscribes userID to the deck slug (or unsubscribes) and
// returns the deck's progress afterwards. Subscribing twice, or
// unsubscribing from a deck not subscribed to, changes nothing. A deck that
// does not exist or has no published question is quiz.ErrNotFound.
// Unsubscribing keeps the learner's cards: they come back on resubscribing.
func (db *DB) SetSubscription(ctx context.Context, userID int64, slug string, subscribed bool, now time.Time) (DeckProgress, error) {
	var out DeckProgress
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var deckID int64
		err := tx.QueryRowContext(ctx, `SELECT d.id FROM decks d WHERE d.slug = ?
			AND EXISTS (SELECT 1 FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')`, slug).Scan(&deckID)
		if errors.Is(err, sql.ErrNoRows) {
			return quiz.ErrNotFound
		}
		if err != nil {
			return err
		}
		if subscribed {
			_, err = tx.ExecContext(ctx, `INSERT INTO subscriptions (user_id, deck_id, created_at) VALUES (?, ?, ?)
				ON CONFLICT (user_id, deck_id) DO NOTHING`, userID, deckID, ms(now))
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM subscriptions WHERE user_id = ? AND deck_id = ?`, userID, deckID)
		}
		if err != nil {
			return err
		}
		list, err := deckProgress(ctx, tx, userID, slug, now)
		if err != nil {
			return err
		}
		if len(list) != 1 {
			return fmt.Errorf("deck %s: %d progress rows", slug, len(list))
		}
		out = list[0]
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store: set subscription of user %d to %s: %w", userID, slug, err)
	}
	return out, nil
}

// StudyDay returns the start of the study day of u that contains now, and
// the start of the next one, in u's time zone as given (04:00 local,
// quiz.StudyDay). It reads no table: the zone comes from a cache.
func (db *DB) StudyDay(u quiz.User, now time.Time) (start, next time.Time) {
	return studyDay(now, db.zones.location(u.Timezone))
}

// studyDay returns the start of the study day that contains now in loc, and
// the start of the next one (quiz.StudyDay: 04:00 local).
func studyDay(now time.Time, loc *time.Location) (start, next time.Time) {
	return quiz.StudyDay(now, loc)
}
