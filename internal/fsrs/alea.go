package fsrs

import "strconv"

// The reference implementation draws the fuzz factor from Alea, a small
// floating-point PRNG by Johannes Baagøe (MIT licence), seeded with the text
// "<review time in ms>_<reps after this review>_<difficulty*stability before>".
// Porting it keeps the spread identical to the reference, so vectors
// generated with fuzz enabled can be checked exactly, and makes the fuzzed
// interval a pure function of the card and the review time.

const twoPow32Inv = 2.3283064365386963e-10 // 2^-32

// mash is Alea's string hash. Its state carries over from call to call.
type mash struct{ n float64 }

func newMash() mash { return mash{n: 0xefc8249d} }

// hash feeds data (ASCII) into the state and returns a value in [0, 1).
func (m *mash) hash(data []byte) float64 {
	n := m.n
	for _, ch := range data {
		n += float64(ch)
		h := 0.02519603282416938 * n
		n = float64(toUint32(h))
		h -= n
		h *= n
		n = float64(toUint32(h))
		h -= n
		n += float64(h * 0x100000000)
	}
	m.n = n
	return float64(toUint32(n)) * twoPow32Inv
}

// toUint32 is JavaScript's x >>> 0 for the values Mash produces: finite,
// non-negative and below 2^34, so the conversion through int64 is exact and
// compiles to a single instruction.
func toUint32(x float64) uint32 { return uint32(int64(x)) }

// aleaFirst returns the first number Alea produces for seed. Only the first
// of Alea's three state words (and the carry, which starts at 1) enters the
// first draw, so the hashing that would initialise the other two is skipped.
func aleaFirst(seed []byte) float64 {
	m := newMash()
	space := []byte{' '}
	s0 := m.hash(space)
	m.hash(space)
	m.hash(space)
	s0 -= m.hash(seed)
	if s0 < 0 {
		s0++
	}
	const c = 1.0
	t := float64(2091639*s0) + float64(c*twoPow32Inv)
	return t - float64(int32(t))
}

// fuzzFactor returns the reference's fuzz factor in [0, 1) for a review at
// unixMilli, the card's repetition count after the review and the product of
// difficulty and stability before it.
func fuzzFactor(unixMilli int64, reps int, ds float64) float64 {
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], unixMilli, 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(reps), 10)
	b = append(b, '_')
	b = appendJSNumber(b, ds)
	return aleaFirst(b)
}

// appendJSNumber appends x (finite, not negative) formatted like
// JavaScript's String(x): the shortest decimal that reads back as x, in
// positional notation from 1e-6 up to 1e21 and in exponent notation outside.
func appendJSNumber(b []byte, x float64) []byte {
	if x == 0 || (x >= 1e-6 && x < 1e21) {
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	}
	// Go writes "1.5e-07" where JavaScript writes "1.5e-7".
	start := len(b)
	b = strconv.AppendFloat(b, x, 'e', -1, 64)
	for i := start; i < len(b); i++ {
		if b[i] == 'e' {
			j := i + 2 // after the exponent's sign
			k := j
			for k < len(b)-1 && b[k] == '0' {
				k++
			}
			b = append(b[:j], b[k:]...)
			break
		}
	}
	return b
}
