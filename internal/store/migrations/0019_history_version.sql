-- The version of the stored feature history: it moves on with every change
-- to feature_stages, whichever process makes it, so that a process may keep
-- what it read of the history for as long as the version it reads with a
-- card stays the same (features.go).
CREATE TABLE history_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);

INSERT INTO history_version (id, version) VALUES (1, 1);

CREATE TRIGGER feature_stages_inserted AFTER INSERT ON feature_stages
BEGIN
    UPDATE history_version SET version = version + 1 WHERE id = 1;
END;

CREATE TRIGGER feature_stages_deleted AFTER DELETE ON feature_stages
BEGIN
    UPDATE history_version SET version = version + 1 WHERE id = 1;
END;

CREATE TRIGGER feature_stages_updated AFTER UPDATE ON feature_stages
BEGIN
    UPDATE history_version SET version = version + 1 WHERE id = 1;
END;
