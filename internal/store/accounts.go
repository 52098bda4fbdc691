package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
)

// ErrLoginTaken means an account has the login already; it is also a
// quiz.ErrConflict.
var ErrLoginTaken = fmt.Errorf("login already taken: %w", quiz.ErrConflict)

// NewUser is what creating an account needs. The password is already hashed.
type NewUser struct {
	Login        string
	DisplayName  string
	PasswordHash string
	Role         quiz.Role
}

// Credentials is what signing in checks. It leaves the store only for the
// password check.
type Credentials struct {
	User         quiz.User
	PasswordHash string
	Disabled     bool
}

// UserSummary is a row of the admin's user list.
type UserSummary struct {
	User     quiz.User
	Disabled bool
	Sessions int // sessions not yet expired
}

const userColumns = `u.id, u.login, u.display_name, u.role, u.locale, u.timezone,
	u.desired_retention, u.new_per_day, u.reviews_per_day, u.created_at`

type rowScanner interface{ Scan(dest ...any) error }

// scanUser reads userColumns, then extra.
func scanUser(r rowScanner, extra ...any) (quiz.User, error) {
	var u quiz.User
	var role string
	var created int64
	dest := append([]any{&u.ID, &u.Login, &u.DisplayName, &role, &u.Locale, &u.Timezone,
		&u.DesiredRetention, &u.NewPerDay, &u.ReviewsPerDay, &created}, extra...)
	if err := r.Scan(dest...); err != nil {
		return quiz.User{}, err
	}
	u.Role, u.CreatedAt = quiz.Role(role), fromMS(created)
	return u, nil
}

// CreateUser adds an account (the command line and open registration use it).
func (db *DB) CreateUser(ctx context.Context, nu NewUser, now time.Time) (quiz.User, error) {
	var u quiz.User
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = insertUser(ctx, tx, nu, now)
		return err
	})
	if err != nil {
		return quiz.User{}, fmt.Errorf("store: create user %q: %w", nu.Login, err)
	}
	return u, nil
}

func insertUser(ctx context.Context, tx *sql.Tx, nu NewUser, now time.Time) (quiz.User, error) {
	if nu.Role == "" {
		nu.Role = quiz.RoleMember
	}
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE login = ?`, nu.Login).Scan(&exists); err != nil {
		return quiz.User{}, err
	}
	if exists > 0 {
		return quiz.User{}, ErrLoginTaken
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO users (login, display_name, password_hash, role, created_at, password_changed_at)
		VALUES (?, ?, ?, ?, ?, ?)`, nu.Login, nu.DisplayName, nu.PasswordHash, string(nu.Role), ms(now), ms(now))
	if err != nil {
		return quiz.User{}, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return quiz.User{}, err
	}
	return scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ?`, id))
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

// UserByID returns an account, disabled or not.
func (db *DB) UserByID(ctx context.Context, id int64) (quiz.User, error) {
	u, err := scanUser(db.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return quiz.User{}, fmt.Errorf("store: user %d: %w", id, quiz.ErrNotFound)
	}
	if err != nil {
		return quiz.User{}, fmt.Errorf("store: user %d: %w", id, err)
	}
	return u, nil
}

// Credentials returns what signing in as login checks; quiz.ErrNotFound when
// there is no such account.
func (db *DB) Credentials(ctx context.Context, login string) (Credentials, error) {
	var c Credentials
	var disabled sql.NullInt64
	u, err := scanUser(db.read.QueryRowContext(ctx,
		`SELECT `+userColumns+`, u.password_hash, u.disabled_at FROM users u WHERE u.login = ?`, login),
		&c.PasswordHash, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return Credentials{}, fmt.Errorf("store: credentials: %w", quiz.ErrNotFound)
	}
	if err != nil {
		return Credentials{}, fmt.Errorf("store: credentials: %w", err)
	}
	c.User, c.Disabled = u, disabled.Valid
	return c, nil
}

// PasswordHash returns the stored hash of an active account, for checks
// that need the current password.
func (db *DB) PasswordHash(ctx context.Context, userID int64) (string, error) {
	var h string
	err := db.read.QueryRowContext(ctx, `SELECT password_hash FROM users WHERE id = ? AND disabled_at IS NULL`, userID).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: password hash of user %d: %w", userID, quiz.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: password hash of user %d: %w", userID, err)
	}
	return h, nil
}

// ListUsers returns every account in login order, with its number of
// sessions that are still valid at now.
func (db *DB) ListUsers(ctx context.Context, now time.Time, idle time.Duration) ([]UserSummary, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+userColumns+`, u.disabled_at IS NOT NULL,
		(SELECT count(*) FROM sessions s WHERE s.user_id = u.id AND s.expires_at > ? AND s.last_seen_at > ?)
		FROM users u ORDER BY u.login`, ms(now), ms(now.Add(-idle)))
	if err != nil {
		return nil, fmt.Errorf("store: list users: %w", err)
	}
	defer rows.Close()
	var out []UserSummary
	for rows.Next() {
		var s UserSummary
		if s.User, err = scanUser(rows, &s.Disabled, &s.Sessions); err != nil {
			return nil, fmt.Errorf("store: list users: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list users: %w", err)
	}
	return out, nil
}

// HasAdmin reports whether any admin account exists.
func (db *DB) HasAdmin(ctx context.Context) (bool, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE role = 'admin'`).Scan(&n); err != nil {
		return false, fmt.Errorf("store: count admins: %w", err)
	}
	return n > 0, nil
}

// SetDisplayName changes what pages call a user.
func (db *DB) SetDisplayName(ctx context.Context, userID int64, name string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return expectOne(tx.ExecContext(ctx, `UPDATE users SET display_name = ? WHERE id = ?`, name, userID))
	})
	if err != nil {
		return fmt.Errorf("store: set display name of user %d: %w", userID, err)
	}
	return nil
}

// SetTimezone sets the IANA time zone whose 04:00 starts the user's study
// days. The caller checks that the zone loads; the day's counts under the
// old zone are rebuilt under the new one on the next review.
func (db *DB) SetTimezone(ctx context.Context, userID int64, zone string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return expectOne(tx.ExecContext(ctx, `UPDATE users SET timezone = ? WHERE id = ?`, zone, userID))
	})
	if err != nil {
		return fmt.Errorf("store: set time zone of user %d: %w", userID, err)
	}
	return nil
}

// SetStudyLimits sets a user's daily limits: first reviews of new cards and
// reviews of cards in review per study day. Negative limits are
// quiz.ErrInvalid; an unknown user is quiz.ErrNotFound.
func (db *DB) SetStudyLimits(ctx context.Context, userID int64, newPerDay, reviewsPerDay int) error {
	if newPerDay < 0 || reviewsPerDay < 0 {
		return fmt.Errorf("store: study limits %d/%d: %w", newPerDay, reviewsPerDay, quiz.ErrInvalid)
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return expectOne(tx.ExecContext(ctx, `UPDATE users SET new_per_day = ?, reviews_per_day = ? WHERE id = ?`,
			newPerDay, reviewsPerDay, userID))
	})
	if err != nil {
		return fmt.Errorf("store: set study limits of user %d: %w", userID, err)
	}
	return nil
}

// ChangePassword stores a new password hash, ends every session of the
// user and forgets its known devices (forgetDevices). When next is not nil it is then created, so that the browser that
// changed the password stays signed in with a fresh token.
func (db *DB) ChangePassword(ctx context.Context, userID int64, hash string, now time.Time, next *NewSession) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := expectOne(tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, password_changed_at = ? WHERE id = ?`,
			hash, ms(now), userID)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID); err != nil {
			return err
		}
		if err := forgetDevices(ctx, tx, userID); err != nil {
			return err
		}
		if next != nil {
			return insertSession(ctx, tx, userID, *next, now)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: change password of user %d: %w", userID, err)
	}
	return nil
}

// ChangePasswordByLogin is ChangePassword for the command line.
func (db *DB) ChangePasswordByLogin(ctx context.Context, login, hash string, now time.Time) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM users WHERE login = ?`, login).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return quiz.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, password_changed_at = ? WHERE id = ?`,
			hash, ms(now), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
			return err
		}
		return forgetDevices(ctx, tx, id)
	})
	if err != nil {
		return fmt.Errorf("store: change password of %q: %w", login, err)
	}
	return nil
}

// RehashPassword replaces a password hash with one of the same password
// under newer parameters; sessions are kept.
func (db *DB) RehashPassword(ctx context.Context, userID int64, hash string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return expectOne(tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID))
	})
	if err != nil {
		return fmt.Errorf("store: rehash password of user %d: %w", userID, err)
	}
	return nil
}

// SetDisabled disables an account, ending all its sessions, or enables it
// again.
func (db *DB) SetDisabled(ctx context.Context, userID int64, disabled bool, now time.Time) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if !disabled {
			return expectOne(tx.ExecContext(ctx, `UPDATE users SET disabled_at = NULL WHERE id = ?`, userID))
		}
		if err := expectOne(tx.ExecContext(ctx, `UPDATE users SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?`,
			ms(now), userID)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set user %d disabled=%v: %w", userID, disabled, err)
	}
	return nil
}

// expectOne turns "no row changed" into quiz.ErrNotFound.
func expectOne(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return quiz.ErrNotFound
	}
	return nil
}
