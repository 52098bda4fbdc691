package main

import (
	"database/sql"

	"kubequiz/internal/store"
)

// bumpSchema marks a database as written by a future schema version.
func bumpSchema(path string) error {
	db, err := sql.Open("sqlite", store.DSN(path))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future.sql', 0)", store.LatestSchema()+1)
	return err
}
