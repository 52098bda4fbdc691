package bank

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestDecodeAll(t *testing.T) {
	good, err := os.ReadFile("testdata/good/all-types.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile("testdata/bad/unknown-type.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		inputs       []Input
		wantFiles    int
		wantProblems []string // fragments, one per problem, in order
		wantTooLarge bool
	}{
		{"all good", []Input{{Name: "a.yaml", Data: good}}, 1, nil, false},
		{"one bad file spoils all", []Input{{Name: "a.yaml", Data: good}, {Name: "b.yaml", Data: bad}}, 0,
			[]string{`b.yaml:8:11: questions[0].type: unknown type "essay"`}, false},
		{"size from the reader", []Input{{Name: "big.yaml", Data: good[:10], Size: MaxFileSize + 5}}, 0,
			[]string{"big.yaml: file is 262149 bytes, over the limit"}, true},
		{"problems of every file", []Input{{Name: "b1.yaml", Data: bad}, {Name: "e.yaml", Data: nil}}, 0,
			[]string{"b1.yaml:8:11", "e.yaml: file is empty"}, false},
		{"two files of one deck", []Input{{Name: "a.yaml", Data: good}, {Name: "a2.yaml", Data: good}}, 0,
			[]string{`a2.yaml: deck.slug: deck "v1-36-sig-node" is also in a.yaml`}, false},
		{"one file twice", []Input{{Name: "a.yaml", Data: good}, {Name: "a.yaml", Data: good}}, 0,
			[]string{`a.yaml: deck.slug: deck "v1-36-sig-node" is also in a.yaml, uploaded with it`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeAll(tt.inputs)
			if len(tt.wantProblems) == 0 {
				if err != nil {
					t.Fatalf("DecodeAll: %v", err)
				}
				if len(got) != tt.wantFiles || got[0].SHA256 == "" || got[0].File.Deck.Slug == "" {
					t.Fatalf("DecodeAll = %+v", got)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("DecodeAll err = %v, want *Error", err)
			}
			if got != nil {
				t.Errorf("DecodeAll returned files along with problems")
			}
			if len(e.Problems) != len(tt.wantProblems) {
				t.Fatalf("problems = %v, want %d", e.Problems, len(tt.wantProblems))
			}
			for i, w := range tt.wantProblems {
				if !strings.Contains(e.Problems[i].String(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, e.Problems[i], w)
				}
			}
			if errors.Is(err, ErrTooLarge) != tt.wantTooLarge {
				t.Errorf("errors.Is(err, ErrTooLarge) = %v, want %v", !tt.wantTooLarge, tt.wantTooLarge)
			}
		})
	}
}
