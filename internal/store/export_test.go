package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// exportFixture is two learners who reviewed questions of every type in
// turn, with answers that a spreadsheet would take for formulas and
// Japanese ones, and a question neither graded.
type exportFixture struct {
	db         *DB
	alice, bob int64
	unseen     int64
	now        time.Time
}

func newExportFixture(t *testing.T) exportFixture {
	t.Helper()
	db := newTestDB(t)
	ctx := context.Background()
	f := exportFixture{db: db, now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	f.alice = addStudyUser(t, db, "alice", studyUserOpts{})
	f.bob = addStudyUser(t, db, "bob", studyUserOpts{})
	if _, err := db.write.Exec(`UPDATE users SET desired_retention = 0.8 WHERE id = ?`, f.bob); err != nil {
		t.Fatal(err)
	}
	node := addStudyDeck(t, db, "v1-36-sig-node", "1.36")
	apps := addStudyDeck(t, db, "v1-36-sig-apps", "1.36")
	type graded struct {
		q       int64
		answers []quiz.Response // alice's, one review each; bob answers the first
	}
	var all []graded
	add := func(deck int64, q quiz.Question, answers ...quiz.Response) {
		id := addStudyQuestion(t, db, deck, len(all)+1, quiz.Published, q)
		all = append(all, graded{id, answers})
	}
	yes := true
	add(node, quiz.Question{ExtID: "formula-choice", Type: quiz.SingleChoice, Prompt: "=1+1 は?",
		Choices: []string{"=1+1", "2", "-2"}, Answer: "2", Explanation: "e"},
		quiz.Response{Choice: 0}, quiz.Response{Choice: 1}, quiz.Response{Choice: 2}, quiz.Response{Choice: -1})
	add(node, quiz.Question{ExtID: "ga-in-1-36", Type: quiz.MultiChoice, Prompt: "1.36 で GA になった機能をすべて選べ",
		Choices: []string{"ImageVolume", "KubeletPSI", "MemoryQoS"}, Answers: []string{"ImageVolume", "KubeletPSI"}, Explanation: "e"},
		quiz.Response{Choice: -1, Selected: []int{0, 2}}, quiz.Response{Choice: -1, Selected: []int{0, 1}})
	add(apps, quiz.Question{ExtID: "memoryqos-ga-false", Type: quiz.TrueFalse, Prompt: "MemoryQoS は 1.36 で GA になった。",
		Truth: new(bool), Explanation: "e"},
		quiz.Response{Choice: -1, Bool: &yes}, quiz.Response{Choice: -1})
	add(apps, quiz.Question{ExtID: "imagevolume-cloze", Type: quiz.Cloze, Prompt: "{{ImageVolume|image volume}} は v{{1.36}} で GA",
		Explanation: "e"},
		quiz.Response{Choice: -1, Texts: []string{"@ImageVolume", ""}}, quiz.Response{Choice: -1, Texts: []string{"ImageVolume", "1.36"}})
	add(node, quiz.Question{ExtID: "reservation-policy-typed", Type: quiz.Typed, Prompt: "値は?",
		Answer: "TieredReservation", Explanation: "e"},
		quiz.Response{Choice: -1, Texts: []string{"=HYPERLINK(\"http://x\",\"y\")"}}, quiz.Response{Choice: -1, Texts: []string{"階層型, \"予約\"\n二行目"}},
		quiz.Response{Choice: -1, Texts: []string{"TieredReservation"}})
	add(node, quiz.Question{ExtID: "imagevolume-timeline", Type: quiz.Order, Prompt: "古い順に並べよ",
		Items: []string{"alpha", "beta", "GA"}, Explanation: "e"},
		quiz.Response{Choice: -1, Order: []int{1, 0, 2}})
	add(apps, quiz.Question{ExtID: "memory-low-card", Type: quiz.Flashcard, Prompt: "memory.low とは?",
		Answer: "保護される量", Explanation: "e"},
		quiz.Response{Choice: -1, Revealed: true}, quiz.Response{Choice: -1, Revealed: true})
	f.unseen = addStudyQuestion(t, db, node, 99, quiz.Published, sampleQuestion("unseen"))
	for _, u := range []int64{f.alice, f.bob} {
		subscribe(t, db, u, "v1-36-sig-node")
		subscribe(t, db, u, "v1-36-sig-apps")
	}

	// Alice answers each question's first answer, then each one's second
	// and so on, 7 minutes apart, rating in turn; bob answers each once
	// between hers.
	at := f.now.Add(-30 * 24 * time.Hour)
	n := 0
	record := func(user, q int64, r quiz.Response) {
		n++
		if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: reqID(n),
			Rating: fsrs.Rating(1 + n%4), Response: r, Duration: time.Duration(n*1300) * time.Millisecond, At: at}); err != nil {
			t.Fatalf("review %d: %v", n, err)
		}
		at = at.Add(7 * time.Hour)
	}
	for round := 0; ; round++ {
		more := false
		for _, g := range all {
			if round < len(g.answers) {
				record(f.alice, g.q, g.answers[round])
				more = true
			}
			if round == 0 {
				record(f.bob, g.q, g.answers[0])
			}
		}
		if !more {
			break
		}
	}
	return f
}

// wantReviews reads userID's reviews straight from the tables, each with
// the time of the review of the same card before it.
func wantReviews(t *testing.T, db *DB, userID int64) []ExportedReview {
	t.Helper()
	rows, err := db.read.Query(`SELECT r.reviewed_at, d.slug, q.ext_id, q.type, q.prompt, r.rating, r.answer, r.correct,
			r.duration_ms, r.state_before, r.due_before, r.due_after,
			(SELECT max(p.reviewed_at) FROM review_log p
			 WHERE p.user_id = r.user_id AND p.question_id = r.question_id AND p.id < r.id)
		FROM review_log r JOIN questions q ON q.id = r.question_id JOIN decks d ON d.id = q.deck_id
		WHERE r.user_id = ? ORDER BY r.id`, userID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ExportedReview
	for rows.Next() {
		var (
			e                             ExportedReview
			qtype, answer                 string
			at, durationMS, before, after int64
			rating, state                 int
			previous                      sql.NullInt64
		)
		e.Question = &quiz.Question{}
		if err := rows.Scan(&at, &e.Deck, &e.Question.ExtID, &qtype, &e.Question.Prompt, &rating, &answer, &e.Correct,
			&durationMS, &state, &before, &after, &previous); err != nil {
			t.Fatal(err)
		}
		e.Question.Type = quiz.Type(qtype)
		e.ReviewedAt, e.DueBefore, e.DueAfter = fromMS(at), fromMS(before), fromMS(after)
		e.Rating, e.StateBefore, e.Duration = fsrs.Rating(rating), fsrs.State(state), time.Duration(durationMS)*time.Millisecond
		if previous.Valid {
			e.PreviousReview = fromMS(previous.Int64)
		}
		e.Response = quiz.Response{Choice: -1}
		if err := json.Unmarshal([]byte(answer), &e.Response); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameReview compares what wantReviews reads.
func sameReview(got, want ExportedReview) bool {
	g, w := got, want
	g.Question, w.Question = nil, nil
	gr, _ := json.Marshal(g)
	wr, _ := json.Marshal(w)
	return string(gr) == string(wr) && got.Question.ExtID == want.Question.ExtID &&
		got.Question.Type == want.Question.Type && got.Question.Prompt == want.Question.Prompt
}

// TestExportReviews: the export is the learner's review_log, row for row,
// with pages of every size, and no row of the other learner's.
func TestExportReviews(t *testing.T) {
	f := newExportFixture(t)
	ctx := context.Background()
	for _, user := range []struct {
		name string
		id   int64
	}{{"alice", f.alice}, {"bob", f.bob}} {
		want := wantReviews(t, f.db, user.id)
		if len(want) == 0 {
			t.Fatalf("%s has no reviews", user.name)
		}
		for _, pageRows := range []int{1, 2, 3, 7, exportPageRows} {
			t.Run(fmt.Sprintf("%s, pages of %d", user.name, pageRows), func(t *testing.T) {
				var got []ExportedReview
				for r, err := range f.db.exportReviews(ctx, user.id, pageRows) {
					if err != nil {
						t.Fatal(err)
					}
					if inUse := f.db.read.Stats().InUse; inUse != 0 {
						t.Fatalf("%d reader connections in use while a row is handed out", inUse)
					}
					got = append(got, r)
				}
				if len(got) != len(want) {
					t.Fatalf("%d reviews exported, want %d", len(got), len(want))
				}
				for i := range want {
					if !sameReview(got[i], want[i]) {
						t.Errorf("review %d:\n got %+v\nwant %+v", i, got[i], want[i])
					}
				}
			})
		}
	}

	// What the rows say beyond the columns: the first review of a card has
	// no previous one; the question is whole, for the answer's text.
	var texts []string
	for r, err := range f.db.ExportReviews(ctx, f.alice) {
		if err != nil {
			t.Fatal(err)
		}
		if (r.StateBefore == fsrs.New) != r.PreviousReview.IsZero() {
			t.Errorf("review of %s in state %v has previous review %v", r.Question.ExtID, r.StateBefore, r.PreviousReview)
		}
		texts = append(texts, r.Question.AnswerText(r.Response))
	}
	for _, want := range []string{"=1+1", "-2", "ImageVolume, MemoryQoS", "正しい", "空欄 1: @ImageVolume / 空欄 2: (未回答)",
		"=HYPERLINK(\"http://x\",\"y\")", "階層型, \"予約\"\n二行目", "beta → alpha → GA"} {
		if !strings.Contains(strings.Join(texts, "|"), want) {
			t.Errorf("no answer reads %q: %q", want, texts)
		}
	}
}

// TestExportReviewsSameTime: reviews recorded at the same millisecond, by
// two learners, cross page ends once each, in the order of their state
// before the review, then of ids.
func TestExportReviewsSameTime(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	deck := addStudyDeck(t, db, "d", "1.36")
	qs := []int64{
		addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("a")),
		addStudyQuestion(t, db, deck, 2, quiz.Published, sampleQuestion("b")),
		addStudyQuestion(t, db, deck, 3, quiz.Published, sampleQuestion("c")),
	}
	answers := []quiz.Response{{Choice: 0}, {Choice: 1}, {Choice: 2}}
	alice := addStudyUser(t, db, "alice", studyUserOpts{})
	bob := addStudyUser(t, db, "bob", studyUserOpts{})
	// Two runs of alice's, each starting with reviews of new cards, so that
	// the order of state before the review is not that of ids.
	for _, u := range []int64{alice, bob, alice} {
		if err := db.BulkReviews(ctx, u, qs, answers, 25, at, 0); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	rows, err := db.read.Query(`SELECT q.ext_id || ' ' || r.rating FROM review_log r JOIN questions q ON q.id = r.question_id
		WHERE r.user_id = ? ORDER BY r.state_before, r.id`, alice)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s)
	}
	rows.Close()
	if len(want) != 50 {
		t.Fatalf("alice has %d reviews, want 50", len(want))
	}
	for _, pageRows := range []int{1, 4, 7, 49, 50, 51} {
		var got []string
		for r, err := range db.exportReviews(ctx, alice, pageRows) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s %d", r.Question.ExtID, r.Rating))
			if r.StateBefore == fsrs.New && !r.PreviousReview.IsZero() {
				t.Errorf("review of new card %s has a previous review", r.Question.ExtID)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("pages of %d: exported\n%v\nwant\n%v", pageRows, got, want)
		}
	}
}

// TestExportCards: the export is the learner's cards, one per card row,
// with the retrievability of the learner's scheduler at the time asked;
// no card of the other learner's and none for a question never graded.
func TestExportCards(t *testing.T) {
	f := newExportFixture(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name      string
		user      int64
		retention float64
	}{{"alice", f.alice, 0.9}, {"bob", f.bob, 0.8}} {
		p := fsrs.DefaultParams()
		p.DesiredRetention = tt.retention
		sched, err := fsrs.NewScheduler(p)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := f.db.read.Query(`SELECT c.question_id, q.ext_id, d.slug FROM cards c
			JOIN questions q ON q.id = c.question_id JOIN decks d ON d.id = q.deck_id
			WHERE c.user_id = ? ORDER BY c.question_id`, tt.user)
		if err != nil {
			t.Fatal(err)
		}
		type wantCard struct {
			id        int64
			ext, deck string
		}
		var want []wantCard
		for rows.Next() {
			var w wantCard
			if err := rows.Scan(&w.id, &w.ext, &w.deck); err != nil {
				t.Fatal(err)
			}
			want = append(want, w)
		}
		rows.Close()
		if len(want) == 0 {
			t.Fatalf("%s has no cards", tt.name)
		}
		for _, pageRows := range []int{1, 2, 5, exportPageRows} {
			t.Run(fmt.Sprintf("%s, pages of %d", tt.name, pageRows), func(t *testing.T) {
				i := 0
				for c, err := range f.db.exportCards(ctx, tt.user, f.now, pageRows) {
					if err != nil {
						t.Fatal(err)
					}
					if i >= len(want) {
						t.Fatalf("more than %d cards", len(want))
					}
					w := want[i]
					i++
					stored, ok := readCard(t, f.db, tt.user, w.id)
					if !ok || c.Question.ExtID != w.ext || c.Deck != w.deck || c.Card != stored {
						t.Errorf("card %d: %s/%s %+v, want %s/%s %+v", i, c.Deck, c.Question.ExtID, c.Card, w.deck, w.ext, stored)
					}
					if r := sched.Retrievability(stored, f.now); c.Retrievability != r || !(r > 0 && r < 1) {
						t.Errorf("card %s: retrievability %v, want %v", w.ext, c.Retrievability, r)
					}
					if c.Question.ExtID == "unseen" {
						t.Errorf("a question never graded is exported")
					}
				}
				if i != len(want) {
					t.Errorf("%d cards exported, want %d", i, len(want))
				}
			})
		}
	}
}

// TestExportUnknownUser: a learner that does not exist is not found, not
// an empty export.
func TestExportUnknownUser(t *testing.T) {
	f := newExportFixture(t)
	ctx := context.Background()
	for r, err := range f.db.ExportReviews(ctx, 999) {
		if !errors.Is(err, quiz.ErrNotFound) {
			t.Errorf("ExportReviews(999) = %+v, %v; want quiz.ErrNotFound", r, err)
		}
	}
	for c, err := range f.db.ExportCards(ctx, 999, f.now) {
		if !errors.Is(err, quiz.ErrNotFound) {
			t.Errorf("ExportCards(999) = %+v, %v; want quiz.ErrNotFound", c, err)
		}
	}
}

// TestExportStopsEarly: a caller that stops reading (a client gone) ends
// the export, with no connection left in use; a cancelled context is the
// export's error.
func TestExportStopsEarly(t *testing.T) {
	f := newExportFixture(t)
	n := 0
	for _, err := range f.db.exportReviews(context.Background(), f.alice, 2) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("read %d reviews, want 3", n)
	}
	if inUse := f.db.read.Stats().InUse; inUse != 0 {
		t.Errorf("%d reader connections in use after the export stopped", inUse)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n = 0
	var last error
	for _, err := range f.db.exportReviews(ctx, f.alice, 2) {
		n++
		last = err
		cancel()
	}
	if !errors.Is(last, context.Canceled) || n != 3 {
		t.Errorf("export cancelled after its first row: %d rows, last error %v; want 2 rows, then context.Canceled", n, last)
	}
}

// TestExportQueryPlans: each page is one walk of an index from where the
// page before ended, without a sort.
func TestExportQueryPlans(t *testing.T) {
	db := newTestDB(t)
	tests := []struct {
		name, query string
		args        []any
		want        string
	}{
		{"reviews", exportReviewsQuery, []any{1, 0, 0, 0, 10}, "review_log_user_day (user_id=? AND (reviewed_at,state_before)>(?,?))"},
		{"cards", exportCardsQuery, []any{1, 0, 10}, "USING PRIMARY KEY (user_id=? AND question_id>?)"},
		{"questions", exportQuestionsQuery, []any{"[1,2]"}, "USING INTEGER PRIMARY KEY (rowid=?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := queryPlan(t, db, tt.query, tt.args...)
			if !strings.Contains(text, tt.want) {
				t.Errorf("plan lacks %q:\n%s", tt.want, text)
			}
			if strings.Contains(text, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", text)
			}
		})
	}
}
