-- A generated question of a document by its external id: recording a
-- document's sources looks up each of its questions this way, which the
-- index by document and status answered by reading every question of the
-- document (quadratic in a large document).
CREATE INDEX questions_source_ext ON questions (source_document, ext_id);
