package csvx

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// cell is one cell to write: its kind is the method that writes it.
type cell func(w *Writer)

func text(s string) cell   { return func(w *Writer) { w.Text(s) } }
func integer(n int64) cell { return func(w *Writer) { w.Int(n) } }
func float(f float64) cell { return func(w *Writer) { w.Float(f) } }
func at(t time.Time) cell  { return func(w *Writer) { w.Time(t) } }
func empty() cell          { return func(w *Writer) { w.Empty() } }
func write(w *Writer, c ...cell) error {
	for _, f := range c {
		f(w)
	}
	return w.End()
}

// TestCells writes one record of one cell under a header and reads it back
// with encoding/csv: what a spreadsheet gets, and the exact bytes.
func TestCells(t *testing.T) {
	tests := []struct {
		name     string
		cell     cell
		want     string // the cell read back
		wantLine string // the record as written, line end included
	}{
		{"plain text", text("ImageVolume"), "ImageVolume", "ImageVolume\r\n"},
		{"formula", text("=1+1"), "'=1+1", "'=1+1\r\n"},
		{"formula with a comma", text("=SUM(A1,A2)"), "'=SUM(A1,A2)", "\"'=SUM(A1,A2)\"\r\n"},
		{"plus", text("+81 3"), "'+81 3", "'+81 3\r\n"},
		{"minus", text("-1"), "'-1", "'-1\r\n"},
		{"at", text("@SUM(A1)"), "'@SUM(A1)", "'@SUM(A1)\r\n"},
		{"tab", text("\t=1"), "'\t=1", "'\t=1\r\n"},
		// encoding/csv, writing CRLF line ends, drops a lone carriage return.
		{"carriage return", text("\r=1"), "'=1", "\"'=1\"\r\n"},
		{"equals inside", text("a=b"), "a=b", "a=b\r\n"},
		{"apostrophe first", text("'quoted"), "'quoted", "'quoted\r\n"},
		{"space then equals", text(" =1"), " =1", "\" =1\"\r\n"},
		{"full-width equals", text("＝1"), "＝1", "＝1\r\n"},
		{"Japanese", text("もう一度"), "もう一度", "もう一度\r\n"},
		{"quotes", text(`say "hi"`), `say "hi"`, "\"say \"\"hi\"\"\"\r\n"},
		{"comma", text("a, b"), "a, b", "\"a, b\"\r\n"},
		{"line break", text("line 1\nline 2"), "line 1\nline 2", "\"line 1\r\nline 2\"\r\n"},
		{"CRLF line break", text("line 1\r\nline 2"), "line 1\nline 2", "\"line 1\r\nline 2\"\r\n"},
		{"empty text", text(""), "", "\r\n"},
		{"negative integer", integer(-5), "-5", "-5\r\n"},
		{"integer", integer(1234567890123), "1234567890123", "1234567890123\r\n"},
		{"negative float", float(-2.5), "-2.5", "-2.5\r\n"},
		{"small float, no exponent", float(0.00001), "0.00001", "0.00001\r\n"},
		{"large float, no exponent", float(36500), "36500", "36500\r\n"},
		{"float digits", float(0.90123456), "0.90123456", "0.90123456\r\n"},
		{"NaN", float(math.NaN()), "", "\r\n"},
		{"infinity", float(math.Inf(-1)), "", "\r\n"},
		{"time", at(time.Date(2026, 3, 10, 21, 4, 5, 678_000_000, time.FixedZone("JST", 9*3600))), "2026-03-10T12:04:05.678Z", "2026-03-10T12:04:05.678Z\r\n"},
		{"zero time", at(time.Time{}), "", "\r\n"},
		{"empty", empty(), "", "\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b, Options{}, "value")
			if err := write(w, tt.cell); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			line, ok := strings.CutPrefix(b.String(), "value\r\n")
			if !ok {
				t.Fatalf("output %q does not start with the header", b.String())
			}
			if line != tt.wantLine {
				t.Errorf("record written as %q, want %q", line, tt.wantLine)
			}
			recs := readBack(t, b.Bytes())
			if len(recs) != 2 || len(recs[1]) != 1 {
				if tt.want == "" && len(recs) == 1 {
					return // an empty record is a blank line, which readers skip
				}
				t.Fatalf("read back %q", recs)
			}
			if recs[1][0] != tt.want {
				t.Errorf("read back %q, want %q", recs[1][0], tt.want)
			}
		})
	}
}

func readBack(t *testing.T, b []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("read back %q: %v", b, err)
	}
	return recs
}

// TestTable writes a table of Japanese text, with and without the byte
// order mark, and reads it back whole.
func TestTable(t *testing.T) {
	header := []string{"deck", "prompt", "answer", "rating", "elapsed_ms", "reviewed_at"}
	when := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	rows := [][]cell{
		{text("v1-36-sig-node"), text("ImageVolume が GA になったのは?"), text("=1+1"), text("もう一度"), integer(4200), at(when)},
		{text("v1-36-sig-node"), text("空欄を埋めよ: \"{{x}}\", 改行\nあり"), text("-beta"), text("簡単"), integer(-1), empty()},
	}
	want := [][]string{
		header,
		{"v1-36-sig-node", "ImageVolume が GA になったのは?", "'=1+1", "もう一度", "4200", "2026-03-10T12:00:00.000Z"},
		{"v1-36-sig-node", "空欄を埋めよ: \"{{x}}\", 改行\nあり", "'-beta", "簡単", "-1", ""},
	}
	for _, bom := range []bool{false, true} {
		t.Run(map[bool]string{false: "without BOM", true: "with BOM"}[bom], func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b, Options{BOM: bom}, header...)
			for _, r := range rows {
				if err := write(w, r...); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			out := b.Bytes()
			if got := bytes.HasPrefix(out, []byte{0xEF, 0xBB, 0xBF}); got != bom {
				t.Fatalf("starts with a byte order mark: %v, want %v", got, bom)
			}
			got := readBack(t, bytes.TrimPrefix(out, []byte(BOM)))
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("read back\n%q\nwant\n%q", got, want)
			}
			if !bytes.HasSuffix(out, []byte("\r\n")) || bytes.Count(out, []byte("\r\n")) != bytes.Count(out, []byte("\n")) {
				t.Errorf("line ends are not all CRLF: %q", out)
			}
		})
	}
}

// TestRecordWidth: a record of another width than the header's is refused,
// and so is everything after it.
func TestRecordWidth(t *testing.T) {
	tests := []struct {
		name  string
		cells []cell
		ok    bool
	}{
		{"as wide", []cell{text("a"), integer(1)}, true},
		{"narrower", []cell{text("a")}, false},
		{"wider", []cell{text("a"), integer(1), empty()}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b, Options{}, "a", "b")
			err := write(w, tt.cells...)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrRecordWidth)) {
				t.Fatalf("End = %v, want ok %v", err, tt.ok)
			}
			if err := write(w, text("x"), text("y")); (err == nil) != tt.ok {
				t.Errorf("End after = %v, want ok %v", err, tt.ok)
			}
			if err := w.Flush(); (err == nil) != tt.ok {
				t.Errorf("Flush = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// failing fails every write.
type failing struct{}

var errDisk = errors.New("disk full")

func (failing) Write([]byte) (int, error) { return 0, errDisk }

// TestWriteError: the underlying writer's error comes out of Flush, or of
// End once the buffer fills, and sticks.
func TestWriteError(t *testing.T) {
	w := NewWriter(failing{}, Options{BOM: true}, "text")
	long := strings.Repeat("x", 1000)
	var err error
	for range 2 * bufferSize / len(long) {
		if err = write(w, text(long)); err != nil {
			break
		}
	}
	if !errors.Is(err, errDisk) {
		t.Fatalf("End after filling the buffer = %v, want %v", err, errDisk)
	}
	if err := w.Flush(); !errors.Is(err, errDisk) {
		t.Errorf("Flush = %v, want %v", err, errDisk)
	}
}

// TestNoAllocationsPerNumber: a record of numbers and times costs one
// allocation, whatever its width.
func TestNoAllocationsPerNumber(t *testing.T) {
	w := NewWriter(&bytes.Buffer{}, Options{}, "a", "b", "c", "d", "e", "f")
	when := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	allocs := testing.AllocsPerRun(1000, func() {
		w.Int(1)
		w.Int(-22)
		w.Float(0.5)
		w.Time(when)
		w.Text("plain")
		w.Empty()
		if err := w.End(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations per record, want at most 1", allocs)
	}
}
