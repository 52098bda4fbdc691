package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"kubequiz/internal/quiz"
)

// This file holds the review of one document's generated questions at
// scale: a page of them at a time, filtered and searched in SQL, the
// values the filters can take, and publishing or retiring every question
// a filter selects. Publishing chosen questions is drafts.go's.

// NoSIG is the SIG of a ReviewFilter that selects the questions without one.
const NoSIG = "-"

// ReviewFilter selects the generated questions of one document. Empty
// fields match everything.
type ReviewFilter struct {
	Document  string    // document key (required)
	Generator string    // quizgen's generator name
	Type      quiz.Type // the question's type
	Kind      string    // the kind of the entry it was built from
	// SIG is one SIG of the question's list ("SIG-Node"), or NoSIG.
	SIG    string
	Status quiz.Status
	// Text is searched for in the prompt, the answer and the
	// explanation, ignoring the case of ASCII letters.
	Text string
}

// draftReviewWhere selects the questions of ReviewFilter ?1 to ?7 (its args),
// after draftSelect or FROM questions q.
const draftReviewWhere = ` AND q.origin = 'generated' AND q.source_document = ?1
	AND (?2 = '' OR q.generator = ?2)
	AND (?3 = '' OR q.type = ?3)
	AND (?4 = '' OR q.kind = ?4)
	AND (?5 = '' OR (?5 = '` + NoSIG + `' AND q.sig = '') OR instr(', ' || q.sig || ',', ', ' || ?5 || ',') > 0)
	AND (?6 = '' OR q.status = ?6)
	AND (?7 = '' OR instr(lower(q.prompt), ?7) > 0 OR instr(lower(q.explanation), ?7) > 0
		OR instr(lower(coalesce(json_extract(q.payload, '$.answer'), '')), ?7) > 0
		OR instr(lower(coalesce(json_extract(q.payload, '$.answers'), '')), ?7) > 0)`

// args are the arguments of draftReviewWhere; the status is status, not
// the filter's.
func (f ReviewFilter) args(status quiz.Status) []any {
	return []any{f.Document, f.Generator, string(f.Type), f.Kind, f.SIG, string(status), asciiLower(strings.TrimSpace(f.Text))}
}

// asciiLower folds ASCII letters only, as SQLite's lower() does.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// ReviewPage is one page of a document's generated questions.
type ReviewPage struct {
	Questions []DraftQuestion
	// Total counts the questions the filter selects; ByStatus counts
	// those the filter selects but for its status, by status.
	Total    int
	ByStatus map[quiz.Status]int
}

// ReviewQuestions returns the questions f selects, in deck order, from
// the offset-th on, at most limit of them, with their counts.
func (db *DB) ReviewQuestions(ctx context.Context, f ReviewFilter, offset, limit int) (ReviewPage, error) {
	page := ReviewPage{ByStatus: map[quiz.Status]int{}}
	if f.Document == "" {
		return page, fmt.Errorf("store: review questions: no document: %w", quiz.ErrInvalid)
	}
	// Two reads, not one snapshot: a change in between makes the counts
	// and the page differ by that change, which the next page load shows.
	err := func() error {
		rows, err := db.read.QueryContext(ctx, `SELECT q.status, count(*) FROM questions q WHERE 1`+draftReviewWhere+`
			GROUP BY q.status`, f.args("")...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				s string
				n int
			)
			if err := rows.Scan(&s, &n); err != nil {
				return err
			}
			page.ByStatus[quiz.Status(s)] = n
			if f.Status == "" || quiz.Status(s) == f.Status {
				page.Total += n
			}
		}
		return rows.Err()
	}()
	if err == nil && limit > 0 && offset < page.Total {
		err = func() error {
			rows, err := db.read.QueryContext(ctx, draftSelect+draftReviewWhere+` ORDER BY q.position, q.id LIMIT ?8 OFFSET ?9`,
				append(f.args(f.Status), limit, max(offset, 0))...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				dq, err := scanDraft(rows)
				if err != nil {
					return err
				}
				page.Questions = append(page.Questions, dq)
			}
			return rows.Err()
		}()
	}
	if err != nil {
		return page, fmt.Errorf("store: review questions of %s: %w", f.Document, err)
	}
	return page, nil
}

// ReviewFacet is a value a filter can take, and how many of the
// document's generated questions have it.
type ReviewFacet struct {
	Value string
	N     int
}

// ReviewFacets are the values each filter can take for a document's
// generated questions, each list sorted by value.
type ReviewFacets struct {
	Generators, Types, Kinds, SIGs []ReviewFacet
}

// ReviewFacets returns the generators, types, kinds and SIGs of a
// document's generated questions. SIGs lists each SIG of the questions'
// lists, and NoSIG for the questions without one.
func (db *DB) ReviewFacets(ctx context.Context, document string) (ReviewFacets, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT q.generator, q.type, q.kind, q.sig, count(*) FROM questions q
		WHERE q.source_document = ? AND q.origin = 'generated' GROUP BY 1, 2, 3, 4`, document)
	if err != nil {
		return ReviewFacets{}, fmt.Errorf("store: review facets of %s: %w", document, err)
	}
	defer rows.Close()
	counts := [4]map[string]int{{}, {}, {}, {}}
	for rows.Next() {
		var (
			vals [4]string
			n    int
		)
		if err := rows.Scan(&vals[0], &vals[1], &vals[2], &vals[3], &n); err != nil {
			return ReviewFacets{}, fmt.Errorf("store: review facets of %s: %w", document, err)
		}
		for i := range 3 {
			counts[i][vals[i]] += n
		}
		sigs := strings.Split(vals[3], ",")
		if strings.TrimSpace(vals[3]) == "" {
			sigs = []string{NoSIG}
		}
		for _, s := range sigs {
			if s = strings.TrimSpace(s); s != "" {
				counts[3][s] += n
			}
		}
	}
	if err := rows.Err(); err != nil {
		return ReviewFacets{}, fmt.Errorf("store: review facets of %s: %w", document, err)
	}
	list := func(m map[string]int) []ReviewFacet {
		out := make([]ReviewFacet, 0, len(m))
		for v, n := range m {
			out = append(out, ReviewFacet{v, n})
		}
		slices.SortFunc(out, func(a, b ReviewFacet) int { return strings.Compare(a.Value, b.Value) })
		return out
	}
	return ReviewFacets{Generators: list(counts[0]), Types: list(counts[1]), Kinds: list(counts[2]), SIGs: list(counts[3])}, nil
}

// CountChangedError refuses to publish or retire the questions of a
// filter when they are no longer as many as the admin confirmed. It is a
// quiz.ErrConflict.
type CountChangedError struct{ Want, Got int }

func (e *CountChangedError) Error() string {
	return fmt.Sprintf("the filter selects %d questions to change, not the %d confirmed: %v", e.Got, e.Want, quiz.ErrConflict)
}

func (e *CountChangedError) Unwrap() error { return quiz.ErrConflict }

// SetFilteredStatus publishes (status Published) or retires (Retired)
// every question of deck deckSlug that f selects and that is not in
// status yet, when they are want in number, the count the admin
// confirmed; otherwise it is a *CountChangedError and nothing changes.
// Every question must pass validation to be published, as with
// PublishQuestions. It returns how many changed status.
func (db *DB) SetFilteredStatus(ctx context.Context, deckSlug string, f ReviewFilter, status quiz.Status, want int, now time.Time) (int, error) {
	if status != quiz.Published && status != quiz.Retired {
		return 0, fmt.Errorf("store: set status of a filter: status %q: %w", status, quiz.ErrInvalid)
	}
	if f.Document == "" {
		return 0, fmt.Errorf("store: set status of a filter: no document: %w", quiz.ErrInvalid)
	}
	changed := 0
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT q.id FROM questions q WHERE q.status <> ?8`+draftReviewWhere+` ORDER BY q.position, q.id`,
			append(f.args(f.Status), string(status))...)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) != want {
			return &CountChangedError{Want: want, Got: len(ids)}
		}
		if len(ids) == 0 {
			changed = 0
			return nil
		}
		changed, err = setStatusTx(ctx, tx, deckSlug, ids, status, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: set status of the questions of %s: %w", f.Document, err)
	}
	return changed, nil
}
