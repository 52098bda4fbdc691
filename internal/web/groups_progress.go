package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/csvx"
	"kubequiz/internal/group"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// A group's progress table (member x deck) and its CSV export. Mastery,
// mature cards and true retention are the progress rules' figures
// (defined once in internal/progress, as /stats shows them), which the
// store computes for all the members at once (store.GroupProgress); the
// export is written through csvx, as the learner's own.

// groupProgressColumns is the header of a group's progress export: one row
// per member and deck, members in the group's order (organizers first,
// then by login), decks in the group's.
//
//	login, display_name  the member's
//	deck                 the deck's slug
//	cards_total          the deck's published questions
//	seen                 those the member has studied (has a card for)
//	mature               the member's mature cards of the deck
//	due                  the member's cards of the deck due at the export's time
//	mastery              mastered cards of all the deck's cards, 0 to 1
//	retention_30d        true retention over 30 days, 0 to 1; empty without reviews
//	reviews_7d           the member's reviews of the deck in the last 7 days
//	last_review          the member's last review in the deck, ISO 8601 in UTC
var groupProgressColumns = []string{"login", "display_name", "deck", "cards_total", "seen", "mature", "due",
	"mastery", "retention_30d", "reviews_7d", "last_review"}

// groupProgress shows the progress table: to organizers every member's
// row, to members their own, with the group's averages as
// group.ProgressViewOf allows.
func (s *Server) groupProgress(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	p, err := s.db.GroupProgress(c.Request().Context(), id, u.ID, s.now())
	if err != nil {
		return err
	}
	show := group.ProgressViewOf(p.Group.Viewer.Role, len(p.Group.Members))
	v := progressView(p, show, u)
	return s.render(c, http.StatusOK, views.GroupProgressPage(s.page(c, p.Group.Name+": 進み具合"), v))
}

// progressView is the progress table as show lets u see it.
func progressView(p store.GroupProgress, show group.ProgressView, u quiz.User) views.GroupProgressView {
	g := p.Group
	v := views.GroupProgressView{ID: g.ID, Name: g.Name, Organizer: group.CanManage(g.Viewer.Role),
		MinMembers: group.MinMembersForAverages}
	names := map[int64]string{}
	for _, m := range g.Members {
		names[m.User.ID] = m.User.Name()
	}
	for _, d := range g.Decks {
		v.Decks = append(v.Decks, views.ProgressDeck{Title: d.Title, Presenter: names[d.Presenter]})
	}
	type sum struct {
		seen, reviews    float64
		mastery          float64
		members, figured int
	}
	sums := make([]sum, len(g.Decks))
	i := 0
	for _, m := range g.Members {
		row := views.ProgressRow{Name: m.User.Name(), Self: m.User.ID == u.ID}
		for j, d := range g.Decks {
			r := p.Rows[i]
			i++
			cell := views.ProgressCell{Seen: strconv.Itoa(r.Seen), Total: strconv.Itoa(r.Total), Mastery: "—",
				Reviews: strconv.Itoa(r.RecentReviews), Presenter: d.Presenter == m.User.ID}
			if mastery, ok := r.Cards.Mastery().Ratio(); ok {
				cell.Mastery = percent(mastery)
				sums[j].mastery += mastery
				sums[j].figured++
			}
			if !r.LastReview.IsZero() {
				cell.LastDay = r.LastReview.In(userLocation(m.User)).Format("1/2")
			}
			sums[j].seen += float64(r.Seen)
			sums[j].reviews += float64(r.RecentReviews)
			sums[j].members++
			if show.AllRows || m.User.ID == u.ID {
				row.Cells = append(row.Cells, cell)
			}
		}
		if show.AllRows || m.User.ID == u.ID {
			v.Rows = append(v.Rows, row)
		}
	}
	if show.Averages {
		v.Averages = make([]views.ProgressCell, len(g.Decks))
		for j, d := range g.Decks {
			s := sums[j]
			n := float64(max(s.members, 1))
			cell := views.ProgressCell{Seen: strconv.FormatFloat(s.seen/n, 'f', 1, 64), Total: strconv.Itoa(d.Questions),
				Mastery: "—", Reviews: strconv.FormatFloat(s.reviews/n, 'f', 1, 64)}
			if s.figured == s.members && s.members > 0 {
				cell.Mastery = percent(s.mastery / float64(s.figured))
			}
			v.Averages[j] = cell
		}
	}
	return v
}

// percent writes a share as a whole percentage: "45%".
func percent(r float64) string { return strconv.Itoa(int(r*100+0.5)) + "%" }

// groupExport streams the group's progress as CSV, for organizers only
// (members get a 403, outsiders a 404): one row per member and deck
// (groupProgressColumns), with a UTF-8 byte order mark for Excel when
// bom=1.
func (s *Server) groupExport(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	now := s.now()
	bom := c.QueryParam("bom") == "1"
	var table *csvx.Writer
	// The response starts with the first row: a refusal before it is
	// still the error handler's page.
	start := func() {
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="group-%d-progress.csv"`, id))
		c.Response().WriteHeader(http.StatusOK)
		table = csvx.NewWriter(c.Response(), csvx.Options{BOM: bom}, groupProgressColumns...)
	}
	err = s.db.GroupExport(ctx, id, u.ID, now, func(r store.GroupExportRow) error {
		if table == nil {
			start()
		}
		writeProgressRow(table, r)
		return table.End()
	})
	if err != nil {
		if table != nil {
			// The response has begun: it can only be cut short.
			s.log.ErrorContext(ctx, "group export failed", "group_id", id, "err", err)
			return nil
		}
		return err
	}
	if table == nil {
		start()
	}
	if err := table.Flush(); err != nil {
		s.log.ErrorContext(ctx, "group export failed", "group_id", id, "err", err)
	}
	return nil
}

// writeProgressRow writes one member's row of one deck.
func writeProgressRow(t *csvx.Writer, row store.GroupExportRow) {
	m, d, r := row.Member, row.Deck, row.Progress
	t.Text(m.User.Login)
	t.Text(m.User.DisplayName)
	t.Text(d.Slug)
	t.Int(int64(r.Total))
	t.Int(int64(r.Seen))
	t.Int(int64(r.Cards.Mature))
	t.Int(int64(r.Due))
	share(t, r.Cards.Mastery())
	share(t, row.Retention)
	t.Int(int64(r.RecentReviews))
	t.Time(r.LastReview)
}

// share writes a share as its ratio, or an empty cell when it has none.
func share(t *csvx.Writer, s progress.Share) {
	if r, ok := s.Ratio(); ok {
		t.Float(r)
	} else {
		t.Empty()
	}
}
