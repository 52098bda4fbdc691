-- History across releases: the notes one document shares with another,
-- the documents that state the fact a generated question asks, and the
-- wording an ingest proposes for a published question.

-- The entries of a document that another document of the same notes
-- already stores (the release-notes JSON and the CHANGELOG of a release):
-- they are not stored a second time; each row names the entry that holds
-- the note.
CREATE TABLE changelog_shared_entries (
    document_id   INTEGER NOT NULL REFERENCES changelog_documents (id) ON DELETE CASCADE,
    entry_key     TEXT    NOT NULL,            -- the entry in this document
    kind          TEXT    NOT NULL,
    prs           TEXT    NOT NULL DEFAULT '[]', -- JSON array of ints
    same_document TEXT    NOT NULL,            -- key of the document that stores the note
    same_entry    TEXT    NOT NULL,            -- the entry's key there
    PRIMARY KEY (document_id, entry_key)
) WITHOUT ROWID;

CREATE INDEX changelog_shared_entries_same ON changelog_shared_entries (same_document, same_entry);

-- A feature's stages are looked up by its key: lower case, without spaces
-- (changelog.FeatureKey, which the store writes; rows of earlier ingests
-- get the same for ASCII names here).
ALTER TABLE feature_stages ADD COLUMN feature_key TEXT NOT NULL DEFAULT '';
UPDATE feature_stages SET feature_key = lower(replace(replace(feature, ' ', ''), '　', ''));
CREATE INDEX feature_stages_key ON feature_stages (feature_key, release);

-- Every document that states the fact a generated question asks: the
-- question lives in the deck of the document stored first, and each
-- document that states the fact again adds a row here instead of a
-- question. A document's rows are replaced whole by each ingest of it.
CREATE TABLE question_sources (
    question_id INTEGER NOT NULL REFERENCES questions (id),
    document    TEXT    NOT NULL,              -- document key
    entry       TEXT    NOT NULL DEFAULT '',   -- entry key; '' for a timeline
    prs         TEXT    NOT NULL DEFAULT '[]', -- JSON array of ints
    url         TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (question_id, document, entry)
) WITHOUT ROWID;

CREATE INDEX question_sources_document ON question_sources (document);

-- The wording an ingest generated for a published question whose
-- generated wording changed: learners keep seeing the published one until
-- an admin accepts this. generated is the JSON of quizgen.Generated.
CREATE TABLE question_proposals (
    question_id    INTEGER PRIMARY KEY REFERENCES questions (id),
    generated      TEXT    NOT NULL,
    generated_hash TEXT    NOT NULL,
    proposed_at    INTEGER NOT NULL
);
