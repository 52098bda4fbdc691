-- Study groups: a group studies decks towards a meetup (a 変更内容共有会);
-- its members have roles, and each deck may have a presenter.

-- meetup_at is the meetup's date and time in meetup_zone (the organizer's
-- time zone when the group was made), as unix ms UTC; 00:00 of the date
-- when meetup_has_time is 0. The invite link's code is random; only its
-- SHA-256 is kept. invite_hash NULL: no link works (revoked).
-- invite_expires_at NULL: the link does not expire.
CREATE TABLE study_groups (
    id                INTEGER PRIMARY KEY,
    name              TEXT    NOT NULL,
    release           TEXT    NOT NULL DEFAULT '',
    note              TEXT    NOT NULL DEFAULT '',
    meetup_at         INTEGER NOT NULL,
    meetup_has_time   INTEGER NOT NULL CHECK (meetup_has_time IN (0, 1)),
    meetup_zone       TEXT    NOT NULL,
    invite_hash       BLOB    UNIQUE,
    invite_expires_at INTEGER,
    created_by        INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at        INTEGER NOT NULL
);

-- The decks a group studies, in the order the organizer chose them, each
-- with its presenter (発表担当), a member of the group, or NULL.
CREATE TABLE study_group_decks (
    group_id     INTEGER NOT NULL REFERENCES study_groups (id) ON DELETE CASCADE,
    deck_id      INTEGER NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    presenter_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
    PRIMARY KEY (group_id, deck_id)
) WITHOUT ROWID;

-- A group's study page walks its decks in order; the card queries find a
-- deck's groups; the home page a presenter's decks.
CREATE UNIQUE INDEX study_group_decks_order ON study_group_decks (group_id, position);
CREATE INDEX study_group_decks_deck ON study_group_decks (deck_id, group_id);
CREATE INDEX study_group_decks_presenter ON study_group_decks (presenter_id) WHERE presenter_id IS NOT NULL;

-- Members and their role. meetup_mode = 1: the member gets extra reviews
-- of the group's cards before the meetup.
CREATE TABLE study_group_members (
    group_id    INTEGER NOT NULL REFERENCES study_groups (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role        TEXT    NOT NULL CHECK (role IN ('organizer', 'member')),
    meetup_mode INTEGER NOT NULL DEFAULT 0 CHECK (meetup_mode IN (0, 1)),
    joined_at   INTEGER NOT NULL,
    PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;

CREATE INDEX study_group_members_user ON study_group_members (user_id, group_id);
-- The study queue looks up, on every request that reaches new cards, the
-- learner's groups with the meetup mode on: for most learners none.
CREATE INDEX study_group_members_mode ON study_group_members (user_id) WHERE meetup_mode = 1;

-- A presenter is a member: one who leaves, or is removed, presents no more.
CREATE TRIGGER study_group_members_left AFTER DELETE ON study_group_members
BEGIN
    UPDATE study_group_decks SET presenter_id = NULL
    WHERE group_id = OLD.group_id AND presenter_id = OLD.user_id;
END;
