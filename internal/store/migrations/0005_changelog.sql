-- Ingested changelog documents, their entries, the cross-release timeline of
-- feature stages, and the provenance of generated questions.

-- One row per document key ("1.36/node", "1.36"): re-ingesting an edited
-- file updates the row in place.
CREATE TABLE changelog_documents (
    id          INTEGER PRIMARY KEY,
    doc_key     TEXT    NOT NULL UNIQUE,
    release     TEXT    NOT NULL,
    sig         TEXT    NOT NULL DEFAULT '',
    format      TEXT    NOT NULL,
    title       TEXT    NOT NULL DEFAULT '',
    intro       TEXT    NOT NULL DEFAULT '[]', -- JSON: an article's prose before its first section
    sha256      TEXT    NOT NULL,           -- of the file's bytes
    parsed_hash TEXT    NOT NULL,           -- of the parsed document as JSON
    file_name   TEXT    NOT NULL DEFAULT '',
    deck_id     INTEGER NOT NULL REFERENCES decks (id),
    entry_count INTEGER NOT NULL,
    ingested_at INTEGER NOT NULL,           -- first ingest
    updated_at  INTEGER NOT NULL            -- last change of the parsed content
);

CREATE TABLE changelog_entries (
    id              INTEGER PRIMARY KEY,
    document_id     INTEGER NOT NULL REFERENCES changelog_documents (id) ON DELETE CASCADE,
    entry_key       TEXT    NOT NULL,
    position        INTEGER NOT NULL,       -- order in the document
    kind            TEXT    NOT NULL,
    section         TEXT    NOT NULL DEFAULT '',
    title           TEXT    NOT NULL DEFAULT '',
    text            TEXT    NOT NULL,
    notes           TEXT    NOT NULL DEFAULT '[]', -- JSON array of strings
    prs             TEXT    NOT NULL DEFAULT '[]', -- JSON array of ints
    authors         TEXT    NOT NULL DEFAULT '[]', -- JSON array of strings
    sigs            TEXT    NOT NULL DEFAULT '[]', -- JSON array of strings
    action_required INTEGER NOT NULL DEFAULT 0,
    mentions        TEXT    NOT NULL DEFAULT '[]', -- JSON: feature gates, fields, metrics ...
    stages          TEXT    NOT NULL DEFAULT '[]', -- JSON: the entry's stage changes with evidence
    focus           TEXT    NOT NULL DEFAULT '',
    line            INTEGER NOT NULL,
    -- The whole changelog.Entry as JSON: what StoredDocuments rebuilds the
    -- entry from, so that no field the parser sets is lost.
    data            TEXT    NOT NULL,
    UNIQUE (document_id, entry_key)
);

-- The cross-release timeline: one row per stage change an entry states.
CREATE TABLE feature_stages (
    id       INTEGER PRIMARY KEY,
    feature  TEXT    NOT NULL,
    release  TEXT    NOT NULL,
    stage    TEXT    NOT NULL,
    pr       INTEGER NOT NULL DEFAULT 0,
    revert   INTEGER NOT NULL DEFAULT 0,
    source   TEXT    NOT NULL DEFAULT '',
    entry_id INTEGER NOT NULL REFERENCES changelog_entries (id) ON DELETE CASCADE
);

CREATE INDEX feature_stages_feature ON feature_stages (feature COLLATE NOCASE, release);
CREATE INDEX feature_stages_entry ON feature_stages (entry_id);

-- Generated questions: provenance is the JSON of quizgen.Provenance;
-- generated_hash is the content hash of the question as last generated, so
-- that an admin's edit (content_hash <> generated_hash) is told apart from a
-- change of the source; source_document is the key of the document whose
-- ingest created the question.
ALTER TABLE questions ADD COLUMN provenance TEXT NOT NULL DEFAULT '{}';
ALTER TABLE questions ADD COLUMN generated_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE questions ADD COLUMN source_document TEXT NOT NULL DEFAULT '';

CREATE INDEX questions_source_document ON questions (source_document, status);
