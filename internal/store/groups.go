package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kubequiz/internal/group"
	"kubequiz/internal/quiz"
)

// This file holds study groups (migration 0018): a group's decks, members
// and invite link. Every use case checks, in its own transaction, that the
// user asking is a member (group.ErrNotMember otherwise: to anyone else
// the group does not exist) and, for what only organizers may do, an
// organizer (group.ErrNotOrganizer); the rules are internal/group's.
// groups_progress.go gathers the progress table and its export;
// study_queue.go serves a group's cards and the meetup mode's extra
// reviews.

// ErrUnknownDeck refuses a group of a deck that does not exist or has no
// published question.
var ErrUnknownDeck = fmt.Errorf("no such deck with published questions: %w", quiz.ErrInvalid)

// ErrNotGroupMember refuses to make presenter someone outside the group.
var ErrNotGroupMember = fmt.Errorf("the presenter is not a member of the group: %w", quiz.ErrInvalid)

// GroupInvite is an invite link's code, hashed, and when it stops working
// (zero: never).
type GroupInvite struct {
	Hash    []byte
	Expires time.Time
}

// NewGroup is a group to create.
type NewGroup struct {
	group.Group
	// Invite is the group's first invite link.
	Invite GroupInvite
}

// GroupSummary is a group on a member's list of groups.
type GroupSummary struct {
	ID      int64
	Name    string
	Release string
	Meetup  group.Meetup
	// Role is the member's.
	Role    group.Role
	Members int
	Decks   int
}

// GroupDeck is a deck a group studies.
type GroupDeck struct {
	quiz.DeckSummary
	// Presenter is the user id of the member who presents the deck at the
	// meetup; 0 when nobody does yet.
	Presenter int64
}

// GroupMember is a member of a group.
type GroupMember struct {
	User       quiz.User
	Role       group.Role
	MeetupMode bool
	JoinedAt   time.Time
}

// Group is a group as its members see it.
type Group struct {
	ID      int64
	Name    string
	Release string
	Note    string
	Meetup  group.Meetup
	// InviteActive tells that an invite link works; InviteExpires is
	// when it stops (zero: never).
	InviteActive  bool
	InviteExpires time.Time
	// inviteHash is the SHA-256 of the invite link's code (InviteIs).
	inviteHash []byte
	CreatedAt  time.Time
	// Decks are in the organizer's order; Members organizers first, then
	// by login.
	Decks   []GroupDeck
	Members []GroupMember
	// Viewer is the member who asked.
	Viewer GroupMember
	// Unseen counts the published questions of the group's decks that the
	// viewer has no card for.
	Unseen int
}

// InviteIs reports whether hash is the SHA-256 of the code of the group's
// invite link, compared in constant time.
func (g Group) InviteIs(hash []byte) bool {
	return len(g.inviteHash) > 0 && subtle.ConstantTimeCompare(g.inviteHash, hash) == 1
}

// Organizers counts the group's organizers.
func (g Group) Organizers() int {
	n := 0
	for _, m := range g.Members {
		if m.Role == group.Organizer {
			n++
		}
	}
	return n
}

// Member returns the member with user id id.
func (g Group) Member(id int64) (GroupMember, bool) {
	for _, m := range g.Members {
		if m.User.ID == id {
			return m, true
		}
	}
	return GroupMember{}, false
}

// DeckIDs are the ids of the group's decks, in its order.
func (g Group) DeckIDs() []int64 {
	out := make([]int64, len(g.Decks))
	for i, d := range g.Decks {
		out[i] = d.ID
	}
	return out
}

// GroupInvitation is what an invite link shows of its group.
type GroupInvitation struct {
	GroupID int64
	Name    string
	Release string
	Note    string
	Meetup  group.Meetup
	Decks   []quiz.DeckSummary
	Members int
	// Member tells that the user who opened the link is a member already.
	Member bool
}

// PresenterDuty is a deck a member presents at a group's meetup.
type PresenterDuty struct {
	GroupID   int64
	GroupName string
	Meetup    group.Meetup
	Deck      quiz.DeckSummary
}

// groupColumns are what groupRow scans of study_groups g.
const groupColumns = `g.id, g.name, g.release, g.note, g.meetup_at, g.meetup_has_time, g.meetup_zone,
	g.invite_hash, g.invite_expires_at, g.created_at`

// groupRow receives groupColumns.
type groupRow struct {
	g           Group
	at, created int64
	hasTime     bool
	zone        string
	invite      []byte
	expires     sql.NullInt64
}

func (r *groupRow) dests() []any {
	return []any{&r.g.ID, &r.g.Name, &r.g.Release, &r.g.Note, &r.at, &r.hasTime, &r.zone,
		&r.invite, &r.expires, &r.created}
}

// group returns the scanned group, its meetup in its zone.
func (r *groupRow) group(z *zones) Group {
	g := r.g
	g.Meetup = meetup(z, r.at, r.hasTime, r.zone)
	g.InviteActive, g.inviteHash, g.CreatedAt = len(r.invite) > 0, r.invite, fromMS(r.created)
	if r.expires.Valid {
		g.InviteExpires = fromMS(r.expires.Int64)
	}
	return g
}

// meetup is a stored meetup in its time zone.
func meetup(z *zones, at int64, hasTime bool, zone string) group.Meetup {
	return group.Meetup{At: fromMS(at).In(z.location(zone)), HasTime: hasTime}
}

// validInvite is the condition that an invite link of study_groups g with
// code hash ?1 works at ?2.
const validInvite = `g.invite_hash = ?1 AND (g.invite_expires_at IS NULL OR g.invite_expires_at > ?2)`

// CreateGroup creates a group whose organizer is creatorID, who is
// subscribed to its decks, and returns its id. A deck that does not exist
// or has no published question is ErrUnknownDeck, and nothing is stored.
func (db *DB) CreateGroup(ctx context.Context, creatorID int64, g NewGroup, now time.Time) (int64, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		deckIDs := make([]int64, len(g.Decks))
		for i, slug := range g.Decks {
			err := tx.QueryRowContext(ctx, `SELECT d.id FROM decks d WHERE d.slug = ?
				AND EXISTS (SELECT 1 FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')`, slug).Scan(&deckIDs[i])
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("deck %q: %w", slug, ErrUnknownDeck)
			}
			if err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO study_groups (name, release, note, meetup_at, meetup_has_time,
			meetup_zone, invite_hash, invite_expires_at, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.Name, g.Release, g.Note, ms(g.Meetup.At), g.Meetup.HasTime, g.Meetup.At.Location().String(),
			nullBytes(g.Invite.Hash), nullTime(g.Invite.Expires), creatorID, ms(now))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for i, deck := range deckIDs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO study_group_decks (group_id, deck_id, position) VALUES (?, ?, ?)`,
				id, deck, i); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO study_group_members (group_id, user_id, role, joined_at)
			VALUES (?, ?, 'organizer', ?)`, id, creatorID, ms(now)); err != nil {
			return err
		}
		return subscribeToGroup(ctx, tx, id, creatorID, now)
	})
	if err != nil {
		return 0, fmt.Errorf("store: create group %q: %w", g.Name, err)
	}
	return id, nil
}

// nullBytes is b, or NULL when empty.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// nullTime is t in ms, or NULL when zero.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

// subscribeToGroup subscribes userID to the group's decks that have
// published questions.
func subscribeToGroup(ctx context.Context, tx *sql.Tx, groupID, userID int64, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO subscriptions (user_id, deck_id, created_at)
		SELECT ?1, gd.deck_id, ?3 FROM study_group_decks gd
		WHERE gd.group_id = ?2
		  AND EXISTS (SELECT 1 FROM questions q WHERE q.deck_id = gd.deck_id AND q.status = 'published')
		ON CONFLICT (user_id, deck_id) DO NOTHING`, userID, groupID, ms(now))
	if err != nil {
		return fmt.Errorf("subscribe to the group's decks: %w", err)
	}
	return nil
}

// UserGroups returns the groups userID is a member of: those whose meetup
// is still to come at now (or is today), the nearest first, then the
// others, the latest first.
func (db *DB) UserGroups(ctx context.Context, userID int64, now time.Time) ([]GroupSummary, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT g.id, g.name, g.release, g.meetup_at, g.meetup_has_time, g.meetup_zone, m.role,
			(SELECT count(*) FROM study_group_members o WHERE o.group_id = g.id),
			(SELECT count(*) FROM study_group_decks gd WHERE gd.group_id = g.id)
		FROM study_group_members m JOIN study_groups g ON g.id = m.group_id
		WHERE m.user_id = ?1
		ORDER BY g.meetup_at < ?2, CASE WHEN g.meetup_at < ?2 THEN -g.meetup_at ELSE g.meetup_at END, g.id`,
		userID, ms(now.Add(-24*time.Hour)))
	if err != nil {
		return nil, fmt.Errorf("store: groups of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []GroupSummary
	for rows.Next() {
		var (
			s       GroupSummary
			at      int64
			hasTime bool
			zone    string
			role    string
		)
		if err := rows.Scan(&s.ID, &s.Name, &s.Release, &at, &hasTime, &zone, &role, &s.Members, &s.Decks); err != nil {
			return nil, fmt.Errorf("store: groups of user %d: %w", userID, err)
		}
		s.Meetup, s.Role = meetup(&db.zones, at, hasTime, zone), group.Role(role)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: groups of user %d: %w", userID, err)
	}
	return out, nil
}

// GroupPage returns the group as viewerID, a member, sees it. Anyone else
// gets group.ErrNotMember, whether the group exists or not.
func (db *DB) GroupPage(ctx context.Context, groupID, viewerID int64) (Group, error) {
	g, err := readGroup(ctx, db.read, &db.zones, groupID, viewerID)
	if err != nil {
		return Group{}, fmt.Errorf("store: group %d for user %d: %w", groupID, viewerID, err)
	}
	return g, nil
}

// readGroup reads the group with its decks and members for viewerID,
// who must be a member.
func readGroup(ctx context.Context, q querier, z *zones, groupID, viewerID int64) (Group, error) {
	var r groupRow
	err := q.QueryRowContext(ctx, `SELECT `+groupColumns+` FROM study_groups g
		WHERE g.id = ?1 AND EXISTS (SELECT 1 FROM study_group_members m WHERE m.group_id = g.id AND m.user_id = ?2)`,
		groupID, viewerID).Scan(r.dests()...)
	if errors.Is(err, sql.ErrNoRows) {
		return Group{}, group.ErrNotMember
	}
	if err != nil {
		return Group{}, err
	}
	g := r.group(z)
	if g.Decks, err = groupDecks(ctx, q, groupID); err != nil {
		return Group{}, err
	}
	if g.Members, err = groupMembers(ctx, q, groupID); err != nil {
		return Group{}, err
	}
	g.Viewer, _ = g.Member(viewerID)
	err = q.QueryRowContext(ctx, `SELECT count(*) FROM study_group_decks gd
		JOIN questions q ON q.deck_id = gd.deck_id AND q.status = 'published'
		WHERE gd.group_id = ?1 AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = ?2 AND c.question_id = q.id)`,
		groupID, viewerID).Scan(&g.Unseen)
	if err != nil {
		return Group{}, fmt.Errorf("count unseen cards: %w", err)
	}
	return g, nil
}

func groupDecks(ctx context.Context, q querier, groupID int64) ([]GroupDeck, error) {
	rows, err := q.QueryContext(ctx, `SELECT d.id, d.slug, d.title, d.release, d.sig, d.language, d.description,
			(SELECT count(*) FROM questions q WHERE q.deck_id = d.id AND q.status = 'published'),
			coalesce(gd.presenter_id, 0)
		FROM study_group_decks gd JOIN decks d ON d.id = gd.deck_id
		WHERE gd.group_id = ? ORDER BY gd.position, d.id`, groupID)
	if err != nil {
		return nil, fmt.Errorf("decks: %w", err)
	}
	defer rows.Close()
	var out []GroupDeck
	for rows.Next() {
		var d GroupDeck
		if err := rows.Scan(&d.ID, &d.Slug, &d.Title, &d.Release, &d.SIG, &d.Language, &d.Description,
			&d.Questions, &d.Presenter); err != nil {
			return nil, fmt.Errorf("decks: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("decks: %w", err)
	}
	return out, nil
}

func groupMembers(ctx context.Context, q querier, groupID int64) ([]GroupMember, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+userColumns+`, m.role, m.meetup_mode, m.joined_at
		FROM study_group_members m JOIN users u ON u.id = m.user_id
		WHERE m.group_id = ? ORDER BY m.role = 'member', u.login`, groupID)
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	defer rows.Close()
	var out []GroupMember
	for rows.Next() {
		var (
			m      GroupMember
			role   string
			joined int64
		)
		if m.User, err = scanUser(rows, &role, &m.MeetupMode, &joined); err != nil {
			return nil, fmt.Errorf("members: %w", err)
		}
		m.Role, m.JoinedAt = group.Role(role), fromMS(joined)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	return out, nil
}

// GroupInvitation returns what the invite link of code hash shows at now,
// and whether viewerID (0 for nobody signed in) is a member already. A
// code that no group's link has, or whose link has expired or been
// replaced or revoked, is quiz.ErrNotFound.
func (db *DB) GroupInvitation(ctx context.Context, hash []byte, viewerID int64, now time.Time) (GroupInvitation, error) {
	var (
		inv     GroupInvitation
		at      int64
		hasTime bool
		zone    string
	)
	err := db.read.QueryRowContext(ctx, `SELECT g.id, g.name, g.release, g.note, g.meetup_at, g.meetup_has_time, g.meetup_zone,
			(SELECT count(*) FROM study_group_members m WHERE m.group_id = g.id),
			EXISTS (SELECT 1 FROM study_group_members m WHERE m.group_id = g.id AND m.user_id = ?3)
		FROM study_groups g WHERE `+validInvite, hash, ms(now), viewerID).
		Scan(&inv.GroupID, &inv.Name, &inv.Release, &inv.Note, &at, &hasTime, &zone, &inv.Members, &inv.Member)
	if errors.Is(err, sql.ErrNoRows) {
		return inv, fmt.Errorf("store: group invitation: %w", quiz.ErrNotFound)
	}
	if err != nil {
		return inv, fmt.Errorf("store: group invitation: %w", err)
	}
	inv.Meetup = meetup(&db.zones, at, hasTime, zone)
	decks, err := groupDecks(ctx, db.read, inv.GroupID)
	if err != nil {
		return inv, fmt.Errorf("store: group invitation: %w", err)
	}
	for _, d := range decks {
		inv.Decks = append(inv.Decks, d.DeckSummary)
	}
	return inv, nil
}

// JoinGroup makes userID a member of the group whose invite link has code
// hash and works at now, subscribes them to its decks, and returns the
// group's id. A member already stays as they are. A code no working link
// has is quiz.ErrNotFound.
func (db *DB) JoinGroup(ctx context.Context, hash []byte, userID int64, now time.Time) (int64, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT g.id FROM study_groups g WHERE `+validInvite, hash, ms(now)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("invite link: %w", quiz.ErrNotFound)
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO study_group_members (group_id, user_id, role, joined_at)
			VALUES (?, ?, 'member', ?) ON CONFLICT (group_id, user_id) DO NOTHING`, id, userID, ms(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // a member already: their subscriptions are theirs
		}
		return subscribeToGroup(ctx, tx, id, userID, now)
	})
	if err != nil {
		return 0, fmt.Errorf("store: user %d joins a group: %w", userID, err)
	}
	return id, nil
}

// GroupInviteValid reports whether some group's invite link has code hash
// and works at now: such a link lets its holder register while
// registration needs an invite.
func groupInviteValid(ctx context.Context, q querier, hash []byte, now time.Time) (bool, error) {
	if len(hash) == 0 {
		return false, nil
	}
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM study_groups g WHERE `+validInvite, hash, ms(now)).Scan(&n)
	return n > 0, err
}

// GroupInviteValid reports whether some group's invite link has code hash
// and works at now.
func (db *DB) GroupInviteValid(ctx context.Context, hash []byte, now time.Time) (bool, error) {
	ok, err := groupInviteValid(ctx, db.read, hash, now)
	if err != nil {
		return false, fmt.Errorf("store: check group invite: %w", err)
	}
	return ok, nil
}

// RegisterByGroupInvite adds a member account as Register does, where the
// invite link of a group with code hash counts as the invite that
// registration in invite mode needs (it is not used up: a group's link
// invites many). It does not join the group: the new member does that on
// the link's page. A link that does not work at now is ErrTokenInvalid.
func (db *DB) RegisterByGroupInvite(ctx context.Context, nu NewUser, hash []byte, now time.Time) (quiz.User, error) {
	var u quiz.User
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var admins int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE role = 'admin'`).Scan(&admins); err != nil {
			return err
		}
		if admins == 0 {
			return ErrRegistrationClosed
		}
		ok, err := groupInviteValid(ctx, tx, hash, now)
		if err != nil {
			return err
		}
		if !ok {
			return ErrTokenInvalid
		}
		nu.Role = quiz.RoleMember
		u, err = insertUser(ctx, tx, nu, now)
		return err
	})
	if err != nil {
		return quiz.User{}, fmt.Errorf("store: register %q by a group's invite link: %w", nu.Login, err)
	}
	return u, nil
}

// memberRole returns userID's role in the group: group.ErrNotMember when
// they are none, or the group does not exist.
func memberRole(ctx context.Context, q querier, groupID, userID int64) (group.Role, error) {
	var role string
	err := q.QueryRowContext(ctx, `SELECT role FROM study_group_members WHERE group_id = ? AND user_id = ?`,
		groupID, userID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", group.ErrNotMember
	}
	if err != nil {
		return "", fmt.Errorf("role in group %d: %w", groupID, err)
	}
	return group.Role(role), nil
}

// organizerTx runs fn in one transaction when actorID is an organizer of
// the group: group.ErrNotMember when they are not a member,
// group.ErrNotOrganizer when they are one but not an organizer.
func (db *DB) organizerTx(ctx context.Context, groupID, actorID int64, fn func(tx *sql.Tx) error) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		role, err := memberRole(ctx, tx, groupID, actorID)
		if err != nil {
			return err
		}
		if err := group.CheckManage(role); err != nil {
			return err
		}
		return fn(tx)
	})
}

// organizers counts the group's organizers.
func organizers(ctx context.Context, q querier, groupID int64) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM study_group_members WHERE group_id = ? AND role = 'organizer'`,
		groupID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count organizers: %w", err)
	}
	return n, nil
}

// SetGroupInvite gives the group a new invite link (its code's hash and
// expiry), in place of any before, or, with inv nil, revokes the link:
// for an organizer, actorID, only.
func (db *DB) SetGroupInvite(ctx context.Context, groupID, actorID int64, inv *GroupInvite) error {
	err := db.organizerTx(ctx, groupID, actorID, func(tx *sql.Tx) error {
		var hash, expires any
		if inv != nil {
			hash, expires = nullBytes(inv.Hash), nullTime(inv.Expires)
			if hash == nil {
				return fmt.Errorf("empty invite code: %w", quiz.ErrInvalid)
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE study_groups SET invite_hash = ?, invite_expires_at = ? WHERE id = ?`,
			hash, expires, groupID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set the invite link of group %d: %w", groupID, err)
	}
	return nil
}

// LeaveGroup takes userID out of the group. Their cards, reviews and
// subscriptions stay. The last organizer cannot leave
// (group.ErrLastOrganizer): they hand the role over, or delete the group.
func (db *DB) LeaveGroup(ctx context.Context, groupID, userID int64) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		return removeMember(ctx, tx, groupID, userID)
	})
	if err != nil {
		return fmt.Errorf("store: user %d leaves group %d: %w", userID, groupID, err)
	}
	return nil
}

// removeMember takes userID, a member, out of the group, keeping an
// organizer.
func removeMember(ctx context.Context, tx *sql.Tx, groupID, userID int64) error {
	role, err := memberRole(ctx, tx, groupID, userID)
	if err != nil {
		return err
	}
	n, err := organizers(ctx, tx, groupID)
	if err != nil {
		return err
	}
	if err := group.CheckOrganizerLeaves(role, n); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM study_group_members WHERE group_id = ? AND user_id = ?`, groupID, userID)
	return err
}

// RemoveGroupMember takes memberID out of the group, for an organizer,
// actorID. One who is not a member is quiz.ErrNotFound; removing oneself
// is leaving (the last organizer cannot).
func (db *DB) RemoveGroupMember(ctx context.Context, groupID, actorID, memberID int64) error {
	err := db.organizerTx(ctx, groupID, actorID, func(tx *sql.Tx) error {
		err := removeMember(ctx, tx, groupID, memberID)
		if errors.Is(err, group.ErrNotMember) {
			return fmt.Errorf("member %d: %w", memberID, quiz.ErrNotFound)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: remove user %d from group %d: %w", memberID, groupID, err)
	}
	return nil
}

// SetGroupRole gives memberID the role, for an organizer, actorID: an
// organizer shares the role with a member, or makes an organizer (even
// themself) a member again while another organizer remains
// (group.ErrLastOrganizer otherwise). One who is not a member is
// quiz.ErrNotFound.
func (db *DB) SetGroupRole(ctx context.Context, groupID, actorID, memberID int64, role group.Role) error {
	if !role.Valid() {
		return fmt.Errorf("store: role %q: %w", role, quiz.ErrInvalid)
	}
	err := db.organizerTx(ctx, groupID, actorID, func(tx *sql.Tx) error {
		return setRole(ctx, tx, groupID, memberID, role)
	})
	if err != nil {
		return fmt.Errorf("store: give user %d the role %s in group %d: %w", memberID, role, groupID, err)
	}
	return nil
}

func setRole(ctx context.Context, tx *sql.Tx, groupID, memberID int64, role group.Role) error {
	was, err := memberRole(ctx, tx, groupID, memberID)
	if errors.Is(err, group.ErrNotMember) {
		return fmt.Errorf("member %d: %w", memberID, quiz.ErrNotFound)
	}
	if err != nil || was == role {
		return err
	}
	if role != group.Organizer {
		n, err := organizers(ctx, tx, groupID)
		if err != nil {
			return err
		}
		if err := group.CheckOrganizerLeaves(was, n); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE study_group_members SET role = ? WHERE group_id = ? AND user_id = ?`,
		string(role), groupID, memberID)
	return err
}

// HandOverGroup makes memberID an organizer and actorID, an organizer, a
// member, in one transaction.
func (db *DB) HandOverGroup(ctx context.Context, groupID, actorID, memberID int64) error {
	err := db.organizerTx(ctx, groupID, actorID, func(tx *sql.Tx) error {
		if memberID == actorID {
			return fmt.Errorf("hand over to oneself: %w", quiz.ErrInvalid)
		}
		if err := setRole(ctx, tx, groupID, memberID, group.Organizer); err != nil {
			return err
		}
		return setRole(ctx, tx, groupID, actorID, group.Member)
	})
	if err != nil {
		return fmt.Errorf("store: hand group %d over to user %d: %w", groupID, memberID, err)
	}
	return nil
}

// DeleteGroup deletes the group, its members and decks (not the decks
// themselves, nor anyone's cards, reviews or subscriptions), for an
// organizer, actorID.
func (db *DB) DeleteGroup(ctx context.Context, groupID, actorID int64) error {
	err := db.organizerTx(ctx, groupID, actorID, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM study_groups WHERE id = ?`, groupID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete group %d: %w", groupID, err)
	}
	return nil
}

// SetPresenter makes presenterID, a member, the presenter of the group's
// deck slug, or, with presenterID 0, leaves the deck without one: for an
// organizer, actorID. A deck the group does not study is quiz.ErrNotFound;
// a presenter who is not a member ErrNotGroupMember.
func (db *DB) SetPresenter(ctx context.Context, groupID, actorID int64, slug string, presenterID int64) error {
	err := db.organizerTx(ctx, groupID, actorID, func(tx *sql.Tx) error {
		var presenter any
		if presenterID != 0 {
			if _, err := memberRole(ctx, tx, groupID, presenterID); errors.Is(err, group.ErrNotMember) {
				return ErrNotGroupMember
			} else if err != nil {
				return err
			}
			presenter = presenterID
		}
		return expectOne(tx.ExecContext(ctx, `UPDATE study_group_decks SET presenter_id = ?
			WHERE group_id = ? AND deck_id = (SELECT id FROM decks WHERE slug = ?)`, presenter, groupID, slug))
	})
	if err != nil {
		return fmt.Errorf("store: presenter of deck %s in group %d: %w", slug, groupID, err)
	}
	return nil
}

// SetMeetupMode turns userID's meetup mode for the group on or off.
func (db *DB) SetMeetupMode(ctx context.Context, groupID, userID int64, on bool) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := memberRole(ctx, tx, groupID, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE study_group_members SET meetup_mode = ? WHERE group_id = ? AND user_id = ?`,
			on, groupID, userID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: meetup mode of user %d in group %d: %w", userID, groupID, err)
	}
	return nil
}

// PresenterDuties returns the decks userID presents, in their groups
// whose meetup is not over at now, the nearest meetup first.
func (db *DB) PresenterDuties(ctx context.Context, userID int64, now time.Time) ([]PresenterDuty, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT g.id, g.name, g.meetup_at, g.meetup_has_time, g.meetup_zone,
			d.id, d.slug, d.title, d.release, d.sig, d.language, d.description,
			(SELECT count(*) FROM questions q WHERE q.deck_id = d.id AND q.status = 'published')
		FROM study_group_decks gd
		JOIN study_groups g ON g.id = gd.group_id
		JOIN decks d ON d.id = gd.deck_id
		WHERE gd.presenter_id = ?1 AND g.meetup_at > ?2
		ORDER BY g.meetup_at, g.id, gd.position`, userID, ms(now.Add(-48*time.Hour)))
	if err != nil {
		return nil, fmt.Errorf("store: presenter duties of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []PresenterDuty
	for rows.Next() {
		var (
			p       PresenterDuty
			at      int64
			hasTime bool
			zone    string
		)
		if err := rows.Scan(&p.GroupID, &p.GroupName, &at, &hasTime, &zone, &p.Deck.ID, &p.Deck.Slug, &p.Deck.Title,
			&p.Deck.Release, &p.Deck.SIG, &p.Deck.Language, &p.Deck.Description, &p.Deck.Questions); err != nil {
			return nil, fmt.Errorf("store: presenter duties of user %d: %w", userID, err)
		}
		p.Meetup = meetup(&db.zones, at, hasTime, zone)
		if !p.Meetup.Over(now) {
			out = append(out, p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: presenter duties of user %d: %w", userID, err)
	}
	return out, nil
}

// groupDeckList is the ids of decks as a JSON array, for json_each.
func groupDeckList(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
