-- Accounts, sessions, sign-in throttling and server settings.

CREATE TABLE users (
    id                  INTEGER PRIMARY KEY,
    login               TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    display_name        TEXT    NOT NULL DEFAULT '',
    password_hash       TEXT    NOT NULL,
    role                TEXT    NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
    locale              TEXT    NOT NULL DEFAULT 'ja',
    timezone            TEXT    NOT NULL DEFAULT 'Asia/Tokyo',
    desired_retention   REAL    NOT NULL DEFAULT 0.9 CHECK (desired_retention > 0 AND desired_retention < 1),
    new_per_day         INTEGER NOT NULL DEFAULT 20 CHECK (new_per_day >= 0),
    reviews_per_day     INTEGER NOT NULL DEFAULT 200 CHECK (reviews_per_day >= 0),
    created_at          INTEGER NOT NULL,
    password_changed_at INTEGER NOT NULL,
    disabled_at         INTEGER                        -- NULL while the account is active
);

-- Session tokens are random; only their SHA-256 is stored.
CREATE TABLE sessions (
    token_hash   BLOB    PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX sessions_user ON sessions (user_id);

-- Failed sign-in attempts, counted per account and per client address.
CREATE TABLE login_failures (
    id    INTEGER PRIMARY KEY,
    login TEXT    NOT NULL COLLATE NOCASE,
    ip    TEXT    NOT NULL,
    at    INTEGER NOT NULL
);

CREATE INDEX login_failures_login ON login_failures (login, at);
CREATE INDEX login_failures_ip ON login_failures (ip, at);

-- One-time tokens: the first-admin setup link and registration invites.
CREATE TABLE tokens (
    token_hash BLOB    PRIMARY KEY,
    purpose    TEXT    NOT NULL CHECK (purpose IN ('setup', 'invite')),
    created_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_by    INTEGER REFERENCES users (id) ON DELETE SET NULL,
    used_at    INTEGER
) WITHOUT ROWID;

-- Server-wide settings (registration mode ...), one row per key.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

INSERT INTO settings (key, value) VALUES ('registration', 'open');
