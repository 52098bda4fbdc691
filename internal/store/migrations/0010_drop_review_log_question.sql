-- No query looks reviews up by question, and questions are retired, never
-- deleted, so the foreign key never needs it either. Every review added an
-- entry to it at a random place, a page of its own in each commit.
DROP INDEX review_log_question;
