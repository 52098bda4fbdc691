package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// LoginSucceeded records a right password for login from ip, in a browser
// whose device token hashes to device (nil: none): the failures of that
// login and address are forgotten, and both the address and the device are
// remembered as known devices of the login until keep has passed without
// another success. Known devices are spared the per-account limit
// (LoginLimits.KnownFor). Pairs older than keep are dropped on the way.
func (db *DB) LoginSucceeded(ctx context.Context, login, ip string, device []byte, now time.Time, keep time.Duration) error {
	login, key := strings.ToLower(login), RateKey(ip)
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_failures WHERE login = ? AND ip = ?`, login, key); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM login_devices WHERE last_at <= ?`, `DELETE FROM login_device_cookies WHERE last_at <= ?`} {
			if _, err := tx.ExecContext(ctx, q, ms(now.Add(-keep))); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO login_devices (login, ip, last_at) VALUES (?, ?, ?)
			ON CONFLICT (login, ip) DO UPDATE SET last_at = max(last_at, excluded.last_at)`, login, key, ms(now)); err != nil {
			return err
		}
		if len(device) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO login_device_cookies (login, token_hash, last_at) VALUES (?, ?, ?)
			ON CONFLICT (login, token_hash) DO UPDATE SET last_at = max(last_at, excluded.last_at)`, login, device, ms(now))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: record sign-in: %w", err)
	}
	return nil
}

// knownDevice reports whether login signed in successfully from the address
// key, or in the browser whose device token hashes to device, after since
// (unix ms).
func knownDevice(ctx context.Context, q querier, login, key string, device []byte, since int64) (bool, error) {
	var known bool
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM login_devices WHERE login = ?1 AND ip = ?2 AND last_at > ?3)
		OR EXISTS (SELECT 1 FROM login_device_cookies WHERE login = ?1 AND token_hash = ?4 AND last_at > ?3)`,
		login, key, since, device).Scan(&known)
	if err != nil {
		return false, fmt.Errorf("known device: %w", err)
	}
	return known, nil
}
