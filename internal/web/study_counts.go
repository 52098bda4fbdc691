package web

import (
	"strconv"
	"strings"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/progress"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file keeps the study page's counts of the cards left today. A page
// that puts a card to the learner shows them and its forms carry them
// (the hidden field "c"), so that a grade's answer can tell the counts
// after it without counting again: the grade takes its card out of its
// count and, when the card comes back later in the study day, adds it to
// the learning cards. Counting them again (store.StudyCounts) costs more
// than the rest of a grade; it is done where nothing is carried: a page
// loaded, a grade sent again, an undo, the end of the queue, a new study
// day, a form carrying what no page of the server writes or the counts of
// another page (each deck's page, each study group's and that of every
// subscribed deck counts its own cards), a card the counts do not hold
// (an extra review of the meetup mode).

// shownCounts are the counts a study page shows: the cards left today,
// the kind of the card shown (views.CountNew, ...; "" for none of them),
// when the study day they are of ends and the page they are of.
type shownCounts struct {
	due     progress.Due
	kind    string
	dayEnds time.Time
	scope   store.Scope
}

// maxCarriedCount bounds each count a form may carry.
const maxCarriedCount = 10_000_000

// countKinds are the kinds of card as a carried value writes them; "e"
// is a card of none of the counts (an extra review).
var countKinds = map[string]string{views.CountNew: "n", views.CountLearning: "l", views.CountReview: "r", "": "e"}

// carried is the value of the forms' field "c": the day's end in unix
// milliseconds, the three counts, the kind's letter and the page
// (scopeKey), dot-separated.
func (s shownCounts) carried() string {
	return strconv.FormatInt(s.dayEnds.UnixMilli(), 10) + "." + strconv.Itoa(s.due.New) + "." +
		strconv.Itoa(s.due.Learning) + "." + strconv.Itoa(s.due.Review) + "." + countKinds[s.kind] + "." +
		scopeKey(s.scope)
}

// scopeKey names a study page in a carried value: "a" for every
// subscribed deck, "d" and a deck's slug, "g" and a study group's id.
func scopeKey(p store.Scope) string {
	switch {
	case p.Group != 0:
		return "g" + strconv.FormatInt(p.Group, 10)
	case p.Deck != "":
		return "d" + p.Deck
	}
	return "a"
}

// parseCarried reads a value carried by a form of the study page of
// scope; ok is false for anything carried() does not write for that page.
func parseCarried(v string, scope store.Scope) (s shownCounts, ok bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 6 || parts[5] != scopeKey(scope) {
		return s, false
	}
	end, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || end <= 0 {
		return s, false
	}
	var n [3]int
	for i, p := range parts[1:4] {
		if n[i], err = strconv.Atoi(p); err != nil || n[i] < 0 || n[i] > maxCarriedCount || p != strconv.Itoa(n[i]) {
			return s, false
		}
	}
	known := false
	for kind, letter := range countKinds {
		if parts[4] == letter {
			s.kind, known = kind, true
		}
	}
	if !known {
		return s, false
	}
	s.due = progress.Due{New: n[0], Learning: n[1], Review: n[2]}
	s.dayEnds, s.scope = time.UnixMilli(end), scope
	return s, true
}

// graded returns the counts after the card shown was graded at now with
// the outcome rec: one fewer of its kind, and one more learning card when
// it comes back in learning before the study day ends. ok is false when
// they must be counted again: the day is over, the grade recorded nothing
// new, the card was of none of the counts (an extra review of the meetup
// mode, which may yet be a review due later today), or the card comes
// back in review the same day (no scheduler does that, but the review
// limit would have to be counted again).
func (s shownCounts) graded(rec store.Recorded, now time.Time) (progress.Due, bool) {
	d := s.due
	if !now.Before(s.dayEnds) || rec.Duplicate || s.kind == "" {
		return d, false
	}
	switch s.kind {
	case views.CountNew:
		d.New--
	case views.CountLearning:
		d.Learning--
	case views.CountReview:
		d.Review--
	}
	if rec.Due.Before(s.dayEnds) {
		switch rec.State {
		case fsrs.Learning, fsrs.Relearning:
			d.Learning++
		case fsrs.Review:
			return d, false
		}
	}
	d.New, d.Learning, d.Review = max(d.New, 0), max(d.Learning, 0), max(d.Review, 0)
	return d, true
}

// view is the counts as the page shows them.
func (s shownCounts) view() *views.StudyCounts {
	v := dueCounts(s.due, s.kind)
	return &v
}
