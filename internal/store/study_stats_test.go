package store

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"kubequiz/internal/fsrs"
	"kubequiz/internal/progress"
	"kubequiz/internal/quiz"
)

// statsFixture: alice (Tokyo, 5 new cards a day) subscribes to d1 (node,
// 1.36) and d2 (node, 1.35), has a card in d3 (apps, 1.36) without
// subscribing, and neither in d4 (apps, 1.34). now is 21:00 in Tokyo on
// 2026-05-01; the study day runs from 04:00 that day to 04:00 the next.
type statsFixture struct {
	db                 *DB
	alice, bob         int64
	d1, d2, d3, d4     int64
	q                  map[string]int64
	now, dayEnds, soon time.Time
}

func newStatsFixture(t *testing.T) statsFixture {
	t.Helper()
	db := newTestDB(t)
	day := 24 * time.Hour
	f := statsFixture{db: db, q: map[string]int64{}, now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	f.dayEnds = time.Date(2026, 5, 1, 19, 0, 0, 0, time.UTC)
	f.soon = f.now.Add(5 * time.Minute)
	f.alice = addStudyUser(t, db, "alice", studyUserOpts{newPerDay: 5})
	f.bob = addStudyUser(t, db, "bob", studyUserOpts{})
	f.d1 = addStudyDeck(t, db, "d1", "1.36")
	f.d2 = addStudyDeck(t, db, "d2", "1.35")
	f.d3 = addStudyDeck(t, db, "d3", "1.36")
	f.d4 = addStudyDeck(t, db, "d4", "1.34")
	if _, err := db.write.Exec(`UPDATE decks SET sig = 'apps' WHERE id IN (?, ?)`, f.d3, f.d4); err != nil {
		t.Fatal(err)
	}
	add := func(deck int64, ext string, st quiz.Status) int64 {
		f.q[ext] = addStudyQuestion(t, db, deck, len(f.q), st, sampleQuestion(ext))
		return f.q[ext]
	}
	card := func(ext string, state fsrs.State, stability float64, ago time.Duration, due time.Time) {
		setCard(t, db, f.alice, f.q[ext], fsrs.Card{State: state, Stability: stability, Difficulty: 5, Reps: 3,
			LastReview: f.now.Add(-ago), Due: due})
	}
	for _, ext := range []string{"a", "b", "c", "d", "e", "f"} {
		add(f.d1, ext, quiz.Published)
	}
	add(f.d1, "retired", quiz.Retired)
	add(f.d1, "draft", quiz.Draft)
	add(f.d2, "g", quiz.Published)
	add(f.d2, "h", quiz.Published)
	add(f.d3, "i", quiz.Published)
	add(f.d4, "j", quiz.Published)
	card("a", fsrs.Review, 30, 2*day, f.now.Add(25*day))            // mature, mastered
	card("b", fsrs.Review, 10, 15*day, f.now.Add(-5*day))           // overdue, forgotten
	card("c", fsrs.Learning, 2, 5*time.Minute, f.soon)              // learning, due today
	card("retired", fsrs.Review, 30, day, f.now.Add(-day))          // not counted
	card("g", fsrs.Review, 25, 30*day, f.now.Add(3*day))            // mature, forgotten
	card("i", fsrs.Review, 5, 2*day, f.now.Add(4*day))              // mastered
	setCard(t, db, f.bob, f.q["d"], reviewCard(fsrs.Review, f.now)) // bob's: none of alice's figures
	subscribe(t, db, f.alice, "d1")
	subscribe(t, db, f.alice, "d2")
	subscribe(t, db, f.bob, "d4")

	// Reviews: alice studied today, yesterday and the day before, not the
	// day before that, and five days ago; bob studied on the day alice
	// missed. Within the last 30 days, her reviews of cards in review: d1
	// Good, Again, Hard, and Again of a question retired since (its review
	// still tells of her memory); d2 Easy.
	at := func(days int, hour int) time.Time {
		return f.now.Add(time.Duration(-days)*day + time.Duration(hour)*time.Hour)
	}
	addPastReviews(t, db, "stats", []pastReview{
		{f.alice, f.q["a"], at(0, -1), fsrs.Review, fsrs.Good},
		{f.alice, f.q["b"], at(0, -2), fsrs.Review, fsrs.Again},
		{f.alice, f.q["c"], at(1, 0), fsrs.Learning, fsrs.Good},
		{f.alice, f.q["c"], at(2, 0), fsrs.New, fsrs.Again},
		{f.alice, f.q["b"], at(5, 0), fsrs.Review, fsrs.Hard},
		{f.alice, f.q["g"], at(5, 1), fsrs.Review, fsrs.Easy},
		{f.alice, f.q["a"], at(31, 0), fsrs.Review, fsrs.Again}, // before the 30 days
		{f.alice, f.q["retired"], at(5, 2), fsrs.Review, fsrs.Again},
		{f.bob, f.q["d"], at(3, 0), fsrs.Review, fsrs.Again},
		{f.bob, f.q["d"], at(0, 0), fsrs.Review, fsrs.Again},
	})
	return f
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	st, err := f.db.Stats(ctx, f.alice, nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	tokyo := mustZone(t, "Asia/Tokyo")
	if !st.DayStart.Equal(time.Date(2026, 5, 1, 4, 0, 0, 0, tokyo)) || !st.DayEnds.Equal(f.dayEnds) || st.DesiredRetention != 0.9 {
		t.Errorf("day %v to %v, retention %v", st.DayStart, st.DayEnds, st.DesiredRetention)
	}
	type deck struct {
		slug       string
		subscribed bool
		fig        progress.Figures
		today      progress.Due
	}
	var got []deck
	for _, d := range st.Decks {
		got = append(got, deck{d.Slug, d.Subscribed, d.Figures, d.Today})
	}
	// Allowance: 5 new cards (none today), 200 reviews less the two today.
	if st.Allowance != (progress.Allowance{New: 5, Review: 198}) {
		t.Errorf("Allowance = %+v", st.Allowance)
	}
	want := []deck{
		{"d1", true, progress.Figures{Cards: progress.Cards{Total: 6, Seen: 3, Mature: 1, Mastered: 1},
			Retention: progress.Share{Part: 2, Whole: 4}, Due: progress.Due{Learning: 1, Review: 1, New: 3}},
			progress.Due{Learning: 1, Review: 1, New: 3}},
		{"d3", false, progress.Figures{Cards: progress.Cards{Total: 1, Seen: 1, Mastered: 1}},
			progress.Due{}},
		{"d2", true, progress.Figures{Cards: progress.Cards{Total: 2, Seen: 1, Mature: 1},
			Retention: progress.Share{Part: 1, Whole: 1}, Due: progress.Due{New: 1}},
			progress.Due{New: 1}},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Decks =\n%+v\nwant\n%+v", got, want)
	}
	wantTotal := progress.Figures{Cards: progress.Cards{Total: 9, Seen: 5, Mature: 2, Mastered: 2},
		Retention: progress.Share{Part: 3, Whole: 5}, Due: progress.Due{Learning: 1, Review: 1, New: 4}}
	if st.Total != wantTotal || st.Today != (progress.Due{Learning: 1, Review: 1, New: 4}) {
		t.Errorf("Total = %+v, Today %+v; want %+v", st.Total, st.Today, wantTotal)
	}
	if len(st.SIGs) != 2 || st.SIGs[0].SIG != "apps" || st.SIGs[0].Decks != 1 || st.SIGs[0].Total != 1 ||
		st.SIGs[1].SIG != "node" || st.SIGs[1].Decks != 2 || st.SIGs[1].Figures != want[0].fig.Add(want[2].fig) {
		t.Errorf("SIGs = %+v", st.SIGs)
	}
	if !st.NextDue.Equal(f.soon) || st.NextDue.Location().String() != "Asia/Tokyo" {
		t.Errorf("NextDue = %v, want %v in Tokyo", st.NextDue, f.soon)
	}

	// Forecast: b (overdue) and c today, g in 3 days, i in 4, a in 25.
	if len(st.Forecast) != progress.ForecastDays || !st.Forecast[0].Start.Equal(st.DayStart) {
		t.Fatalf("Forecast of %d days from %v", len(st.Forecast), st.Forecast[0].Start)
	}
	wantForecast := map[int]int{0: 2, 3: 1, 4: 1, 25: 1}
	for i, d := range st.Forecast {
		if d.Count != wantForecast[i] {
			t.Errorf("Forecast day %d (%v): %d, want %d", i, d.Start, d.Count, wantForecast[i])
		}
	}
	// Calendar: 365 days, today last.
	if len(st.Calendar) != progress.CalendarDays || !st.Calendar[len(st.Calendar)-1].Start.Equal(st.DayStart) {
		t.Fatalf("Calendar of %d days to %v", len(st.Calendar), st.Calendar[len(st.Calendar)-1].Start)
	}
	var last []int
	for _, d := range st.Calendar[len(st.Calendar)-7:] {
		last = append(last, d.Count)
	}
	if want := []int{0, 3, 0, 0, 1, 1, 2}; !slices.Equal(last, want) {
		t.Errorf("the calendar's last week %v, want %v", last, want)
	}
	if st.Streak != (progress.Streak{Days: 3, StudiedToday: true}) {
		t.Errorf("Streak = %+v", st.Streak)
	}
}

func TestStatsScope(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	tests := []struct {
		name  string
		decks []int64
		want  []string
		total progress.Cards
	}{
		{"by default, subscribed decks and decks with cards", nil, []string{"d1", "d3", "d2"},
			progress.Cards{Total: 9, Seen: 5, Mature: 2, Mastered: 2}},
		{"decks named", []int64{f.d4, f.d2}, []string{"d2", "d4"}, progress.Cards{Total: 3, Seen: 1, Mature: 1}},
		{"a deck without published questions", []int64{9999}, nil, progress.Cards{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := f.db.Stats(ctx, f.alice, tt.decks, f.now)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range st.Decks {
				got = append(got, d.Slug)
			}
			if !slices.Equal(got, tt.want) || st.Total.Cards != tt.total {
				t.Errorf("decks %v, total %+v; want %v, %+v", got, st.Total.Cards, tt.want, tt.total)
			}
		})
	}
	if _, err := f.db.Stats(ctx, 9999, nil, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("Stats of no user = %v, want ErrNotFound", err)
	}
}

// TestStatsMastery checks mastery against the learner's desired retention.
func TestStatsMastery(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	tests := []struct {
		retention float64
		want      int // alice's mastered cards
	}{
		{0.9, 2},  // a (2 days of 30) and i (2 of 5)
		{0.97, 1}, // i falls below
		{0.7, 4},  // b (15 days of 10) and g (30 of 25) rise above
	}
	for _, tt := range tests {
		if err := f.db.SetDesiredRetention(ctx, f.alice, tt.retention); err != nil {
			t.Fatal(err)
		}
		st, err := f.db.Stats(ctx, f.alice, nil, f.now)
		if err != nil {
			t.Fatal(err)
		}
		if st.Total.Mastered != tt.want || st.DesiredRetention != tt.retention {
			t.Errorf("at %v: %d mastered, want %d", tt.retention, st.Total.Mastered, tt.want)
		}
	}
}

func TestHomeSummary(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	h, err := f.db.HomeSummary(ctx, f.alice, f.now)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.db.Stats(ctx, f.alice, nil, f.now)
	if err != nil {
		t.Fatal(err)
	}
	// The home page's decks are the subscribed ones, with the statistics'
	// counts of today.
	var got, want []string
	for _, d := range h.Decks {
		got = append(got, d.Slug)
		i := slices.IndexFunc(st.Decks, func(s DeckStats) bool { return s.ID == d.ID })
		if i < 0 || st.Decks[i].Today != d.Today {
			t.Errorf("deck %s: today %+v on the home page, %+v in the statistics", d.Slug, d.Today, st.Decks)
		}
	}
	for _, d := range st.Decks {
		if d.Subscribed {
			want = append(want, d.Slug)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("home decks %v, want %v", got, want)
	}
	if h.Today != (progress.Due{Learning: 1, Review: 1, New: 4}) || h.NewToday != 0 || h.ReviewsToday != 2 {
		t.Errorf("Today = %+v, done %d new and %d reviews", h.Today, h.NewToday, h.ReviewsToday)
	}
	if !h.NextDue.Equal(f.soon) || !h.DayEnds.Equal(f.dayEnds) || h.Streak != st.Streak {
		t.Errorf("next due %v, day ends %v, streak %+v", h.NextDue, h.DayEnds, h.Streak)
	}
	// The allowance is shared: with 2 new cards a day, the decks show 2
	// each (d1 has 3, d2 1) and the total 2.
	if err := f.db.SetStudyLimits(ctx, f.alice, 2, 200); err != nil {
		t.Fatal(err)
	}
	h, err = f.db.HomeSummary(ctx, f.alice, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if h.Today.New != 2 || h.Decks[0].Today.New != 2 || h.Decks[1].Today.New != 1 {
		t.Errorf("with 2 new cards a day: today %+v, decks %+v, %+v", h.Today, h.Decks[0].Today, h.Decks[1].Today)
	}
	if _, err := f.db.HomeSummary(ctx, 9999, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("HomeSummary of no user = %v, want ErrNotFound", err)
	}
}

func TestStudyCounts(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	tests := []struct {
		name      string
		newPerDay int
		deck      string
		want      progress.Due
	}{
		{"every subscribed deck", 5, "", progress.Due{Learning: 1, Review: 1, New: 4}},
		{"new cards up to the limit", 2, "", progress.Due{Learning: 1, Review: 1, New: 2}},
		{"no new cards today", 0, "", progress.Due{Learning: 1, Review: 1}},
		{"one deck", 5, "d2", progress.Due{New: 1}},
		{"a deck not subscribed to", 5, "d4", progress.Due{New: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.db.SetStudyLimits(ctx, f.alice, tt.newPerDay, 200); err != nil {
				t.Fatal(err)
			}
			got, err := f.db.StudyCounts(ctx, learner(t, f.db, f.alice), Scope{Deck: tt.deck}, f.now)
			if err != nil || got != tt.want {
				t.Errorf("StudyCounts = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := f.db.StudyCounts(ctx, learner(t, f.db, f.alice), Scope{Deck: "nope"}, f.now); !errors.Is(err, quiz.ErrNotFound) {
		t.Errorf("StudyCounts of no deck = %v, want ErrNotFound", err)
	}
}

// TestStudyCountsFollowTheQueue grades what the queue serves and checks
// that the counts go down by the card graded, to nothing when the queue is
// empty.
func TestStudyCountsFollowTheQueue(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t)
	at := f.now.Add(10 * time.Minute) // c is due
	u := learner(t, f.db, f.alice)
	for i := 0; ; i++ {
		counts, err := f.db.StudyCounts(ctx, u, Scope{}, at)
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.db.NextCard(ctx, u, "", at)
		if err != nil {
			t.Fatal(err)
		}
		if !n.Found {
			if counts != (progress.Due{}) {
				t.Errorf("the queue is empty, the counts %+v", counts)
			}
			break
		}
		if i > 10 {
			t.Fatal("the queue never empties")
		}
		var kind *int
		switch {
		case n.Card.IsNew:
			kind = &counts.New
		case n.Card.Card.State == fsrs.Review:
			kind = &counts.Review
		default:
			kind = &counts.Learning
		}
		*kind--
		if _, err := f.db.RecordReview(ctx, Review{UserID: f.alice, QuestionID: n.Card.Question.ID, RequestID: reqID(100 + i),
			Rating: fsrs.Easy, Response: quiz.Response{Choice: 1}, At: at}); err != nil {
			t.Fatal(err)
		}
		after, err := f.db.StudyCounts(ctx, u, Scope{}, at)
		if err != nil || after != counts {
			t.Errorf("after grading %s: %+v, %v; want %+v", n.Card.Question.Question.ExtID, after, err, counts)
		}
	}
}

// TestStreakBeyondTheCalendar checks a streak longer than the calendar's
// year, and one that ended yesterday.
func TestStreakBeyondTheCalendar(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		from  int // the first day studied, days before today
		today bool
		want  progress.Streak
	}{
		{"400 days to today", 399, true, progress.Streak{Days: 400, StudiedToday: true}},
		{"400 days to yesterday", 400, false, progress.Streak{Days: 400}},
		{"exactly the calendar", 364, true, progress.Streak{Days: 365, StudiedToday: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := newTestDB(t)
			now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
			user := addStudyUser(t, db, "alice", studyUserOpts{})
			deck := addStudyDeck(t, db, "d1", "1.36")
			q := addStudyQuestion(t, db, deck, 1, quiz.Published, sampleQuestion("q"))
			var reviews []pastReview
			last := 0
			if !tt.today {
				last = 1
			}
			for d := tt.from; d >= last; d-- {
				reviews = append(reviews, pastReview{user, q, now.Add(time.Duration(-d) * 24 * time.Hour), fsrs.Review, fsrs.Good})
			}
			addPastReviews(t, db, "streak", reviews)
			st, err := db.Stats(ctx, user, nil, now)
			if err != nil {
				t.Fatal(err)
			}
			h, err := db.HomeSummary(ctx, user, now)
			if err != nil {
				t.Fatal(err)
			}
			if st.Streak != tt.want || h.Streak != tt.want {
				t.Errorf("streak %+v in the statistics, %+v on the home page; want %+v", st.Streak, h.Streak, tt.want)
			}
		})
	}
}

func TestSetDesiredRetention(t *testing.T) {
	ctx := context.Background()
	db := newTestDB(t)
	user := addStudyUser(t, db, "alice", studyUserOpts{})
	tests := []struct {
		r    float64
		user int64
		want error // nil: set
	}{
		{0.85, user, nil},
		{quiz.MinDesiredRetention, user, nil},
		{quiz.MaxDesiredRetention, user, nil},
		{0.69, user, quiz.SettingProblem{Code: quiz.RetentionOutOfRange}},
		{0.98, user, quiz.SettingProblem{Code: quiz.RetentionOutOfRange}},
		{math.NaN(), user, quiz.ErrInvalid},
		{0.9, 9999, quiz.ErrNotFound},
	}
	current := 0.9
	for _, tt := range tests {
		err := db.SetDesiredRetention(ctx, tt.user, tt.r)
		if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("SetDesiredRetention(%v) = %v, want %v", tt.r, err, tt.want)
		}
		if err == nil {
			current = tt.r
		}
		if got := learner(t, db, user).DesiredRetention; got != current {
			t.Errorf("after SetDesiredRetention(%v): %v, want %v", tt.r, got, current)
		}
	}
}
