-- Browsers that signed in successfully, by the SHA-256 of the device
-- token they keep in a cookie. Like the addresses of login_devices, a
-- login and device pair seen recently is spared the per-account failure
-- limit: the owner's phone keeps working when its address changes.
CREATE TABLE login_device_cookies (
    login      TEXT    NOT NULL COLLATE NOCASE,
    token_hash BLOB    NOT NULL,
    last_at    INTEGER NOT NULL,
    PRIMARY KEY (login, token_hash)
) WITHOUT ROWID;

CREATE INDEX login_device_cookies_last ON login_device_cookies (last_at);
