package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// LoginSucceeded records a right password for login from ip: the failures
// of that pair are forgotten, and the pair is remembered as a known device
// until keep has passed without another success. Known devices are spared
// the per-account limit (LoginLimits.KnownFor). Pairs older than keep are
// dropped on the way.
func (db *DB) LoginSucceeded(ctx context.Context, login, ip string, now time.Time, keep time.Duration) error {
	login, key := strings.ToLower(login), RateKey(ip)
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_failures WHERE login = ? AND ip = ?`, login, key); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_devices WHERE last_at <= ?`, ms(now.Add(-keep))); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO login_devices (login, ip, last_at) VALUES (?, ?, ?)
			ON CONFLICT (login, ip) DO UPDATE SET last_at = max(last_at, excluded.last_at)`, login, key, ms(now))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: record sign-in: %w", err)
	}
	return nil
}

// knownDevice reports whether login signed in successfully from the address
// key after since (unix ms).
func knownDevice(ctx context.Context, q querier, login, key string, since int64) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM login_devices WHERE login = ? AND ip = ? AND last_at > ?`,
		login, key, since).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("known device: %w", err)
	}
	return n > 0, nil
}
