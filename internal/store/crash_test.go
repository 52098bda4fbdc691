package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// crashChildEnv, set to a database path, turns the test binary into the
// process TestKillDuringReviews kills: it records reviews on that database
// until it dies.
const crashChildEnv = "KUBEQUIZ_STORE_CRASH_CHILD"

// crashTrialsEnv sets the number of trials of TestKillDuringReviews
// (make crashtest runs 20); without it there are defaultCrashTrials.
const crashTrialsEnv = "KUBEQUIZ_CRASH_TRIALS"

const defaultCrashTrials = 4

// crashTrials reads the number of trials from crashTrialsEnv.
func crashTrials(t *testing.T) int {
	t.Helper()
	v := os.Getenv(crashTrialsEnv)
	if v == "" {
		return defaultCrashTrials
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a number of trials, at least 1", crashTrialsEnv, v)
	}
	return n
}

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		if err := crashChild(path); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashChild has every user of the database at path review its published
// questions in turn, from a goroutine each, and writes "send ID" to
// standard output before each review and "ack ID" once RecordReview has
// returned it recorded. It returns only on an error.
func crashChild(path string) error {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		return err
	}
	var users, questions []int64
	for _, read := range []struct {
		query string
		into  *[]int64
	}{
		{`SELECT id FROM users ORDER BY id`, &users},
		{`SELECT id FROM questions WHERE status = 'published' ORDER BY id`, &questions},
	} {
		rows, err := db.read.QueryContext(ctx, read.query)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			*read.into = append(*read.into, id)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	errs := make(chan error, len(users))
	run := time.Now().UnixNano() // request ids differ between runs on one database
	for _, user := range users {
		go func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("%x-u%d-%d", run, user, i)
				say("send %s", id)
				_, err := db.RecordReview(ctx, Review{UserID: user, QuestionID: questions[i%len(questions)],
					RequestID: id, Rating: fsrs.Rating(1 + i%4), Response: quiz.Response{Choice: i % 3}, At: time.Now()})
				if err != nil {
					errs <- fmt.Errorf("review %s: %w", id, err)
					return
				}
				say("ack %s", id)
			}
		}()
	}
	return <-errs
}

// TestKillDuringReviews kills a process with SIGKILL while it records
// reviews for eight learners at once, eight times over on the database of
// each trial (4 trials, or as many as KUBEQUIZ_CRASH_TRIALS says), and
// after each kill checks the database it leaves: intact, every review
// it acknowledged stored, nothing stored that it was not asked for, and
// every transaction whole (each card agrees with its last review, the
// daily counts with the review log). Reviews are acknowledged only after
// their commit. Half of the kills land as soon as an acknowledgement is
// read, which is what catches an answer sent before the commit.
func TestKillDuringReviews(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for trial := range crashTrials(t) {
		t.Run(fmt.Sprintf("trial %d", trial), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubequiz.db")
			seedCrashDB(t, path)
			rng := rand.New(rand.NewPCG(uint64(trial), 6))
			sent, acked := map[string]bool{}, map[string]bool{}
			for kill := range 8 {
				var wait time.Duration
				if rng.IntN(2) == 0 {
					wait = time.Duration(rng.Int64N(int64(200 * time.Millisecond)))
				}
				stderr := killWhileReviewing(t, exe, path, 20+rng.IntN(40), wait, sent, acked)
				t.Logf("kill %d: %d reviews acknowledged so far, %d sent and not acknowledged", kill, len(acked), len(sent)-len(acked))
				if t.Failed() {
					t.Fatalf("child's standard error:\n%s", stderr)
				}
				checkAfterCrash(t, path, sent, acked)
			}
		})
	}
}

// seedCrashDB creates a database at path with eight learners and twelve
// published questions, and closes it.
func seedCrashDB(t *testing.T, path string) {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	deck := addStudyDeck(t, db, "d", "1.36")
	for i := range 12 {
		addStudyQuestion(t, db, deck, i, quiz.Published, sampleQuestion(fmt.Sprintf("q%d", i)))
	}
	for i := range 8 {
		subscribe(t, db, addStudyUser(t, db, fmt.Sprintf("u%d", i), studyUserOpts{newPerDay: 1000, reviewsPerDay: 1000}), "d")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// killWhileReviewing starts the child on path and kills it with SIGKILL
// wait after it has acknowledged minAcks reviews. It adds to sent the
// request ids the child was sending and to acked those it acknowledged,
// and returns its standard error.
func killWhileReviewing(t *testing.T, exe, path string, minAcks int, wait time.Duration, sent, acked map[string]bool) (stderr string) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Only the reader touches sent and acked until it ends.
	enough := make(chan struct{})
	read := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		signalled, n := false, 0
		for sc.Scan() {
			kind, id, _ := strings.Cut(sc.Text(), " ")
			switch kind {
			case "send":
				sent[id] = true
			case "ack":
				acked[id] = true
				n++
			}
			if n >= minAcks && !signalled {
				signalled = true
				close(enough)
			}
		}
		read <- sc.Err()
	}()
	select {
	case <-enough:
	case <-time.After(60 * time.Second):
		t.Errorf("no %d acknowledged reviews within a minute", minAcks)
	}
	time.Sleep(wait)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// The output ends when the child dies; Wait closes the pipe, so it
	// comes after the last read.
	if err := <-read; err != nil {
		t.Errorf("reading the child's output: %v", err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("child ended with %v, want killed by SIGKILL", err)
	}
	return errBuf.String()
}

// checkAfterCrash checks the files a killed process left at path, before
// anything else opens them, and then that Open still works on them.
func checkAfterCrash(t *testing.T, path string, sent, acked map[string]bool) {
	t.Helper()
	ctx := context.Background()
	raw, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var integrity string
	if err := raw.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check = %q, %v", integrity, err)
	}
	if n := countQuery(t, raw, `SELECT count(*) FROM pragma_foreign_key_check`); n != 0 {
		t.Errorf("foreign_key_check reports %d rows", n)
	}

	present := storedRequestIDs(t, raw)
	for id := range acked {
		if !present[id] {
			t.Errorf("acknowledged review %s is not stored", id)
		}
	}
	for id := range present {
		if !sent[id] {
			t.Errorf("stored review %s was never sent", id)
		}
	}

	checkReviewsWhole(t, raw)
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the crash: %v", err)
	}
	defer db.Close()
	var user int64
	if err := db.read.QueryRowContext(ctx, `SELECT id FROM users ORDER BY id LIMIT 1`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NextCard(ctx, learner(t, db, user), "", time.Now()); err != nil {
		t.Errorf("NextCard after the crash: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close after the crash: %v", err)
	}
}

// storedRequestIDs returns the request ids of the reviews stored in db.
func storedRequestIDs(t *testing.T, db *sql.DB) map[string]bool {
	t.Helper()
	rows, err := db.Query(`SELECT request_id FROM review_log`)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkReviewsWhole checks that every review transaction stored in db is
// whole: each card agrees with its last review, the daily counts with the
// review log.
func checkReviewsWhole(t *testing.T, db *sql.DB) {
	t.Helper()
	consistency := []struct {
		what, query string
	}{
		{"cards whose review count differs from their review log", `SELECT count(*) FROM cards c
			WHERE c.reps != (SELECT count(*) FROM review_log l WHERE l.user_id = c.user_id AND l.question_id = c.question_id)`},
		{"cards that disagree with their last review", `SELECT count(*) FROM cards c
			WHERE c.due != (SELECT l.due_after FROM review_log l WHERE l.user_id = c.user_id AND l.question_id = c.question_id
			                ORDER BY l.id DESC LIMIT 1)`},
		{"reviews without a card", `SELECT count(*) FROM review_log l
			WHERE NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = l.user_id AND c.question_id = l.question_id)`},
		{"new cards counted differently from the review log", `SELECT (SELECT coalesce(sum(new_count), 0) FROM daily_reviews)
			!= (SELECT count(*) FROM review_log WHERE state_before = 0)`},
		{"reviews counted differently from the review log", `SELECT (SELECT coalesce(sum(review_count), 0) FROM daily_reviews)
			!= (SELECT count(*) FROM review_log WHERE ` + countedReview + `)`},
	}
	for _, c := range consistency {
		if n := countQuery(t, db, c.query); n != 0 {
			t.Errorf("%s: %d", c.what, n)
		}
	}
}

// countQuery runs a query that returns one integer.
func countQuery(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
