package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"kubequiz/internal/fsrs"
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
	ctx := c.Request().Context()
	now := s.now()
	if q, err := strconv.ParseInt(c.QueryParam("undone"), 10, 64); err == nil && q > 0 {
		// Where a plain undo form's redirect leads, with the question
		// whose grade it took back: its card again, while the card is
		// as the undo left it (new, or due) and of the page's scope (a
		// group's page: of the group's decks, the learner a member).
		card, err := s.db.PreviewCard(ctx, u.ID, q, now)
		switch {
		case err == nil && card.ScopeError(scope) == nil && (card.IsNew || !card.Card.Due.After(now)):
			shown := shownCard{card: card.StudyCard, scope: studyScope(scope, card.StudyCard)}
			return s.renderCard(c, u, shown, studyNote{text: msgUndone}, now, nil)
		case err != nil && !errors.Is(err, quiz.ErrNotFound):
			return err
		}
	}
	next, err := s.db.NextCardIn(ctx, u, scope, now)
	if err != nil {
		return err
	}
	var note studyNote
	if id := c.QueryParam("graded"); validPresentationID(id) {
		// Where a plain grade form's redirect leads, with the graded
		// presentation's id. An id that is not of this learner's
		// review shows nothing. The undo is offered while that review
		// is the one an undo would take back.
		rid := reviewID(u.ID, id)
		rec, err := s.db.Graded(ctx, u.ID, rid)
		switch {
		case err == nil:
			rec.Duplicate = c.QueryParam("again") == "1"
			note.text = gradeNotice(rec)
			last, ok, err := s.db.LastUndoable(ctx, u.ID, now)
			if err != nil {
				return err
			}
			note.undo = ok && !rec.Duplicate && last.RequestID == rid
		case !errors.Is(err, quiz.ErrNotFound):
			return err
		}
	}
	return s.renderNext(c, u, next, note, now, nil)
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
		// study page of its deck or group, when it names one.
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
		counts, err := s.pageCounts(c, u, f, &card.StudyCard, now)
		if err != nil {
			return err
		}
		return s.renderStudy(c, http.StatusOK, v.Scope, views.StudyQuestion(v), v.Error, counts)
	}
	v := feedback(f, card, resp, csrfToken(c), now)
	if v.Features, err = s.featureLinks(c.Request().Context(), card); err != nil {
		return err
	}
	counts, err := s.pageCounts(c, u, f, &card.StudyCard, now)
	if err != nil {
		return err
	}
	return s.renderStudy(c, http.StatusOK, v.Scope, views.StudyAnswered(v), v.Announcement(), counts)
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
	// The review just recorded is the learner's most recent: the next
	// card offers to take it back. The counts are those the page
	// carried, less the card graded (study_counts.go).
	var known *shownCounts
	if shown, ok := parseCarried(in.form.counts, in.form.storeScope()); ok {
		if d, ok := shown.graded(rec, now); ok {
			shown.due, known = d, &shown
		}
	}
	return s.renderNext(c, u, next, studyNote{text: gradeNotice(rec), undo: !rec.Duplicate}, now, known)
}

// undo takes back the learner's most recent grade of the study day
// (store.UndoLastReview) and puts its card to them again, as a new
// presentation: its grade buttons give the intervals they gave before. It
// stays on the page of the form (a deck's, a study group's or every
// subscribed deck's) when the card is of it, and goes to the card's deck
// otherwise. A plain form goes on to the study page that shows it. An undo
// refused (no grade, one of another day, or one that cannot be taken
// back) changes nothing and is told above the next card, with a 409.
func (s *Server) undo(c echo.Context) error {
	u, err := studyUser(c)
	if err != nil {
		return err
	}
	scope, err := formScope(c.FormValue("d"), c.FormValue("g"))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest).SetInternal(fmt.Errorf("undo form: %w", err))
	}
	ctx := c.Request().Context()
	now := s.now()
	undone, err := s.db.UndoLastReview(ctx, u.ID, now)
	if msg := undoRefusal(err); msg != "" {
		next, err := s.db.NextCardIn(ctx, u, scope, now)
		if err != nil {
			return err
		}
		return s.renderNext(c, u, next, studyNote{text: msg, refused: true}, now, nil)
	}
	if err != nil {
		return err
	}
	card, err := s.db.PreviewCard(ctx, u.ID, undone.QuestionID, now)
	if err != nil {
		return err
	}
	if card.ScopeError(scope) != nil {
		// A grade given on another page, or of a deck unsubscribed (or
		// a group left) since: the page of the card's deck.
		scope = store.Scope{Deck: undone.DeckSlug}
	}
	if !hxRequest(c) {
		page := views.StudyScope{Slug: scope.Deck, Group: scope.Group}
		return c.Redirect(http.StatusSeeOther, page.URL()+"?undone="+strconv.FormatInt(undone.QuestionID, 10))
	}
	shown := shownCard{card: card.StudyCard, scope: studyScope(scope, card.StudyCard)}
	return s.renderCard(c, u, shown, studyNote{text: msgUndone}, now, nil)
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
		return s.renderNext(c, u, next, studyNote{text: msg}, now, nil)
	}
	if sc == nil {
		card, err := s.db.PreviewCard(ctx, u.ID, f.questionID, now)
		if err != nil {
			return err
		}
		sc = &card.StudyCard
	}
	shown := shownCard{card: *sc, scope: studyScope(f.storeScope(), *sc)}
	return s.renderCard(c, u, shown, studyNote{text: msgQuestionChanged}, now, nil)
}

// studyNote is what the study area says above its card about the request
// before: what a grade did, or why an undo was refused.
type studyNote struct {
	text string
	// undo offers to take back the grade that text tells of.
	undo bool
	// refused: the request changed nothing (an undo refused); the
	// answer's status is 409.
	refused bool
}

// status is the HTTP status of a study page under the note.
func (n studyNote) status() int {
	if n.refused {
		return http.StatusConflict
	}
	return http.StatusOK
}

// waitAtMost is how soon the next card must fall due for the empty queue
// to wait for it: a minute, the first learning step of a card graded
// Again, so that a card failed last comes back by itself.
const waitAtMost = time.Minute

// renderNext shows the card the queue served, or the empty queue: what is
// coming, the day's summary, or, when the next card falls due within
// waitAtMost, a page that waits for it. known, when set, are the counts of
// the cards left today (the next card among them); otherwise they are
// counted.
func (s *Server) renderNext(c echo.Context, u quiz.User, next store.StudyNext, note studyNote, now time.Time, known *shownCounts) error {
	scope := views.StudyScope{Slug: next.Deck.Slug, Title: next.Deck.Title}
	if next.Group.ID != 0 {
		scope = views.StudyScope{Group: next.Group.ID, Title: next.Group.Name}
	}
	if next.Found {
		return s.renderCard(c, u, shownCard{card: next.Card, scope: scope, extra: next.Extra}, note, now, known)
	}
	done := emptyQueue(next, u, scope, note, now)
	done.CSRFToken = csrfToken(c)
	if done.NoDecks {
		return s.renderStudy(c, note.status(), scope, views.StudyEmpty(done), done.Announcement(), nil)
	}
	ctx := c.Request().Context()
	if wait := next.NextDue.Sub(now); !next.NextDue.IsZero() && wait <= waitAtMost {
		done.WaitSeconds = int((wait + time.Second - 1) / time.Second)
	} else {
		day, err := s.db.DaySummary(ctx, u, now)
		if err != nil {
			return err
		}
		if day.Reviews > 0 {
			done.Summary = &views.DaySummary{Reviews: day.Reviews, Correct: day.Correct, Time: studyTime(day.Time)}
		}
	}
	// The end of the queue is counted afresh: cards held back by the
	// daily limits, or falling due later today, are told as they are.
	shown, err := s.countShown(c, u, pageScope(scope), "", now)
	if err != nil {
		return err
	}
	return s.renderStudy(c, note.status(), scope, views.StudyEmpty(done), done.Announcement(), shown.view())
}

// shownCard is a card put to the learner and the study page it is put on.
type shownCard struct {
	card  store.StudyCard
	scope views.StudyScope
	// extra: an extra review of the meetup mode (store.StudyNext.Extra),
	// a card not due, which no count holds.
	extra bool
}

// kind is the count the card is among (cardKind), none for an extra
// review.
func (sc shownCard) kind() string {
	if sc.extra {
		return ""
	}
	return cardKind(&sc.card)
}

// renderCard puts card sc to the learner as a new presentation, on the
// study page of its scope, under note. known, when set, are the counts of
// the cards left today on that page, sc among them; otherwise they are
// counted.
func (s *Server) renderCard(c echo.Context, u quiz.User, sc shownCard, note studyNote, now time.Time, known *shownCounts) error {
	v := presentation(sc.card, sc.scope, csrfToken(c), newPresentationID(now), now)
	v.Notice, v.Undo, v.Refused, v.Extra = note.text, note.undo, note.refused, sc.extra
	var shown shownCounts
	if known != nil {
		shown = *known
		shown.kind = sc.kind()
	} else {
		var err error
		if shown, err = s.countShown(c, u, pageScope(sc.scope), sc.kind(), now); err != nil {
			return err
		}
	}
	v.Counts = shown.carried()
	return s.renderStudy(c, note.status(), sc.scope, views.StudyQuestion(v), note.text, shown.view())
}

// countShown counts the cards left today on the study page of scope; kind
// is the count the card shown is among ("" for none).
func (s *Server) countShown(c echo.Context, u quiz.User, scope store.Scope, kind string, now time.Time) (shownCounts, error) {
	d, err := s.db.StudyCounts(c.Request().Context(), u, scope, now)
	if err != nil {
		return shownCounts{}, err
	}
	_, end := s.db.StudyDay(u, now)
	return shownCounts{due: d, kind: kind, dayEnds: end, scope: scope}, nil
}

// pageCounts are the counts of a response to form f that leaves its card
// sc on the page (an answer checked): none for htmx, which leaves the
// page's counts in place; for a whole page, those f carries, or counted
// when it carries none of today and of its page.
func (s *Server) pageCounts(c echo.Context, u quiz.User, f studyForm, sc *store.StudyCard, now time.Time) (*views.StudyCounts, error) {
	if hxRequest(c) {
		return nil, nil
	}
	if shown, ok := parseCarried(f.counts, f.storeScope()); ok && now.Before(shown.dayEnds) {
		return shown.view(), nil
	}
	shown, err := s.countShown(c, u, f.storeScope(), cardKind(sc), now)
	if err != nil {
		return nil, err
	}
	return shown.view(), nil
}

// pageScope is the store's scope of a study page.
func pageScope(v views.StudyScope) store.Scope {
	return store.Scope{Deck: v.Slug, Group: v.Group}
}

// cardKind is the count a card shown is among: new, learning (learning
// and relearning) or review; "" when no card is shown.
func cardKind(sc *store.StudyCard) string {
	switch {
	case sc == nil:
		return ""
	case sc.IsNew || sc.Card.State == fsrs.New:
		return views.CountNew
	case sc.Card.State == fsrs.Review:
		return views.CountReview
	}
	return views.CountLearning
}

// renderStudy sends a study fragment to htmx, with announce for the
// page's live region and, when counts are given, the page's counts, or a
// whole page around it, where the fragment's text is read in its place.
func (s *Server) renderStudy(c echo.Context, status int, scope views.StudyScope, body templ.Component, announce string, counts *views.StudyCounts) error {
	if hxRequest(c) {
		return s.render(c, status, views.StudyFragment(body, announce, counts))
	}
	title := "学習"
	if scope.Title != "" {
		title = scope.Title
	}
	return s.render(c, status, views.StudyPage(s.page(c, title), scope, counts, body))
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
