-- Browsers that signed in successfully, by the SHA-256 of the device
-- token they keep in a cookie (a new one at every sign-in). Like the
-- addresses of login_devices, a login and device pair seen recently is
-- spared the per-account failure limit: the owner's phone keeps working
-- when its address changes.
CREATE TABLE login_device_cookies (
    login      TEXT    NOT NULL COLLATE NOCASE,
    token_hash BLOB    NOT NULL,
    last_at    INTEGER NOT NULL,
    PRIMARY KEY (login, token_hash)
) WITHOUT ROWID;

CREATE INDEX login_device_cookies_last ON login_device_cookies (last_at);

-- The device token a failure was sent with (NULL: none), so that a known
-- device has a failure limit of its own.
ALTER TABLE login_failures ADD COLUMN device BLOB;
