package web

import (
	"errors"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubequiz/internal/bank"
	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// TestQuestionProblemsWorded: every problem the question files of bank's
// test data have, and every problem of quiz's validation, has a Japanese
// wording.
func TestQuestionProblemsWorded(t *testing.T) {
	dir := filepath.Join("..", "bank", "testdata", "bad")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		_, err = bank.DecodeAll([]bank.Input{{Name: e.Name(), Data: data}})
		var be *bank.Error
		if !errors.As(err, &be) {
			t.Errorf("%s: no problems: %v", e.Name(), err)
			continue
		}
		for _, p := range be.Problems {
			msgs = append(msgs, p.Msg)
		}
	}
	// Files too large, of one deck twice, with a second document.
	_, err = bank.DecodeAll([]bank.Input{{Name: "big.yaml", Data: make([]byte, bank.MaxFileSize+1)}})
	msgs = append(msgs, problemMsgs(t, err)...)
	good, err := os.ReadFile(filepath.Join("..", "bank", "testdata", "good", "all-types.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bank.DecodeAll([]bank.Input{{Name: "a.yaml", Data: good}, {Name: "b.yaml", Data: good}})
	msgs = append(msgs, problemMsgs(t, err)...)

	yes := true
	for _, q := range []quiz.Question{
		{Type: "essay"},
		{ExtID: "a", Type: quiz.SingleChoice, Prompt: "p", Explanation: "e", Choices: []string{"x", "x", ""}, Answer: "y", Source: quiz.Source{PRs: []int{-1}}},
		{ExtID: "a", Type: quiz.MultiChoice, Prompt: "p", Explanation: "e", Choices: []string{"x", "y"}, Answers: []string{"z", "x", "x"}},
		{ExtID: "a", Type: quiz.MultiChoice, Prompt: "p", Explanation: "e", Choices: []string{"x"}},
		{ExtID: "a", Type: quiz.TrueFalse, Prompt: "p", Explanation: "e", Items: []string{"i"}},
		{ExtID: "a", Type: quiz.Cloze, Prompt: "no gap", Explanation: "e", Truth: &yes},
		{ExtID: "a", Type: quiz.Cloze, Prompt: "{{a}} }} {{", Explanation: "e"},
		{ExtID: "a", Type: quiz.Cloze, Prompt: "{{ }}", Explanation: "e"},
		{ExtID: "a", Type: quiz.Cloze, Prompt: "{{a{{b}}}}", Explanation: "e"},
		{ExtID: "a", Type: quiz.Cloze, Prompt: "}} {{a}}", Explanation: "e"},
		{ExtID: "a", Type: quiz.Typed, Prompt: "p", Explanation: "e", Accept: []string{""}},
		{ExtID: "a", Type: quiz.Order, Prompt: "p", Explanation: "e", Items: []string{"one"}},
		{ExtID: "a", Type: quiz.Flashcard, Prompt: "p", Explanation: strings.Repeat("x", quiz.MaxTextBytes+1)},
		{ExtID: "a", Type: quiz.Flashcard, Prompt: "\xff", Explanation: "e", Answer: "a"},
	} {
		var ve *quiz.ValidationError
		if err := q.Validate(); !errors.As(err, &ve) {
			t.Errorf("%+v: no validation error: %v", q, err)
			continue
		}
		for _, p := range ve.Problems {
			msgs = append(msgs, p.Msg)
		}
	}
	if len(msgs) < 60 {
		t.Errorf("only %d messages to word", len(msgs))
	}
	for _, msg := range msgs {
		ja, ok := rewrite(questionRules, msg)
		if !ok || !hasJapanese(ja) {
			t.Errorf("no Japanese for %q (%q)", msg, ja)
		}
		if strings.HasPrefix(msg, "invalid YAML: ") && !hasJapanese(strings.TrimPrefix(ja, "YAML の書き方が正しくありません: ")) {
			t.Errorf("no Japanese for the YAML parser's %q", msg)
		}
	}
}

func problemMsgs(t *testing.T, err error) []string {
	t.Helper()
	var be *bank.Error
	if !errors.As(err, &be) {
		t.Fatalf("no problems: %v", err)
	}
	var out []string
	for _, p := range be.Problems {
		out = append(out, p.Msg)
	}
	return out
}

// TestImportProblemsInJapanese: the preview of bad question files lists
// each problem with its file, line and field, in Japanese; an apply of
// them says the same on its error page.
func TestImportProblemsInJapanese(t *testing.T) {
	ts := withAdmin(t, newAccountServer(t, Config{}))
	admin := newClient(t, ts, "192.0.2.90")
	admin.mustLogin("root", adminPassword)
	files := map[string][]byte{}
	for _, name := range []string{"syntax-error.yaml", "missing-fields.yaml", "unknown-field.yaml", "true-false-quoted.yaml", "duplicate-id.yaml"} {
		files[name] = readTestFile(t, "..", "bank", "testdata", "bad", name)
	}
	var inputs []bank.Input
	for name, data := range files {
		inputs = append(inputs, bank.Input{Name: name, Data: data})
	}
	_, err := bank.DecodeAll(inputs)
	var be *bank.Error
	if !errors.As(err, &be) {
		t.Fatalf("no problems: %v", err)
	}
	// DecodeAll stops at the first file with problems: each file alone.
	var problems []bank.Problem
	for name, data := range files {
		_, err := bank.DecodeAll([]bank.Input{{Name: name, Data: data}})
		if !errors.As(err, &be) {
			t.Fatalf("%s: no problems: %v", name, err)
		}
		problems = append(problems, be.Problems...)
	}

	for name, data := range files {
		rec := admin.postFiles("/admin/import", map[string][]byte{name: data})
		preview := rec.Header().Get("Location")
		rec = admin.get(preview)
		body := rec.Body.String()
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: preview = %d", name, rec.Code)
		}
		n := 0
		for _, p := range problems {
			if p.File != name {
				continue
			}
			n++
			li := "<li><code>" + html.EscapeString(problemWhere(p)) + "</code> <strong>" + html.EscapeString(p.Field) + "</strong> " + html.EscapeString(questionProblem(p.Msg)) + "</li>"
			if !strings.Contains(body, li) {
				t.Errorf("%s: the preview lacks %s", name, li)
			}
			if strings.Contains(body, html.EscapeString(p.Msg)) {
				t.Errorf("%s: the preview shows the English %q", name, p.Msg)
			}
		}
		if n == 0 || !strings.Contains(body, ">"+name+":") {
			t.Errorf("%s: %d problems, or none placed in the file", name, n)
		}
		// The apply of the same upload is refused with the same words.
		rec = admin.post(preview+"/apply", map[string][]string{"action": {"apply"}})
		body = rec.Body.String()
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "問題ファイルを読み込めません。") ||
			!strings.Contains(body, html.EscapeString(name+":")) || strings.Contains(body, "invalid input") {
			t.Errorf("%s: apply = %d: %.400s", name, rec.Code, body[strings.Index(body, "<main"):])
		}
	}
}

// TestIngestProblemsInJapanese: the preview of changelogs that cannot be
// read says why in Japanese, with the place in the file where the parser
// names one.
func TestIngestProblemsInJapanese(t *testing.T) {
	ts := withGenerator(withAdmin(t, newAccountServer(t, Config{})), fakeGenerate)
	admin := newClient(t, ts, "192.0.2.91")
	admin.mustLogin("root", adminPassword)
	note := func(pr int, release string) string {
		return fmt.Sprintf(`{"text": "Fixed a bug.", "markdown": "Fixed a bug. ([#%d](https://github.com/kubernetes/kubernetes/pull/%[1]d), [@a](https://github.com/a)) [SIG Node]", "pr_number": %[1]d, "kinds": ["bug"], "sigs": ["node"]%s}`, pr, release)
	}
	files := map[string][]byte{
		"binary.md":       []byte("# v1.36.0\n\x00"),
		"prose.txt":       []byte("nothing to see here\n"),
		"not-note.json":   []byte("{\n  \"1\": " + note(900001, `, "release_version": "1.40.0"`) + ",\n  \"2\": 5\n}\n"),
		"bad-type.json":   []byte("{\n  \"1\": " + note(900001, `, "release_version": "1.40.0"`) + ",\n  \"2\": {\"text\": 7}\n}\n"),
		"no-release.json": []byte("{\n  \"1\": " + note(900001, "") + "\n}\n"),
		"after.json":      []byte("{\"1\": " + note(900001, `, "release_version": "1.40.0"`) + "} x"),
		"latin1.md":       []byte("# v1.36.0\n\xe9\n"),
	}
	want := map[string]string{
		"binary.md":       "バイナリファイルです (11 バイト目に NUL バイトがあります)。",
		"prose.txt":       "形式を判別できません",
		"not-note.json":   "リリースノートの JSON として読めません: 3 行目のノートがオブジェクトではありません。",
		"bad-type.json":   "リリースノートの JSON として読めません: 3 行目のノートの項目 text の型が違います (number です)。",
		"no-release.json": "リリースノートの JSON のどのノートにもリリース (release_version) がありません。リリースを指定してください。",
		"after.json":      "ノートの後ろに余分なテキストがあります (",
		"latin1.md":       "UTF-8 のテキストではありません (11 バイト目に読めないバイトがあります)。",
	}
	rec := admin.postFiles("/admin/ingest", files)
	rec = waitPreview(t, admin, rec.Header().Get("Location"))
	body := rec.Body.String()
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("preview = %d: %.500s", rec.Code, body)
	}
	_, list, _ := strings.Cut(body, `<ul id="ingest-problems">`)
	list, _, _ = strings.Cut(list, "</ul>")
	for name, msg := range want {
		item := "<li><strong>" + name + "</strong>: "
		i := strings.Index(list, item)
		if i < 0 {
			t.Errorf("%s is not listed: %s", name, list)
			continue
		}
		li, _, _ := strings.Cut(list[i:], "</li>")
		if !strings.Contains(li, html.EscapeString(msg)) {
			t.Errorf("%s: %s, want %q", name, li, msg)
		}
		if strings.Contains(li, "<details>") {
			t.Errorf("%s: the English error is shown too: %s", name, li)
		}
	}
	if strings.Contains(list, "changelog:") || strings.Contains(list, "not the release-notes JSON") {
		t.Errorf("an English error is shown: %s", list)
	}
}

// TestErrorTextJapanese: the store's refusals of an ingest and of a
// publish, and the refusals of the error page, are worded in Japanese with
// what they name.
func TestErrorTextJapanese(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("store: ingest: CHANGELOG.md: the document's release is unknown (give it explicitly): %w", quiz.ErrInvalid),
			"CHANGELOG.md: 文書のリリースが分かりません。"},
		{fmt.Errorf("store: ingest: document 1.36 is in both a.md and b.md: %w", quiz.ErrInvalid),
			"文書 1.36 が a.md と b.md の両方にあります。"},
		{fmt.Errorf("store: ingest: a.md: generated question stage-x: already generated from document 1.35/node: %w", quiz.ErrConflict),
			"生成した問題 stage-x は、文書 1.35/node からすでに生成されています。"},
		{fmt.Errorf("store: publish questions: question 12: %w", &quiz.ValidationError{Problems: []quiz.FieldError{{Field: "choices", Msg: "needs at least 2 choices, got 1"}}}),
			"問題 12 が検証を通りません: choices: 選択肢が 2 つ以上必要です (1 つです)。"},
		{fmt.Errorf("store: set status: %w", &store.CountChangedError{Want: 5, Got: 4}), "確認した 5 問と、いま条件に合う 4 問が違います。"},
		{fmt.Errorf("parse: %w", fmt.Errorf("changelog: release %q: %w", "x.y", changelog.ErrInvalidOption)), "リリース \"x.y\" を読めません"},
		{&store.FormatConflictError{Key: "1.36/node", StoredFile: "node.txt", StoredFormat: changelog.FormatArticle, Format: changelog.FormatUpstreamBySIG},
			"1.36/node は node.txt (記事 (変更内容)) から保存済みです。"},
	}
	for _, tt := range tests {
		got, ok := errorText(tt.err)
		if !ok || !strings.Contains(got, tt.want) {
			t.Errorf("errorText(%v) = %q, %v; want %q", tt.err, got, ok, tt.want)
		}
	}
	if _, ok := errorText(errors.New("disk full")); ok {
		t.Error("an unknown error is worded")
	}
	// The error page: a known error in Japanese, one written for the
	// pages as it is, another's English after a Japanese lead.
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", &quiz.ValidationError{Problems: []quiz.FieldError{{Field: "prompt", Msg: "is empty"}}}), "問題が検証を通りません: prompt: 空です。"},
		{inputError{"ページ \"x\" を読めません"}, "ページ \"x\" を読めません"},
		{fmt.Errorf("odd: %w", quiz.ErrInvalid), "送信された内容を受け付けられません。ページを読み込み直してください。 (詳細: odd: invalid input)"},
	} {
		if got := invalidText(tt.err); got != tt.want {
			t.Errorf("invalidText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
