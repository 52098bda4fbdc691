package fsrs

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

type benchCase struct {
	card Card
	g    Rating
	now  time.Time
}

// benchCases builds a realistic mix of cards (new, learning, review,
// relearning) by answering random ratings at plausible delays.
func benchCases(tb testing.TB, s *Scheduler) []benchCase {
	rng := rand.New(rand.NewPCG(42, 42))
	var cases []benchCase
	for c := 0; c < 64; c++ {
		now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(365 * day))))
		card := NewCard(now)
		for i := 0; i < 16; i++ {
			g := Rating(1 + rng.IntN(4))
			if rng.IntN(10) < 7 {
				g = Good
			}
			cases = append(cases, benchCase{card, g, now})
			next, _, err := s.Review(card, g, now)
			if err != nil {
				tb.Fatal(err)
			}
			card = next
			now = card.Due.Add(time.Duration(rng.Int64N(int64(card.Due.Sub(now)/2 + time.Minute))))
		}
	}
	return cases
}

// benchParams are the server defaults (interval spread on) and the same
// without the spread, whose seed hashing is most of the cost of a review.
func benchParams() []struct {
	name string
	p    Params
} {
	return []struct {
		name string
		p    Params
	}{{"defaults", DefaultParams()}, {"no-spread", referenceParams(true)}}
}

func BenchmarkReview(b *testing.B) {
	for _, bp := range benchParams() {
		b.Run(bp.name, func(b *testing.B) {
			s := mustScheduler(b, bp.p)
			cases := benchCases(b, s)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c := &cases[i%len(cases)]
				if _, _, err := s.Review(c.card, c.g, c.now); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkPreview(b *testing.B) {
	for _, bp := range benchParams() {
		b.Run(bp.name, func(b *testing.B) {
			s := mustScheduler(b, bp.p)
			cases := benchCases(b, s)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c := &cases[i%len(cases)]
				if _, err := s.Preview(c.card, c.now); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkReplay answers every review of a vectors file (KUBEQUIZ_FSRS_VECTORS,
// or else the shared public vectors), each card from a new card, and reports
// reviews per second. Parsing is done before the timer starts.
func BenchmarkReplay(b *testing.B) {
	path := vectorsPath(b)
	cards, err := loadVectors(path)
	if err != nil {
		b.Fatal(err)
	}
	type replay struct {
		s       *Scheduler
		start   time.Time
		times   []time.Time
		ratings []Rating
	}
	schedulers := map[string]*Scheduler{}
	replays := make([]replay, 0, len(cards))
	reviews := 0
	for _, vc := range cards {
		key := fmt.Sprintf("%+v", vc.Config)
		s, ok := schedulers[key]
		if !ok {
			p, err := vc.Config.params()
			if err != nil {
				b.Fatal(err)
			}
			s = mustScheduler(b, p)
			schedulers[key] = s
		}
		r := replay{s: s, start: vc.Start}
		for _, rv := range vc.Revs {
			r.times = append(r.times, rv.Time)
			r.ratings = append(r.ratings, Rating(rv.Rating))
		}
		reviews += len(vc.Revs)
		replays = append(replays, r)
	}
	if reviews == 0 {
		b.Fatalf("no review in %s", path)
	}
	b.ReportAllocs()
	sum := 0
	for b.Loop() {
		for i := range replays {
			r := &replays[i]
			card := NewCard(r.start)
			for j, at := range r.times {
				next, _, err := r.s.Review(card, r.ratings[j], at)
				if err != nil {
					b.Fatal(err)
				}
				card = next
				sum += card.ScheduledDays
			}
		}
	}
	b.ReportMetric(float64(reviews)*float64(b.N)/b.Elapsed().Seconds(), "reviews/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(reviews), "ns/review")
	if sum == 0 {
		b.Fatal("replay scheduled nothing")
	}
}
