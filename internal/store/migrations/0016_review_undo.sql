-- A learner may undo their most recent grade of the study day, which puts
-- the card back as it was before it. review_log holds the card's state,
-- due time, stability and difficulty before each review; these columns
-- hold the rest of the card as it was. They are NULL in the reviews
-- recorded before they existed, which cannot be undone (reps_before tells
-- them apart: last_review_before is NULL for a card's first review too).
--
-- review_log stays append-only, but for the undo, which deletes the row of
-- the review it undoes (store, study_undo.go).
ALTER TABLE review_log ADD COLUMN elapsed_days_before INTEGER;
ALTER TABLE review_log ADD COLUMN scheduled_days_before INTEGER;
ALTER TABLE review_log ADD COLUMN learning_steps_before INTEGER;
ALTER TABLE review_log ADD COLUMN reps_before INTEGER;
ALTER TABLE review_log ADD COLUMN lapses_before INTEGER;
ALTER TABLE review_log ADD COLUMN last_review_before INTEGER;
