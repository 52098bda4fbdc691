package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/export"
	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// exportDB makes a database with the questions of every type, where alice
// answered five of them and bob one, and returns its path.
func exportDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kubequiz.db")
	good := filepath.Join("..", "..", "internal", "bank", "testdata", "good", "all-types.yaml")
	if err := run(ctx, []string{"import", "-db", path, good}, env(), nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().Add(-time.Hour)
	users := map[string]int64{}
	for _, login := range []string{"alice", "bob"} {
		u, err := db.CreateUser(ctx, store.NewUser{Login: login, PasswordHash: "x", Role: quiz.RoleMember}, now)
		if err != nil {
			t.Fatal(err)
		}
		users[login] = u.ID
		if _, err := db.SetSubscription(ctx, u.ID, "v1-36-sig-node", true, now); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int64{}
	for _, q := range qs {
		byID[q.Question.ExtID] = q.ID
	}
	yes := true
	reviews := []struct {
		login, question string
		answer          quiz.Response
	}{
		{"alice", "reservation-policy-typed", quiz.Response{Choice: -1, Texts: []string{"=1+1"}}},
		{"bob", "reservation-policy-typed", quiz.Response{Choice: -1, Texts: []string{"bob-only"}}},
		{"alice", "imagevolume-ga", quiz.Response{Choice: 2}},
		{"alice", "memoryqos-ga-false", quiz.Response{Choice: -1, Bool: &yes}},
		{"alice", "imagevolume-timeline", quiz.Response{Choice: -1, Order: []int{1, 0, 2, 3}}},
		{"alice", "reservation-policy-typed", quiz.Response{Choice: -1, Texts: []string{"階層型の予約"}}},
	}
	for i, r := range reviews {
		id, ok := byID[r.question]
		if !ok {
			t.Fatalf("no question %s", r.question)
		}
		if _, err := db.RecordReview(ctx, store.Review{UserID: users[r.login], QuestionID: id, RequestID: strings.Repeat("0", 31) + string(rune('a'+i)),
			Rating: fsrs.Good, Response: r.answer, Duration: time.Second, At: now.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatalf("review %d: %v", i, err)
		}
	}
	return path
}

// readCSV reads a table back, without its byte order mark, which it
// reports.
func readCSV(t *testing.T, b []byte) (recs [][]string, bom bool) {
	t.Helper()
	b, bom = bytes.CutPrefix(b, []byte("\uFEFF"))
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, b)
	}
	return recs, bom
}

// column returns the cells of the named column.
func column(recs [][]string, name string) []string {
	i := slices.Index(recs[0], name)
	var out []string
	for _, r := range recs[1:] {
		out = append(out, r[i])
	}
	return out
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	path := exportDB(t)
	dir := t.TempDir()
	getenv := env("KUBEQUIZ_DB", path)
	tests := []struct {
		name        string
		args        []string
		file        string // with -o
		wantBOM     bool
		wantHeader  []string
		wantAnswers []string // the answer column, when not nil
		wantRows    int
		wantOut     string
	}{
		{"reviews", []string{"export", "reviews", "-user", "alice"}, "", false, export.ReviewColumns(),
			[]string{"'=1+1", "1.36", "正しい", "beta (1.33) → alpha (1.31) → デフォルト有効 (1.35) → GA (1.36)", "階層型の予約"}, 5, ""},
		{"flags first, any case, BOM", []string{"export", "-bom", "-user", "ALICE", "reviews"}, "", true, export.ReviewColumns(), nil, 5, ""},
		{"the other learner's", []string{"export", "reviews", "-user", "bob"}, "", false, export.ReviewColumns(), []string{"bob-only"}, 1, ""},
		{"cards", []string{"export", "cards", "-user", "alice"}, "", false, export.CardColumns(), nil, 4, ""},
		{"cards to a file", []string{"export", "cards", "-user", "alice", "-bom", "-o", filepath.Join(dir, "cards.csv")},
			filepath.Join(dir, "cards.csv"), true, export.CardColumns(), nil, 4, "wrote 4 cards of alice to " + filepath.Join(dir, "cards.csv")},
		{"a file replaced", []string{"export", "reviews", "-o", filepath.Join(dir, "cards.csv"), "-user", "bob"},
			filepath.Join(dir, "cards.csv"), false, export.ReviewColumns(), []string{"bob-only"}, 1, "wrote 1 reviews of bob to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := run(ctx, tt.args, getenv, nil, &out, &errOut); err != nil {
				t.Fatalf("run: %v\n%s", err, errOut.String())
			}
			data := out.Bytes()
			if tt.file != "" {
				if !strings.Contains(out.String(), tt.wantOut) {
					t.Errorf("output %q lacks %q", out.String(), tt.wantOut)
				}
				var err error
				if data, err = os.ReadFile(tt.file); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(tt.file); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("file mode %v (%v), want 0600", fi.Mode(), err)
				}
			}
			recs, bom := readCSV(t, data)
			if bom != tt.wantBOM {
				t.Errorf("byte order mark %v, want %v", bom, tt.wantBOM)
			}
			if len(recs) == 0 || !slices.Equal(recs[0], tt.wantHeader) {
				t.Fatalf("header %q, want %q", recs, tt.wantHeader)
			}
			if len(recs)-1 != tt.wantRows {
				t.Errorf("%d rows, want %d:\n%q", len(recs)-1, tt.wantRows, recs)
			}
			if tt.wantAnswers != nil && !slices.Equal(column(recs, "answer"), tt.wantAnswers) {
				t.Errorf("answers %q, want %q", column(recs, "answer"), tt.wantAnswers)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("folder of -o holds %v (%v), want cards.csv alone", entries, err)
	}
}

// TestExportRefuses: mistakes in the command line, an unknown learner, a
// database that does not exist (which is not created) and a file that
// cannot be written.
func TestExportRefuses(t *testing.T) {
	ctx := context.Background()
	path := exportDB(t)
	missing := filepath.Join(t.TempDir(), "data", "kubequiz.db")
	noFolder := filepath.Join(t.TempDir(), "no-such-folder", "out.csv")
	tests := []struct {
		name      string
		args      []string
		wantErr   string
		wantUsage bool
	}{
		{"no table", []string{"export", "-user", "alice"}, "reviews or cards", true},
		{"unknown table", []string{"export", "answers", "-user", "alice"}, `unknown table "answers"`, true},
		{"two tables", []string{"export", "reviews", "cards", "-user", "alice"}, `unexpected argument "cards"`, true},
		{"no user", []string{"export", "reviews"}, "-user LOGIN missing", true},
		{"unknown flag", []string{"export", "reviews", "-user", "alice", "-excel"}, "-excel", true},
		{"unknown user", []string{"export", "reviews", "-user", "carol"}, `no account with the login "carol"`, false},
		{"no database", []string{"export", "cards", "-user", "alice", "-db", missing}, "no database at " + missing, false},
		{"no folder for -o", []string{"export", "reviews", "-user", "alice", "-o", noFolder}, "no-such-folder", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(ctx, tt.args, env("KUBEQUIZ_DB", path), nil, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("run = %v, want an error with %q", err, tt.wantErr)
			}
			var ue usageError
			if errors.As(err, &ue) != tt.wantUsage {
				t.Errorf("usage error = %v, want %v", errors.As(err, &ue), tt.wantUsage)
			}
			if out.Len() > 0 {
				t.Errorf("wrote %q", out.String())
			}
		})
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the missing database's folder was created: %v", err)
	}
	var errOut bytes.Buffer
	if err := run(ctx, []string{"export", "-h"}, env(), nil, io.Discard, &errOut); !errors.Is(err, errHelp) || !strings.Contains(errOut.String(), "-bom") {
		t.Errorf("export -h = %v, usage:\n%s", err, errOut.String())
	}
}
