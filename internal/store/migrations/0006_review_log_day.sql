-- The study queue counts the learner's reviews of the day (first reviews of
-- new cards, reviews of review cards) on every request. With state_before in
-- the index that count reads the index alone instead of one review_log row
-- per review. The new index starts with the old one's columns and replaces it.
CREATE INDEX review_log_user_day ON review_log (user_id, reviewed_at, state_before);
DROP INDEX review_log_user_time;
