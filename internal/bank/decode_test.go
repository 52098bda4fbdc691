package bank

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
)

func ptr[T any](v T) *T { return &v }

// want describes one expected problem: its position, field and a fragment
// of its message.
type want struct {
	line, col int
	field     string
	frag      string
}

func (w want) String() string {
	return fmt.Sprintf("%d:%d %s: ...%s...", w.line, w.col, w.field, w.frag)
}

// decodeErr decodes data and returns its problems, failing the test when
// Decode succeeds or returns anything but a *Error.
func decodeErr(t *testing.T, name string, data []byte) *Error {
	t.Helper()
	f, err := Decode(name, data)
	if err == nil {
		t.Fatalf("Decode(%s) = %d questions, nil error; want an error", name, len(f.Questions))
	}
	if f != nil {
		t.Errorf("Decode(%s) returned a file along with its error", name)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Decode(%s) error is %T, want *bank.Error", name, err)
	}
	if !errors.Is(err, quiz.ErrInvalid) {
		t.Errorf("errors.Is(err, quiz.ErrInvalid) = false, want true")
	}
	return e
}

// checkProblems compares problems with wants, one to one and in order, and
// checks that each problem prints as "name:line:col: field: message".
func checkProblems(t *testing.T, name string, got []Problem, wants []want) {
	t.Helper()
	for i := 0; i < max(len(got), len(wants)); i++ {
		switch {
		case i >= len(got):
			t.Errorf("problem %d missing, want %v", i, wants[i])
			continue
		case i >= len(wants):
			t.Errorf("unexpected problem %d: %s", i, got[i])
			continue
		}
		p, w := got[i], wants[i]
		if p.File != name || p.Line != w.line || p.Col != w.col || p.Field != w.field || !strings.Contains(p.Msg, w.frag) {
			t.Errorf("problem %d = %s\nwant %v", i, p, w)
		}
		prefix := fmt.Sprintf("%s:%d:%d: ", name, w.line, w.col)
		switch {
		case w.line == 0:
			prefix = name + ": "
		case w.col == 0:
			prefix = fmt.Sprintf("%s:%d: ", name, w.line)
		}
		if w.field != "" {
			prefix += w.field + ": "
		}
		if s := p.String(); !strings.HasPrefix(s, prefix) {
			t.Errorf("problem %d prints as %q, want prefix %q", i, s, prefix)
		}
	}
}

func TestDecodeAllTypes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode("all-types.yaml", data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	wantDeck := quiz.Deck{
		Slug: "v1-36-sig-node", Title: "v1.36 SIG-Node", Release: "1.36", SIG: "SIG-Node",
		Language: "ja", Description: "kubelet とノードまわりの 1.36 の変更",
	}
	if f.Name != "all-types.yaml" {
		t.Errorf("Name = %q, want all-types.yaml", f.Name)
	}
	if f.Deck != wantDeck {
		t.Errorf("Deck = %+v\nwant %+v", f.Deck, wantDeck)
	}
	wantQuestions := []quiz.Question{
		{
			ExtID: "imagevolume-ga", Type: quiz.SingleChoice,
			Prompt:      "ImageVolume が GA (stable) になったのはどのリリース?",
			Choices:     []string{"1.34", "1.35", "1.36", "1.37"},
			Answer:      "1.36",
			Explanation: "OCI イメージをボリュームとしてマウントする機能。1.31 で alpha、1.36 で GA。",
			Source: quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "feature", PRs: []int{136711},
				URL: "https://kubernetes.io/docs/concepts/storage/volumes/#image"},
			Tags: []string{"ImageVolume", "stage"},
		},
		{
			ExtID: "ga-in-1-36", Type: quiz.MultiChoice,
			Prompt:      "1.36 で GA になった機能をすべて選べ",
			Choices:     []string{"ImageVolume", "KubeletPSI", "MemoryQoS", "PLEGOnDemandRelist"},
			Answers:     []string{"ImageVolume", "KubeletPSI"},
			Explanation: "ImageVolume と KubeletPSI が GA。MemoryQoS は beta のまま。",
			Source:      quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "feature", PRs: []int{136711, 136548}},
		},
		{
			ExtID: "memoryqos-ga-false", Type: quiz.TrueFalse,
			Prompt:      "MemoryQoS は 1.36 で GA になった。",
			Truth:       ptr(false),
			Explanation: "MemoryQoS は 1.36 でも GA ではない。",
			Source:      quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "feature", PRs: []int{137584}},
		},
		{
			ExtID: "imagevolume-cloze", Type: quiz.Cloze,
			Prompt:      "{{ImageVolume|image volume}} フィーチャーゲートが 1.36 で GA になった",
			Explanation: "ImageVolume は 1.36 で GA。",
			Source:      quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "feature", PRs: []int{136711}},
		},
		{
			ExtID: "reservation-policy-typed", Type: quiz.Typed,
			Prompt:      "Guaranteed Pod に memory.min を設定させる MemoryReservationPolicy の値は?",
			Answer:      "TieredReservation",
			Accept:      []string{"Tiered Reservation"},
			Explanation: "TieredReservation を指定すると Guaranteed Pod に memory.min が設定される。",
			Source:      quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "api-change", PRs: []int{137584}},
		},
		{
			ExtID: "imagevolume-timeline", Type: quiz.Order,
			Prompt:      "ImageVolume の段階を古い順に並べよ",
			Items:       []string{"alpha (1.31)", "beta (1.33)", "デフォルト有効 (1.35)", "GA (1.36)"},
			Explanation: "1.31 で alpha、1.33 で beta、1.35 でデフォルト有効、1.36 で GA。",
			Source:      quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "feature", PRs: []int{136711}},
		},
		{
			ExtID: "memory-low-card", Type: quiz.Flashcard,
			Prompt:      "cgroup v2 の memory.low とは?",
			Answer:      "ソフトな保護。\n保護のない cgroup に回収できるメモリが残っている間は回収されない。\n",
			Explanation: "memory.min はハードな保護、memory.low はソフトな保護。",
			Source:      quiz.Source{Release: "1.36", SIG: "SIG-Node", Kind: "concept", PRs: []int{137584}},
		},
	}
	if len(f.Questions) != len(wantQuestions) {
		t.Fatalf("got %d questions, want %d", len(f.Questions), len(wantQuestions))
	}
	for i, want := range wantQuestions {
		if got := f.Questions[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("question %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if wantLines := []int{10, 24, 32, 39, 45, 53, 60}; !reflect.DeepEqual(f.Lines, wantLines) {
		t.Errorf("Lines = %v, want %v", f.Lines, wantLines)
	}
}

// TestDecodeKeepsText checks that scalars keep the text they were written
// with, whatever YAML type they would resolve to.
func TestDecodeKeepsText(t *testing.T) {
	tests := []struct {
		name     string
		deck     map[string]string // deck fields written over the defaults
		question map[string]string // question fields written over the defaults
		get      func(f *File) string
		want     string
	}{
		{"deck release 1.30", map[string]string{"release": "1.30"}, nil, func(f *File) string { return f.Deck.Release }, "1.30"},
		{"deck release 1.10", map[string]string{"release": "1.10"}, nil, func(f *File) string { return f.Deck.Release }, "1.10"},
		{"deck title a number", map[string]string{"title": "1.20"}, nil, func(f *File) string { return f.Deck.Title }, "1.20"},
		{"deck description a boolean", map[string]string{"description": "false"}, nil, func(f *File) string { return f.Deck.Description }, "false"},
		{"source release 1.30", nil, map[string]string{"source": "{release: 1.30, prs: [1]}"}, func(f *File) string { return f.Questions[0].Source.Release }, "1.30"},
		{"id with a leading zero", nil, map[string]string{"id": "0123"}, func(f *File) string { return f.Questions[0].ExtID }, "0123"},
		{"answer in exponent form", nil, map[string]string{"answer": "1e3"}, func(f *File) string { return f.Questions[0].Answer }, "1e3"},
		{"answer in octal form", nil, map[string]string{"answer": "0o17"}, func(f *File) string { return f.Questions[0].Answer }, "0o17"},
		{"answer a boolean", nil, map[string]string{"answer": "True"}, func(f *File) string { return f.Questions[0].Answer }, "True"},
		{"accept versions", nil, map[string]string{"accept": "[1.30, v1.30]"}, func(f *File) string { return strings.Join(f.Questions[0].Accept, "|") }, "1.30|v1.30"},
		{"quoted text", nil, map[string]string{"answer": `"1.30"`}, func(f *File) string { return f.Questions[0].Answer }, "1.30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deck := map[string]string{"slug": "s", "title": "T", "release": `"1.36"`, "language": "en"}
			question := map[string]string{"id": "q1", "type": "typed", "prompt": "p", "answer": "x", "explanation": "e", "source": "{prs: [1]}"}
			maps.Copy(deck, tt.deck)
			maps.Copy(question, tt.question)
			var b strings.Builder
			b.WriteString("deck:\n")
			for _, k := range deckKeys() {
				if v, ok := deck[k]; ok {
					fmt.Fprintf(&b, "  %s: %s\n", k, v)
				}
			}
			b.WriteString("questions:\n  -\n")
			for _, k := range questionKeys() {
				if v, ok := question[k]; ok {
					fmt.Fprintf(&b, "    %s: %s\n", k, v)
				}
			}
			f, err := Decode("t.yaml", []byte(b.String()))
			if err != nil {
				t.Fatalf("Decode:\n%s\nerror: %v", b.String(), err)
			}
			if got := tt.get(f); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDecodeBadFiles decodes each file of testdata/bad and checks every
// problem reported.
func TestDecodeBadFiles(t *testing.T) {
	tests := map[string][]want{
		"unknown-field.yaml": {
			{7, 5, "questions[0].prompt", "is missing"},
			{9, 5, "questions[0].promt", `unknown field "promt" (did you mean "prompt"?)`},
		},
		"wrong-type.yaml": {
			{10, 14, "questions[0].choices", "expected a list, got text"},
		},
		"duplicate-key.yaml": {
			{11, 5, "questions[0].prompt", `duplicate key "prompt", first defined at 9:5`},
		},
		"duplicate-id.yaml": {
			{7, 9, "questions[0].id", `duplicate id "same", used again at line 13`},
			{13, 9, "questions[1].id", `duplicate id "same", first used at line 7`},
		},
		"answer-not-in-choices.yaml": {
			{11, 13, "questions[0].answer", `"1.37" is not among the choices`},
		},
		"empty-prompt.yaml": {
			{9, 13, "questions[0].prompt", "is empty"},
		},
		"cloze-no-gap.yaml": {
			{9, 13, "questions[0].prompt", "a cloze needs at least one gap"},
		},
		"order-one-item.yaml": {
			{10, 12, "questions[0].items", "at least two items, got 1"},
		},
		"unknown-type.yaml": {
			{8, 11, "questions[0].type", `unknown type "essay"`},
		},
		"invalid-utf8.yaml": {
			{9, 17, "", "not valid UTF-8 (byte 0xE9)"},
		},
		"nul-byte.yaml": {
			{9, 15, "", "NUL byte"},
		},
		"second-document.yaml": {
			{13, 1, "", "a second YAML document"},
		},
		"empty.yaml": {
			{0, 0, "", "file is empty"},
		},
		"anchor-alias.yaml": {
			{10, 14, "questions[0].choices", "anchor &stages"},
			{11, 14, "questions[0].answers", "alias *stages"},
		},
		"merge-key.yaml": {
			{7, 5, "questions[0].type", "is missing"},
			{8, 5, "questions[0].<<", "merge key"},
		},
		"explicit-tag.yaml": {
			{10, 13, "questions[0].answer", "explicit tag !!str"},
		},
		"nonspecific-tag.yaml": {
			{10, 13, "questions[0].answer", "explicit tag !"},
		},
		"missing-deck.yaml": {
			{1, 1, "deck", "is missing"},
		},
		"release-mapping.yaml": {
			{4, 12, "deck.release", "expected text, got a mapping"},
		},
		"no-prs.yaml": {
			{12, 13, "questions[0].source.prs", "is missing: a source needs at least one PR number"},
			{18, 51, "questions[1].source.prs", "is empty: a source needs at least one PR number"},
		},
		"true-false-quoted.yaml": {
			{10, 13, "questions[0].answer", `expected true or false, got the quoted text "true"`},
		},
		"bad-deck.yaml": {
			{2, 9, "deck.slug", `"V1_36" is not a slug`},
			{3, 10, "deck.title", "is empty"},
			{5, 13, "deck.language", `"fr" is not a supported language`},
		},
		"missing-fields.yaml": {
			{7, 5, "questions[0].prompt", "is missing"},
			{7, 5, "questions[0].explanation", "is missing"},
			{7, 5, "questions[0].source", "is missing"},
		},
		"undefined-alias.yaml": {
			{10, 13, "", "alias *gate refers to no anchor"},
		},
		// The parser names the line of the enclosing block, not the
		// wrongly indented line 10, and gives no column.
		"syntax-error.yaml": {
			{7, 0, "", "invalid YAML: did not find expected '-' indicator"},
		},
		"bad-prs.yaml": {
			{12, 28, "questions[0].source.prs[1]", `expected a PR number, got text "#136548"`},
			{12, 39, "questions[0].source.prs[2]", `"0x10": write the PR number in decimal`},
			{12, 45, "questions[0].source.prs[3]", "PR number -3 is not positive"},
		},
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := tests[e.Name()]; !ok {
			t.Errorf("testdata/bad/%s has no expectations", e.Name())
		}
	}
	for name, wants := range tests {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "bad", name))
			if err != nil {
				t.Fatal(err)
			}
			checkProblems(t, name, decodeErr(t, name, data).Problems, wants)
		})
	}
}

// TestDecodeInputs covers malformed inputs that are easier to build in code
// than to keep as files.
func TestDecodeInputs(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	utf16 := []byte{0xFF, 0xFE, 'd', 0, 'e', 0, 'c', 0, 'k', 0, ':', 0, '\n', 0}
	tests := []struct {
		name  string
		data  []byte
		wants []want
	}{
		{"no bytes", nil, []want{{0, 0, "", "file is empty"}}},
		{"blanks", []byte(" \n\t\n\r\n"), []want{{0, 0, "", "file is empty"}}},
		{"document marker only", []byte("---\n# nothing\n...\n"), []want{{0, 0, "", "file is empty"}}},
		{"null document", []byte("~\n"), []want{{0, 0, "", "file is empty"}}},
		{"binary PNG", png, []want{{1, 1, "", "not valid UTF-8 (byte 0x89)"}}},
		{"UTF-16 with BOM", utf16, []want{{1, 1, "", "not valid UTF-8 (byte 0xFF)"}}},
		{"bell and escape", []byte("deck:\n  title: a\x07b\x1b\n"), []want{
			{2, 11, "", "control character U+0007"},
			{2, 13, "", "control character U+001B"},
		}},
		{"NUL after multibyte text", []byte("deck:\n  title: 日本\x00\n"), []want{{2, 12, "", "NUL byte"}}},
		{"over the size limit", append(bytes.Repeat([]byte("#"), MaxFileSize), '\n'), []want{
			{0, 0, "", fmt.Sprintf("file is %d bytes, over the limit of %d bytes", MaxFileSize+1, MaxFileSize)},
		}},
		{"a list at the top", []byte("- a\n- b\n"), []want{{1, 1, "", "expected a mapping with deck and questions, got a list"}}},
		{"text at the top", []byte("hello world\n"), []want{{1, 1, "", "expected a mapping with deck and questions, got text"}}},
		{"questions not a list", append(deckOnly(), "questions: {a: 1}\n"...), []want{{7, 12, "questions", "expected a list of questions, got a mapping"}}},
		{"questions empty", append(deckOnly(), "questions: []\n"...), []want{{7, 12, "questions", "is empty"}}},
		{"questions missing", deckOnly(), []want{{1, 1, "questions", "is missing"}}},
		{"questions null", append(deckOnly(), "questions:\n"...), []want{{7, 11, "questions", "is empty"}}},
		{"deck null", []byte("deck: ~\nquestions: []\n"), []want{
			{1, 7, "deck", "is empty"},
			{2, 12, "questions", "is empty"},
		}},
		{"source null", append(deckOnly(), "questions:\n  - {id: a, type: typed, prompt: p, answer: a, explanation: e, source: null}\n"...), []want{
			{8, 72, "questions[0].source", "is empty: every question needs a source"},
		}},
		{"comment ended by a line separator", []byte("# note\u2028questions: []\n"), []want{
			{2, 1, "deck", "is missing"},
			{2, 12, "questions", "is empty"},
		}},
		{"broken second document", append(deckOnly(), "questions: []\n---\nb: [\n"...), []want{
			{10, 0, "", "invalid YAML: did not find expected node content"},
		}},
		{"question not a mapping", append(deckOnly(), "questions:\n  - just text\n"...), []want{{8, 5, "questions[0]", "expected a question (a mapping), got text"}}},
		{"reserved slug", []byte("deck:\n  slug: grade\n  title: T\n  release: \"1.36\"\n  language: en\nquestions: []\n"), []want{
			{2, 9, "deck.slug", `"grade" is reserved: /study/grade is a study action`},
			{6, 12, "questions", "is empty"},
		}},
		{"unknown top-level field", append(deckOnly(), "questions: []\nauthor: me\n"...), []want{
			{7, 12, "questions", "is empty"},
			{8, 1, "author", `unknown field "author" (known fields: deck, questions)`},
		}},
		{"key that is a list", []byte("deck:\n  [a, b]: c\n"), []want{
			{1, 1, "questions", "is missing"},
			{2, 3, "deck", "a key must be a name, got a list"},
			{2, 3, "deck.slug", "is missing"},
			{2, 3, "deck.title", "is missing"},
			{2, 3, "deck.release", "is missing"},
			{2, 3, "deck.language", "is missing"},
		}},
		{"tags of the YAML spec", []byte("deck: !!map\n  slug: !!binary aGVsbG8=\n  title: !!python/object:os.system x\n"), []want{
			{1, 1, "questions", "is missing"},
			{1, 7, "deck", "explicit tag !!map"},
			{1, 7, "deck.release", "is missing"},
			{1, 7, "deck.language", "is missing"},
			{2, 9, "deck.slug", "explicit tag !!binary"},
			{2, 9, "deck.slug", `"aGVsbG8=" is not a slug`},
			{3, 10, "deck.title", "explicit tag !!python/object:os.system"},
		}},
		{"true_false answer yes", []byte(strings.Replace(string(good), "answer: false", "answer: no", 1)), []want{
			{35, 13, "questions[2].answer", `expected true or false, got text "no"`},
		}},
		{"true_false answer a list", []byte(strings.Replace(string(good), "answer: false", "answer: [false]", 1)), []want{
			{35, 13, "questions[2].answer", "expected true or false, got a list"},
		}},
		{"field of another type", []byte(strings.Replace(string(good), "answer: false", "answer: false\n    items: [a, b]", 1)), []want{
			{36, 12, "questions[2].items", "is not used by a true_false question"},
		}},
		{"bad source kind and url", []byte(strings.Replace(string(good), "kind: feature\n      prs: [136711]\n      url: https:", "kind: feat\n      prs: [136711]\n      url: javascript:", 1)), []want{
			{19, 13, "questions[0].source.kind", `"feat" is not a changelog kind`},
			{21, 12, "questions[0].source.url", "is not an http or https address"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := decodeErr(t, "in.yaml", tt.data)
			checkProblems(t, "in.yaml", e.Problems, tt.wants)
			tooLarge := len(tt.data) > MaxFileSize
			if got := errors.Is(e, ErrTooLarge); got != tooLarge {
				t.Errorf("errors.Is(err, ErrTooLarge) = %v, want %v", got, tooLarge)
			}
		})
	}
}

// deckOnly returns a valid deck header of six lines.
func deckOnly() []byte {
	return []byte("deck:\n  slug: s\n  title: T\n  release: \"1.36\"\n  language: en\n# questions follow\n")
}

// TestDecodeSizeLimit checks that a file of exactly MaxFileSize bytes is
// parsed, and one byte more is not.
func TestDecodeSizeLimit(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pad := MaxFileSize - len(good) - 1
	data := append(append(bytes.Clone(good), '#'), bytes.Repeat([]byte("x"), pad)...)
	if len(data) != MaxFileSize {
		t.Fatalf("built %d bytes, want %d", len(data), MaxFileSize)
	}
	if _, err := Decode("max.yaml", data); err != nil {
		t.Errorf("Decode of %d bytes: %v", len(data), err)
	}
	data = append(data, 'x')
	if _, err := Decode("over.yaml", data); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Decode of %d bytes: error %v, want ErrTooLarge", len(data), err)
	}
}

// TestDecodeLineEndings checks that CRLF line ends, a byte order mark and
// text holding indicator characters decode like the plain file, and that
// positions are still right.
func TestDecodeLineEndings(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantFile, err := Decode("all-types.yaml", good)
	if err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n"))
	variants := map[string][]byte{
		"CRLF":       crlf,
		"BOM":        append([]byte("\uFEFF"), good...),
		"BOM + CRLF": append([]byte("\uFEFF"), crlf...),
		"CR":         bytes.ReplaceAll(good, []byte("\n"), []byte("\r")),
	}
	for name, data := range variants {
		t.Run(name, func(t *testing.T) {
			got, err := Decode("all-types.yaml", data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, wantFile) {
				t.Errorf("decoded differently from the LF file:\n got %+v\nwant %+v", got, wantFile)
			}
			bad := bytes.Replace(data, []byte("answer: false"), []byte("answer: ! false"), 1)
			e := decodeErr(t, "all-types.yaml", bad)
			checkProblems(t, "all-types.yaml", e.Problems, []want{{35, 13, "questions[2].answer", "explicit tag !"}})
		})
	}
}

// TestDecodeIndicatorText checks that text holding the characters of tags,
// anchors, aliases and merge keys is not mistaken for them.
func TestDecodeIndicatorText(t *testing.T) {
	data := append(deckOnly(), `questions:
  - id: marks
    type: single_choice
    prompt: ＧＡ になったのは! どれ & *本当* に << か !!str
    choices: ["!important", "&anchor", "*alias", "<<", a!b]
    answer: "<<"
    explanation: 'Quoted: !tag &a *a << are only text.'
    source: {prs: [1]}
`...)
	f, err := Decode("marks.yaml", data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	wantChoices := []string{"!important", "&anchor", "*alias", "<<", "a!b"}
	if got := f.Questions[0].Choices; !reflect.DeepEqual(got, wantChoices) {
		t.Errorf("Choices = %q, want %q", got, wantChoices)
	}
	if got, want := f.Questions[0].Prompt, "ＧＡ になったのは! どれ & *本当* に << か !!str"; got != want {
		t.Errorf("Prompt = %q, want %q", got, want)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "bad.yaml", Line: 12, Col: 7, Field: "questions[3].answer", Msg: `"1.37" is not among the choices`},
			`bad.yaml:12:7: questions[3].answer: "1.37" is not among the choices`},
		{Problem{File: "bad.yaml", Line: 3, Msg: "invalid YAML: did not find expected key"},
			"bad.yaml:3: invalid YAML: did not find expected key"},
		{Problem{File: "bad.yaml", Msg: "file is empty"}, "bad.yaml: file is empty"},
		{Problem{File: "bad.yaml", Line: 1, Col: 1, Field: "deck", Msg: "is missing"}, "bad.yaml:1:1: deck: is missing"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	e := &Error{Problems: []Problem{tests[0].p, tests[1].p}}
	if got, want := e.Error(), tests[0].want+"\n"+tests[1].want; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestDecodeManyProblems checks that problems are sorted by position and
// capped, with a last line telling how many were left out.
func TestDecodeManyProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("questions:\n")
	// Questions listed before the deck, each with one problem, so that
	// sorting has to move the deck's problems to the end.
	for i := range 150 {
		fmt.Fprintf(&b, "  - {id: q%d, type: true_false, prompt: p, answer: true, explanation: e, source: {prs: [%d]}}\n", i, -i-1)
	}
	b.WriteString("deck: {slug: s, title: T, release: \"1.36\", language: xx}\n")
	e := decodeErr(t, "many.yaml", []byte(b.String()))
	if got, want := len(e.Problems), maxProblems+1; got != want {
		t.Fatalf("got %d problems, want %d", got, want)
	}
	for i, p := range e.Problems[:maxProblems] {
		wantField := fmt.Sprintf("questions[%d].source.prs[0]", i)
		if p.Line != i+2 || p.Field != wantField {
			t.Errorf("problem %d = %s, want line %d field %s", i, p, i+2, wantField)
		}
	}
	last := e.Problems[maxProblems]
	if want := "too many errors, 51 more not shown"; last.Msg != want || last.Line != maxProblems+2 {
		t.Errorf("last problem = %s, want line %d and %q", last, maxProblems+2, want)
	}
}
