package web

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/export"
	"kubequiz/internal/quiz"
)

// TestExportPages: a learner's reviews.csv and cards.csv hold, row for
// row, what the store holds of that learner and nothing of another's;
// answers that read as formulas are neutralised, Japanese survives with
// and without the byte order mark, the file name carries the date, and a
// signed-out request goes to the login page.
func TestExportPages(t *testing.T) {
	env := newStudyEnv(t)
	ctx := context.Background()
	grade := func(cl studyClient, ext, answer, rating string) {
		t.Helper()
		f := env.answerForm(env.q[ext], newPresentationID(time.Now()), url.Values{
			"answer": {answer}, "ms": {"1500"}, "rating": {rating}})
		if rec := cl.post("/study/grade", f, false); rec.Code != http.StatusSeeOther {
			t.Fatalf("grade %s: %d %.300s", ext, rec.Code, rec.Body.String())
		}
	}
	for _, cl := range []studyClient{env.alice, env.bob} {
		cl.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, false)
	}
	grade(env.alice, "typed", `{"Texts":["=1+1"]}`, "1")
	grade(env.bob, "typed", `{"Texts":["bob-only"]}`, "2")
	grade(env.alice, "cloze", `{"Texts":["日本語の答え"]}`, "1")
	grade(env.alice, "single", `{"Choice":2}`, "3")

	get := func(cl studyClient, path string) (*http.Response, string) {
		t.Helper()
		rec := cl.get(path, false)
		return rec.Result(), rec.Body.String()
	}
	table := func(body string) [][]string {
		t.Helper()
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("read CSV: %v\n%s", err, body)
		}
		return rows
	}
	today := time.Now().In(userLocation(env.alice.user)).Format("2006-01-02")

	res, body := get(env.alice, "/export/reviews.csv")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		res.Header.Get("Content-Disposition") != `attachment; filename="kubequiz-reviews-`+today+`.csv"` {
		t.Fatalf("reviews.csv = %d %v", res.StatusCode, res.Header)
	}
	if strings.HasPrefix(body, "\uFEFF") || strings.Contains(body, "bob-only") {
		t.Errorf("reviews.csv has a BOM unasked, or bob's answer: %q", body)
	}
	rows := table(body)
	if !slices.Equal(rows[0], export.ReviewColumns()) {
		t.Errorf("header %q", rows[0])
	}
	var stored []string
	for r, err := range env.ts.db.ExportReviews(ctx, env.alice.user.ID) {
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, r.ReviewedAt.UTC().Format("2006-01-02T15:04:05.000Z")+" "+r.Question.ExtID+" "+strconv.Itoa(int(r.Rating)))
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[0]+" "+r[2]+" "+r[5])
	}
	if len(stored) != 3 || !slices.Equal(got, stored) {
		t.Errorf("reviews.csv rows %q, want the store's %q", got, stored)
	}
	answers := map[string]string{}
	for _, r := range rows[1:] {
		answers[r[2]] = r[8]
	}
	if answers["typed"] != "'=1+1" || answers["cloze"] != "日本語の答え" || answers["single"] != "1.36" {
		t.Errorf("answers %q", answers)
	}

	res, body = get(env.alice, "/export/reviews.csv?bom=1")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(body, "\uFEFF") || !strings.Contains(body, "日本語の答え") {
		t.Errorf("reviews.csv?bom=1 = %d %.200q", res.StatusCode, body)
	}

	res, body = get(env.alice, "/export/cards.csv")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Disposition") != `attachment; filename="kubequiz-cards-`+today+`.csv"` {
		t.Fatalf("cards.csv = %d %v", res.StatusCode, res.Header)
	}
	rows = table(body)
	if !slices.Equal(rows[0], export.CardColumns()) {
		t.Errorf("cards header %q", rows[0])
	}
	var ids []string
	for _, r := range rows[1:] {
		ids = append(ids, r[1])
	}
	var storedCards []string
	for c, err := range env.ts.db.ExportCards(ctx, env.alice.user.ID, time.Now()) {
		if err != nil {
			t.Fatal(err)
		}
		storedCards = append(storedCards, c.Question.ExtID)
	}
	if len(ids) != 3 || !slices.Equal(ids, storedCards) {
		t.Errorf("cards.csv questions %q, want the store's %q", ids, storedCards)
	}
	if _, body := get(env.bob, "/export/cards.csv"); len(table(body)) != 2 {
		t.Errorf("bob's cards.csv: %q", body)
	}

	out := studyClient{t: t, ts: env.ts}
	for _, path := range []string{"/export/reviews.csv", "/export/cards.csv"} {
		rec := out.get(path, false)
		if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/login?next=") {
			t.Errorf("signed out %s = %d to %q", path, rec.Code, rec.Header().Get("Location"))
		}
	}
}

// TestExportOutlivesWriteTimeout downloads a large reviews.csv slowly
// from a real HTTP server whose write timeout is far shorter than the
// download: every row arrives, as the export lifts the deadline that
// pages keep.
func TestExportOutlivesWriteTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 100,000 reviews")
	}
	env := newStudyEnv(t)
	ctx := context.Background()
	env.alice.post("/decks/v1-36-sig-node/subscription", url.Values{"subscribed": {"1"}}, false)
	const n = 100_000
	ids := []int64{env.q["typed"], env.q["single"]}
	answers := []quiz.Response{{Choice: -1, Texts: []string{"TieredReservation"}}, {Choice: 2}}
	if err := env.ts.db.BulkReviews(ctx, env.alice.user.ID, ids, answers, n, time.Now().Add(-400*24*time.Hour), time.Minute); err != nil {
		t.Fatal(err)
	}
	hs := HTTPServer(env.ts.Server, slog.New(slog.DiscardHandler))
	hs.WriteTimeout = 50 * time.Millisecond
	srv := httptest.NewUnstartedServer(hs.Handler)
	srv.Config = hs
	srv.Start()
	defer srv.Close()

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/export/reviews.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: env.alice.session})
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// Read slowly at first, past the write timeout.
	first := make([]byte, 4096)
	if _, err := io.ReadFull(res.Body, first); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * hs.WriteTimeout)
	rest, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("the download was cut off after %d bytes: %v", len(first)+len(rest), err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(first) + string(rest))).ReadAll()
	if err != nil || len(rows) != n+1 {
		t.Fatalf("%d rows (%v); want a header and %d", len(rows), err, n)
	}
}
