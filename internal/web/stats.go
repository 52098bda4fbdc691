package web

import (
	"fmt"
	"math"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/progress"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// statsPage shows the signed-in learner's progress over the decks they
// subscribe to or have cards in; the figures are progress's, as the store
// gathers them.
func (s *Server) statsPage(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	st, err := s.db.Stats(c.Request().Context(), u.ID, nil, s.now())
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.StatsPage(s.page(c, "統計"), statsView(st)))
}

// statsView is what the statistics page shows of st.
func statsView(st store.Stats) views.StatsView {
	v := views.StatsView{
		DesiredRetention: int(math.Round(st.DesiredRetention * 100)),
		MatureDays:       progress.MatureStability,
		RetentionDays:    progress.RetentionDays,
		Total:            figuresRow(st.Total),
		StreakDays:       st.Streak.Days,
		StudiedToday:     st.Streak.StudiedToday,
		DueToday:         st.Today.Total(),
		NextDue:          st.NextDue,
		Forecast:         chartDays(st.Forecast),
		Calendar:         chartDays(st.Calendar),
	}
	reviewed := slices.ContainsFunc(st.Calendar, func(d progress.Day) bool { return d.Count > 0 })
	v.Empty = st.Total.Seen == 0 && !reviewed
	for _, d := range st.Decks {
		r := figuresRow(d.Figures)
		r.Name, r.Href, r.Release, r.SIG = d.Title, "/decks#deck-"+d.Slug, d.Release, d.SIG
		v.Decks = append(v.Decks, r)
	}
	for _, g := range st.SIGs {
		r := figuresRow(g.Figures)
		r.Name, r.Line = g.SIG, fmt.Sprintf("%d デッキ", g.Decks)
		if g.SIG == "" {
			r.Name = "(SIG なし)"
		}
		v.SIGs = append(v.SIGs, r)
	}
	v.Releases, v.MapSIGs, v.Map = masteryMap(st)
	return v
}

// figuresRow is a row of the statistics' tables of f.
func figuresRow(f progress.Figures) views.StatsRow {
	return views.StatsRow{
		Total: f.Total, Seen: f.Seen, Mature: f.Mature,
		Retention: views.Share(f.Retention),
		Mastery:   views.Share(f.Mastery()),
	}
}

// chartDays are days as the charts take them.
func chartDays(days []progress.Day) []views.ChartDay {
	out := make([]views.ChartDay, len(days))
	for i, d := range days {
		out[i] = views.ChartDay{Date: d.Start, Count: d.Count}
	}
	return out
}

// masteryMap sums the decks of st by release (newest first, as st lists
// the decks) and SIG (in st's SIG order): the mastery of each pair's
// cards together.
func masteryMap(st store.Stats) (releases, sigs []string, cells [][]views.MapCell) {
	for _, d := range st.Decks {
		if !slices.Contains(releases, d.Release) {
			releases = append(releases, d.Release)
		}
	}
	for _, g := range st.SIGs {
		sigs = append(sigs, g.SIG)
	}
	cards := make([][]progress.Cards, len(releases))
	cells = make([][]views.MapCell, len(releases))
	for i := range releases {
		cards[i] = make([]progress.Cards, len(sigs))
		cells[i] = make([]views.MapCell, len(sigs))
	}
	for _, d := range st.Decks {
		i, j := slices.Index(releases, d.Release), slices.Index(sigs, d.SIG)
		if j < 0 {
			continue // every deck's SIG is among st.SIGs
		}
		cards[i][j] = cards[i][j].Add(d.Cards)
		cells[i][j].Decks++
	}
	for i := range cells {
		for j := range cells[i] {
			cells[i][j].Mastery = views.Share(cards[i][j].Mastery())
		}
	}
	return releases, sigs, cells
}
