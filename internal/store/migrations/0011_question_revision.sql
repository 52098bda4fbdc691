-- A revision per question, moved on by every change of the row, so that a
-- server can keep questions in memory and still see, in the row it reads
-- anyway, whether its copy is current, whichever process changed the row.
ALTER TABLE questions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER questions_revision AFTER UPDATE ON questions
WHEN NEW.revision = OLD.revision
BEGIN
    UPDATE questions SET revision = OLD.revision + 1 WHERE id = NEW.id;
END;
