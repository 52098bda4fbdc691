package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"kubequiz/internal/quiz"
)

// unmarshalAnswer is what encoding/json makes of s.
func unmarshalAnswer(s string) (quiz.Response, error) {
	r := quiz.Response{Choice: -1}
	err := json.Unmarshal([]byte(s), &r)
	return r, err
}

// checkParseAnswer: when parseAnswer reads s, it reads what json.Unmarshal
// does.
func checkParseAnswer(t *testing.T, s string) (fast bool) {
	t.Helper()
	got, ok := parseAnswer(s)
	if !ok {
		return false
	}
	want, err := unmarshalAnswer(s)
	if err != nil {
		t.Fatalf("parseAnswer(%q) = %+v, but json.Unmarshal fails: %v", s, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseAnswer(%q) = %#v, json.Unmarshal %#v", s, got, want)
	}
	return true
}

// TestParseAnswer: the answers RecordReview writes are read directly, as
// encoding/json reads them; anything else is left to encoding/json.
func TestParseAnswer(t *testing.T) {
	yes, no := true, false
	written := []quiz.Response{
		{Choice: -1},
		{Choice: 0},
		{Choice: 2},
		{Choice: -1, Selected: []int{0, 2, 11}},
		{Choice: -1, Selected: []int{}},
		{Choice: -1, Bool: &yes},
		{Choice: -1, Bool: &no},
		{Choice: -1, Texts: []string{"=1+1"}},
		{Choice: -1, Texts: []string{"ImageVolume", ""}},
		{Choice: -1, Texts: []string{"階層型の予約", "ｆｕｌｌ－ｗｉｄｔｈ", "ー", "\u00a0nbsp"}},
		{Choice: -1, Order: []int{3, 0, 2, 1}},
		{Choice: -1, Revealed: true},
	}
	for _, r := range written {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !checkParseAnswer(t, string(b)) {
			t.Errorf("%s is left to encoding/json", b)
		}
	}
	// Texts that encoding/json writes with escapes, and JSON it does not
	// write, go to encoding/json: they must not be read otherwise.
	escaped := []quiz.Response{
		{Choice: -1, Texts: []string{`say "hi"`}},
		{Choice: -1, Texts: []string{`back\slash`}},
		{Choice: -1, Texts: []string{"line\nbreak"}},
		{Choice: -1, Texts: []string{"<b>&amp;</b>"}},
		{Choice: -1, Texts: []string{"\xff invalid"}},
		{Choice: -1, Texts: []string{"line\u2028separator"}},
	}
	for _, r := range escaped {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if checkParseAnswer(t, string(b)) {
			t.Errorf("%s was read directly", b)
		}
		got, err := decodeAnswer(string(b))
		if want, _ := unmarshalAnswer(string(b)); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeAnswer(%s) = %#v, %v; want %#v", b, got, err, want)
		}
	}
	others := []struct {
		s    string
		fast bool
	}{
		{`{}`, true},
		{`{"choice":1,"choice":2}`, true},
		{`{"choice":-0}`, true},
		{`{"texts":["a","b"],"choice":1}`, true},
		{`{"bool":true,"revealed":false}`, true},
		{"{\"texts\":[\"raw\u2028separator\"]}", true},
		{``, false},
		{`{`, false},
		{`{}x`, false},
		{`{} `, false},
		{` {}`, false},
		{`{"choice": 1}`, false},
		{`{"choice":01}`, false},
		{`{"choice":1.5}`, false},
		{`{"choice":1e2}`, false},
		{`{"choice":-}`, false},
		{`{"choice":99999999999999999999}`, false},
		{`{"choice":"1"}`, false},
		{`{"Choice":1}`, false},
		{`{"other":1}`, false},
		{`{"selected":null}`, false},
		{`{"selected":[1,]}`, false},
		{`{"selected":[1 2]}`, false},
		{`{"texts":["a"`, false},
		{`{"texts":["a\u0041"]}`, false},
		{"{\"texts\":[\"tab\there\"]}", false},
		{`{"bool":tru}`, false},
		{`{"bool":null}`, false},
		{`{"revealed":1}`, false},
		{`{"choice":1,}`, false},
		{`{"choice":1]`, false},
		{`[]`, false},
		{`null`, false},
	}
	for _, o := range others {
		if fast := checkParseAnswer(t, o.s); fast != o.fast {
			t.Errorf("parseAnswer(%q) read directly: %v, want %v", o.s, fast, o.fast)
		}
	}
}

// FuzzParseAnswer: whatever parseAnswer reads, it reads as encoding/json.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{}`, `{"choice":2}`, `{"choice":-1,"selected":[0,2]}`, `{"choice":-1,"bool":true}`,
		`{"choice":-1,"texts":["=1+1","階層"]}`, `{"choice":-1,"order":[1,0]}`, `{"choice":-1,"revealed":true}`, `{"choice":01}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkParseAnswer(t, s)
	})
}
