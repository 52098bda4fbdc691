package store

import "testing"

// addPastReviews inserts reviews in one transaction, request ids made from
// their order and a prefix.
func addPastReviews(tb testing.TB, db *DB, prefix string, reviews []pastReview) {
	tb.Helper()
	if err := db.insertPastReviews(tb.Context(), prefix, reviews); err != nil {
		tb.Fatal(err)
	}
}
