// Package csvx writes CSV files for spreadsheets: RFC 4180 records through
// encoding/csv (a header row first, CRLF line ends, fields quoted where
// they need it), an optional UTF-8 byte order mark, and text that a
// spreadsheet would take for a formula neutralised.
//
// The caller gives each cell's kind by the method it writes it with, so the
// kind follows the column, never the content: a text cell (Text) that
// starts with '=', '+', '-', '@', a tab or a carriage return gets a leading
// apostrophe, which spreadsheets show as text instead of running it as a
// formula; numbers (Int, Float) and times (Time) are written as they are, a
// negative number with its minus sign.
//
// A line break within a cell is written as CRLF too, and read back by
// encoding/csv as "\n"; a lone carriage return within a cell is dropped
// (encoding/csv's CRLF mode).
//
// A Writer only wraps an io.Writer: it buffers its output and writes it
// through on Flush and whenever its buffer fills.
package csvx

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// BOM is the UTF-8 byte order mark. Excel reads a CSV file that starts with
// it as UTF-8; without it, as the system's legacy code page.
const BOM = "\uFEFF"

// TimeLayout is how Time writes a time: ISO 8601 in UTC to the millisecond.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// bufferSize is the size of the Writer's buffer.
const bufferSize = 64 << 10

// Options change what a Writer writes.
type Options struct {
	// BOM starts the output with a UTF-8 byte order mark, for Excel.
	BOM bool
}

// ErrRecordWidth means a record did not have as many cells as the header.
var ErrRecordWidth = errors.New("csvx: record width differs from the header's")

// Writer writes one CSV table: its header, then records built a cell at a
// time and ended with End. After the first error every call returns it.
// A Writer is not safe for concurrent use.
type Writer struct {
	buf *bufio.Writer
	csv *csv.Writer
	// rec is the record being built. Its number cells are slices of one
	// string made at End from num, so that a record costs one allocation
	// for all of them.
	rec   []string
	num   []byte
	spans []span
	width int
	err   error
}

// span is a number cell of the record being built: its index in rec and
// its bytes in num.
type span struct{ cell, from, to int }

// NewWriter returns a Writer of a table with the given header to w, with
// the byte order mark first when opt asks for it. Nothing reaches w before
// the buffer fills or Flush is called.
func NewWriter(w io.Writer, opt Options, header ...string) *Writer {
	buf := bufio.NewWriterSize(w, bufferSize)
	cw := csv.NewWriter(buf) // writes into buf itself: it is large enough
	cw.UseCRLF = true
	x := &Writer{buf: buf, csv: cw, width: len(header), rec: make([]string, 0, len(header))}
	if opt.BOM {
		if _, err := buf.WriteString(BOM); err != nil {
			x.err = fmt.Errorf("csvx: write byte order mark: %w", err)
			return x
		}
	}
	if err := cw.Write(header); err != nil {
		x.err = fmt.Errorf("csvx: write header: %w", err)
	}
	return x
}

// Text adds a text cell. One that starts with '=', '+', '-', '@', a tab or
// a carriage return gets a leading apostrophe.
func (w *Writer) Text(s string) {
	if NeedsNeutralising(s) {
		s = "'" + s
	}
	w.rec = append(w.rec, s)
}

// NeedsNeutralising reports whether a spreadsheet could read text s as a
// formula: whether it starts with '=', '+', '-', '@', a tab or a carriage
// return.
func NeedsNeutralising(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// Empty adds an empty cell: a value that is not there.
func (w *Writer) Empty() { w.rec = append(w.rec, "") }

// Int adds an integer cell.
func (w *Writer) Int(n int64) {
	from := len(w.num)
	w.num = strconv.AppendInt(w.num, n, 10)
	w.number(from)
}

// Float adds a number cell with the fewest digits that read back as f,
// without an exponent ("0.00001", "36500", "-2.5"). NaN and infinities,
// which spreadsheets cannot read, are empty cells.
func (w *Writer) Float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.Empty()
		return
	}
	from := len(w.num)
	w.num = strconv.AppendFloat(w.num, f, 'f', -1, 64)
	w.number(from)
}

// Time adds a time cell in TimeLayout (ISO 8601, UTC, milliseconds); the
// zero time is an empty cell.
func (w *Writer) Time(t time.Time) {
	if t.IsZero() {
		w.Empty()
		return
	}
	from := len(w.num)
	w.num = appendTime(w.num, t.UTC())
	w.number(from)
}

// appendTime appends t, in UTC, in TimeLayout: digit by digit for the
// years 0 to 9999, several times as fast as AppendFormat, which formats
// the others.
func appendTime(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, TimeLayout)
	}
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = appendDigits(append(b, '-'), int(mo), 2)
	b = appendDigits(append(b, '-'), d, 2)
	b = appendDigits(append(b, 'T'), h, 2)
	b = appendDigits(append(b, ':'), mi, 2)
	b = appendDigits(append(b, ':'), s, 2)
	b = appendDigits(append(b, '.'), t.Nanosecond()/1e6, 3)
	return append(b, 'Z')
}

// appendDigits appends n, 0 <= n < 10^width, in width digits.
func appendDigits(b []byte, n, width int) []byte {
	start := len(b)
	for range width {
		b = append(b, '0')
	}
	for i := len(b) - 1; i >= start && n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// number records num[from:] as the next cell.
func (w *Writer) number(from int) {
	w.spans = append(w.spans, span{len(w.rec), from, len(w.num)})
	w.rec = append(w.rec, "")
}

// End writes the record built since the last End. A record of another
// width than the header's is ErrRecordWidth, and nothing is written.
func (w *Writer) End() error {
	if w.err != nil {
		return w.err
	}
	defer w.reset()
	if len(w.rec) != w.width {
		w.err = fmt.Errorf("%w: %d cells, header has %d", ErrRecordWidth, len(w.rec), w.width)
		return w.err
	}
	if len(w.spans) > 0 {
		nums := string(w.num)
		for _, s := range w.spans {
			w.rec[s.cell] = nums[s.from:s.to]
		}
	}
	if err := w.csv.Write(w.rec); err != nil {
		w.err = fmt.Errorf("csvx: write record: %w", err)
	}
	return w.err
}

func (w *Writer) reset() {
	clear(w.rec) // drop the record's strings
	w.rec, w.num, w.spans = w.rec[:0], w.num[:0], w.spans[:0]
}

// Flush writes everything buffered to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		w.err = fmt.Errorf("csvx: flush: %w", err)
	}
	return w.err
}
