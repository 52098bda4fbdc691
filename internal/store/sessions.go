package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
)

// NewSession is a session about to be stored: the SHA-256 of its token and
// its absolute expiry.
type NewSession struct {
	TokenHash []byte
	ExpiresAt time.Time
}

// Session is a stored session's timestamps.
type Session struct {
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

// CreateSession stores a new session for a user and drops the user's
// sessions that have expired (absolutely, or idle longer than idle).
func (db *DB) CreateSession(ctx context.Context, userID int64, s NewSession, now time.Time, idle time.Duration) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND (expires_at <= ? OR last_seen_at <= ?)`,
			userID, ms(now), ms(now.Add(-idle))); err != nil {
			return err
		}
		return insertSession(ctx, tx, userID, s, now)
	})
	if err != nil {
		return fmt.Errorf("store: create session for user %d: %w", userID, err)
	}
	return nil
}

// MaxSessionsPerUser is how many live sessions an account keeps: a new
// sign-in beyond it drops the sessions used least recently, so that a
// stream of sign-ins cannot grow the table without bound.
const MaxSessionsPerUser = 50

// insertSession stores a session and keeps the user's MaxSessionsPerUser
// most recently used ones (the new one among them).
func insertSession(ctx context.Context, tx *sql.Tx, userID int64, s NewSession, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, s.TokenHash, userID, ms(now), ms(now), ms(s.ExpiresAt)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?1 AND token_hash NOT IN (
		SELECT token_hash FROM sessions WHERE user_id = ?1
		ORDER BY token_hash = ?2 DESC, last_seen_at DESC, created_at DESC LIMIT ?3)`,
		userID, s.TokenHash, MaxSessionsPerUser)
	return err
}

// sessionUserQuery finds a live session by token hash with its user: ?1
// token hash, ?2 now (ms), ?3 now minus the idle timeout (ms).
const sessionUserQuery = `SELECT ` + userColumns + `, s.created_at, s.last_seen_at, s.expires_at
	FROM sessions s JOIN users u ON u.id = s.user_id
	WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND s.last_seen_at > ?3 AND u.disabled_at IS NULL`

// touchSessionQuery moves a session's last use forward: ?1 now (ms), ?2 token hash.
const touchSessionQuery = `UPDATE sessions SET last_seen_at = ?1 WHERE token_hash = ?2 AND last_seen_at < ?1`

// SessionUser returns the user a session token (its SHA-256) belongs to. The
// session must be neither past its absolute expiry nor idle longer than
// idle, and the account must not be disabled; otherwise quiz.ErrNotFound.
func (db *DB) SessionUser(ctx context.Context, tokenHash []byte, now time.Time, idle time.Duration) (quiz.User, Session, error) {
	if u, s, ok := db.sessions.get(tokenHash, now, idle); ok {
		return u, s, nil
	}
	gen := db.sessions.generation()
	var s Session
	var created, seen, expires int64
	ctx, done, err := db.quickRead(ctx)
	if err != nil {
		return quiz.User{}, Session{}, fmt.Errorf("store: session: %w", err)
	}
	defer done()
	u, err := scanUser(db.reads.QueryRowContext(ctx, sessionUserQuery,
		tokenHash, ms(now), ms(now.Add(-idle))), &created, &seen, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return quiz.User{}, Session{}, fmt.Errorf("store: session: %w", quiz.ErrNotFound)
	}
	if err != nil {
		return quiz.User{}, Session{}, fmt.Errorf("store: session: %w", err)
	}
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = fromMS(created), fromMS(seen), fromMS(expires)
	db.sessions.put(gen, tokenHash, cachedSession{user: u, session: s, fetched: now})
	return u, s, nil
}

// TouchSession records that a session was used at now, which slides its
// idle timeout.
func (db *DB) TouchSession(ctx context.Context, tokenHash []byte, now time.Time) error {
	defer db.sessions.forget(tokenHash)
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := db.writes.in(tx).ExecContext(ctx, touchSessionQuery, ms(now), tokenHash)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: touch session: %w", err)
	}
	return nil
}

// DeleteSession ends one session (sign-out). Ending an unknown session is
// not an error.
func (db *DB) DeleteSession(ctx context.Context, tokenHash []byte) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ?`, tokenHash)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// DeleteUserSessions ends every session of a user and returns how many
// there were.
func (db *DB) DeleteUserSessions(ctx context.Context, userID int64) (int, error) {
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete sessions of user %d: %w", userID, err)
	}
	return int(n), nil
}

// PurgeSessions deletes every expired session and returns how many.
func (db *DB) PurgeSessions(ctx context.Context, now time.Time, idle time.Duration) (int, error) {
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?`,
			ms(now), ms(now.Add(-idle)))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: purge sessions: %w", err)
	}
	return int(n), nil
}

// LiveSessions counts the sessions in use at now: neither past their
// absolute expiry nor idle longer than idle, of an account that is not
// disabled (the sessions SessionUser finds).
func (db *DB) LiveSessions(ctx context.Context, now time.Time, idle time.Duration) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.expires_at > ? AND s.last_seen_at > ? AND u.disabled_at IS NULL`, ms(now), ms(now.Add(-idle))).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count live sessions: %w", err)
	}
	return n, nil
}
