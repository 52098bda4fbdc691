package store

import (
	"context"
	"fmt"
	"time"

	"kubequiz/internal/group"
)

// This file gathers a group's progress table (member x deck) and its
// export. It reads counts only; the figures that internal/progress
// defines (mastery, mature cards, true retention) are computed from each
// member's own statistics by the caller.

// RecentReviewsSpan is the span of GroupProgressRow.RecentReviews: the
// last seven days (168 hours) before the time asked.
const RecentReviewsSpan = 7 * 24 * time.Hour

// GroupProgressRow is one member's progress in one deck of a group.
type GroupProgressRow struct {
	UserID, DeckID int64
	// Total counts the deck's published questions; Seen those the member
	// has a card for; Due the member's cards due at the time asked
	// (learning cards included), as the decks page counts them.
	Total, Seen, Due int
	// RecentReviews counts the member's reviews of the deck's questions
	// within RecentReviewsSpan.
	RecentReviews int
	// LastReview is the member's last review of a card of the deck; zero
	// when there is none.
	LastReview time.Time
}

// GroupProgress is a group's progress table.
type GroupProgress struct {
	Group Group
	// Rows are one per member and deck: by member in Group.Members'
	// order, then by deck in Group.Decks' order.
	Rows []GroupProgressRow
}

// Row returns the row of a member and deck.
func (p GroupProgress) Row(userID, deckID int64) (GroupProgressRow, bool) {
	for _, r := range p.Rows {
		if r.UserID == userID && r.DeckID == deckID {
			return r, true
		}
	}
	return GroupProgressRow{}, false
}

// The progress table's queries: ?1 group id, ?2 a time (ms). Each reads
// the members' cards or recent reviews once, grouped by member and deck.
const (
	groupCardsQuery = `SELECT c.user_id, q.deck_id, count(*), coalesce(sum(c.due <= ?2), 0), coalesce(max(c.last_review), 0)
		FROM study_group_members m
		JOIN cards c ON c.user_id = m.user_id
		JOIN questions q ON q.id = c.question_id
		WHERE m.group_id = ?1 AND q.status = 'published'
		  AND q.deck_id IN (SELECT gd.deck_id FROM study_group_decks gd WHERE gd.group_id = ?1)
		GROUP BY c.user_id, q.deck_id`
	groupReviewsQuery = `SELECT r.user_id, q.deck_id, count(*)
		FROM study_group_members m
		JOIN review_log r ON r.user_id = m.user_id AND r.reviewed_at >= ?2
		JOIN questions q ON q.id = r.question_id
		WHERE m.group_id = ?1
		  AND q.deck_id IN (SELECT gd.deck_id FROM study_group_decks gd WHERE gd.group_id = ?1)
		GROUP BY r.user_id, q.deck_id`
)

// GroupProgress returns the group's progress table at now, for viewerID,
// a member (group.ErrNotMember otherwise). It holds every member's rows:
// what a viewer may see of them is group.ProgressViewOf's rule.
func (db *DB) GroupProgress(ctx context.Context, groupID, viewerID int64, now time.Time) (GroupProgress, error) {
	p, err := db.groupProgress(ctx, groupID, viewerID, now)
	if err != nil {
		return p, fmt.Errorf("store: progress of group %d for user %d: %w", groupID, viewerID, err)
	}
	return p, nil
}

func (db *DB) groupProgress(ctx context.Context, groupID, viewerID int64, now time.Time) (GroupProgress, error) {
	var p GroupProgress
	g, err := readGroup(ctx, db.read, &db.zones, groupID, viewerID)
	if err != nil {
		return p, err
	}
	p.Group = g
	type key struct{ user, deck int64 }
	at := map[key]int{}
	for _, m := range g.Members {
		for _, d := range g.Decks {
			at[key{m.User.ID, d.ID}] = len(p.Rows)
			p.Rows = append(p.Rows, GroupProgressRow{UserID: m.User.ID, DeckID: d.ID, Total: d.Questions})
		}
	}
	rows, err := db.read.QueryContext(ctx, groupCardsQuery, groupID, ms(now))
	if err != nil {
		return p, fmt.Errorf("cards: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k         key
			seen, due int
			last      int64
		)
		if err := rows.Scan(&k.user, &k.deck, &seen, &due, &last); err != nil {
			return p, fmt.Errorf("cards: %w", err)
		}
		if i, ok := at[k]; ok {
			r := &p.Rows[i]
			r.Seen, r.Due = seen, due
			if last > 0 {
				r.LastReview = fromMS(last)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return p, fmt.Errorf("cards: %w", err)
	}
	rows.Close()
	rows, err = db.read.QueryContext(ctx, groupReviewsQuery, groupID, ms(now.Add(-RecentReviewsSpan)))
	if err != nil {
		return p, fmt.Errorf("reviews: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k key
			n int
		)
		if err := rows.Scan(&k.user, &k.deck, &n); err != nil {
			return p, fmt.Errorf("reviews: %w", err)
		}
		if i, ok := at[k]; ok {
			p.Rows[i].RecentReviews = n
		}
	}
	if err := rows.Err(); err != nil {
		return p, fmt.Errorf("reviews: %w", err)
	}
	return p, nil
}

// GroupExportRow is one row of a group's progress export.
type GroupExportRow struct {
	Member   GroupMember
	Deck     GroupDeck
	Progress GroupProgressRow
	// DeckIDs are the ids of all the group's decks, in its order.
	DeckIDs []int64
}

// GroupExport hands the rows of the group's progress table at now to
// each, one per member and deck in the table's order, for an organizer,
// actorID, only (group.ErrNotMember, group.ErrNotOrganizer otherwise).
// The table is read before the first row is handed out: no read is open
// while each writes. An error of each ends the export and is returned.
func (db *DB) GroupExport(ctx context.Context, groupID, actorID int64, now time.Time, each func(GroupExportRow) error) error {
	p, err := db.groupProgress(ctx, groupID, actorID, now)
	if err == nil {
		err = group.CheckManage(p.Group.Viewer.Role)
	}
	if err != nil {
		return fmt.Errorf("store: export group %d for user %d: %w", groupID, actorID, err)
	}
	ids := p.Group.DeckIDs()
	i := 0
	for _, m := range p.Group.Members {
		for _, d := range p.Group.Decks {
			if err := each(GroupExportRow{Member: m, Deck: d, Progress: p.Rows[i], DeckIDs: ids}); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}
