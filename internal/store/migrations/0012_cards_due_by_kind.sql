-- The study queue serves due learning cards first, then due review cards,
-- each earliest first. With one index of every card by due time, finding
-- the first due learning card read every review card due before it (and
-- the other way round): a learner back after a week with two hundred
-- reviews waiting read them all on every page. One partial index per kind
-- finds each at its first entry. A card is in exactly one of them, so a
-- review still changes one index entry.
CREATE INDEX cards_user_learning_due ON cards (user_id, due) WHERE state IN (1, 3);
CREATE INDEX cards_user_review_due ON cards (user_id, due) WHERE state = 2;
DROP INDEX cards_user_due;
