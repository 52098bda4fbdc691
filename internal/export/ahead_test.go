package export

import (
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"testing"
)

// counting yields 0 to n-1, then err when not nil, and tells when it has
// stopped and how.
type counting struct {
	n        int
	err      error
	panicAt  int // yields up to here, then panics; -1 for never
	stopped  atomic.Bool
	returned atomic.Bool
}

func (c *counting) seq() iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		defer c.returned.Store(true)
		for i := range c.n {
			if i == c.panicAt {
				panic("broken row")
			}
			if !yield(i, nil) {
				c.stopped.Store(true)
				return
			}
		}
		if c.err != nil {
			yield(0, c.err)
		}
	}
}

// TestReadAhead: every row in order, then the error if any; a caller that
// stops early stops the rows' source, which has returned when the
// sequence does.
func TestReadAhead(t *testing.T) {
	errRows := errors.New("read failed")
	const batch = 4
	tests := []struct {
		name    string
		n       int
		err     error
		take    int // rows the caller reads before stopping; -1 for all
		wantErr error
	}{
		{"none", 0, nil, -1, nil},
		{"one", 1, nil, -1, nil},
		{"a batch less one", batch - 1, nil, -1, nil},
		{"a batch", batch, nil, -1, nil},
		{"a batch and one", batch + 1, nil, -1, nil},
		{"many batches", 10*batch + 3, nil, -1, nil},
		{"error after rows", 2*batch + 1, errRows, -1, errRows},
		{"error after whole batches", 2 * batch, errRows, -1, errRows},
		{"error first", 0, errRows, -1, errRows},
		{"stop in the first batch", 10 * batch, nil, 2, nil},
		{"stop at a batch's end", 10 * batch, nil, batch, nil},
		{"stop later", 10 * batch, nil, 5*batch + 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &counting{n: tt.n, err: tt.err, panicAt: -1}
			var got []int
			var gotErr error
			for r, err := range readAhead(src.seq(), batch) {
				if err != nil {
					gotErr = err
					continue
				}
				got = append(got, r)
				if len(got) == tt.take {
					break
				}
			}
			if !src.returned.Load() {
				t.Error("the source is still running after the sequence returned")
			}
			want := tt.n
			if tt.take >= 0 {
				want = tt.take
				if !src.stopped.Load() {
					t.Error("the source was not stopped")
				}
			}
			wantRows := make([]int, want)
			for i := range wantRows {
				wantRows[i] = i
			}
			if !slices.Equal(got, wantRows) {
				t.Errorf("rows %v, want 0 to %d", got, want-1)
			}
			if !errors.Is(gotErr, tt.wantErr) {
				t.Errorf("error %v, want %v", gotErr, tt.wantErr)
			}
		})
	}
}

// TestReadAheadPanic: a panic of the source reaches the caller, after the
// rows before it.
func TestReadAheadPanic(t *testing.T) {
	src := &counting{n: 10, panicAt: 6}
	var got []int
	defer func() {
		if p := recover(); p != "broken row" {
			t.Errorf("recovered %v, want the source's panic", p)
		}
		if len(got) != 4 {
			t.Errorf("%d rows before the panic, want the 4 of the batches sent", len(got))
		}
	}()
	for r, err := range readAhead(src.seq(), 4) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	t.Error("no panic")
}
