-- Where each learner's new cards resume in each deck.
--
-- A new card is a published question without a card, first in position
-- order. Searching from the deck's first question looks up a card for
-- each, so it costs more with every card studied. A cursor records a
-- position at or below which every published question of the deck has a
-- card of the learner, and the search starts after it.
--
-- Recording the first review of a new card moves the cursor on (store,
-- study_review.go). The triggers below move it back whenever a question
-- becomes published at or below it without the learner having a card for
-- it: a new question, a draft published, a retired one restored, or a
-- question moved to another position or deck. A cursor that is too low
-- costs time, never a card.
CREATE TABLE new_card_cursors (
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    deck_id         INTEGER NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    covered_through INTEGER NOT NULL,
    PRIMARY KEY (user_id, deck_id)
) WITHOUT ROWID;

CREATE INDEX new_card_cursors_deck ON new_card_cursors (deck_id, covered_through);

CREATE TRIGGER new_card_cursors_on_insert AFTER INSERT ON questions
WHEN NEW.status = 'published'
BEGIN
    UPDATE new_card_cursors SET covered_through = NEW.position - 1
    WHERE deck_id = NEW.deck_id AND covered_through >= NEW.position
      AND NOT EXISTS (SELECT 1 FROM cards c
                      WHERE c.user_id = new_card_cursors.user_id AND c.question_id = NEW.id);
END;

CREATE TRIGGER new_card_cursors_on_update AFTER UPDATE OF status, position, deck_id ON questions
WHEN NEW.status = 'published'
BEGIN
    UPDATE new_card_cursors SET covered_through = NEW.position - 1
    WHERE deck_id = NEW.deck_id AND covered_through >= NEW.position
      AND NOT EXISTS (SELECT 1 FROM cards c
                      WHERE c.user_id = new_card_cursors.user_id AND c.question_id = NEW.id);
END;
