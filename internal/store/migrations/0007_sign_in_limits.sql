-- Sign-in and registration limits that an attacker cannot turn against a
-- victim.

-- Login and address (IPv4, or IPv6 /64) pairs that signed in successfully.
-- A pair seen recently is spared the per-account failure limit, so failures
-- from elsewhere cannot lock the owner out of their usual device.
CREATE TABLE login_devices (
    login   TEXT    NOT NULL COLLATE NOCASE,
    ip      TEXT    NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (login, ip)
) WITHOUT ROWID;

CREATE INDEX login_devices_last ON login_devices (last_at);

-- Counted actions per client address (registration attempts ...), kept
-- while within their window.
CREATE TABLE rate_events (
    id   INTEGER PRIMARY KEY,
    kind TEXT    NOT NULL,
    ip   TEXT    NOT NULL,
    at   INTEGER NOT NULL
);

CREATE INDEX rate_events_key ON rate_events (kind, ip, at);
