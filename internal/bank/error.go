package bank

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"kubequiz/internal/quiz"
)

// ErrTooLarge is matched (errors.Is) by an *Error for a file over MaxFileSize,
// so that an upload handler can answer 413 instead of 400.
var ErrTooLarge = errors.New("bank: file too large")

// maxProblems caps the problems reported for one file; the rest are
// summarised on one last line.
const maxProblems = 100

// Problem is one thing wrong with a question file. Line and Col are 1-based;
// 0 means unknown or not applicable (a problem with the whole file has
// neither, a YAML syntax error has no column). Col counts characters, not
// bytes. Field is the full path of the field in YAML terms, such as
// "deck.release" or "questions[3].choices[1]", or "" when no field applies.
type Problem struct {
	File  string
	Line  int
	Col   int
	Field string
	Msg   string
}

// String formats p as "file:line:col: field: message", leaving out the parts
// that are unknown, so that editors and terminals can jump to the spot.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
		if p.Col > 0 {
			b.WriteString(":" + strconv.Itoa(p.Col))
		}
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error lists every problem found in one file, sorted by position. It is
// the only error type Decode returns. errors.Is(err, quiz.ErrInvalid) holds
// for every *Error, and errors.Is(err, ErrTooLarge) when the file was
// refused for its size.
type Error struct {
	Problems []Problem
	tooLarge bool
}

// Error prints one problem per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Is reports whether target is quiz.ErrInvalid, or ErrTooLarge for a file
// refused for its size.
func (e *Error) Is(target error) bool {
	return target == quiz.ErrInvalid || (target == ErrTooLarge && e.tooLarge)
}

// problems collects the problems of one file.
type problems struct {
	file    string
	list    []Problem
	dropped int // problems counted but not kept
}

func (ps *problems) add(line, col int, field, msg string) {
	ps.list = append(ps.list, Problem{File: ps.file, Line: line, Col: col, Field: field, Msg: msg})
}

func (ps *problems) addf(line, col int, field, format string, args ...any) {
	ps.add(line, col, field, fmt.Sprintf(format, args...))
}

// err returns nil when nothing was found, or an *Error with the problems
// sorted by position and capped at maxProblems plus one summary line.
func (ps *problems) err() *Error {
	if len(ps.list) == 0 {
		return nil
	}
	list := ps.list
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Line != list[j].Line {
			return list[i].Line < list[j].Line
		}
		return list[i].Col < list[j].Col
	})
	if len(list) > maxProblems {
		next := list[maxProblems]
		more := len(list) - maxProblems + ps.dropped
		list = append(list[:maxProblems:maxProblems], Problem{
			File: ps.file,
			Line: next.Line,
			Msg:  fmt.Sprintf("too many errors, %d more not shown", more),
		})
	}
	return &Error{Problems: list}
}
