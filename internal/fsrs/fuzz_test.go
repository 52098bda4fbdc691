package fsrs

import (
	"encoding/binary"
	"testing"
	"time"
)

// paramsFromBytes builds valid Params from fuzzer bytes: flags, retention,
// cap, step lists, then up to 21 weights spread over their allowed ranges
// (missing ones keep their defaults).
func paramsFromBytes(b []byte) Params {
	p := DefaultParams()
	at := func(i int) (byte, bool) {
		if i < len(b) {
			return b[i], true
		}
		return 0, false
	}
	if v, ok := at(0); ok {
		p.ShortTerm = v&1 == 0
		p.Fuzz = v&2 == 0
	}
	if v, ok := at(1); ok {
		p.DesiredRetention = 0.01 + 0.98*float64(v)/255 // 0.01 .. 0.99
	}
	if v, ok := at(2); ok && v >= 128 {
		p.MaximumInterval = 1 + int(v-128)*int(v-128)*2 // 1 .. about 32000
	}
	learning := [][]time.Duration{
		{time.Minute, 10 * time.Minute}, nil, {time.Minute}, {5 * time.Minute, time.Hour, day},
		{10 * time.Minute, 3 * day}, {23*time.Hour + 59*time.Minute, 24 * time.Hour},
	}
	relearning := [][]time.Duration{
		{10 * time.Minute}, nil, {5 * time.Minute, 20 * time.Minute}, {10 * time.Minute, time.Hour, day},
		{2 * day}, {time.Minute, 2 * time.Minute, 3 * time.Minute, 4 * time.Minute},
	}
	if v, ok := at(3); ok {
		p.LearningSteps = learning[int(v)%len(learning)]
		p.RelearningSteps = relearning[int(v/16)%len(relearning)]
	}
	w := DefaultWeights()
	b0 := weightBounds(w, len(p.RelearningSteps), p.ShortTerm)
	for i := range w {
		if v, ok := at(4 + i); ok {
			w[i] = b0[i][0] + (b0[i][1]-b0[i][0])*float64(v)/255
		}
	}
	// w17 and w18 may have a lower ceiling that depends on the others.
	b1 := weightBounds(w, len(p.RelearningSteps), p.ShortTerm)
	w[17], w[18] = clamp(w[17], b1[17][0], b1[17][1]), clamp(w[18], b1[18][0], b1[18][1])
	p.W = w
	return p
}

// FuzzReview answers a card with fuzzer-chosen settings, ratings and delays
// (0 seconds to 100 years) and checks the invariants after every answer.
// Each 5-byte group of ops is one answer: rating and delay scale, then a
// 32-bit delay.
func FuzzReview(f *testing.F) {
	f.Add([]byte{}, int64(1735689600), []byte{2, 0, 0, 0, 0, 2, 0x10, 0, 0, 0, 2, 0, 0x20, 0, 0})
	f.Add([]byte{1, 200, 130, 3}, int64(1700000000), []byte{3, 1, 1, 1, 1, 0, 255, 255, 255, 255, 15, 255, 255, 255, 255})
	f.Add([]byte{0, 128, 255, 0x35, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255},
		int64(-86400*365), []byte{4, 0, 0, 0, 0, 8, 100, 0, 0, 0, 12, 0, 0, 1, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{2, 255, 129, 0x51}, int64(253402300799-86400*36500*3), []byte{7, 9, 9, 9, 9, 11, 200, 200, 200, 200})
	// Day-length learning step whose Hard delay (36h05m) sends a card to
	// Review with a due time that is not a whole number of days away.
	f.Add([]byte("000X"), int64(243941500651), []byte("00000"))
	scales := [4]uint64{600, 2 * 86400, 400 * 86400, 36525 * 86400}
	f.Fuzz(func(t *testing.T, settings []byte, start int64, ops []byte) {
		p := paramsFromBytes(settings)
		s, err := NewScheduler(p)
		if err != nil {
			t.Fatalf("params from %v: %v", settings, err)
		}
		// Start between 1900 and about 2200.
		const lo, span = -2208988800, 300 * 365 * 86400
		now := time.Unix(lo+int64(uint64(start)%span), int64(uint64(start)%1e9))
		card := NewCard(now)
		for i := 0; i+5 <= len(ops) && i < 5*64; i += 5 {
			g := Rating(ops[i]%4 + 1)
			if i > 0 {
				limit := scales[(ops[i]>>2)%4]
				now = now.Add(time.Duration(uint64(binary.LittleEndian.Uint32(ops[i+1:]))%(limit+1)) * time.Second)
			}
			prev, err := s.Preview(card, now)
			if err != nil {
				t.Fatalf("answer %d: Preview: %v", i/5, err)
			}
			next, log, err := s.Review(card, g, now)
			if err != nil {
				t.Fatalf("answer %d: Review: %v", i/5, err)
			}
			if msg := checkTransition(s, card, g, now, next, log, prev); msg != "" {
				t.Fatalf("answer %d: card %+v, %v at %v, params %+v: %s", i/5, card, g, now, p, msg)
			}
			card = next
		}
	})
}
