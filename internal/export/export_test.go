package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"iter"
	"slices"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

func seq[T any](rows []T, err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
		if err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

func readAll(t *testing.T, b []byte, bom bool) [][]string {
	t.Helper()
	if got := bytes.HasPrefix(b, []byte("\uFEFF")); got != bom {
		t.Fatalf("byte order mark: %v, want %v", got, bom)
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, b)
	}
	return recs
}

// TestWriteReviews: each review's record, read back as a spreadsheet
// would get it.
func TestWriteReviews(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	typed := quiz.Question{ExtID: "reservation-policy-typed", Type: quiz.Typed, Prompt: "値は?", Answer: "TieredReservation"}
	single := quiz.Question{ExtID: "=formula-id", Type: quiz.SingleChoice, Prompt: "-1 と +1 の和は?", Choices: []string{"0", "-2"}}
	cloze := quiz.Question{ExtID: "cloze", Type: quiz.Cloze, Prompt: "{{ImageVolume}} は v{{1.36}} で GA"}
	flash := quiz.Question{ExtID: "card", Type: quiz.Flashcard, Prompt: "memory.low とは?", Answer: "保護"}
	tests := []struct {
		name string
		r    store.ExportedReview
		want []string
	}{
		{"first review of a new card, learning step", store.ExportedReview{
			ReviewedAt: at, Deck: "v1-36-sig-node", Question: &typed, Rating: fsrs.Good, Correct: true,
			Response: quiz.Response{Choice: -1, Texts: []string{"=1+1"}}, Duration: 4200 * time.Millisecond,
			StateBefore: fsrs.New, DueBefore: at, DueAfter: at.Add(10 * time.Minute),
		}, []string{"2026-03-10T12:00:00.000Z", "v1-36-sig-node", "reservation-policy-typed", "値は?", "typed", "3", "正解", "1",
			"'=1+1", "4200", "", "0.006944", "new"}},
		{"review with formula-like text everywhere", store.ExportedReview{
			ReviewedAt: at.Add(1500 * time.Millisecond), Deck: "@deck", Question: &single, Rating: fsrs.Again,
			Response: quiz.Response{Choice: 1}, Duration: 0,
			StateBefore: fsrs.Review, PreviousReview: at.Add(-72 * time.Hour), DueBefore: at, DueAfter: at.Add(1500*time.Millisecond + 10*time.Minute),
		}, []string{"2026-03-10T12:00:01.500Z", "'@deck", "'=formula-id", "'-1 と +1 の和は?", "single_choice", "1", "もう一度", "0",
			"'-2", "0", "3", "0.006944", "review"}},
		{"two gaps, Japanese, days with decimals", store.ExportedReview{
			ReviewedAt: at, Deck: "d", Question: &cloze, Rating: fsrs.Hard,
			Response: quiz.Response{Choice: -1, Texts: []string{"イメージ", ""}}, Duration: 61 * time.Second,
			StateBefore: fsrs.Relearning, PreviousReview: at.Add(-36 * time.Hour), DueBefore: at.Add(-12 * time.Hour), DueAfter: at.Add(4*24*time.Hour + 6*time.Hour),
		}, []string{"2026-03-10T12:00:00.000Z", "d", "cloze", "{{ImageVolume}} は v{{1.36}} で GA", "cloze", "2", "難しい", "0",
			"空欄 1: イメージ / 空欄 2: (未回答)", "61000", "1", "4.25", "relearning"}},
		{"flashcard", store.ExportedReview{
			ReviewedAt: at, Deck: "d", Question: &flash, Rating: fsrs.Easy, Correct: true, Response: quiz.Response{Choice: -1, Revealed: true},
			StateBefore: fsrs.Learning, PreviousReview: at.Add(-time.Minute), DueBefore: at, DueAfter: at.Add(15 * 24 * time.Hour),
		}, []string{"2026-03-10T12:00:00.000Z", "d", "card", "memory.low とは?", "flashcard", "4", "簡単", "1",
			"", "0", "0.000694", "15", "learning"}},
	}
	for _, tt := range tests {
		for _, bom := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, BOM %v", tt.name, bom), func(t *testing.T) {
				var b bytes.Buffer
				n, err := WriteReviews(&b, seq([]store.ExportedReview{tt.r}, nil), Options{BOM: bom})
				if err != nil || n != 1 {
					t.Fatalf("WriteReviews = %d, %v", n, err)
				}
				recs := readAll(t, b.Bytes(), bom)
				if len(recs) != 2 || !slices.Equal(recs[0], ReviewColumns()) {
					t.Fatalf("read back %q", recs)
				}
				if !slices.Equal(recs[1], tt.want) {
					t.Errorf("record\n got %q\nwant %q", recs[1], tt.want)
				}
			})
		}
	}
}

// TestWriteCards: each card's record, read back.
func TestWriteCards(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	q := quiz.Question{ExtID: "imagevolume-ga", Type: quiz.SingleChoice, Prompt: "ImageVolume が GA になったのは?"}
	tests := []struct {
		name string
		c    store.ExportedCard
		want []string
	}{
		{"review", store.ExportedCard{Deck: "v1-36-sig-node", Question: &q, Retrievability: 0.90123456, Card: fsrs.Card{
			State: fsrs.Review, Due: now.Add(72 * time.Hour), Stability: 3.17262, Difficulty: 5.5, Reps: 4, Lapses: 1, LastReview: now.Add(-time.Hour),
		}}, []string{"v1-36-sig-node", "imagevolume-ga", "ImageVolume が GA になったのは?", "review", "2026-03-13T12:00:00.000Z",
			"3.17262", "5.5", "0.90123456", "4", "1", "2026-03-10T11:00:00.000Z"}},
		{"learning, tiny stability", store.ExportedCard{Deck: "+deck", Question: &quiz.Question{ExtID: "x", Prompt: "=cmd|' /C calc'!A0"}, Card: fsrs.Card{
			State: fsrs.Learning, Due: now, Stability: 0.001, Difficulty: 10, Reps: 1, LastReview: now,
		}, Retrievability: 1}, []string{"'+deck", "x", "'=cmd|' /C calc'!A0", "learning", "2026-03-10T12:00:00.000Z",
			"0.001", "10", "1", "1", "0", "2026-03-10T12:00:00.000Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			n, err := WriteCards(&b, seq([]store.ExportedCard{tt.c}, nil), Options{})
			if err != nil || n != 1 {
				t.Fatalf("WriteCards = %d, %v", n, err)
			}
			recs := readAll(t, b.Bytes(), false)
			if len(recs) != 2 || !slices.Equal(recs[0], CardColumns()) {
				t.Fatalf("read back %q", recs)
			}
			if !slices.Equal(recs[1], tt.want) {
				t.Errorf("record\n got %q\nwant %q", recs[1], tt.want)
			}
		})
	}
}

// TestWriteEmpty: a learner without reviews or cards gets the header.
func TestWriteEmpty(t *testing.T) {
	var b bytes.Buffer
	if n, err := WriteReviews(&b, seq[store.ExportedReview](nil, nil), Options{}); n != 0 || err != nil {
		t.Fatalf("WriteReviews = %d, %v", n, err)
	}
	if recs := readAll(t, b.Bytes(), false); len(recs) != 1 || !slices.Equal(recs[0], ReviewColumns()) {
		t.Errorf("read back %q, want the header alone", recs)
	}
	b.Reset()
	if n, err := WriteCards(&b, seq[store.ExportedCard](nil, nil), Options{BOM: true}); n != 0 || err != nil {
		t.Fatalf("WriteCards = %d, %v", n, err)
	}
	if recs := readAll(t, b.Bytes(), true); len(recs) != 1 || !slices.Equal(recs[0], CardColumns()) {
		t.Errorf("read back %q, want the header alone", recs)
	}
}

// TestWriteError: the rows' error is the write's, after the rows before it.
func TestWriteError(t *testing.T) {
	errRead := errors.New("disk I/O error")
	r := store.ExportedReview{Question: &quiz.Question{Type: quiz.Typed}, StateBefore: fsrs.New}
	n, err := WriteReviews(&bytes.Buffer{}, seq([]store.ExportedReview{r, r}, errRead), Options{})
	if n != 2 || !errors.Is(err, errRead) {
		t.Errorf("WriteReviews = %d, %v; want 2, %v", n, err, errRead)
	}
	n, err = WriteCards(&bytes.Buffer{}, seq([]store.ExportedCard{{Question: &quiz.Question{}}}, errRead), Options{})
	if n != 1 || !errors.Is(err, errRead) {
		t.Errorf("WriteCards = %d, %v; want 1, %v", n, err, errRead)
	}
}

// TestStateWord: every state has its word, and a value that is no state
// its number.
func TestStateWord(t *testing.T) {
	states := []struct {
		s    fsrs.State
		want string
	}{{fsrs.New, "new"}, {fsrs.Learning, "learning"}, {fsrs.Review, "review"}, {fsrs.Relearning, "relearning"}, {7, "state 7"}}
	for _, s := range states {
		if got := StateWord(s.s); got != s.want {
			t.Errorf("StateWord(%d) = %q, want %q", s.s, got, s.want)
		}
	}
}
