package loadclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Request kinds of the study loop, as reported.
const (
	OpPage   = "GET /study"
	OpAnswer = "POST /study/answer"
	OpGrade  = "POST /study/grade"
)

// Marks of the study fragments in the pages.
var (
	markAnswerForm      = `class="study-answer"`
	markGradeForm       = `class="study-grade"`
	markStudy           = []byte(`id="study"`)
	markAnswerFormBytes = []byte(markAnswerForm)
	// markRecorded is in the grade's answer when the review was recorded
	// (the notice "Good で記録しました。..."), and not when the grade was
	// refused as stale (a question changed since it was shown, a card
	// graded in another tab) or was a repeat.
	markRecorded = []byte("で記録しました")
)

// ErrQueueEmpty means the learner had nothing to study: it has seen every
// card and the next ones are not due yet, so the page measured was the
// empty queue. Give the server more decks, or run shorter.
var ErrQueueEmpty = errors.New("study queue empty: every card seen, none due yet (more decks, or a shorter run)")

// ErrStopped means the browser's Stop channel was closed before a request
// of the review was sent.
var ErrStopped = errors.New("stopped")

// Grade is a grade the server acknowledged: the question and presentation
// ids of the grade form, the rating sent, when the request was sent and
// when its whole answer had arrived, and whether the answer said the
// review was recorded.
type Grade struct {
	Question     string
	Presentation string
	Rating       string
	Sent, Acked  time.Time
	Recorded     bool
}

// NextCard loads the next-card page and returns its answer form.
func (b *Browser) NextCard(ctx context.Context, rec *Recorder) (Form, error) {
	if !b.pause(ctx, OpPage) {
		return Form{}, ErrStopped
	}
	start := time.Now()
	code, err := b.Send(ctx, http.MethodGet, "/study", nil, false)
	if err == nil {
		err = Expect(OpPage, code, http.StatusOK, b.Body())
	}
	if err != nil {
		rec.Fail(OpPage, err)
		return Form{}, err
	}
	rec.Observe(OpPage, time.Since(start))
	forms := ParseForms(b.Body(), markAnswerForm)
	if len(forms) == 0 {
		rec.Fail(OpPage, ErrQueueEmpty)
		return Form{}, ErrQueueEmpty
	}
	return forms[0], nil
}

// StudyOnce is one review, as a browser with htmx makes it: an answer
// (right or wrong, at random) to the card on screen, then a grade, the
// preselected one most of the time. The grade's answer carries the next
// card, so the next-card page is loaded only for the first card (and
// after a failed step). Think's pause comes before each request.
func (b *Browser) StudyOnce(ctx context.Context, rec *Recorder) error {
	if b.card.Action == "" {
		f, err := b.NextCard(ctx, rec)
		if err != nil {
			return err
		}
		b.card = f
	}
	q := b.card
	b.card = Form{}
	answer := b.answer(q)
	if !b.pause(ctx, OpAnswer) {
		b.card = q // still on screen
		return ErrStopped
	}
	start := time.Now()
	code, err := b.Send(ctx, http.MethodPost, "/study/answer", answer, true)
	if err == nil {
		err = Expect(OpAnswer, code, http.StatusOK, b.Body())
	}
	var grades []Form
	if err == nil {
		if grades = ParseForms(b.Body(), markGradeForm); len(grades) == 0 {
			err = fmt.Errorf("no grade form in %.120q", b.Body())
		}
	}
	if err != nil {
		rec.Fail(OpAnswer, err)
		return err
	}
	rec.Observe(OpAnswer, time.Since(start))
	if b.keep != nil {
		b.keep(OpAnswer, b.header, b.Body())
	}

	grade := b.grade(grades[0])
	if !b.pause(ctx, OpGrade) {
		return ErrStopped
	}
	start = time.Now()
	code, err = b.Send(ctx, http.MethodPost, "/study/grade", grade, true)
	acked := time.Now()
	if err == nil {
		err = Expect(OpGrade, code, http.StatusOK, b.Body())
	}
	if err == nil && !bytes.Contains(b.Body(), markStudy) {
		err = fmt.Errorf("grade answer without the study area: %.120q", b.Body())
	}
	if err != nil {
		rec.Fail(OpGrade, err)
		return err
	}
	rec.Observe(OpGrade, acked.Sub(start))
	if b.keep != nil {
		b.keep(OpGrade, b.header, b.Body())
	}
	b.graded++
	if b.OnGraded != nil {
		b.OnGraded(Grade{Question: grade.Get("q"), Presentation: grade.Get("p"), Rating: grade.Get("rating"),
			Sent: start, Acked: acked, Recorded: bytes.Contains(b.Body(), markRecorded)})
	}
	forms := ParseForms(b.Body(), markAnswerForm)
	if len(forms) == 0 {
		rec.Fail(OpGrade, ErrQueueEmpty)
		return ErrQueueEmpty
	}
	b.card = forms[0]
	return nil
}

// Reply is one answer of the server, headers and body.
type Reply struct {
	Header http.Header
	Body   []byte
}

// CaptureReview makes one review as StudyOnce does and returns the
// server's answers to its answer and its grade.
func (b *Browser) CaptureReview(ctx context.Context) (answered, graded Reply, err error) {
	b.keep = func(op string, h http.Header, body []byte) {
		r := Reply{Header: h.Clone(), Body: bytes.Clone(body)}
		if op == OpAnswer {
			answered = r
		} else {
			graded = r
		}
	}
	defer func() { b.keep = nil }()
	if err := b.StudyOnce(ctx, NewRecorder()); err != nil {
		return Reply{}, Reply{}, fmt.Errorf("%s: a review to replay: %w", b.Login, err)
	}
	return answered, graded, nil
}

// PauseAround is a Think of about mean before every request: between half
// and one and a half times it.
func PauseAround(mean time.Duration) func(*rand.Rand, string) time.Duration {
	if mean <= 0 {
		return nil
	}
	return func(rng *rand.Rand, _ string) time.Duration {
		return mean/2 + time.Duration(rng.Int64N(int64(mean)+1))
	}
}

// pause waits as long as Think says before op, or until ctx ends, and
// reports whether the browser may go on: false once Stop is closed.
func (b *Browser) pause(ctx context.Context, op string) bool {
	var d time.Duration
	if b.Think != nil {
		d = b.Think(b.rng, op)
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-b.Stop:
		}
	}
	select {
	case <-b.Stop:
		return false
	default:
		return true
	}
}

// PageOnce only loads the next-card page, and checks that it holds an
// answer form without reading the form.
func (b *Browser) PageOnce(ctx context.Context, rec *Recorder) error {
	start := time.Now()
	code, err := b.Send(ctx, http.MethodGet, "/study", nil, false)
	if err == nil {
		err = Expect(OpPage, code, http.StatusOK, b.Body())
	}
	if err == nil && !bytes.Contains(b.Body(), markAnswerFormBytes) {
		err = ErrQueueEmpty
	}
	if err != nil {
		rec.Fail(OpPage, err)
		return err
	}
	rec.Observe(OpPage, time.Since(start))
	return nil
}

// answer fills the answer form's controls at random.
func (b *Browser) answer(f Form) url.Values {
	v := cloneValues(f.Hidden)
	for name, values := range f.Radios {
		v.Set(name, values[b.rng.IntN(len(values))])
	}
	for name, values := range f.Checks {
		for _, x := range values {
			if b.rng.IntN(2) == 0 {
				v.Add(name, x)
			}
		}
	}
	for _, name := range f.Texts {
		words := []string{"", "ImageVolume", "1.36", "GA", "beta", "kubelet"}
		v.Add(name, words[b.rng.IntN(len(words))])
	}
	for _, s := range f.Selects {
		v.Set(s.Name, s.Selected)
	}
	return v
}

// grade picks a rating: the preselected button four times out of five,
// otherwise any.
func (b *Browser) grade(f Form) url.Values {
	v := cloneValues(f.Hidden)
	rating := ""
	for _, btn := range f.Buttons {
		if btn.Name == "rating" && btn.Pressed {
			rating = btn.Value
		}
	}
	if rating == "" || b.rng.IntN(5) == 0 {
		rating = strconv.Itoa(1 + b.rng.IntN(4))
	}
	v.Set("rating", rating)
	return v
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+4)
	for k, x := range v {
		out[k] = append([]string(nil), x...)
	}
	return out
}
