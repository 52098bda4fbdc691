package store

import (
	"context"
	"sync/atomic"
	"testing"

	"modernc.org/sqlite"
)

// TestStatementsNotReprepared runs the statements of the study requests
// for user 1 and user 2 in turn on one connection and checks that SQLite
// never prepares them again. It counts the calls to an authorizer, which
// SQLite consults only while preparing a statement. SQLite 3.54 prepares
// again a statement with joins whose column = ?N parameter changes from 0
// or 1 to another value; the queries write such ids as +?N.
func TestStatementsNotReprepared(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	for _, login := range []string{"one", "two"} {
		addStudyUser(t, db, login, studyUserOpts{})
	}
	deck := addStudyDeck(t, db, "d1", "1.36")
	addStudyDeck(t, db, "d2", "1.36")
	q := addStudyQuestion(t, db, deck, 1, "published", sampleQuestion("q1"))
	addStudyQuestion(t, db, deck+1, 1, "published", sampleQuestion("q2"))

	tests := []struct {
		name  string
		query string
		args  func(i int64) []any // i is 1 or 2
	}{
		{"queue, all decks", queueAllQuery, func(i int64) []any { return []any{i, 1000, 0, 0, noCursor} }},
		{"queue, one deck", queueDeckQuery, func(i int64) []any { return []any{i, 1000, i, 0, noCursor} }},
		{"today", todayQuery, func(i int64) []any { return []any{i, 0} }},
		{"next due", nextDueQuery, func(i int64) []any { return []any{i, 1000, 0} }},
		{"due before", dueBeforeQuery, func(i int64) []any { return []any{i, 1000, i} }},
		{"card for answer", cardForAnswerQuery, func(i int64) []any { return []any{i, q + i - 1} }},
		{"advance cursor", advanceCursorQuery, func(i int64) []any { return []any{i, i, i} }},
	}
	conn, err := db.read.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var prepared atomic.Int64
	err = conn.Raw(func(dc any) error {
		return dc.(sqlite.AuthorizerRegisterer).RegisterAuthorizer(func(sqlite.AuthorizerActionCode, string, string, string, string) sqlite.AuthorizerReturnCode {
			prepared.Add(1)
			return sqlite.AuthorizerOK
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := conn.PrepareContext(ctx, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if prepared.Load() == 0 {
				t.Fatal("the authorizer saw nothing while preparing: it cannot tell a statement prepared again")
			}
			before := prepared.Load()
			for round := range 3 {
				for _, user := range []int64{1, 2} {
					rows, err := st.QueryContext(ctx, tt.args(user)...)
					if err != nil {
						t.Fatal(err)
					}
					for rows.Next() {
					}
					if err := rows.Close(); err != nil {
						t.Fatal(err)
					}
					if n := prepared.Load() - before; n != 0 {
						t.Fatalf("round %d, user %d: prepared again (%d authorizer calls)", round, user, n)
					}
				}
			}
		})
	}
}
