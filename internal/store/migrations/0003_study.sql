-- Subscriptions, each learner's cards (FSRS state) and the review log.

CREATE TABLE subscriptions (
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    deck_id    INTEGER NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, deck_id)
) WITHOUT ROWID;

-- A card exists once a learner has first graded a question, so it is never in
-- the New state: a published question without a card is a new card. Its
-- columns are the FSRS card state.
CREATE TABLE cards (
    user_id        INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    question_id    INTEGER NOT NULL REFERENCES questions (id),
    state          INTEGER NOT NULL CHECK (state BETWEEN 1 AND 3),
    due            INTEGER NOT NULL,
    stability      REAL    NOT NULL,
    difficulty     REAL    NOT NULL,
    elapsed_days   INTEGER NOT NULL,
    scheduled_days INTEGER NOT NULL,
    learning_steps INTEGER NOT NULL,
    reps           INTEGER NOT NULL,
    lapses         INTEGER NOT NULL,
    last_review    INTEGER,                 -- NULL before the first review
    PRIMARY KEY (user_id, question_id)
) WITHOUT ROWID;

CREATE INDEX cards_user_due ON cards (user_id, due);

-- Append-only. request_id (the presentation id) makes a retried or doubled
-- submit record one review. state_before = 0 marks the first review of a new
-- card, which the daily new-card limit counts.
CREATE TABLE review_log (
    id                INTEGER PRIMARY KEY,
    request_id        TEXT    NOT NULL UNIQUE,
    user_id           INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    question_id       INTEGER NOT NULL REFERENCES questions (id),
    rating            INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
    answer            TEXT    NOT NULL DEFAULT '{}',  -- JSON of what the learner answered
    correct           INTEGER NOT NULL,               -- 0 or 1
    reviewed_at       INTEGER NOT NULL,
    duration_ms       INTEGER NOT NULL DEFAULT 0,
    state_before      INTEGER NOT NULL,
    due_before        INTEGER NOT NULL,
    stability_before  REAL    NOT NULL,
    difficulty_before REAL    NOT NULL,
    elapsed_days      INTEGER NOT NULL,
    retrievability    REAL    NOT NULL,
    state_after       INTEGER NOT NULL,
    due_after         INTEGER NOT NULL,
    stability_after   REAL    NOT NULL,
    difficulty_after  REAL    NOT NULL,
    scheduled_days    INTEGER NOT NULL
);

CREATE INDEX review_log_user_time ON review_log (user_id, reviewed_at);
CREATE INDEX review_log_question ON review_log (question_id);
