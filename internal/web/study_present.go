package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// This file turns study values into views and form fields back into values.
// It holds no I/O: the handlers in study.go make the store calls.

const (
	// presentationIDBytes is the length of a presentation id: 48 bits of
	// time and 80 random bits (newPresentationID).
	presentationIDBytes = 16
	// maxAnswerRunes bounds each typed text of an answer.
	maxAnswerRunes = 200
	// maxAnswerJSON bounds the encoded answer carried by the grade form.
	maxAnswerJSON = 8 << 10
	// maxAnswerParts bounds the lists of an answer (choices, gaps, items).
	maxAnswerParts = 64
	// maxDuration caps the time recorded for one answer.
	maxDuration = time.Hour
)

// presentationClockBytes of a presentation id are the time it was made.
const presentationClockBytes = 6

// newPresentationID returns a presentation id, 128 bits in hex: the time in
// milliseconds (48 bits, big-endian), then 80 random bits. The id is the
// review's idempotency key, kept in a unique index of review_log: ids that
// grow with time are added at the end of that index, where a random id
// would dirty a page of its own in every review's commit. The random part
// keeps ids unguessable. now is the time it is made.
func newPresentationID(now time.Time) string {
	var b [presentationIDBytes]byte
	var clock [8]byte
	binary.BigEndian.PutUint64(clock[:], uint64(now.UnixMilli()))
	copy(b[:presentationClockBytes], clock[8-presentationClockBytes:])
	rand.Read(b[presentationClockBytes:]) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b[:])
}

func validPresentationID(p string) bool { return lowerHex(p, presentationIDBytes) }

// reviewID is the id under which userID's grade of presentation p is
// recorded: the store's request id, which makes a repeated submit record
// nothing. It is the learner's own: p's time, then 80 bits of a SHA-256
// of the user and p. A presentation id is unique across learners, but a
// learner may send one of another's (seen over a shoulder, or in a shared
// link); as p itself, it would find that review taken, and the refusal
// would tell that it exists. Under reviewID it is an id like any new one.
// The time first keeps ids growing with time, as the index of review ids
// likes (newPresentationID).
func reviewID(userID int64, p string) string {
	h := sha256.New()
	h.Write([]byte("kubequiz review v1\x00"))
	h.Write(strconv.AppendInt(nil, userID, 10))
	h.Write([]byte{0})
	h.Write([]byte(p))
	clock := 2 * presentationClockBytes
	return p[:clock] + hex.EncodeToString(h.Sum(nil))[:2*presentationIDBytes-clock]
}

func validAnswerKey(k string) bool { return lowerHex(k, quiz.AnswerKeyBytes) }

// lowerHex reports whether s is n bytes in lower-case hex, as the page's
// ids and keys are written.
func lowerHex(s string, n int) bool {
	if len(s) != 2*n {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// validStudySlug accepts deck slugs as the question bank writes them.
func validStudySlug(s string) bool {
	if len(s) > 100 || strings.HasPrefix(s, "-") {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// studyForm is what identifies a presentation in the answer and grade forms.
type studyForm struct {
	questionID     int64
	presentationID string
	scope          string // deck slug, or "" for every subscribed deck
	group          int64  // a study group's id when its decks are studied (scope is then "")
	shownAt        int64  // unix ms
	answerKey      string // the question's, as shown (store.StudyCard.AnswerKey)
	// counts are the counts the page showed, as its forms carry them
	// (shownCounts.carried); not checked here: what parseCarried refuses
	// is counted again.
	counts string
}

// storeScope is the study page the form comes from.
func (f studyForm) storeScope() store.Scope {
	return store.Scope{Deck: f.scope, Group: f.group}
}

// bindStudyForm reads the hidden fields of a study form. A form that the
// study page cannot have produced is a 400.
func bindStudyForm(c echo.Context) (studyForm, error) {
	var f studyForm
	var err error
	bad := func(what string) (studyForm, error) {
		return f, echo.NewHTTPError(http.StatusBadRequest).SetInternal(fmt.Errorf("study form: bad %s", what))
	}
	if f.questionID, err = strconv.ParseInt(c.FormValue("q"), 10, 64); err != nil || f.questionID <= 0 {
		return bad("question id")
	}
	if f.presentationID = c.FormValue("p"); !validPresentationID(f.presentationID) {
		return bad("presentation id")
	}
	scope, err := formScope(c.FormValue("d"), c.FormValue("g"))
	if err != nil {
		return f, echo.NewHTTPError(http.StatusBadRequest).SetInternal(fmt.Errorf("study form: %w", err))
	}
	f.scope, f.group = scope.Deck, scope.Group
	if f.shownAt, err = strconv.ParseInt(c.FormValue("t"), 10, 64); err != nil || f.shownAt < 0 {
		return bad("time shown")
	}
	if f.answerKey = c.FormValue("k"); !validAnswerKey(f.answerKey) {
		return bad("answer key")
	}
	f.counts = c.FormValue("c")
	return f, nil
}

// formScope reads the study page a form comes from: its fields d (a
// deck's slug, or "" for every subscribed deck) and g (a study group's id,
// with d empty; absent otherwise).
func formScope(d, g string) (store.Scope, error) {
	scope := store.Scope{Deck: d}
	if !validStudySlug(d) {
		return scope, fmt.Errorf("bad deck %q", d)
	}
	if g != "" {
		id, err := strconv.ParseInt(g, 10, 64)
		if err != nil || id <= 0 || d != "" {
			return scope, fmt.Errorf("bad group %q", g)
		}
		scope.Group = id
	}
	return scope, nil
}

// gradeForm is a bound grade submit; the review lacks only the user, the
// time and its request id, which is the user's (reviewID).
type gradeForm struct {
	form   studyForm
	review store.Review
}

func bindGradeForm(c echo.Context) (gradeForm, error) {
	f, err := bindStudyForm(c)
	if err != nil {
		return gradeForm{}, err
	}
	bad := func(err error) (gradeForm, error) {
		return gradeForm{}, echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
	}
	rating, err := parseRating(c.FormValue("rating"))
	if err != nil {
		return bad(fmt.Errorf("grade form: %w", err))
	}
	resp, err := decodeResponse(c.FormValue("answer"))
	if err != nil {
		return gradeForm{}, echo.NewHTTPError(http.StatusUnprocessableEntity).SetInternal(err)
	}
	elapsed, err := strconv.ParseInt(c.FormValue("ms"), 10, 64)
	if err != nil {
		return bad(fmt.Errorf("grade form: bad duration: %w", err))
	}
	// Clamp before converting: a huge count of milliseconds would overflow.
	elapsed = min(max(elapsed, 0), maxDuration.Milliseconds())
	return gradeForm{form: f, review: store.Review{
		QuestionID: f.questionID,
		Rating:     rating,
		Response:   resp,
		Scope:      f.storeScope(),
		AnswerKey:  f.answerKey,
		ShownAt:    time.UnixMilli(f.shownAt),
		Duration:   time.Duration(elapsed) * time.Millisecond,
	}}, nil
}

// parseRating reads the rating of a grade form: "1" (Again) to "4" (Easy),
// as the grade buttons send it, and nothing else: no sign, no leading
// zero, no space, and no larger number that a conversion to a rating
// would wrap into the range.
func parseRating(s string) (fsrs.Rating, error) {
	if len(s) != 1 || s[0] < '1' || s[0] > '4' {
		return 0, fmt.Errorf("bad rating %q", s)
	}
	return fsrs.Rating(s[0] - '0'), nil
}

// clip shortens s to maxAnswerRunes runes and makes it valid UTF-8.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "")
	if utf8.RuneCountInString(s) <= maxAnswerRunes {
		return s
	}
	return string([]rune(s)[:maxAnswerRunes])
}

// parseResponse reads the answer controls of q's type from a submitted
// form. Choices arrive as indices into q's own order; anything out of range
// or malformed counts as not answered.
func parseResponse(form url.Values, q quiz.Question) quiz.Response {
	r := quiz.Response{Choice: -1}
	switch q.Type {
	case quiz.SingleChoice:
		if i, err := strconv.Atoi(form.Get("choice")); err == nil && i >= 0 && i < len(q.Choices) {
			r.Choice = i
		}
	case quiz.MultiChoice:
		for _, v := range form["sel"] {
			if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < len(q.Choices) && !slices.Contains(r.Selected, i) {
				r.Selected = append(r.Selected, i)
			}
		}
		slices.Sort(r.Selected)
	case quiz.TrueFalse:
		switch form.Get("tf") {
		case "true":
			r.Bool = new(bool)
			*r.Bool = true
		case "false":
			r.Bool = new(bool)
		}
	case quiz.Cloze:
		gaps, _ := quiz.ParseCloze(q.Prompt)
		r.Texts = make([]string, len(gaps))
		for i, v := range form["gap"] {
			if i < len(r.Texts) {
				r.Texts[i] = clip(v)
			}
		}
	case quiz.Typed:
		r.Texts = []string{clip(form.Get("text"))}
	case quiz.Order:
		// Each item has a position select; the positions must be a permutation.
		at := make([]int, len(q.Items))
		for i := range at {
			at[i] = -1
		}
		for i := range q.Items {
			p, err := strconv.Atoi(form.Get("pos-" + strconv.Itoa(i)))
			if err != nil || p < 1 || p > len(at) || at[p-1] >= 0 {
				return r // not a permutation: no order given
			}
			at[p-1] = i
		}
		r.Order = at
	case quiz.Flashcard:
		r.Revealed = form.Get("revealed") == "1"
	}
	return r
}

// msgQuestionChanged puts a question again that was edited while the
// learner was answering it.
const msgQuestionChanged = "この問題は表示の後に更新されました。更新後の問題にもう一度答えてください。"

// msgCardReviewed tells that a grade came from a page older than the
// card's last review.
const msgCardReviewed = "このカードは、この画面を表示した後に評価済みです (別のタブか、戻るボタンで戻った画面から)。今回の評価は記録していません。"

// msgNotSubscribed tells that the card on screen belongs to a deck the
// learner has unsubscribed from since (in another tab, say).
const msgNotSubscribed = "この問題のデッキは購読していません (別のタブで購読をやめた場合など)。回答は記録していません。"

// msgRepeatedPosition asks again for an order question's answer.
const msgRepeatedPosition = "同じ番号が 2 つ以上の項目にあります。項目ごとに別の番号を選んでください。"

// orderPositions reads the positions an order question's n items were
// given, leaving out what is not a position.
func orderPositions(form url.Values, n int) map[int]int {
	out := map[int]int{}
	for i := range n {
		if p, err := strconv.Atoi(form.Get("pos-" + strconv.Itoa(i))); err == nil && p >= 1 && p <= n {
			out[i] = p
		}
	}
	return out
}

// answered is the presentation an answered form was sent from, its counts
// carried on when they are the server's.
func (f studyForm) answered(card store.CardPreview, csrf string) views.StudyPresentation {
	v := presentation(card.StudyCard, studyScope(f.storeScope(), card.StudyCard), csrf, f.presentationID, time.UnixMilli(f.shownAt))
	if _, ok := parseCarried(f.counts, f.storeScope()); ok {
		v.Counts = f.counts
	}
	return v
}

// studyScope is the study page of scope that shows card sc: its deck,
// titled when the card is of that deck, a study group's decks (untitled:
// a form names the group by its id), or every subscribed deck.
func studyScope(scope store.Scope, sc store.StudyCard) views.StudyScope {
	if scope.Group != 0 {
		return views.StudyScope{Group: scope.Group}
	}
	v := views.StudyScope{Slug: scope.Deck}
	if scope.Deck == sc.Question.DeckSlug {
		v.Title = sc.DeckTitle
	}
	return v
}

// encodeResponse is the grade form's copy of the learner's answer.
func encodeResponse(r quiz.Response) string {
	b, err := json.Marshal(r)
	if err != nil {
		// A struct of ints, strings and bools always encodes.
		panic("web: encode response: " + err.Error())
	}
	return string(b)
}

// decodeResponse reads the answer carried by the grade form: one JSON
// object of quiz.Response's fields and nothing else, bounded in size, with
// texts as parseResponse leaves them. Whether it fits the question (indices
// in range, the fields of its type) is checked by the store, and whether it
// is right is decided there again.
func decodeResponse(s string) (quiz.Response, error) {
	none := quiz.Response{Choice: -1}
	if len(s) > maxAnswerJSON {
		return none, fmt.Errorf("answer of %d bytes", len(s))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	r := none
	p := &r // JSON null sets p to nil
	if err := dec.Decode(&p); err != nil {
		return none, fmt.Errorf("decode answer: %w", err)
	}
	if p == nil {
		return none, errors.New("decode answer: null")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return none, errors.New("decode answer: data after the answer")
	}
	if len(r.Selected) > maxAnswerParts || len(r.Order) > maxAnswerParts || len(r.Texts) > maxAnswerParts {
		return none, fmt.Errorf("answer lists too long")
	}
	for _, t := range r.Texts {
		if t != clip(t) {
			return none, errors.New("decode answer: text too long or not UTF-8")
		}
	}
	return r, nil
}

// shuffle returns the order in which to show n options: a permutation
// seeded from the presentation id, so one presentation always shows the
// same order. With notIdentity (order questions), the shown order is never
// already the answer.
func shuffle(presentationID string, n int, notIdentity bool) []int {
	var seed [presentationIDBytes]byte
	hex.Decode(seed[:], []byte(presentationID)) // validated or freshly made
	rng := mrand.New(mrand.NewPCG(binary.BigEndian.Uint64(seed[:8]), binary.BigEndian.Uint64(seed[8:])))
	perm := rng.Perm(n)
	if notIdentity && n > 1 && slices.IsSorted(perm) {
		perm = append(perm[1:], perm[0])
	}
	return perm
}

func options(list []string, presentationID string, notIdentity bool) []views.Option {
	out := make([]views.Option, len(list))
	for i, idx := range shuffle(presentationID, len(list), notIdentity) {
		out[i] = views.Option{Index: idx, Text: list[idx]}
	}
	return out
}

// presentation puts a card's question to the learner.
func presentation(sc store.StudyCard, scope views.StudyScope, csrf, presentationID string, shownAt time.Time) views.StudyPresentation {
	q := sc.Question.Question
	v := views.StudyPresentation{
		Scope: scope, CSRFToken: csrf, QuestionID: sc.Question.ID, ID: presentationID, AnswerKey: sc.AnswerKey,
		ShownAt: shownAt.UnixMilli(), Type: q.Type, Prompt: q.Prompt, DeckTitle: sc.DeckTitle, New: sc.IsNew,
	}
	switch q.Type {
	case quiz.SingleChoice, quiz.MultiChoice:
		v.Options = options(q.Choices, presentationID, false)
	case quiz.Order:
		v.Options = options(q.Items, presentationID, true)
	case quiz.Cloze:
		// The stored prompt holds the answers: the page shows the parts.
		v.ClozeParts, v.Prompt = quiz.ClozeParts(q.Prompt), ""
	}
	return v
}

// feedback checks resp and labels the grade buttons: a right answer (or a
// revealed flashcard) preselects Good, a wrong one Again.
func feedback(f studyForm, card store.CardPreview, resp quiz.Response, csrf string, now time.Time) views.StudyFeedback {
	q := card.Question.Question
	res := q.Grade(resp)
	v := views.StudyFeedback{
		StudyPresentation: f.answered(card, csrf),
		Given:             givenText(q, resp),
		Expected:          res.Expected,
		Explanation:       q.Explanation,
		Source:            q.Source,
		Answer:            encodeResponse(resp),
		PartialRight:      res.PartialRight,
		PartialTotal:      res.PartialTotal,
		ElapsedMS:         min(max(now.UnixMilli()-f.shownAt, 0), maxDuration.Milliseconds()),
	}
	if q.Type == quiz.Cloze {
		v.Fills = clozeFills(q, resp, res)
	}
	if q.Type == quiz.MultiChoice {
		for _, o := range v.Options {
			right := slices.Contains(q.Answers, o.Text)
			if slices.Contains(resp.Selected, o.Index) {
				v.Picks = append(v.Picks, views.Pick{Text: o.Text, Right: right})
			}
			if right {
				v.Answers = append(v.Answers, o.Text)
			}
		}
	}
	pre := fsrs.Again
	switch {
	case res.SelfGraded:
		v.Verdict, pre = views.VerdictSelf, fsrs.Good
	case res.Correct:
		v.Verdict, pre = views.VerdictRight, fsrs.Good
	case q.Type == quiz.MultiChoice && res.PartialRight > 0:
		v.Verdict = views.VerdictPartial
	default:
		v.Verdict = views.VerdictWrong
	}
	if q.Type == quiz.TrueFalse {
		v.Expected = truthText(q.Truth)
	}
	for r := fsrs.Again; r <= fsrs.Easy; r++ {
		v.Grades = append(v.Grades, views.GradeButton{
			Rating:      int(r),
			Label:       quiz.RatingLabel(r),
			Interval:    buttonInterval(card.Outcomes.For(r).Due.Sub(now)),
			Preselected: r == pre,
		})
	}
	return v
}

// The feedback words an answer as quiz does for every page and export.
const notAnswered = quiz.NotAnswered

// clozeFills is, gap by gap, the word that fills it and what the learner
// typed there, marked right or not.
func clozeFills(q quiz.Question, resp quiz.Response, res quiz.Result) []views.ClozeFill {
	gaps, err := quiz.ParseCloze(q.Prompt)
	if err != nil {
		return nil
	}
	fills := make([]views.ClozeFill, len(gaps))
	for i, g := range gaps {
		if len(g.Accept) > 0 {
			fills[i].Answer = g.Accept[0]
		}
		if i < len(resp.Texts) {
			fills[i].Given = strings.TrimSpace(resp.Texts[i])
		}
		if fills[i].Given == "" {
			fills[i].Given = notAnswered
		}
		fills[i].Right = i < len(res.GapsRight) && res.GapsRight[i]
	}
	return fills
}

func truthText(b *bool) string { return quiz.TruthText(b) }

// givenText renders the learner's answer for the feedback.
func givenText(q quiz.Question, r quiz.Response) string { return q.AnswerText(r) }

// gradeNotice tells what the grade just given did.
func gradeNotice(rec store.Recorded) string {
	if rec.Duplicate {
		return fmt.Sprintf("この回答は記録済みです (「%s」)。", quiz.RatingLabel(rec.Rating))
	}
	return fmt.Sprintf("「%s」で記録しました。次の復習は %s後です。", quiz.RatingLabel(rec.Rating), interval(rec.Due.Sub(rec.ReviewedAt)))
}

// What an undo says: done, or why it was refused (store.UndoLastReview's
// errors), nothing having changed.
const (
	msgUndone          = "評価を取り消しました。このカードにもう一度答えてください。"
	msgNothingToUndo   = "取り消せる評価がありません。何も変更していません。"
	msgUndoOtherDay    = "取り消せるのは今日 (午前 4 時から) の評価だけです。最後の評価は前の日のものなので、何も変更していません。"
	msgUndoUnrecorded  = "最後の評価は、取り消しに必要な記録のない以前の形式で記録されているため取り消せません。何も変更していません。"
	msgUndoCardChanged = "最後の評価の後にカードが変わっているため、取り消せません。何も変更していません。"
)

// undoRefusal is what the page says of an undo refused with err, or ""
// when err is nil or no refusal (a failure).
func undoRefusal(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, store.ErrNothingToUndo):
		return msgNothingToUndo
	case errors.Is(err, store.ErrUndoOtherDay):
		return msgUndoOtherDay
	case errors.Is(err, store.ErrUndoUnrecorded):
		return msgUndoUnrecorded
	case errors.Is(err, store.ErrUndoCardChanged):
		return msgUndoCardChanged
	}
	return ""
}

// studyTime words the time spent studying: "45秒", "12分30秒", "1時間5分".
func studyTime(d time.Duration) string {
	sec := int64((d + time.Second/2) / time.Second)
	switch {
	case sec < 60:
		return strconv.FormatInt(sec, 10) + "秒"
	case sec < 3600:
		m, s := sec/60, sec%60
		if s == 0 {
			return strconv.FormatInt(m, 10) + "分"
		}
		return strconv.FormatInt(m, 10) + "分" + strconv.FormatInt(s, 10) + "秒"
	}
	h, m := sec/3600, sec%3600/60
	if m == 0 {
		return strconv.FormatInt(h, 10) + "時間"
	}
	return strconv.FormatInt(h, 10) + "時間" + strconv.FormatInt(m, 10) + "分"
}

// emptyQueue describes what is coming when nothing is due.
func emptyQueue(n store.StudyNext, u quiz.User, scope views.StudyScope, note studyNote, now time.Time) views.StudyDone {
	v := views.StudyDone{
		Scope: scope, Notice: note.text, Undo: note.undo, Refused: note.refused,
		NoDecks:         scope.Slug == "" && scope.Group == 0 && n.Subscriptions == 0,
		DueToday:        n.DueToday,
		DayEnds:         n.DayEnds.Format("1月2日 15:04"),
		NewLimitReached: n.NewLimitReached, ReviewLimitReached: n.ReviewLimitReached,
		NewLimitZero:    n.NewLimitReached && u.NewPerDay == 0,
		ReviewLimitZero: n.ReviewLimitReached && u.ReviewsPerDay == 0,
	}
	if !n.NextDue.IsZero() {
		v.NextDue, v.NextDueISO = dueText(n.NextDue, now), n.NextDue.Format(time.RFC3339)
	}
	// A limit above 0 lets the held-back cards in when the day rolls over;
	// say so unless a scheduled card comes first.
	held := v.NewLimitReached && !v.NewLimitZero || v.ReviewLimitReached && !v.ReviewLimitZero
	if held && (n.NextDue.IsZero() || n.NextDue.After(n.DayEnds)) {
		v.ResumesAt = v.DayEnds
	}
	return v
}
