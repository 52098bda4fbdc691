-- The admin page's upload that an import applied, so that the page its
-- apply redirects to, and a second submit of the same apply, can show what
-- was imported after the upload itself is gone. NULL for the command line
-- and the bundled bank.
ALTER TABLE import_runs ADD COLUMN upload_id TEXT;

CREATE INDEX import_runs_upload ON import_runs (upload_id) WHERE upload_id IS NOT NULL;
