package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Kinds of action counted by ReserveAction.
const (
	ActionRegister = "register"
)

// ReserveAction counts one action of a kind from ip (by RateKey) at now.
// When limit actions of that kind from that address already fall within the
// window it records nothing and returns ErrRateLimited; the check and the
// count share one transaction, so parallel requests cannot slip past.
func (db *DB) ReserveAction(ctx context.Context, kind, ip string, now time.Time, window time.Duration, limit int) error {
	key := RateKey(ip)
	// Counting touches no user or session: anonymous requests must not
	// empty the session cache.
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		since := ms(now.Add(-window))
		if _, err := tx.ExecContext(ctx, `DELETE FROM rate_events WHERE kind = ? AND at <= ?`, kind, since); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM rate_events WHERE kind = ? AND ip = ? AND at > ?`,
			kind, key, since).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return ErrRateLimited
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO rate_events (kind, ip, at) VALUES (?, ?, ?)`, kind, key, ms(now))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: %s attempt: %w", kind, err)
	}
	return nil
}

// LoginTaken reports whether an account, disabled or not, has login
// (compared without regard to case, as the users table does).
func (db *DB) LoginTaken(ctx context.Context, login string) (bool, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE login = ?`, login).Scan(&n); err != nil {
		return false, fmt.Errorf("store: check login %q: %w", login, err)
	}
	return n > 0, nil
}
