package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/group"
	"kubequiz/internal/progress"
)

// This file gathers a group's progress table (member x deck) and its
// export, for all the members at once: for each part of the members
// (memberReads), one read of their cards of the group's decks and one of
// their reviews of the last seven days or, for the export's true
// retention, of the last 30 study days. The figures
// that internal/progress defines (mastery, mature cards, true retention)
// are its functions' over those, by each member's desired retention and
// time zone, as Stats computes them for one learner.

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
	// Cards counts the member's cards of the deck as the progress rules do
	// (progress.CountCards at the time asked, by the member's desired
	// retention): Cards.Mastery() is the deck's mastery, Cards.Mature its
	// mature cards.
	Cards progress.Cards
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

// The progress table's queries, each one pass over all the members: ?1
// the group's id.
const (
	// The cards of published questions of the group's decks of the
	// members in ?2, a JSON array of user ids, with what the figures read
	// of them.
	groupCardsQuery = `SELECT c.user_id, q.deck_id, ` + statsCardColumns + `
		FROM json_each(?2) m
		JOIN cards c ON c.user_id = m.value
		JOIN questions q ON q.id = c.question_id
		WHERE q.status = 'published'
		  AND q.deck_id IN (SELECT gd.deck_id FROM study_group_decks gd WHERE gd.group_id = ?1)`
	// The members' reviews of the group's decks, each member's since the
	// time of ?2, a JSON array of [user id, ms]: when, and what true
	// retention counts of them (retentionCountsQuery's columns).
	groupReviewsQuery = `SELECT r.user_id, q.deck_id, r.state_before, r.rating, r.reviewed_at
		FROM json_each(?2) s
		JOIN review_log r ON r.user_id = s.value ->> 0 AND r.reviewed_at >= s.value ->> 1
		JOIN questions q ON q.id = r.question_id
		WHERE q.deck_id IN (SELECT gd.deck_id FROM study_group_decks gd WHERE gd.group_id = ?1)`
)

// GroupProgress returns the group's progress table at now, for viewerID,
// a member (group.ErrNotMember otherwise). It holds every member's rows:
// what a viewer may see of them is group.ProgressViewOf's rule.
func (db *DB) GroupProgress(ctx context.Context, groupID, viewerID int64, now time.Time) (GroupProgress, error) {
	p, _, err := db.groupProgress(ctx, groupID, viewerID, now, false)
	if err != nil {
		return p, fmt.Errorf("store: progress of group %d for user %d: %w", groupID, viewerID, err)
	}
	return p, nil
}

// groupProgress reads the progress table and, with retention, each row's
// true retention (progress.TrueRetention) over the last
// progress.RetentionDays study days in the member's time zone, as their
// statistics page measures it.
func (db *DB) groupProgress(ctx context.Context, groupID, viewerID int64, now time.Time, retention bool) (GroupProgress, []progress.Share, error) {
	var p GroupProgress
	g, err := readGroup(ctx, db.read, &db.zones, groupID, viewerID)
	if err != nil {
		return p, nil, err
	}
	p.Group = g
	at := map[memberDeck]int{}
	for _, m := range g.Members {
		for _, d := range g.Decks {
			at[memberDeck{m.User.ID, d.ID}] = len(p.Rows)
			p.Rows = append(p.Rows, GroupProgressRow{UserID: m.User.ID, DeckID: d.ID, Total: d.Questions})
		}
	}
	// The reads take most of the time, each in its rows: the members are
	// split into memberReads parts, each read on a connection of the
	// pool of its own, its cards then its reviews, filling its members'
	// rows.
	var (
		wg     sync.WaitGroup
		errs   = make([]error, memberReads)
		counts = reviewCounts{recent: make([]int, len(p.Rows))}
	)
	if retention {
		counts.kinds = make([][]progress.ReviewCount, len(p.Rows))
	}
	members := p.Group.Members
	for i := range memberReads {
		part := members[i*len(members)/memberReads : (i+1)*len(members)/memberReads]
		wg.Go(func() {
			errs[i] = db.groupCards(ctx, p, part, at, now)
			if errs[i] == nil {
				errs[i] = db.groupReviews(ctx, p, part, at, now, retention, counts)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return p, nil, err
	}
	for i, n := range counts.recent {
		p.Rows[i].RecentReviews = n
	}
	var shares []progress.Share
	if retention {
		shares = make([]progress.Share, len(p.Rows))
		for i := range shares {
			shares[i] = progress.TrueRetention(counts.kinds[i])
		}
	}
	return p, shares, nil
}

// memberDeck is a member's row of a deck.
type memberDeck struct{ user, deck int64 }

// memberReads is the number of parts the members are split into for
// reading their cards and reviews, each part on its own connection and
// all at once: the machine's cores share the rows.
const memberReads = 2

// reviewCounts are what groupReviews counts, by row of the table.
type reviewCounts struct {
	// recent counts the reviews within RecentReviewsSpan.
	recent []int
	// kinds, with retention, count the reviews true retention counts.
	kinds [][]progress.ReviewCount
}

// groupCards fills the rows of members, a part of the group's, with their
// counts of cards: seen, due, the last review and the progress rules'
// counts, by each member's memory, card by card as they are read.
func (db *DB) groupCards(ctx context.Context, p GroupProgress, members []GroupMember, at map[memberDeck]int, now time.Time) error {
	if len(members) == 0 {
		return nil
	}
	mems := make(map[int64]progress.Memory, len(members))
	ids := make([]int64, len(members))
	for i, m := range members {
		mem, err := db.memory(m.User.DesiredRetention)
		if err != nil {
			return fmt.Errorf("cards of user %d: %w", m.User.ID, err)
		}
		mems[m.User.ID], ids[i] = mem, m.User.ID
		for _, d := range p.Group.Decks {
			r := &p.Rows[at[memberDeck{m.User.ID, d.ID}]]
			r.Cards = progress.Cards{Total: r.Total}
		}
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("cards: %w", err)
	}
	rows, err := db.read.QueryContext(ctx, groupCardsQuery, p.Group.ID, string(js))
	if err != nil {
		return fmt.Errorf("cards: %w", err)
	}
	defer rows.Close()
	var k memberDeck
	row := newStatsCardRow(&k.user, &k.deck)
	for rows.Next() {
		c, err := row.scan(rows)
		if err != nil {
			return fmt.Errorf("cards: %w", err)
		}
		i, ok := at[k]
		if !ok {
			continue
		}
		r := &p.Rows[i]
		r.Seen++
		if !c.Due.After(now) {
			r.Due++
		}
		if c.LastReview.After(r.LastReview) {
			r.LastReview = c.LastReview
		}
		r.Cards = r.Cards.Count(c, now, mems[k.user])
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cards: %w", err)
	}
	return nil
}

// groupReviews counts, in the rows of members (a part of the group's),
// their recent reviews and, with retention, the reviews true retention
// counts, each member's over their own span (retentionSpan in their time
// zone), from one read of the members' reviews since the span's start:
// 29 study days before today, before RecentReviewsSpan begins. The
// reviews are counted here rather than grouped in SQL, which would sort
// them all first.
func (db *DB) groupReviews(ctx context.Context, p GroupProgress, members []GroupMember, at map[memberDeck]int, now time.Time, retention bool, counts reviewCounts) error {
	if len(members) == 0 {
		return nil
	}
	type span struct{ from, to int64 }
	recent := ms(now.Add(-RecentReviewsSpan))
	spans := make(map[int64]span, len(members))
	since := make([][2]int64, len(members))
	for i, m := range members {
		since[i] = [2]int64{m.User.ID, recent}
		if retention {
			from, to := retentionSpan(now, db.zones.location(m.User.Timezone))
			spans[m.User.ID] = span{ms(from), ms(to)}
			since[i][1] = min(ms(from), recent)
		}
	}
	js, err := json.Marshal(since)
	if err != nil {
		return fmt.Errorf("reviews: %w", err)
	}
	rows, err := db.read.QueryContext(ctx, groupReviewsQuery, p.Group.ID, string(js))
	if err != nil {
		return fmt.Errorf("reviews: %w", err)
	}
	defer rows.Close()
	var (
		k                   memberDeck
		state, rating, when int64
	)
	dests := []any{&k.user, &k.deck, &state, &rating, &when}
	for rows.Next() {
		if err := rows.Scan(dests...); err != nil {
			return fmt.Errorf("reviews: %w", err)
		}
		i, ok := at[k]
		if !ok {
			continue
		}
		if when >= recent {
			counts.recent[i]++
		}
		if sp, ok := spans[k.user]; ok && when >= sp.from && when < sp.to {
			counts.kinds[i] = addReviewCount(counts.kinds[i], fsrs.State(state), fsrs.Rating(rating))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reviews: %w", err)
	}
	return nil
}

// addReviewCount adds a review of a card in state before, rated r, to
// counts.
func addReviewCount(counts []progress.ReviewCount, before fsrs.State, r fsrs.Rating) []progress.ReviewCount {
	for i, c := range counts {
		if c.StateBefore == before && c.Rating == r {
			counts[i].Count++
			return counts
		}
	}
	return append(counts, progress.ReviewCount{StateBefore: before, Rating: r, Count: 1})
}

// GroupExportRow is one row of a group's progress export.
type GroupExportRow struct {
	Member   GroupMember
	Deck     GroupDeck
	Progress GroupProgressRow
	// Retention is the member's true retention in the deck
	// (progress.TrueRetention) over the last progress.RetentionDays study
	// days in their time zone, as their statistics page measures it.
	Retention progress.Share
}

// GroupExport hands the rows of the group's progress table at now to
// each, one per member and deck in the table's order, for an organizer,
// actorID, only (group.ErrNotMember, group.ErrNotOrganizer otherwise).
// The table is read before the first row is handed out: no read is open
// while each writes. An error of each ends the export and is returned.
func (db *DB) GroupExport(ctx context.Context, groupID, actorID int64, now time.Time, each func(GroupExportRow) error) error {
	p, retention, err := db.groupProgress(ctx, groupID, actorID, now, true)
	if err == nil {
		err = group.CheckManage(p.Group.Viewer.Role)
	}
	if err != nil {
		return fmt.Errorf("store: export group %d for user %d: %w", groupID, actorID, err)
	}
	i := 0
	for _, m := range p.Group.Members {
		for _, d := range p.Group.Decks {
			if err := each(GroupExportRow{Member: m, Deck: d, Progress: p.Rows[i], Retention: retention[i]}); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}
