-- The new-card search of "every subscribed deck" walks the learner's
-- subscriptions in deck order and looks into each deck for a question
-- without the learner's card. A learner who has studied every question of
-- most of their decks paid for a look into each of those on every page.
--
-- exhausted = 1 says that every published question of the deck has the
-- learner's card; the search then skips the deck without reading it
-- (subscriptions_open). 0 says nothing, and is always safe. Recording a
-- first review sets it when the deck has nothing new left; publishing a
-- question in the deck, or moving one into it, clears it for every
-- learner without a card for that question.
ALTER TABLE subscriptions ADD COLUMN exhausted INTEGER NOT NULL DEFAULT 0;

CREATE UNIQUE INDEX subscriptions_open ON subscriptions (user_id, deck_id) WHERE exhausted = 0;
CREATE INDEX subscriptions_exhausted ON subscriptions (deck_id) WHERE exhausted = 1;

CREATE TRIGGER subscriptions_open_on_insert AFTER INSERT ON questions
WHEN NEW.status = 'published'
BEGIN
    UPDATE subscriptions SET exhausted = 0
    WHERE deck_id = NEW.deck_id AND exhausted = 1
      AND NOT EXISTS (SELECT 1 FROM cards c
                      WHERE c.user_id = subscriptions.user_id AND c.question_id = NEW.id);
END;

CREATE TRIGGER subscriptions_open_on_update AFTER UPDATE OF status, deck_id ON questions
WHEN NEW.status = 'published'
BEGIN
    UPDATE subscriptions SET exhausted = 0
    WHERE deck_id = NEW.deck_id AND exhausted = 1
      AND NOT EXISTS (SELECT 1 FROM cards c
                      WHERE c.user_id = subscriptions.user_id AND c.question_id = NEW.id);
END;
