-- Decks and questions, and the record of every import.
-- Times are unix milliseconds, UTC.

CREATE TABLE decks (
    id          INTEGER PRIMARY KEY,
    slug        TEXT    NOT NULL UNIQUE,
    title       TEXT    NOT NULL,
    release     TEXT    NOT NULL,
    sig         TEXT    NOT NULL DEFAULT '',
    language    TEXT    NOT NULL DEFAULT 'ja',
    description TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE questions (
    id           INTEGER PRIMARY KEY,
    deck_id      INTEGER NOT NULL REFERENCES decks (id),
    ext_id       TEXT    NOT NULL,
    position     INTEGER NOT NULL,
    type         TEXT    NOT NULL,
    prompt       TEXT    NOT NULL,
    payload      TEXT    NOT NULL,          -- JSON: choices, answers, items ...
    explanation  TEXT    NOT NULL,
    release      TEXT    NOT NULL DEFAULT '',
    sig          TEXT    NOT NULL DEFAULT '',
    kind         TEXT    NOT NULL DEFAULT '',
    pr_numbers   TEXT    NOT NULL DEFAULT '[]', -- JSON array of ints
    source_url   TEXT    NOT NULL DEFAULT '',
    tags         TEXT    NOT NULL DEFAULT '[]', -- JSON array of strings
    origin       TEXT    NOT NULL CHECK (origin IN ('yaml', 'generated')),
    generator    TEXT    NOT NULL DEFAULT '',
    status       TEXT    NOT NULL CHECK (status IN ('draft', 'published', 'retired')),
    content_hash TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    UNIQUE (deck_id, ext_id)
);

CREATE INDEX questions_deck_status ON questions (deck_id, status, position);

CREATE TABLE import_runs (
    id         INTEGER PRIMARY KEY,
    actor      TEXT    NOT NULL,            -- a user's login, or "cli"
    kind       TEXT    NOT NULL CHECK (kind IN ('yaml', 'changelog')),
    file_name  TEXT    NOT NULL,
    sha256     TEXT    NOT NULL,
    added      INTEGER NOT NULL,
    updated    INTEGER NOT NULL,
    unchanged  INTEGER NOT NULL,
    retired    INTEGER NOT NULL,
    at         INTEGER NOT NULL
);
