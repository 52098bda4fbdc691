package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"kubequiz/internal/quiz"
)

// Account errors. ErrLoginTaken is also a quiz.ErrConflict.
var (
	ErrLoginTaken         = fmt.Errorf("login already taken: %w", quiz.ErrConflict)
	ErrTokenInvalid       = errors.New("token unknown, used or expired")
	ErrAdminExists        = errors.New("an admin account already exists")
	ErrRegistrationClosed = errors.New("registration needs an invite")
	ErrRateLimited        = errors.New("too many failed sign-in attempts")
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

// ClearLoginFailures forgets the failures of login from ip after a right
// password. Failures from other addresses, and of ip for other logins, stay.
func (db *DB) ClearLoginFailures(ctx context.Context, login, ip string) error {
	err := db.txKeepSessions(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM login_failures WHERE login = ? AND ip = ?`, strings.ToLower(login), RateKey(ip))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: clear sign-in failures: %w", err)
	}
	return nil
}

// LoginFailures counts the failures recorded since a time.
func (db *DB) LoginFailures(ctx context.Context, login, ip string, since time.Time) (LoginFailureCounts, error) {
	c, err := countFailures(ctx, db.read, strings.ToLower(login), RateKey(ip), ms(since))
	if err != nil {
		return c, fmt.Errorf("store: count sign-in failures: %w", err)
	}
	return c, nil
}

// querier is a *sql.DB or a *sql.Tx.
func countFailures(ctx context.Context, tx querier, login, key string, since int64) (LoginFailureCounts, error) {
	var c LoginFailureCounts
	err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM login_failures WHERE login = ? AND ip = ? AND at > ?),
		(SELECT count(*) FROM login_failures WHERE ip = ? AND at > ?),
		(SELECT count(*) FROM login_failures WHERE login = ? AND at > ?)`,
		login, key, since, key, since, login, since).Scan(&c.AccountIP, &c.IP, &c.Account)
	return c, err
}
