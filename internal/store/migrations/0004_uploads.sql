-- Files an admin uploaded and is previewing, until they apply or cancel.

CREATE TABLE uploads (
    id         TEXT    PRIMARY KEY,          -- random, hex
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL CHECK (kind IN ('yaml', 'changelog')),
    created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE upload_files (
    upload_id TEXT    NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    data      BLOB    NOT NULL,
    PRIMARY KEY (upload_id, position)
) WITHOUT ROWID;
