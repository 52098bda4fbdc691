package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// ErrRateLimited refuses an attempt over its limit: a sign-in
// (ReserveLoginAttempt) or another counted action (ReserveAction).
var ErrRateLimited = errors.New("too many failed sign-in attempts")

// LoginLimits bounds failed sign-in attempts within a sliding window.
type LoginLimits struct {
	Window       time.Duration
	PerAccountIP int // failures for one login from one address
	PerIP        int // failures from one address, any login
	PerAccount   int // failures for one login, any address
	// KnownFor spares a login and address pair, or a login and device
	// token pair, that signed in successfully (LoginSucceeded) within
	// KnownFor from the PerAccount limit, so that failures from elsewhere
	// cannot lock the owner out.
	KnownFor time.Duration
}

// LoginFailureCounts are the failures recorded within a window.
type LoginFailureCounts struct {
	AccountIP, IP, Account int
}

// RateKey is the address that sign-in limits count by: an IPv4 address, or
// the /64 network of an IPv6 address (one host usually holds a whole /64).
func RateKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}

// ReserveLoginAttempt checks the failures recorded for login and ip within
// the window and, when all are under their limits, records this attempt as
// a failure in the same transaction, so that parallel attempts cannot slip
// past the limit. A right password then calls LoginSucceeded. Over a
// limit it records nothing and returns ErrRateLimited, so the lock lifts as
// soon as the oldest counted failure leaves the window. device is the
// SHA-256 of the browser's device token (nil: none), for the known-device
// exception of the per-account limit.
func (db *DB) ReserveLoginAttempt(ctx context.Context, login, ip string, device []byte, now time.Time, lim LoginLimits) error {
	key := RateKey(ip)
	login = strings.ToLower(login)
	// A failed sign-in touches no user or session: anonymous requests
	// must not empty the session cache.
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		since := ms(now.Add(-lim.Window))
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_failures WHERE at <= ?`, since); err != nil {
			return err
		}
		c, err := countFailures(ctx, tx, login, key, since)
		if err != nil {
			return err
		}
		if c.AccountIP >= lim.PerAccountIP || c.IP >= lim.PerIP {
			return ErrRateLimited
		}
		if c.Account >= lim.PerAccount {
			address, browser, err := knownDevice(ctx, tx, login, key, device, ms(now.Add(-lim.KnownFor)))
			if err != nil {
				return err
			}
			if browser && !address {
				// A device token goes anywhere: it has a limit of its own,
				// that of one address.
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM login_failures WHERE login = ? AND device = ? AND at > ?`,
					login, device, since).Scan(&n); err != nil {
					return err
				}
				browser = n < lim.PerAccountIP
			}
			if !address && !browser {
				return ErrRateLimited
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO login_failures (login, ip, at, device) VALUES (?, ?, ?, ?)`, login, key, ms(now), device)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: sign-in attempt: %w", err)
	}
	return nil
}

// countFailures counts the failures of login and of the address key since
// (unix ms); tx is a *sql.DB or a *sql.Tx.
func countFailures(ctx context.Context, tx querier, login, key string, since int64) (LoginFailureCounts, error) {
	var c LoginFailureCounts
	err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM login_failures WHERE login = ? AND ip = ? AND at > ?),
		(SELECT count(*) FROM login_failures WHERE ip = ? AND at > ?),
		(SELECT count(*) FROM login_failures WHERE login = ? AND at > ?)`,
		login, key, since, key, since, login, since).Scan(&c.AccountIP, &c.IP, &c.Account)
	return c, err
}

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
