package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
	"kubequiz/internal/quiz"
)

// This file holds the API exported for tests of other packages (and for
// store's own): the server never calls it. The tests use it to open the
// database file beside a DB, to read back what an operation stored, to
// ingest one document at a time, to count or clear sign-in failures
// directly, to give a learner a card as it is and to build the statistics
// benchmark's learner.

// DSN returns the modernc.org/sqlite data source name for path, with
// kubequiz's default settings. The driver applies them to every
// connection.
func DSN(path string) string { return dsn(path, SyncNormal) }

// Path is the database file's path.
func (db *DB) Path() string { return db.path }

// Question returns one question by row id, whatever its status.
func (db *DB) Question(ctx context.Context, id int64) (StoredQuestion, error) {
	row := db.read.QueryRowContext(ctx, `SELECT `+questionColumns+`
		FROM questions q JOIN decks d ON d.id = q.deck_id WHERE q.id = ?`, id)
	sq, err := scanQuestion(row)
	if errors.Is(err, sql.ErrNoRows) {
		return sq, fmt.Errorf("store: question %d: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return sq, fmt.Errorf("store: question %d: %w", id, err)
	}
	return sq, nil
}

// DeckQuestions returns the questions of a deck in deck order; with
// published set, only published ones.
func (db *DB) DeckQuestions(ctx context.Context, slug string, published bool) ([]StoredQuestion, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+questionColumns+`
		FROM questions q JOIN decks d ON d.id = q.deck_id
		WHERE d.slug = ? AND (? = 0 OR q.status = 'published')
		ORDER BY q.position, q.id`, slug, published)
	if err != nil {
		return nil, fmt.Errorf("store: questions of deck %s: %w", slug, err)
	}
	defer rows.Close()
	var out []StoredQuestion
	for rows.Next() {
		sq, err := scanQuestion(rows)
		if err != nil {
			return nil, fmt.Errorf("store: questions of deck %s: %w", slug, err)
		}
		out = append(out, sq)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: questions of deck %s: %w", slug, err)
	}
	return out, nil
}

// BulkReviews adds n reviews of userID directly, in one transaction and
// one statement, for benchmarks and tests that read many reviews: review
// i is of questionIDs[i % len(questionIDs)] with answers[i %
// len(questionIDs)], at start + i*step, rated 1 to 4 in turn (correct
// unless rated 1), taking 4 to 13 seconds. The first review of each
// question is that of a new card; later ones are of a card in review,
// due a day before, each scheduling 3 days. No card is written.
func (db *DB) BulkReviews(ctx context.Context, userID int64, questionIDs []int64, answers []quiz.Response, n int, start time.Time, step time.Duration) error {
	if len(questionIDs) == 0 || len(answers) != len(questionIDs) {
		return fmt.Errorf("store: bulk reviews: %d questions, %d answers", len(questionIDs), len(answers))
	}
	ids, err := json.Marshal(questionIDs)
	if err != nil {
		return fmt.Errorf("store: bulk reviews: %w", err)
	}
	answerJSON, err := json.Marshal(answers)
	if err != nil {
		return fmt.Errorf("store: bulk reviews: %w", err)
	}
	err = db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?1),
			r(i, k, at) AS (SELECT i, i % ?2, ?3 + i * ?4 FROM seq)
			INSERT INTO review_log (request_id, user_id, question_id, rating, answer, correct, reviewed_at, duration_ms,
				state_before, due_before, stability_before, difficulty_before, elapsed_days, retrievability,
				state_after, due_after, stability_after, difficulty_after, scheduled_days)
			SELECT 'bulk-' || (SELECT coalesce(max(id), 0) FROM review_log) || '-' || i, ?5, json_extract(?6, '$[' || k || ']'), 1 + i % 4,
				json_extract(?7, '$[' || k || ']'), i % 4 > 0, at, 4000 + i % 9000,
				CASE WHEN i < ?2 THEN 0 ELSE 2 END, CASE WHEN i < ?2 THEN at ELSE at - 86400000 END, 3, 5, 3, 0.9,
				2, at + 3 * 86400000, 3.5, 5, 3
			FROM r`, n, len(questionIDs), ms(start), step.Milliseconds(), userID, string(ids), string(answerJSON))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: bulk reviews: %w", err)
	}
	return nil
}

// TableChecksums returns a SHA-256 of every table's full content, keyed by
// table name. Two databases (or one, before and after an operation) with the
// same checksums hold the same data. It is meant for tests and checks of
// all-or-nothing operations; it reads every row.
func (db *DB) TableChecksums(ctx context.Context) (map[string]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: list tables: %w", err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	sums := make(map[string]string, len(tables))
	for _, t := range tables {
		sum, err := db.tableChecksum(ctx, t)
		if err != nil {
			return nil, err
		}
		sums[t] = sum
	}
	return sums, nil
}

// tableChecksum hashes one table. The name comes from sqlite_schema, never
// from input, and is quoted as an identifier.
func (db *DB) tableChecksum(ctx context.Context, table string) (string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT * FROM "`+table+`" ORDER BY 1, 2`)
	if err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	h := sha256.New()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", fmt.Errorf("store: checksum %s: %w", table, err)
		}
		for _, v := range vals {
			fmt.Fprintf(h, "%T:%v\x1f", v, v)
		}
		h.Write([]byte{'\n'})
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PutCard writes userID's card for questionID as c, in place of any: a
// learner's memory of a question as a test needs it, without the reviews
// that would lead to it.
func (db *DB) PutCard(ctx context.Context, userID, questionID int64, c fsrs.Card) error {
	var last any
	if !c.LastReview.IsZero() {
		last = ms(c.LastReview)
	}
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, saveCardQuery, userID, questionID, int(c.State), ms(c.Due), c.Stability, c.Difficulty,
			c.ElapsedDays, c.ScheduledDays, c.LearningSteps, c.Reps, c.Lapses, last)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put card %d of user %d: %w", questionID, userID, err)
	}
	return nil
}

// IngestChangelog stores one document and the questions generated from it;
// see IngestChangelogs.
func (db *DB) IngestChangelog(ctx context.Context, in ChangelogInput, opt IngestOptions) (IngestResult, error) {
	rs, err := db.IngestChangelogs(ctx, []ChangelogInput{in}, opt)
	if err != nil {
		return IngestResult{}, err
	}
	return rs[0], nil
}

// ClearLoginFailures forgets the failures of login from ip after a right
// password. Failures from other addresses, and of ip for other logins, stay.
func (db *DB) ClearLoginFailures(ctx context.Context, login, ip string) error {
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM login_failures WHERE login = ? AND ip = ?`, strings.ToLower(login), RateKey(ip))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: clear sign-in failures: %w", err)
	}
	return nil
}

// LoginFailures counts the failures recorded since a time.
func (db *DB) LoginFailures(ctx context.Context, login, ip string, since time.Time) (LoginFailureCounts, error) {
	c, err := countFailures(ctx, db.read, strings.ToLower(login), RateKey(ip), ms(since))
	if err != nil {
		return c, fmt.Errorf("store: count sign-in failures: %w", err)
	}
	return c, nil
}

// The statistics benchmark's learner (SeedStatsBench): a year of study,
// 100,000 reviews (about 274 a day) of 4,000 cards in 20 subscribed decks
// of 250 questions (1,000 still new), among 10 other learners with 10,000
// reviews each.
const (
	statsBenchDecks     = 20
	statsBenchPerDeck   = 250
	statsBenchCards     = 4000
	statsBenchReviews   = 100_000
	statsBenchOthers    = 10
	statsBenchOtherRevs = 10_000
)

// StatsBenchLogin is the login of SeedStatsBench's learner; the other
// learners are other0 to other9.
const StatsBenchLogin = "learner"

// SeedStatsBench fills an empty database with the statistics benchmark's
// data as of now and returns the learner's user id: 20 decks of 250
// published questions over 4 releases (1.20 to 1.23) and 5 SIGs (sig-0 to
// sig-4); the learner (StatsBenchLogin, Asia/Tokyo, 20 new cards and 200
// reviews a day) subscribes to all of them and has a card for the first
// 200 questions of each, with 100,000 reviews over the year before now;
// 10 other learners have 10,000 reviews each of the same questions. The
// same now gives the same data.
func (db *DB) SeedStatsBench(ctx context.Context, now time.Time) (int64, error) {
	user, err := db.seedStatsBench(ctx, now)
	if err != nil {
		return 0, fmt.Errorf("store: seed the statistics benchmark: %w", err)
	}
	return user, nil
}

func (db *DB) seedStatsBench(ctx context.Context, now time.Time) (int64, error) {
	rng := rand.New(rand.NewPCG(7, 11))
	questions, err := db.insertBenchDecks(ctx, statsBenchDecks, statsBenchPerDeck)
	if err != nil {
		return 0, err
	}
	user, err := db.addBenchUser(ctx, StatsBenchLogin)
	if err != nil {
		return 0, err
	}
	for d := range statsBenchDecks {
		if _, err := db.SetSubscription(ctx, user, fmt.Sprintf("deck-%02d", d), true, time.Unix(0, 0)); err != nil {
			return 0, err
		}
	}
	// The learner's cards are the first 200 questions of each deck.
	var carded []int64
	for d := range statsBenchDecks {
		carded = append(carded, questions[d*statsBenchPerDeck:d*statsBenchPerDeck+statsBenchCards/statsBenchDecks]...)
	}
	if err := db.insertBenchCards(ctx, user, carded, benchCards(rng, len(carded), now)); err != nil {
		return 0, err
	}
	if err := db.insertPastReviews(ctx, StatsBenchLogin, benchHistory(rng, user, carded, statsBenchReviews, now, benchYear)); err != nil {
		return 0, err
	}
	for o := range statsBenchOthers {
		login := fmt.Sprintf("other%d", o)
		other, err := db.addBenchUser(ctx, login)
		if err != nil {
			return 0, err
		}
		if err := db.insertPastReviews(ctx, login, benchHistory(rng, other, carded, statsBenchOtherRevs, now, benchYear)); err != nil {
			return 0, err
		}
	}
	if _, err := db.write.ExecContext(ctx, `ANALYZE`); err != nil {
		return 0, fmt.Errorf("analyze: %w", err)
	}
	return user, nil
}

// insertBenchDecks inserts decks decks of perDeck published
// single-choice questions each, deck-00 onwards, over releases 1.20 on
// (five decks a release) and SIGs sig-0 to sig-4, and returns the
// questions' ids, deck by deck in order.
func (db *DB) insertBenchDecks(ctx context.Context, decks, perDeck int) ([]int64, error) {
	var questions []int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for d := range decks {
			res, err := tx.ExecContext(ctx, `INSERT INTO decks (slug, title, release, sig, created_at, updated_at)
				VALUES (?, ?, ?, ?, 0, 0)`, fmt.Sprintf("deck-%02d", d), fmt.Sprintf("Deck deck-%02d", d),
				fmt.Sprintf("1.%d", 20+d/5), fmt.Sprintf("sig-%d", d%5))
			if err != nil {
				return fmt.Errorf("deck %d: %w", d, err)
			}
			deck, err := res.LastInsertId()
			if err != nil {
				return err
			}
			for i := range perDeck {
				q := quiz.Question{
					ExtID: fmt.Sprintf("d%d-q%d", d, i), Type: quiz.SingleChoice, Choices: []string{"a", "b", "c"},
					Answer: "b", Explanation: "because", Source: quiz.Source{Release: "1.36", SIG: "node", PRs: []int{136711}},
				}
				q.Prompt = "prompt " + q.ExtID
				payload, prs, tags, err := encodeQuestion(q)
				if err != nil {
					return err
				}
				res, err := tx.ExecContext(ctx, `INSERT INTO questions (deck_id, ext_id, position, type, prompt, payload, explanation,
					release, sig, pr_numbers, tags, origin, status, content_hash, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, 'yaml', 'published', ?, 0, 0)`,
					deck, q.ExtID, i, string(q.Type), q.Prompt, payload, q.Explanation, prs, tags, q.ContentHash())
				if err != nil {
					return fmt.Errorf("question %s: %w", q.ExtID, err)
				}
				id, err := res.LastInsertId()
				if err != nil {
					return err
				}
				questions = append(questions, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("add decks: %w", err)
	}
	return questions, nil
}

// addBenchUser inserts a learner in Asia/Tokyo with 20 new cards and 200
// reviews a day, who cannot sign in with a password, and returns its id.
func (db *DB) addBenchUser(ctx context.Context, login string) (int64, error) {
	res, err := db.write.ExecContext(ctx, `INSERT INTO users (login, password_hash, timezone, new_per_day, reviews_per_day,
		created_at, password_changed_at) VALUES (?, 'x', 'Asia/Tokyo', 20, 200, 0, 0)`, login)
	if err != nil {
		return 0, fmt.Errorf("add user %s: %w", login, err)
	}
	return res.LastInsertId()
}

// insertBenchCards writes cards of user for questions, one each, in one
// transaction.
func (db *DB) insertBenchCards(ctx context.Context, user int64, questions []int64, cards []fsrs.Card) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO cards (user_id, question_id, state, due, stability, difficulty,
			elapsed_days, scheduled_days, learning_steps, reps, lapses, last_review) VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, c := range cards {
			if _, err := st.ExecContext(ctx, user, questions[i], int(c.State), ms(c.Due), c.Stability, c.Difficulty, c.ScheduledDays,
				c.Reps, c.Lapses, ms(c.LastReview)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add cards: %w", err)
	}
	return nil
}

// pastReview is a review written straight into review_log, for the
// statistics' tests and benchmark: only what the figures read is real.
type pastReview struct {
	user, question int64
	at             time.Time
	before         fsrs.State
	rating         fsrs.Rating
}

// insertPastReviews inserts reviews in one transaction, request ids made
// from their order and a prefix.
func (db *DB) insertPastReviews(ctx context.Context, prefix string, reviews []pastReview) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO review_log (request_id, user_id, question_id, rating, correct, reviewed_at,
			state_before, due_before, stability_before, difficulty_before, elapsed_days, retrievability,
			state_after, due_after, stability_after, difficulty_after, scheduled_days)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 3, 5, 3, 0.9, 2, ?, 5, 5, 4)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, r := range reviews {
			at := ms(r.at)
			if _, err := st.ExecContext(ctx, fmt.Sprintf("%s-%d", prefix, i), r.user, r.question, int(r.rating), r.rating >= fsrs.Hard,
				at, int(r.before), at, at+4*86_400_000); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add reviews: %w", err)
	}
	return nil
}

// benchYear is the span of the statistics benchmark's history.
const benchYear = 365 * 24 * time.Hour

// benchHistory returns n reviews of user over the span before now, about
// as many each day, of questions, the first of each card from new.
func benchHistory(rng *rand.Rand, user int64, questions []int64, n int, now time.Time, span time.Duration) []pastReview {
	out := make([]pastReview, n)
	seen := map[int64]bool{}
	for i := range out {
		at := now.Add(-span + time.Duration(float64(i)/float64(n)*float64(span)) +
			time.Duration(rng.Int64N(int64(time.Hour))))
		q := questions[rng.IntN(len(questions))]
		before := fsrs.Review
		switch p := rng.IntN(100); {
		case !seen[q]:
			before, seen[q] = fsrs.New, true
		case p < 10:
			before = fsrs.Learning
		case p < 15:
			before = fsrs.Relearning
		}
		rating := fsrs.Good
		switch p := rng.IntN(100); {
		case p < 10:
			rating = fsrs.Again
		case p < 20:
			rating = fsrs.Hard
		case p < 30:
			rating = fsrs.Easy
		}
		out[i] = pastReview{user, q, at, before, rating}
	}
	return out
}

// benchCards returns n cards as a year of study leaves them: a tenth in
// learning or relearning, stabilities from a day to a year, due from ten
// days ago to four months ahead.
func benchCards(rng *rand.Rand, n int, now time.Time) []fsrs.Card {
	out := make([]fsrs.Card, n)
	for i := range out {
		s := math.Exp(rng.Float64() * math.Log(365))
		due := now.Add(time.Duration(rng.Int64N(int64(130*24*time.Hour))) - 10*24*time.Hour)
		c := fsrs.Card{State: fsrs.Review, Stability: s, Difficulty: 1 + 9*rng.Float64(), ScheduledDays: int(s),
			Reps: 1 + rng.IntN(20), Lapses: rng.IntN(3), Due: due, LastReview: due.Add(-time.Duration(s * float64(24*time.Hour)))}
		if c.LastReview.After(now) {
			c.LastReview = now.Add(-time.Hour)
		}
		if i%10 == 0 {
			c.State = fsrs.Learning + fsrs.State(2*(i%20/10)) // Learning or Relearning
			c.Due, c.LastReview = now.Add(time.Duration(rng.IntN(60))*time.Minute), now.Add(-time.Hour)
		}
		out[i] = c
	}
	return out
}

// GroupBenchSize is the size of a group SeedGroupBench builds.
type GroupBenchSize struct {
	// Members counts the members, the organizer included.
	Members int
	// Decks counts the group's decks, each of PerDeck questions.
	Decks, PerDeck int
	// Reviews counts the members' reviews, all of the group's decks.
	Reviews int
}

// GroupDashboardBench is the group dashboard benchmark's group: 200
// members, 8 decks of 120 questions, 100,000 reviews.
func GroupDashboardBench() GroupBenchSize {
	return GroupBenchSize{Members: 200, Decks: 8, PerDeck: 120, Reviews: 100_000}
}

// groupBenchSpan is how far back a group benchmark's reviews go: a
// release's decks studied for the three months before its meetup.
const groupBenchSpan = 90 * 24 * time.Hour

// GroupBench is a group SeedGroupBench built.
type GroupBench struct {
	Group int64
	// Members are the members' user ids, the organizer's first.
	Members []int64
}

// SeedGroupBench fills an empty database with a study group of size as
// of now, whose meetup is 14 days ahead at 19:00 in Tokyo: size.Decks
// decks of size.PerDeck published questions (insertBenchDecks), all the
// group's; size.Members members (member000 the organizer, the others
// joined through the invite link and so subscribed to the decks). Every
// fourth member lives in America/Los_Angeles, the others in Asia/Tokyo,
// and desired retentions run from 0.85 to 0.95. Member i has cards
// (benchCards) for the first 5 to 35 % of each deck's questions as i
// goes, but one in fifty has none; those with cards share size.Reviews
// reviews (benchHistory) over the 90 days before now: for the default
// size, 37,000 cards, 2.7 reviews each. The same size and now give the
// same data.
func (db *DB) SeedGroupBench(ctx context.Context, size GroupBenchSize, now time.Time) (GroupBench, error) {
	gb, err := db.seedGroupBench(ctx, size, now)
	if err != nil {
		return gb, fmt.Errorf("store: seed a group benchmark: %w", err)
	}
	return gb, nil
}

func (db *DB) seedGroupBench(ctx context.Context, size GroupBenchSize, now time.Time) (GroupBench, error) {
	var gb GroupBench
	if size.Members < 1 || size.Decks < 1 || size.PerDeck < 1 {
		return gb, fmt.Errorf("a group of %+v", size)
	}
	rng := rand.New(rand.NewPCG(13, 17))
	questions, err := db.insertBenchDecks(ctx, size.Decks, size.PerDeck)
	if err != nil {
		return gb, err
	}
	for i := range size.Members {
		login := fmt.Sprintf("member%03d", i)
		id, err := db.addBenchUser(ctx, login)
		if err != nil {
			return gb, err
		}
		zone := "Asia/Tokyo"
		if i%4 == 3 {
			zone = "America/Los_Angeles"
		}
		if _, err := db.write.ExecContext(ctx, `UPDATE users SET display_name = ?, timezone = ?, desired_retention = ? WHERE id = ?`,
			fmt.Sprintf("Member %d", i), zone, 0.85+0.01*float64(i%11), id); err != nil {
			return gb, fmt.Errorf("user %s: %w", login, err)
		}
		gb.Members = append(gb.Members, id)
	}
	tokyo := db.zones.location("Asia/Tokyo")
	day := now.In(tokyo).AddDate(0, 0, 14)
	g := NewGroup{Group: group.Group{Name: "ベンチマークの会", Release: "1.36",
		Meetup: group.Meetup{At: time.Date(day.Year(), day.Month(), day.Day(), 19, 0, 0, 0, tokyo), HasTime: true}},
		Invite: GroupInvite{Hash: []byte("group benchmark invite")}}
	for d := range size.Decks {
		g.Decks = append(g.Decks, fmt.Sprintf("deck-%02d", d))
	}
	if gb.Group, err = db.CreateGroup(ctx, gb.Members[0], g, now); err != nil {
		return gb, err
	}
	for _, id := range gb.Members[1:] {
		if _, err := db.JoinGroup(ctx, g.Invite.Hash, id, now); err != nil {
			return gb, err
		}
	}
	var studying []int
	for i := range gb.Members {
		if i%50 != 49 {
			studying = append(studying, i)
		}
	}
	for k, i := range studying {
		seen := size.PerDeck * (5 + i*37%31) / 100
		var carded []int64
		for d := range size.Decks {
			carded = append(carded, questions[d*size.PerDeck:d*size.PerDeck+max(seen, 1)]...)
		}
		if err := db.insertBenchCards(ctx, gb.Members[i], carded, benchCards(rng, len(carded), now)); err != nil {
			return gb, err
		}
		n := size.Reviews / len(studying)
		if k < size.Reviews%len(studying) {
			n++
		}
		reviews := benchHistory(rng, gb.Members[i], carded, n, now, groupBenchSpan)
		if err := db.insertPastReviews(ctx, fmt.Sprintf("member%03d", i), reviews); err != nil {
			return gb, err
		}
	}
	if _, err := db.write.ExecContext(ctx, `ANALYZE`); err != nil {
		return gb, fmt.Errorf("analyze: %w", err)
	}
	return gb, nil
}
