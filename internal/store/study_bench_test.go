package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// Benchmark data: 100 users, 4 decks of 65 published questions (260), each
// user subscribed to every deck with a card for 200 of them (due spread over
// -30..+60 days, a tenth in learning) and 60 still new.
const (
	benchUsers         = 100
	benchDecks         = 4
	benchPerDeck       = 65
	benchCardsPerDeck  = 50
	benchLearningEvery = 10
)

type benchData struct {
	db        *DB
	users     []int64
	questions []int64
	now       time.Time
}

func newBenchData(b *testing.B) benchData {
	b.Helper()
	db, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	bd := benchData{db: db, now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	for d := range benchDecks {
		deck := addStudyDeck(b, db, fmt.Sprintf("deck-%d", d), fmt.Sprintf("1.%d", 30+d))
		for i := range benchPerDeck {
			bd.questions = append(bd.questions,
				addStudyQuestion(b, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("d%d-q%d", d, i))))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	err = db.tx(context.Background(), func(tx *sql.Tx) error {
		card, err := tx.Prepare(`INSERT INTO cards (user_id, question_id, state, due, stability, difficulty,
			elapsed_days, scheduled_days, learning_steps, reps, lapses, last_review) VALUES (?, ?, ?, ?, 3, 5, 3, 3, 0, 2, 0, ?)`)
		if err != nil {
			return err
		}
		for u := range benchUsers {
			res, err := tx.Exec(`INSERT INTO users (login, password_hash, created_at, password_changed_at)
				VALUES (?, 'x', 0, 0)`, fmt.Sprintf("user%d", u))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			bd.users = append(bd.users, id)
			for d := range benchDecks {
				if _, err := tx.Exec(`INSERT INTO subscriptions (user_id, deck_id, created_at)
					VALUES (?, ?, 0)`, id, d+1); err != nil {
					return err
				}
				for i := range benchCardsPerDeck {
					q := bd.questions[d*benchPerDeck+i]
					state := fsrs.Review
					if i%benchLearningEvery == 0 {
						state = fsrs.Learning
					}
					due := bd.now.Add(time.Duration(rng.Int64N(int64(90*24*time.Hour))) - 30*24*time.Hour)
					if _, err := card.Exec(id, q, int(state), ms(due), ms(due.Add(-72*time.Hour))); err != nil {
						return err
					}
				}
			}
		}
		return card.Close()
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.write.Exec("SELECT 1"); err != nil {
		b.Fatal(err)
	}
	return bd
}

// BenchmarkNextCard serves the next card to users in turn: most have due
// learning cards or reviews, as after a few days away. The machines are
// shared and noisy: compare with the references measured in the same run,
// a prepared SELECT of two values and a prepared primary-key lookup of the user's row,
// each without cancellation as the study statements run, and UserByID
// (the lookup prepared on every call, with a context that can end). The
// context can be cancelled, as a request's can.
func BenchmarkNextCard(b *testing.B) {
	bd := newBenchData(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ref := range []struct{ name, query string }{
		{"reference-select-1", `SELECT ?, 1`},
		{"reference-prepared-pk-lookup", `SELECT timezone, new_per_day FROM users WHERE id = ?`},
	} {
		st, err := bd.db.read.Prepare(ref.query)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(ref.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var a, z any
				row := st.QueryRowContext(context.WithoutCancel(ctx), bd.users[i%len(bd.users)])
				if err := row.Scan(&a, &z); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		st.Close()
	}
	b.Run("reference-pk-lookup", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := bd.db.UserByID(ctx, bd.users[i%len(bd.users)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	users := make([]quiz.User, len(bd.users))
	for i, id := range bd.users {
		users[i] = learner(b, bd.db, id)
	}
	for _, bc := range []struct {
		name string
		deck string
		now  time.Time
	}{
		{"all-decks", "", bd.now},
		{"one-deck", "deck-2", bd.now},
		// Before any card is due: the queue falls through to new cards.
		{"new-only", "", bd.now.Add(-31 * 24 * time.Hour)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				n, err := bd.db.NextCard(ctx, users[i%len(users)], bc.deck, bc.now)
				if err != nil || !n.Found {
					b.Fatalf("NextCard = %+v, %v", n.Found, err)
				}
				i++
			}
		})
	}
}

// BenchmarkRecordReview grades a random card of a random user: one write
// transaction per review.
func BenchmarkRecordReview(b *testing.B) {
	bd := newBenchData(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := Review{
			UserID:     bd.users[rng.IntN(len(bd.users))],
			QuestionID: bd.questions[rng.IntN(len(bd.questions))],
			RequestID:  reqID(i),
			Rating:     fsrs.Rating(1 + rng.IntN(4)),
			Response:   quiz.Response{Choice: rng.IntN(3)},
			Duration:   5 * time.Second,
			At:         bd.now.Add(time.Duration(i) * time.Millisecond),
		}
		if _, err := bd.db.RecordReview(ctx, r); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
