package bank

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostileHeader is a valid deck and the start of a question whose choices
// the hostile inputs fill in; the choices start on line 11, column 14.
const hostileHeader = `deck:
  slug: s
  title: T
  release: "1.36"
  language: en
questions:
  - id: q1
    type: single_choice
    prompt: p
    explanation: e
    choices: `

// billionLaughs is the classic alias bomb: nine levels of nine aliases.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for c := 'b'; c <= 'i'; c++ {
		prev := string(c - 1)
		fmt.Fprintf(&b, "%c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ","))
	}
	return b.String()
}

// aliasAmplification is an alias bomb that fits the schema: one question
// anchors a list of 10,000 choices and 500 others alias it.
func aliasAmplification() string {
	var b strings.Builder
	b.WriteString(hostileHeader + "&c [")
	for i := range 10000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "c%d", i)
	}
	b.WriteString("]\n    answer: c1\n    source: {prs: [1]}\n")
	for i := range 500 {
		fmt.Fprintf(&b, "  - {id: a%d, type: single_choice, prompt: p, choices: *c, answer: c1, explanation: e, source: {prs: [1]}}\n", i)
	}
	return b.String()
}

// flatMap is a deck with n unknown keys: quadratic duplicate checks would
// show here.
func flatMap(n int) string {
	var b strings.Builder
	b.WriteString("deck:\n")
	for i := range n {
		fmt.Fprintf(&b, "  k%05d: v\n", i)
	}
	return b.String()
}

// TestHostileInputs decodes the hostile inputs of security.md section 4 that
// are too large or too regular to keep as files. Each must be refused with a
// position; time and memory are logged, and memory is bounded.
func TestHostileInputs(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		want      want // must be among the problems
		problems  int  // exact number of problems, the summary line included
		tooLarge  bool
		maxAllocs int64 // bytes allocated by Decode, at most
	}{
		{name: "billion laughs", data: billionLaughs(),
			want: want{2, 4, "b", "anchor &b"}, problems: 92, maxAllocs: 8 << 20},
		{name: "alias amplification in schema", data: aliasAmplification(),
			want: want{11, 14, "questions[0].choices", "has 10000 entries, over the limit of 100"}, problems: 101, maxAllocs: 64 << 20},
		{name: "self-referential anchor", data: hostileHeader + "&self [a, *self]\n    answer: a\n    source: {prs: [1]}\n",
			want: want{11, 24, "questions[0].choices[1]", "alias *self"}, problems: 2, maxAllocs: 1 << 20},
		{name: "1 MiB of [", data: strings.Repeat("[", 1<<20),
			want: want{0, 0, "", "over the limit of 262144 bytes"}, problems: 1, tooLarge: true, maxAllocs: 1 << 20},
		{name: "200 KiB of [", data: strings.Repeat("[", 200<<10),
			want: want{1, 0, "", "invalid YAML: exceeded max depth of 10000"}, problems: 1, maxAllocs: 32 << 20},
		{name: "200 KiB of {", data: "x: " + strings.Repeat("{", 200<<10),
			want: want{1, 0, "", "invalid YAML: exceeded max depth of 10000"}, problems: 1, maxAllocs: 32 << 20},
		{name: "100k block sequence indents", data: strings.Repeat("- ", 100000),
			want: want{1, 0, "", "invalid YAML: exceeded max depth of 10000"}, problems: 1, maxAllocs: 32 << 20},
		{name: "nesting past the limit", data: hostileHeader + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n    answer: a\n    source: {prs: [1]}\n",
			want: want{11, 44, "questions[0].choices" + strings.Repeat("[0]", 30), "nested deeper than 32 levels"}, problems: 3, maxAllocs: 1 << 20},
		{name: "15k-key flat map", data: flatMap(15000),
			want: want{2, 3, "deck.k00000", `unknown field "k00000"`}, problems: 101, maxAllocs: 64 << 20},
		{name: "2 MiB scalar", data: "deck: " + strings.Repeat("x", 2<<20),
			want: want{0, 0, "", "file is 2097158 bytes"}, problems: 1, tooLarge: true, maxAllocs: 1 << 20},
		{name: "200 KiB prompt", data: strings.Replace(hostileHeader, "prompt: p", "prompt: "+strings.Repeat("ab ", 200<<10/3), 1) + "[a, b]\n    answer: a\n    source: {prs: [1]}\n",
			want: want{9, 13, "questions[0].prompt", "is 204797 bytes long, over the limit of 8192"}, problems: 1, maxAllocs: 16 << 20},
		{name: "many short lines of NUL", data: strings.Repeat("\x00\n", 100<<10),
			want: want{1, 1, "", "NUL byte"}, problems: 101, maxAllocs: 16 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Decode("hostile.yaml", data)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("%d bytes: %v, %.1f MiB allocated", len(data), took.Round(time.Microsecond), float64(alloc)/(1<<20))

			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error = %v (%T), want *bank.Error", err, err)
			}
			if !slices.ContainsFunc(e.Problems, func(p Problem) bool {
				w := tt.want
				return p.Line == w.line && p.Col == w.col && p.Field == w.field && strings.Contains(p.Msg, w.frag)
			}) {
				t.Errorf("no problem %v among:\n%v", tt.want, e)
			}
			if len(e.Problems) != tt.problems {
				t.Errorf("got %d problems, want %d:\n%v", len(e.Problems), tt.problems, e)
			}
			if got := errors.Is(err, ErrTooLarge); got != tt.tooLarge {
				t.Errorf("errors.Is(err, ErrTooLarge) = %v, want %v", got, tt.tooLarge)
			}
			if alloc > tt.maxAllocs {
				t.Errorf("Decode allocated %d bytes, want at most %d", alloc, tt.maxAllocs)
			}
		})
	}
}
