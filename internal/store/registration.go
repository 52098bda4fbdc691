package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
)

// Registration errors.
var (
	ErrTokenInvalid       = errors.New("token unknown, used or expired")
	ErrAdminExists        = errors.New("an admin account already exists")
	ErrRegistrationClosed = errors.New("registration needs an invite")
)

// Registration modes, kept in settings under "registration".
const (
	RegistrationOpen   = "open"
	RegistrationInvite = "invite"
)

// Token purposes in the tokens table.
const (
	TokenSetup  = "setup"
	TokenInvite = "invite"
)

// Register adds a member account under the current registration mode. In
// invite mode the invite (its SHA-256) must be valid; it is then used up.
// Registration is closed until an admin exists.
func (db *DB) Register(ctx context.Context, nu NewUser, inviteHash []byte, now time.Time) (quiz.User, error) {
	var u quiz.User
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var admins int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE role = 'admin'`).Scan(&admins); err != nil {
			return err
		}
		if admins == 0 {
			return ErrRegistrationClosed
		}
		mode, err := setting(ctx, tx, "registration")
		if err != nil {
			return err
		}
		nu.Role = quiz.RoleMember
		if mode != RegistrationOpen {
			if len(inviteHash) == 0 {
				return ErrRegistrationClosed
			}
			if err := checkToken(ctx, tx, inviteHash, TokenInvite, now); err != nil {
				return err
			}
		}
		u, err = insertUser(ctx, tx, nu, now)
		if err != nil {
			return err
		}
		if mode != RegistrationOpen {
			return useToken(ctx, tx, inviteHash, u.ID, now)
		}
		return nil
	})
	if err != nil {
		return quiz.User{}, fmt.Errorf("store: register %q: %w", nu.Login, err)
	}
	return u, nil
}

// CreateFirstAdmin adds the first admin through a setup token, which it uses
// up. It fails with ErrAdminExists once any admin exists.
func (db *DB) CreateFirstAdmin(ctx context.Context, nu NewUser, setupHash []byte, now time.Time) (quiz.User, error) {
	var u quiz.User
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var admins int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE role = 'admin'`).Scan(&admins); err != nil {
			return err
		}
		if admins > 0 {
			return ErrAdminExists
		}
		if err := checkToken(ctx, tx, setupHash, TokenSetup, now); err != nil {
			return err
		}
		nu.Role = quiz.RoleAdmin
		var err error
		if u, err = insertUser(ctx, tx, nu, now); err != nil {
			return err
		}
		return useToken(ctx, tx, setupHash, u.ID, now)
	})
	if err != nil {
		return quiz.User{}, fmt.Errorf("store: create first admin %q: %w", nu.Login, err)
	}
	return u, nil
}

// RegistrationMode returns RegistrationOpen or RegistrationInvite.
func (db *DB) RegistrationMode(ctx context.Context) (string, error) {
	var v string
	err := db.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'registration'`).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: registration mode: %w", err)
	}
	if v != RegistrationOpen {
		v = RegistrationInvite // anything unexpected fails closed
	}
	return v, nil
}

// SetRegistrationMode switches between open and invite-only registration.
func (db *DB) SetRegistrationMode(ctx context.Context, mode string) error {
	if mode != RegistrationOpen && mode != RegistrationInvite {
		return fmt.Errorf("store: registration mode %q: %w", mode, quiz.ErrInvalid)
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('registration', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, mode)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set registration mode: %w", err)
	}
	return nil
}

func setting(ctx context.Context, tx *sql.Tx, key string) (string, error) {
	var v string
	err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// CreateSetupToken stores the SHA-256 of a new first-admin setup token,
// replacing any unused one, so that only the newest setup link works.
func (db *DB) CreateSetupToken(ctx context.Context, hash []byte, now, expires time.Time) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE purpose = 'setup' AND used_at IS NULL`); err != nil {
			return err
		}
		return insertToken(ctx, tx, hash, TokenSetup, nil, now, expires)
	})
	if err != nil {
		return fmt.Errorf("store: create setup token: %w", err)
	}
	return nil
}

// CreateInvite stores the SHA-256 of a new invite code.
func (db *DB) CreateInvite(ctx context.Context, hash []byte, createdBy int64, now, expires time.Time) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return insertToken(ctx, tx, hash, TokenInvite, &createdBy, now, expires)
	})
	if err != nil {
		return fmt.Errorf("store: create invite: %w", err)
	}
	return nil
}

func insertToken(ctx context.Context, tx *sql.Tx, hash []byte, purpose string, createdBy *int64, now, expires time.Time) error {
	// Expired tokens are useless: drop them while here.
	if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE expires_at <= ? AND used_at IS NULL`, ms(now)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO tokens (token_hash, purpose, created_by, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, hash, purpose, createdBy, ms(now), ms(expires))
	return err
}

// TokenValid reports whether a token (its SHA-256) of a purpose is unused
// and unexpired.
func (db *DB) TokenValid(ctx context.Context, hash []byte, purpose string, now time.Time) (bool, error) {
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM tokens
		WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?`, hash, purpose, ms(now)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: check token: %w", err)
	}
	return n > 0, nil
}

// InviteExpiry returns when the invite hash, made by createdBy, stops
// working; one used, expired, revoked, never made or made by another admin
// is quiz.ErrNotFound.
func (db *DB) InviteExpiry(ctx context.Context, hash []byte, createdBy int64, now time.Time) (time.Time, error) {
	var at int64
	err := db.read.QueryRowContext(ctx, `SELECT expires_at FROM tokens
		WHERE token_hash = ? AND purpose = 'invite' AND created_by = ? AND used_at IS NULL AND expires_at > ?`, hash, createdBy, ms(now)).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, fmt.Errorf("store: invite: %w", quiz.ErrNotFound)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store: invite: %w", err)
	}
	return fromMS(at), nil
}

// RevokeInvites drops every unused invite, expired or not, and returns how
// many still worked. Used invites stay: they record who invited whom.
func (db *DB) RevokeInvites(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tokens
			WHERE purpose = 'invite' AND used_at IS NULL AND expires_at > ?`, ms(now)).Scan(&n); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE purpose = 'invite' AND used_at IS NULL`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: revoke invites: %w", err)
	}
	return n, nil
}

// PendingInvites counts unused, unexpired invites.
func (db *DB) PendingInvites(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM tokens
		WHERE purpose = 'invite' AND used_at IS NULL AND expires_at > ?`, ms(now)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count invites: %w", err)
	}
	return n, nil
}

func checkToken(ctx context.Context, tx *sql.Tx, hash []byte, purpose string, now time.Time) error {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tokens
		WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?`, hash, purpose, ms(now)).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrTokenInvalid
	}
	return nil
}

func useToken(ctx context.Context, tx *sql.Tx, hash []byte, userID int64, now time.Time) error {
	return expectOne(tx.ExecContext(ctx, `UPDATE tokens SET used_by = ?, used_at = ? WHERE token_hash = ? AND used_at IS NULL`,
		userID, ms(now), hash))
}
