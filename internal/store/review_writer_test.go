package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// TestRecordBatch records batches of reviews in one transaction, as the
// review writer does under load, and checks that each review gets its own
// answer: refused ones do not stop the others, and a review that fails
// after writing sends every review of its batch to a transaction of its own.
func TestRecordBatch(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	type item struct {
		user    string // login of the reviewer
		request string
		choice  int
		ctx     context.Context
		wantErr error // nil, or what errors.Is must find
		wantDup bool
	}
	tests := []struct {
		name string
		// failFor, when set, makes the writes of this login's reviews fail
		// after the review_log row (a trigger).
		failFor  string
		items    []item
		wantLogs int
	}{
		{"all recorded", "", []item{
			{user: "a", request: "r1", choice: 1}, {user: "b", request: "r2", choice: 0}, {user: "c", request: "r3", choice: 2},
		}, 3},
		{"refused ones in between", "", []item{
			{user: "a", request: "r1", choice: 1},
			{user: "b", request: "r2", choice: 7, wantErr: quiz.ErrInvalid},
			{user: "a", request: "r1", choice: 1, wantDup: true},
			{user: "b", request: "r1", choice: 1, wantErr: quiz.ErrConflict},
			{user: "c", request: "r3", choice: 1, ctx: cancelled, wantErr: context.Canceled},
			{user: "c", request: "r4", choice: 1},
		}, 2},
		{"a failed write", "b", []item{
			{user: "a", request: "r1", choice: 1},
			{user: "b", request: "r2", choice: 1, wantErr: errBoom},
			{user: "c", request: "r3", choice: 1},
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := newTestDB(t)
			q := addStudyQuestion(t, db, addStudyDeck(t, db, "d", "1.36"), 1, quiz.Published, sampleQuestion("q"))
			users := map[string]int64{}
			for _, login := range []string{"a", "b", "c"} {
				users[login] = addStudyUser(t, db, login, studyUserOpts{})
			}
			if tt.failFor != "" {
				_, err := db.write.Exec(fmt.Sprintf(`CREATE TEMP TRIGGER fail BEFORE INSERT ON daily_reviews
					WHEN NEW.user_id = %d BEGIN SELECT RAISE(ABORT, 'boom'); END`, users[tt.failFor]))
				if err != nil {
					t.Fatal(err)
				}
			}
			batch := make([]pendingReview, len(tt.items))
			for i, it := range tt.items {
				ctx := it.ctx
				if ctx == nil {
					ctx = context.Background()
				}
				resp := quiz.Response{Choice: it.choice}
				answer, _ := json.Marshal(resp)
				batch[i] = pendingReview{ctx: ctx, answer: string(answer), done: make(chan reviewResult, 1),
					review: Review{UserID: users[it.user], QuestionID: q, RequestID: it.request, Rating: fsrs.Good,
						Response: resp, Scope: Scope{Deck: "d"}, At: now}}
			}
			db.recordBatch(batch)
			for i, it := range tt.items {
				res := <-batch[i].done
				switch {
				case it.wantErr == errBoom:
					if res.err == nil {
						t.Errorf("review %d: recorded, want an error", i)
					}
				case !errors.Is(res.err, it.wantErr):
					t.Errorf("review %d: error %v, want %v", i, res.err, it.wantErr)
				case res.err == nil && res.recorded.Duplicate != it.wantDup:
					t.Errorf("review %d: duplicate %v, want %v", i, res.recorded.Duplicate, it.wantDup)
				}
			}
			if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != tt.wantLogs {
				t.Errorf("%d reviews stored, want %d", n, tt.wantLogs)
			}
			if n := countRows(t, db, `SELECT count(*) FROM cards`); n != tt.wantLogs {
				t.Errorf("%d cards stored, want %d", n, tt.wantLogs)
			}
		})
	}
}

// errBoom stands for the trigger's failure, which has no error value.
var errBoom = errors.New("boom")

// TestRecordReviewUnderLoad has many learners grade at once through
// RecordReview and checks that every review is stored once, with its card,
// and that the day's counts match review_log.
func TestRecordReviewUnderLoad(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	deck := addStudyDeck(t, db, "d", "1.36")
	const learners, each = 16, 10
	var questions []int64
	for i := range each {
		questions = append(questions, addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i))))
	}
	var wg sync.WaitGroup
	errs := make(chan error, learners*each*2)
	for l := range learners {
		user := addStudyUser(t, db, fmt.Sprintf("u%d", l), studyUserOpts{})
		wg.Go(func() {
			for i, q := range questions {
				for range 2 { // every submit twice: the second is a duplicate
					_, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: fmt.Sprintf("%d-%d", l, i),
						Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: "d"}, At: now})
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != learners*each {
		t.Errorf("%d reviews stored, want %d", n, learners*each)
	}
	if n := countRows(t, db, `SELECT count(*) FROM cards WHERE reps = 1`); n != learners*each {
		t.Errorf("%d cards with one review, want %d", n, learners*each)
	}
	if n := countRows(t, db, `SELECT sum(new_count) FROM daily_reviews`); n != learners*each {
		t.Errorf("daily_reviews counts %d new cards, want %d", n, learners*each)
	}
}

// TestRecordBatchPanic makes recording panic (a review without its request
// context) and checks that every review of the batch gets an error, that
// none is stored, and that reviews recorded afterwards are.
func TestRecordBatchPanic(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	q := addStudyQuestion(t, db, addStudyDeck(t, db, "d", "1.36"), 1, quiz.Published, sampleQuestion("q"))
	user := addStudyUser(t, db, "a", studyUserOpts{})
	review := func(id string) Review {
		return Review{UserID: user, QuestionID: q, RequestID: id, Rating: fsrs.Good, Response: quiz.Response{Choice: 1},
			Scope: Scope{Deck: "d"}, At: now}
	}
	batch := []pendingReview{
		{ctx: ctx, review: review("r1"), answer: "{}", done: make(chan reviewResult, 1)},
		{review: review("r2"), answer: "{}", done: make(chan reviewResult, 1)}, // no ctx: recording panics
	}
	db.recordBatch(batch)
	for i, p := range batch {
		if res := <-p.done; res.err == nil {
			t.Errorf("review %d recorded, want the panic's error", i)
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != 0 {
		t.Errorf("%d reviews stored after the panic, want 0", n)
	}
	if _, err := db.RecordReview(ctx, review("r3")); err != nil {
		t.Fatalf("RecordReview after a panic: %v", err)
	}
}

// TestQuickReadWaitsCancellably fills every reader slot, as learners' reads
// would under load, and checks that a study read whose context ends while
// it waits gives up instead of running later.
func TestQuickReadWaitsCancellably(t *testing.T) {
	db := newTestDB(t)
	user := learner(t, db, addStudyUser(t, db, "a", studyUserOpts{}))
	for range cap(db.readSlots) {
		db.readSlots <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := db.NextCard(ctx, user, "", time.Now()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NextCard with every reader busy = %v, want the deadline's error", err)
	}
	for range cap(db.readSlots) {
		<-db.readSlots
	}
	if _, err := db.NextCard(context.Background(), user, "", time.Now()); err != nil {
		t.Fatalf("NextCard once readers are free: %v", err)
	}
}

// TestReviewWriterLinger checks when the writer waits for more reviews. A
// learner alone never waits: the writer here lingers for an hour, so a wait
// would run into the test's deadline.
func TestReviewWriterLinger(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := newTestDB(t)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	deck := addStudyDeck(t, db, "d", "1.36")
	db.reviews.close()
	db.reviews = newReviewWriter(db, time.Hour, nil)
	user := addStudyUser(t, db, "alone", studyUserOpts{})
	for i := range 5 {
		q := addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i)))
		_, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: fmt.Sprintf("r%d", i),
			Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: "d"}, At: now})
		if err != nil {
			t.Fatalf("review %d of a learner alone: %v", i, err)
		}
	}
}

// TestReviewWriterGather checks what ends the writer's wait for more
// reviews under load: a full batch, the writer closing, or the linger
// time, whichever comes first.
func TestReviewWriterGather(t *testing.T) {
	tests := []struct {
		name   string
		linger time.Duration
		send   int  // reviews that arrive while it waits
		close  bool // the writer closes while it waits
		want   int  // reviews in the batch it returns
	}{
		{"a full batch", time.Hour, 2 * maxReviewBatch, false, maxReviewBatch},
		{"closing", time.Hour, 3, true, 4},
		{"the linger time", time.Millisecond, 0, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &reviewWriter{pending: make(chan pendingReview), closing: make(chan struct{}), linger: tt.linger}
			got := make(chan int, 1)
			go func() {
				timer := time.NewTimer(w.linger)
				timer.Stop()
				got <- len(w.gather([]pendingReview{{}}, timer))
			}()
			for range tt.send {
				select {
				case w.pending <- pendingReview{}:
				case n := <-got: // the batch is full: the rest find no taker
					got <- n
				}
			}
			if tt.close {
				close(w.closing)
			}
			select {
			case n := <-got:
				if n != tt.want {
					t.Errorf("batch of %d reviews, want %d", n, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the wait did not end")
			}
		})
	}
}

func TestRecordReviewChecksDeckAndAnswer(t *testing.T) {
	db := newTestDB(t)
	ctx := context.Background()
	now := time.Now()
	user := addStudyUser(t, db, "learner", studyUserOpts{})
	deck := addStudyDeck(t, db, "deck-a", "1.36")
	addStudyDeck(t, db, "deck-b", "1.36")
	q := addStudyQuestion(t, db, deck, 0, quiz.Published, sampleQuestion("q1"))
	tests := []struct {
		name string
		deck string
		resp quiz.Response
		want error
	}{
		{"another deck", "deck-b", quiz.Response{Choice: 0}, quiz.ErrNotFound},
		{"unknown deck", "no-such-deck", quiz.Response{Choice: 0}, quiz.ErrNotFound},
		{"choice out of range", "deck-a", quiz.Response{Choice: 99}, quiz.ErrInvalid},
		{"fields of another type", "deck-a", quiz.Response{Choice: 0, Texts: []string{"x"}}, quiz.ErrInvalid},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: fmt.Sprintf("req-%d", i),
				Rating: fsrs.Good, Response: tt.resp, Scope: Scope{Deck: tt.deck}, At: now})
			if !errors.Is(err, tt.want) {
				t.Errorf("RecordReview = %v, want %v", err, tt.want)
			}
		})
	}
	if n := countRows(t, db, `SELECT count(*) FROM review_log`); n != 0 {
		t.Errorf("review_log rows = %d, want 0", n)
	}
	if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: "ok", Rating: fsrs.Good,
		Response: quiz.Response{Choice: -1}, Scope: Scope{Deck: "deck-a"}, At: now}); err != nil {
		t.Errorf("a normal review: %v", err)
	}
}

// TestReviewWriterOnBatch: Options.OnBatch hears of every batch the writer
// records, with its size, and the sizes add up to the reviews sent,
// duplicates included.
func TestReviewWriterOnBatch(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var sizes []int
	var took time.Duration
	db, err := OpenWith(ctx, filepath.Join(t.TempDir(), "kubequiz.db"), Options{OnBatch: func(size int, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		sizes = append(sizes, size)
		took += d
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	deck := addStudyDeck(t, db, "d", "1.36")
	user := addStudyUser(t, db, "u", studyUserOpts{})
	const reviews = 3
	for i := range reviews {
		q := addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i)))
		for range 2 { // the second is a duplicate, in a batch of its own
			if _, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: q, RequestID: fmt.Sprintf("r%d", i),
				Rating: fsrs.Good, Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: "d"}, At: now}); err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, n := range sizes {
		total += n
	}
	if len(sizes) != 2*reviews || total != 2*reviews || took <= 0 {
		t.Errorf("OnBatch heard of batches %v taking %v; want %d batches of one review", sizes, took, 2*reviews)
	}
}
