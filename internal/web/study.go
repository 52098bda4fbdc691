package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// decks lists every deck with published questions and the learner's counts.
func (s *Server) decks(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	list, err := s.db.StudyDecks(c.Request().Context(), u.ID, s.now())
	if err != nil {
		return err
	}
	rows := make([]views.DeckRow, len(list))
	for i, d := range list {
		rows[i] = deckRow(d)
	}
	return s.render(c, http.StatusOK, views.DecksPage(s.page(c, "デッキ"), rows))
}

// setSubscription subscribes to a deck (subscribed=1) or unsubscribes
// (subscribed=0). htmx gets the deck's new card; a plain form post goes
// back to the deck's card on the decks page.
func (s *Server) setSubscription(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	var on bool
	switch c.FormValue("subscribed") {
	case "1":
		on = true
	case "0":
	default:
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	d, err := s.db.SetSubscription(c.Request().Context(), u.ID, c.Param("slug"), on, s.now())
	if err != nil {
		return err
	}
	if !hxRequest(c) {
		return c.Redirect(http.StatusSeeOther, "/decks#deck-"+d.Slug)
	}
	row := deckRow(d)
	row.Toggled = true
	return s.render(c, http.StatusOK, views.DeckCard(row, csrfToken(c)))
}

// study shows the next card of every subscribed deck (/study), of one
// deck (/study/:slug) or of a study group's decks (/study/group/:id, for
// its members), or what is coming when nothing is due.
func (s *Server) study(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	scope := store.Scope{Deck: c.Param("slug")}
	if c.Param("id") != "" {
		if scope.Group, err = groupID(c); err != nil {
			return err
		}
	}
	now := s.now()
	next, err := s.db.NextCardIn(c.Request().Context(), u, scope, now)
	if err != nil {
		return err
	}
	notice := ""
	if id := c.QueryParam("graded"); validPresentationID(id) {
		// Where a plain grade form's redirect leads, with the graded
		// presentation's id. An id that is not of this learner's
		// review shows nothing.
		rec, err := s.db.Graded(c.Request().Context(), u.ID, reviewID(u.ID, id))
		switch {
		case err == nil:
			rec.Duplicate = c.QueryParam("again") == "1"
			notice = gradeNotice(rec)
		case !errors.Is(err, quiz.ErrNotFound):
			return err
		}
	}
	return s.renderNext(c, u, next, notice, now)
}

// answer checks a submitted answer and shows the feedback with the grade
// buttons. Nothing is recorded until a grade is chosen.
func (s *Server) answer(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	if c.Request().Method != http.MethodPost && c.QueryParam("q") == "" {
		// The answer form's address opened as a page, with no card: the
		// study page of its deck, when it names one.
		scope := views.StudyScope{}
		if d := c.QueryParam("d"); validStudySlug(d) {
			scope.Slug = d
		}
		if g, err := strconv.ParseInt(c.QueryParam("g"), 10, 64); err == nil && g > 0 {
			scope = views.StudyScope{Group: g}
		}
		return c.Redirect(http.StatusSeeOther, scope.URL())
	}
	f, err := bindStudyForm(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
	}
	now := s.now()
	card, err := s.db.PreviewCard(c.Request().Context(), u.ID, f.questionID, now)
	if err != nil {
		return err
	}
	if err := card.ScopeError(f.storeScope()); errors.Is(err, store.ErrNotSubscribed) {
		return s.stale(c, u, f, nil, err, now) // unsubscribed since the card was shown
	} else if err != nil {
		return echo.ErrNotFound // a deck the study page cannot have sent
	}
	if err := card.Presented(f.answerKey, time.UnixMilli(f.shownAt)); err != nil {
		return s.stale(c, u, f, &card.StudyCard, err, now)
	}
	q := card.Question.Question
	resp := parseResponse(form, q)
	if q.Type == quiz.Order && resp.Order == nil {
		// Two items given the same place is a slip, not an answer: the
		// same presentation again, with the learner's places kept.
		v := f.answered(card, csrfToken(c))
		v.Positions, v.Error = orderPositions(form, len(q.Items)), msgRepeatedPosition
		return s.renderStudy(c, v.Scope, views.StudyQuestion(v), v.Error)
	}
	v := feedback(f, card, resp, csrfToken(c), now)
	if v.Features, err = s.featureLinks(c.Request().Context(), q); err != nil {
		return err
	}
	return s.renderStudy(c, v.Scope, views.StudyAnswered(v), v.Announcement())
}

// grade records the review of an answered presentation and moves on. The
// answer is graded again on the server; a repeated submit of the same
// presentation records nothing more.
func (s *Server) grade(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	in, err := bindGradeForm(c)
	if err != nil {
		return err
	}
	now := s.now()
	in.review.UserID, in.review.At = u.ID, now
	in.review.RequestID = reviewID(u.ID, in.form.presentationID)
	rec, err := s.db.RecordReview(c.Request().Context(), in.review)
	if errors.Is(err, quiz.ErrInvalid) {
		// An answer that does not fit the question: the form was not ours.
		return echo.NewHTTPError(http.StatusUnprocessableEntity).SetInternal(err)
	}
	if errors.Is(err, store.ErrCardReviewed) || errors.Is(err, store.ErrQuestionChanged) || errors.Is(err, store.ErrNotSubscribed) {
		return s.stale(c, u, in.form, nil, err, now)
	}
	if err != nil {
		return err
	}
	if !rec.Duplicate {
		s.cfg.Metrics.ReviewRecorded(int(rec.Rating))
	}
	scope := views.StudyScope{Slug: in.form.scope, Group: in.form.group}
	if !hxRequest(c) {
		// The next page tells what the grade did, as htmx's swap does,
		// and that it recorded nothing when the review was there already.
		next := scope.URL() + "?graded=" + url.QueryEscape(in.form.presentationID)
		if rec.Duplicate {
			next += "&again=1"
		}
		return c.Redirect(http.StatusSeeOther, next)
	}
	next, err := s.db.NextCardIn(c.Request().Context(), u, in.form.storeScope(), now)
	if err != nil {
		return err
	}
	return s.renderNext(c, u, next, gradeNotice(rec), now)
}

// stale answers a form whose page no longer shows its card as it is
// (store.StudyCard.Presented's err, or store.ErrNotSubscribed), recording
// nothing: a card graded since (another tab's page, or one reached again
// with the Back button), or of a deck unsubscribed since, moves on to the
// next card; a question edited since is put again, as a new presentation.
// sc is the card as stored now, or nil to read it.
func (s *Server) stale(c echo.Context, u quiz.User, f studyForm, sc *store.StudyCard, err error, now time.Time) error {
	ctx := c.Request().Context()
	if errors.Is(err, store.ErrCardReviewed) || errors.Is(err, store.ErrNotSubscribed) {
		next, nerr := s.db.NextCardIn(ctx, u, f.storeScope(), now)
		if nerr != nil {
			return nerr
		}
		msg := msgCardReviewed
		if errors.Is(err, store.ErrNotSubscribed) {
			msg = msgNotSubscribed
		}
		return s.renderNext(c, u, next, msg, now)
	}
	if sc == nil {
		card, err := s.db.PreviewCard(ctx, u.ID, f.questionID, now)
		if err != nil {
			return err
		}
		sc = &card.StudyCard
	}
	scope := studyScope(f, *sc)
	v := presentation(*sc, scope, csrfToken(c), newPresentationID(now), now)
	v.Notice = msgQuestionChanged
	return s.renderStudy(c, scope, views.StudyQuestion(v), v.Notice)
}

// renderNext shows the card the queue served, or the empty queue.
func (s *Server) renderNext(c echo.Context, u quiz.User, next store.StudyNext, notice string, now time.Time) error {
	scope := views.StudyScope{Slug: next.Deck.Slug, Title: next.Deck.Title}
	if next.Group.ID != 0 {
		scope = views.StudyScope{Group: next.Group.ID, Title: next.Group.Name}
	}
	csrf := csrfToken(c)
	if !next.Found {
		done := emptyQueue(next, u, scope, notice, now)
		return s.renderStudy(c, scope, views.StudyEmpty(done), done.Announcement())
	}
	v := presentation(next.Card, scope, csrf, newPresentationID(now), now)
	v.Notice, v.Extra = notice, next.Extra
	return s.renderStudy(c, scope, views.StudyQuestion(v), notice)
}

// renderStudy sends a study fragment to htmx, with announce for the
// page's live region, or a whole page around it, where the fragment's
// text is read in its place.
func (s *Server) renderStudy(c echo.Context, scope views.StudyScope, body templ.Component, announce string) error {
	if hxRequest(c) {
		return s.render(c, http.StatusOK, views.StudyFragment(body, announce))
	}
	title := "学習"
	if scope.Title != "" {
		title = scope.Title
	}
	return s.render(c, http.StatusOK, views.StudyPage(s.page(c, title), scope, body))
}

// studyUser is the signed-in user; the routes sit behind requireUser.
func studyUser(c echo.Context) (quiz.User, error) {
	u, ok := currentUser(c)
	if !ok {
		return u, echo.ErrUnauthorized
	}
	return u, nil
}

// hxRequest reports whether htmx sent the request (and wants a fragment).
func hxRequest(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true"
}

func deckRow(d store.DeckProgress) views.DeckRow {
	return views.DeckRow{
		Slug: d.Slug, Title: d.Title, Release: d.Release, SIG: d.SIG, Description: d.Description,
		Total: d.Questions, New: d.New, Learning: d.Learning, Due: d.Due, Subscribed: d.Subscribed,
	}
}
