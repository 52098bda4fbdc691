-- Each learner's reviews per study day, for the daily limits.
--
-- The study queue needs, on every request, how many new cards and reviews
-- the learner has done since their study day began (04:00 in their zone).
-- Counting them in review_log reads one index entry per review of the day;
-- this row is read with one lookup instead.
--
-- day_start is the start of the study day in unix ms, as the learner's zone
-- placed it when the review was recorded. Recording a review creates the
-- row from review_log's count the first time (so reviews recorded before
-- this table existed still count), then adds one. While there is no row for
-- the day the queue counts in review_log.
CREATE TABLE daily_reviews (
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day_start    INTEGER NOT NULL,
    new_count    INTEGER NOT NULL,  -- first reviews of new cards
    review_count INTEGER NOT NULL,  -- reviews of cards in the Review state
    PRIMARY KEY (user_id, day_start)
) WITHOUT ROWID;

-- A row counts the reviews recorded under one time zone's day start. When
-- the learner's zone changes, reviews of the same day may have been counted
-- under another start: every row of theirs is dropped, and the next review
-- of each day rebuilds its row from review_log.
CREATE TRIGGER daily_reviews_zone_changed AFTER UPDATE OF timezone ON users
WHEN NEW.timezone IS NOT OLD.timezone
BEGIN
    DELETE FROM daily_reviews WHERE user_id = NEW.id;
END;
