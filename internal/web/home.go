package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/progress"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// home shows a signed-in learner their study today (store.HomeSummary),
// the way to their groups and statistics and the decks they present at a
// meetup (store.PresenterDuties),
// and a visitor the way in and the decks. The page is made of sections
// (views.Home), each built here.
func (s *Server) home(c echo.Context) error {
	ctx := c.Request().Context()
	if u, ok := currentUser(c); ok {
		now := s.now()
		sum, err := s.db.HomeSummary(ctx, u.ID, now)
		if err != nil {
			return err
		}
		duties, err := s.db.PresenterDuties(ctx, u.ID, now)
		if err != nil {
			return err
		}
		return s.render(c, http.StatusOK, views.Home(s.page(c, ""),
			views.HomeToday(homeStudy(sum, now)),
			views.HomeGroups(presenterDuties(duties, u, now))))
	}
	decks, err := s.db.ListDecks(ctx)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.Home(s.page(c, ""), views.HomeGuest(decks)))
}

// homeStudy is the home page's view of a learner's summary at now.
func homeStudy(h store.HomeSummary, now time.Time) views.HomeStudy {
	v := views.HomeStudy{
		Today:  dueCounts(h.Today, ""),
		Streak: h.Streak.Days, StudiedToday: h.Streak.StudiedToday,
		NewToday: h.NewToday, ReviewsToday: h.ReviewsToday,
	}
	for _, d := range h.Decks {
		v.Decks = append(v.Decks, views.HomeDeck{Slug: d.Slug, Title: d.Title, Today: dueCounts(d.Today, "")})
	}
	if !h.NextDue.IsZero() {
		v.NextDue, v.NextDueISO = dueText(h.NextDue, now), h.NextDue.Format(time.RFC3339)
	}
	return v
}

// dueCounts are counts of cards for the page, current the kind of the
// card shown ("" for none).
func dueCounts(d progress.Due, current string) views.StudyCounts {
	return views.StudyCounts{New: d.New, Learning: d.Learning, Review: d.Review, Current: current}
}

// dueText says when a card falls due: the time in the zone of t (the
// learner's, as the store gives it) and how long from now, "12月3日 09:00
// (あと 5時間)".
func dueText(t, now time.Time) string {
	return t.Format("1月2日 15:04") + " (あと " + interval(t.Sub(now)) + ")"
}

// healthz answers 200 only when the database answers.
func (s *Server) healthz(c echo.Context) error {
	if err := s.db.Ping(c.Request().Context()); err != nil {
		s.log.ErrorContext(c.Request().Context(), "health check failed", "err", err)
		return c.String(http.StatusServiceUnavailable, "database unavailable\n")
	}
	return c.String(http.StatusOK, "ok\n")
}
