package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
)

// TestReviewLogOf records reviews of two learners, backs the database up
// and reads the copy's review log: every review, with its learner's
// login, question, rating, time and request id, in the order recorded;
// CheckBackup passes the copy and refuses a damaged one.
func TestReviewLogOf(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "kubequiz.db")
	db, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	deck := addStudyDeck(t, db, "d", "1.36")
	q1 := addStudyQuestion(t, db, deck, 0, quiz.Published, sampleQuestion("q1"))
	q2 := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q2"))
	users := map[string]int64{
		"ann": addStudyUser(t, db, "ann", studyUserOpts{}),
		"bob": addStudyUser(t, db, "bob", studyUserOpts{}),
	}
	at := time.Date(2026, 12, 3, 1, 2, 3, 456_000_000, time.UTC)
	want := []LoggedReview{
		{Login: "ann", QuestionID: q1, Rating: fsrs.Good, At: at, RequestID: "r1"},
		{Login: "bob", QuestionID: q1, Rating: fsrs.Again, At: at.Add(time.Second), RequestID: "r2"},
		{Login: "ann", QuestionID: q2, Rating: fsrs.Easy, At: at.Add(2 * time.Second), RequestID: "r3"},
	}
	for _, r := range want {
		if _, err := db.RecordReview(ctx, Review{UserID: users[r.Login], QuestionID: r.QuestionID, RequestID: r.RequestID,
			Rating: r.Rating, Response: quiz.Response{Choice: 1}, Scope: Scope{Deck: "d"}, At: r.At}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "copy.db")
	if _, err := Backup(ctx, src, copyPath); err != nil {
		t.Fatal(err)
	}
	if v, err := CheckBackup(ctx, copyPath); err != nil || v != LatestSchema() {
		t.Fatalf("CheckBackup = %d, %v; want %d", v, err, LatestSchema())
	}
	got, err := ReviewLogOf(ctx, copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ReviewLogOf =\n%v\nwant\n%v", got, want)
	}

	b, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 2; i < len(b); i += 7 {
		b[i] ^= 0x5a
	}
	bad := filepath.Join(dir, "bad.db")
	writeTestFile(t, bad, string(b))
	if _, err := CheckBackup(ctx, bad); err == nil || !strings.Contains(err.Error(), "bad.db") {
		t.Errorf("CheckBackup of a damaged copy = %v; want an error naming it", err)
	}
	if _, err := ReviewLogOf(ctx, filepath.Join(dir, "missing.db")); err == nil {
		t.Error("ReviewLogOf of a missing file succeeded")
	}
}
