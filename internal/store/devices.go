package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// maxDeviceCookies bounds the device tokens kept per login: the newest are
// kept.
const maxDeviceCookies = 20

// LoginSucceeded records a right password for login from ip: the failures
// of that login and address are forgotten, and both the address and the
// browser, by the device token just given to it (newDevice, its SHA-256),
// are remembered as known devices of the login until keep has passed
// without another success. The token the browser had (oldDevice, nil for
// none) is forgotten for the login: a browser's token changes at every
// sign-in, so one planted in it is never kept. Known devices are spared the
// per-account limit (LoginLimits.KnownFor). Pairs older than keep, and
// device tokens past the newest maxDeviceCookies of the login, are dropped
// on the way.
func (db *DB) LoginSucceeded(ctx context.Context, login, ip string, oldDevice, newDevice []byte, now time.Time, keep time.Duration) error {
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
		if len(oldDevice) > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM login_device_cookies WHERE login = ? AND token_hash = ?`, login, oldDevice); err != nil {
				return err
			}
		}
		if len(newDevice) == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO login_device_cookies (login, token_hash, last_at) VALUES (?, ?, ?)
			ON CONFLICT (login, token_hash) DO UPDATE SET last_at = max(last_at, excluded.last_at)`, login, newDevice, ms(now)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM login_device_cookies WHERE login = ?1 AND token_hash NOT IN (
			SELECT token_hash FROM login_device_cookies WHERE login = ?1 ORDER BY last_at DESC LIMIT ?2)`, login, maxDeviceCookies)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: record sign-in: %w", err)
	}
	return nil
}

// forgetDevices drops the known devices, addresses and browsers, of the
// user userID: a new password is proof again, and whoever signed in with
// the old one keeps no exception from the limits.
func forgetDevices(ctx context.Context, tx *sql.Tx, userID int64) error {
	for _, q := range []string{
		`DELETE FROM login_devices WHERE login = (SELECT login FROM users WHERE id = ?)`,
		`DELETE FROM login_device_cookies WHERE login = (SELECT login FROM users WHERE id = ?)`,
	} {
		if _, err := tx.ExecContext(ctx, q, userID); err != nil {
			return fmt.Errorf("forget known devices: %w", err)
		}
	}
	return nil
}

// knownDevice reports whether login signed in successfully from the address
// key after since (unix ms), and whether it did in the browser whose device
// token hashes to device.
func knownDevice(ctx context.Context, q querier, login, key string, device []byte, since int64) (address, browser bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM login_devices WHERE login = ?1 AND ip = ?2 AND last_at > ?3),
		EXISTS (SELECT 1 FROM login_device_cookies WHERE login = ?1 AND token_hash = ?4 AND last_at > ?3)`,
		login, key, since, device).Scan(&address, &browser)
	if err != nil {
		return false, false, fmt.Errorf("known device: %w", err)
	}
	return address, browser, nil
}
