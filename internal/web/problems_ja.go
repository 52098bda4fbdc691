package web

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"kubequiz/internal/bank"
	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// This file words in Japanese the errors the import and ingest pages show:
// the question files' problems (internal/bank and quiz's validation), the
// changelogs' (internal/changelog), and the store's refusals of an
// ingest. The command line shows the packages' own English; the pages
// keep its file, line and field, and say the rest in Japanese. A message
// no rule knows is shown in English after a Japanese lead.

// jaRule rewrites a message that re matches.
type jaRule struct {
	re *regexp.Regexp
	ja func(m []string) string
}

func rule(pattern string, ja func(m []string) string) jaRule {
	return jaRule{regexp.MustCompile(pattern), ja}
}

// fixed is a rule's wording that takes nothing from the message.
func fixed(s string) func([]string) string { return func([]string) string { return s } }

// rewrite applies the first rule that matches msg; ok is false when none does.
func rewrite(rules []jaRule, msg string) (string, bool) {
	for _, r := range rules {
		if m := r.re.FindStringSubmatch(msg); m != nil {
			return r.ja(m), true
		}
	}
	return msg, false
}

// yamlKinds are the names of YAML values in bank's messages.
var yamlKinds = map[string]string{
	"a mapping": "マッピング", "a list": "リスト", "an alias": "エイリアス", "a number": "数値",
	"a boolean": "真偽値", "null": "null", "text": "テキスト", "a document": "文書",
}

func yamlKind(s string) string {
	if k, ok := yamlKinds[s]; ok {
		return k
	}
	return s
}

// questionRules word the problems of a question file: bank's, then the
// validation of each question (quiz.Question.Validate).
var questionRules = []jaRule{
	// The file as a whole.
	rule(`^file is empty: only blanks, comments or an empty document$`, fixed("ファイルが空です (空白、コメント、空の文書しかありません)。")),
	rule(`^file is (\d+) bytes, over the limit of (\d+) bytes(?: \((\d+) KiB\))?$`, func(m []string) string {
		return m[1] + " バイトあり、上限の " + m[2] + " バイトを超えています。"
	}),
	rule(`^deck (".*") is also in (.+), uploaded with it: give each deck one file$`, func(m []string) string {
		return "デッキ " + m[1] + " は一緒にアップロードした " + m[2] + " にもあります。1 つのデッキは 1 つのファイルにまとめてください。"
	}),
	rule(`^a second YAML document: a file holds one deck and its questions$`, fixed("2 つ目の YAML 文書があります。1 つのファイルには 1 つのデッキとその問題だけを書きます。")),
	rule(`^too many errors, (\d+) more not shown$`, func(m []string) string {
		return "問題が多すぎるため、残りの " + m[1] + " 件は表示していません。"
	}),
	rule(`^the YAML parser failed on this file: (.*)$`, func(m []string) string { return "YAML として読めませんでした (" + m[1] + ")。" }),
	rule(`^not valid UTF-8 \(byte (0x[0-9A-F]{2})\): a question file must be UTF-8 text$`, func(m []string) string {
		return "UTF-8 として読めないバイト (" + m[1] + ") があります。問題ファイルは UTF-8 のテキストにしてください。"
	}),
	rule(`^NUL byte: a question file must be text$`, fixed("NUL バイトがあります。問題ファイルはテキストにしてください。")),
	rule(`^control character (U\+[0-9A-F]+) is not allowed$`, func(m []string) string { return "制御文字 " + m[1] + " は使えません。" }),
	rule(`^invalid YAML: (.*)$`, func(m []string) string { return "YAML の書き方が正しくありません: " + yamlSyntax(m[1]) }),
	// YAML features the format leaves out.
	rule(`^nested deeper than (\d+) levels$`, func(m []string) string { return "入れ子が " + m[1] + " 段より深くなっています。" }),
	rule(`^alias \*(.*) refers to no anchor \(anchors and aliases are not allowed\)$`, func(m []string) string {
		return "エイリアス *" + m[1] + " が指すアンカーがありません (アンカーとエイリアスは使えません)。"
	}),
	rule(`^alias \*(.*): anchors and aliases are not allowed$`, func(m []string) string {
		return "エイリアス *" + m[1] + ": アンカーとエイリアスは使えません。"
	}),
	rule(`^anchor &(.*): anchors and aliases are not allowed$`, func(m []string) string {
		return "アンカー &" + m[1] + ": アンカーとエイリアスは使えません。"
	}),
	rule(`^merge key: anchors, aliases and merge keys are not allowed$`, fixed("マージキー (<<) は使えません (アンカーとエイリアスも使えません)。")),
	rule(`^explicit tag (.*) is not allowed$`, func(m []string) string { return "明示的なタグ " + m[1] + " は使えません。" }),
	// The shape of the file.
	rule(`^expected a mapping with deck and questions, got (.*)$`, func(m []string) string {
		return "deck と questions を持つマッピングが必要ですが、" + yamlKind(m[1]) + "です。"
	}),
	rule(`^expected a list of questions, got (.*)$`, func(m []string) string {
		return "問題のリストが必要ですが、" + yamlKind(m[1]) + "です。"
	}),
	rule(`^expected a question \(a mapping\), got (.*)$`, func(m []string) string {
		return "問題 (マッピング) が必要ですが、" + yamlKind(m[1]) + "です。"
	}),
	rule(`^expected a mapping, got (.*)$`, func(m []string) string { return "マッピングが必要ですが、" + yamlKind(m[1]) + "です。" }),
	rule(`^expected text, got (.*)$`, func(m []string) string { return "テキストが必要ですが、" + yamlKind(m[1]) + "です。" }),
	rule(`^expected a list, got (.*)$`, func(m []string) string { return "リストが必要ですが、" + yamlKind(m[1]) + "です。" }),
	rule(`^expected true or false, got the quoted text (".*") \(write true or false without quotes\)$`, func(m []string) string {
		return "true か false が必要ですが、引用符で囲んだテキスト " + m[1] + " です (引用符を付けずに true か false と書いてください)。"
	}),
	rule(`^expected true or false, got (.+?) (".*")$`, func(m []string) string {
		return "true か false が必要ですが、" + yamlKind(m[1]) + " " + m[2] + " です。"
	}),
	rule(`^expected true or false, got (.*)$`, func(m []string) string { return "true か false が必要ですが、" + yamlKind(m[1]) + "です。" }),
	rule(`^expected a PR number, got (.+?) (".*")$`, func(m []string) string {
		return "PR 番号が必要ですが、" + yamlKind(m[1]) + " " + m[2] + " です。"
	}),
	rule(`^expected a PR number, got (.*)$`, func(m []string) string { return "PR 番号が必要ですが、" + yamlKind(m[1]) + "です。" }),
	rule(`^(".*"): write the PR number in decimal$`, func(m []string) string { return m[1] + ": PR 番号は 10 進数で書いてください。" }),
	rule(`^(".*") is out of range$`, func(m []string) string { return m[1] + " は範囲外です。" }),
	rule(`^a key must be a name, got (.*)$`, func(m []string) string {
		return "キーは名前にしてください (" + yamlKind(m[1]) + "です)。"
	}),
	rule(`^duplicate key (".*"), first defined at (\d+):(\d+)$`, func(m []string) string {
		return "キー " + m[1] + " が二度あります (最初は " + m[2] + " 行 " + m[3] + " 文字目)。"
	}),
	rule(`^unknown field (".*") \(did you mean (".*")\?\)$`, func(m []string) string {
		return "知らない項目 " + m[1] + " です (" + m[2] + " のことですか?)。"
	}),
	rule(`^unknown field (".*") \(known fields: (.*)\)$`, func(m []string) string {
		return "知らない項目 " + m[1] + " です (使える項目: " + m[2] + ")。"
	}),
	rule(`^has (\d+) entries, over the limit of (\d+)$`, func(m []string) string {
		return m[1] + " 個あり、上限の " + m[2] + " 個を超えています。"
	}),
	rule(`^duplicate id (".*"), first used at line (\d+)$`, func(m []string) string {
		return "id " + m[1] + " が二度使われています (最初は " + m[2] + " 行目)。"
	}),
	rule(`^duplicate id (".*"), used again at lines? (.*)$`, func(m []string) string {
		return "id " + m[1] + " が " + m[2] + " 行目でも使われています。"
	}),
	// The deck.
	rule(`^(".*") is not a slug: use lower-case letters, digits and dashes$`, func(m []string) string {
		return m[1] + " はスラッグに使えません。小文字の英字、数字、ダッシュで書いてください。"
	}),
	rule(`^(".*") is reserved: (/study/\S+) is a study action, not a deck's page; choose another slug$`, func(m []string) string {
		return m[1] + " は使えません (" + m[2] + " は学習の操作に使われています)。別のスラッグにしてください。"
	}),
	rule(`^(".*") is not a supported language \(want ja or en\)$`, func(m []string) string { return m[1] + " は使えない言語です (ja か en)。" }),
	// The source of a question.
	rule(`^is missing: every question needs a source with at least one PR number$`, fixed("ありません。どの問題にも、PR 番号を 1 つ以上持つ source が必要です。")),
	rule(`^is empty: every question needs a source with at least one PR number$`, fixed("空です。どの問題にも、PR 番号を 1 つ以上持つ source が必要です。")),
	rule(`^is missing: a source needs at least one PR number$`, fixed("ありません。source には PR 番号が 1 つ以上必要です。")),
	rule(`^is empty: a source needs at least one PR number$`, fixed("空です。source には PR 番号が 1 つ以上必要です。")),
	rule(`^(".*") is not a changelog kind \(want one of (.*)\)$`, func(m []string) string {
		return m[1] + " は変更の種類にありません (" + m[2] + " のどれか)。"
	}),
	rule(`^(".*") is not an http or https address$`, func(m []string) string { return m[1] + " は http か https のアドレスではありません。" }),
	rule(`^PR number (-?\d+) is not positive$`, func(m []string) string { return "PR 番号 " + m[1] + " が正の数ではありません。" }),
	// The question's own fields.
	rule(`^is missing$`, fixed("ありません (必須です)。")),
	rule(`^is empty: a deck needs at least one question$`, fixed("空です。デッキには 1 問以上必要です。")),
	rule(`^is empty \(a multi_choice question needs at least one correct choice\)$`, fixed("空です。複数選択の問題には正解が 1 つ以上必要です。")),
	rule(`^is empty \(the back of the card\)$`, fixed("空です (カードの裏面に書く答えです)。")),
	rule(`^is empty$`, fixed("空です。")),
	rule(`^is missing \(true or false\)$`, fixed("ありません (true か false を書いてください)。")),
	rule(`^unknown type (".*") \(want one of (.*)\)$`, func(m []string) string {
		return "問題の種類 " + m[1] + " はありません (" + m[2] + " のどれか)。"
	}),
	rule(`^is not valid UTF-8$`, fixed("文字として読めないバイトがあります。")),
	rule(`^(".*") is not among the choices$`, func(m []string) string { return m[1] + " が選択肢にありません。" }),
	rule(`^(".*") is listed twice$`, func(m []string) string { return m[1] + " が二度あります。" }),
	rule(`^(".*") repeats (\w+)\[(\d+)\]$`, func(m []string) string { return m[1] + " は " + m[2] + "[" + m[3] + "] と同じです。" }),
	rule(`^is (\d+) bytes long, over the limit of (\d+)$`, func(m []string) string {
		return m[1] + " バイトあり、上限の " + m[2] + " バイトを超えています。"
	}),
	rule(`^needs at least (\d+) choices, got (\d+)$`, func(m []string) string {
		return "選択肢が " + m[1] + " つ以上必要です (" + m[2] + " つです)。"
	}),
	rule(`^an order question needs at least two items, got (\d+)$`, func(m []string) string {
		return "並べ替えの問題には項目が 2 つ以上必要です (" + m[1] + " つです)。"
	}),
	rule(`^a cloze needs at least one gap written \{\{answer\}\}$`, fixed("穴埋めには {{答え}} の形の空欄が 1 つ以上必要です。")),
	rule(`^gap (\d+) has an empty answer$`, func(m []string) string { return "空欄 " + m[1] + " の答えが空です。" }),
	rule(`^"\{\{" without a matching "\}\}"$`, fixed("{{ に対応する }} がありません。")),
	rule(`^"\}\}" without a matching "\{\{"$`, fixed("}} に対応する {{ がありません。")),
	rule(`^"\}\}" before "\{\{"$`, fixed("}} が {{ より前にあります。")),
	rule(`^nested gap$`, fixed("空欄の中に空欄があります。")),
	rule(`^is not used by a (\w+) question$`, func(m []string) string { return m[1] + " の問題では使わない項目です。" }),
}

// yamlRules word the YAML parser's own messages.
var yamlRules = []jaRule{
	rule(`^did not find expected key$`, fixed("キーがあるはずの場所にありません (字下げを確かめてください)。")),
	rule(`^did not find expected '-' indicator$`, fixed("リストの項目 (-) があるはずの場所にありません (字下げを確かめてください)。")),
	rule(`^did not find expected node content$`, fixed("値があるはずの場所にありません。")),
	rule(`^mapping values are not allowed in this context$`, fixed("ここには「キー: 値」を書けません (: を含む値は引用符で囲んでください)。")),
	rule(`^found character that cannot start any token$`, fixed("値の先頭に使えない文字があります (引用符で囲んでください)。")),
	rule(`^could not find expected ':'$`, fixed(": があるはずの場所にありません。")),
	rule(`^found unexpected end of stream$`, fixed("途中でファイルが終わっています (引用符や括弧が閉じていません)。")),
	rule(`^found a tab character (?:that violates indentation|where an indentation space is expected)$`, fixed("字下げにタブ文字があります (空白で字下げしてください)。")),
	rule(`^block sequence entries are not allowed in this context$`, fixed("ここにはリストの項目 (-) を書けません。")),
	rule(`^did not find expected comment or line break$`, fixed("値のあとに余分な文字があります。")),
	rule(`^found unknown escape character$`, fixed("知らないエスケープ文字があります。")),
	rule(`^found undefined tag handle$`, fixed("定義されていないタグがあります。")),
	rule(`^exceeded max depth of (\d+)$`, func(m []string) string { return "入れ子が深すぎます (上限 " + m[1] + ")。" }),
}

// yamlSyntax words a YAML parser's message, or keeps it after a lead.
func yamlSyntax(msg string) string {
	if ja, ok := rewrite(yamlRules, msg); ok {
		return ja
	}
	return "(" + msg + ")"
}

// questionProblem words a problem of a question file or of a question's
// validation; one no rule knows keeps its English after a Japanese lead.
func questionProblem(msg string) string {
	if ja, ok := rewrite(questionRules, msg); ok {
		return ja
	}
	return "読み込めません: " + msg
}

// changelogRules word the details of a changelog that cannot be read:
// where in the file, and what.
var changelogRules = []jaRule{
	rule(`document is (\d+) bytes, limit (\d+)`, func(m []string) string {
		return m[1] + " バイトあり、上限の " + m[2] + " バイトを超えています。"
	}),
	rule(`NUL byte at offset (\d+)`, func(m []string) string {
		return "バイナリファイルです (" + offset(m[1]) + "に NUL バイトがあります)。"
	}),
	rule(`invalid byte at offset (\d+)`, func(m []string) string {
		return "UTF-8 のテキストではありません (" + offset(m[1]) + "に読めないバイトがあります)。"
	}),
	rule(`its (\d+) entries are all labelled with other SIGs than (.+?):`, func(m []string) string {
		return "エントリ " + m[1] + " 件は、どれも SIG " + m[2] + " 以外のラベルだけが付いています。SIG を確かめてください。"
	}),
	rule(`release-notes JSON without notes`, fixed("リリースノートの JSON にノートがありません。")),
	rule(`release-notes JSON does not say its release`, fixed("リリースノートの JSON のどのノートにもリリース (release_version) がありません。リリースを指定してください。")),
	rule(`not the release-notes JSON: at byte (\d+): line (\d+): a note is not an object`, func(m []string) string {
		return "リリースノートの JSON として読めません: " + m[2] + " 行目のノートがオブジェクトではありません。"
	}),
	rule(`not the release-notes JSON: at byte (\d+): line (\d+): json: cannot unmarshal (\S+) into Go struct field \w+\.(\S+) of type (\S+)`, func(m []string) string {
		return "リリースノートの JSON として読めません: " + m[2] + " 行目のノートの項目 " + m[4] + " の型が違います (" + m[3] + " です)。"
	}),
	rule(`not the release-notes JSON: at byte (\d+): line (\d+):`, func(m []string) string {
		return "リリースノートの JSON として読めません: " + m[2] + " 行目のノートを読めません。"
	}),
	rule(`not the release-notes JSON: at byte (\d+): want an object of notes`, func(m []string) string {
		return "リリースノートの JSON として読めません: ノートのオブジェクトではありません。"
	}),
	rule(`not the release-notes JSON: at byte (\d+): text after the notes`, func(m []string) string {
		return "リリースノートの JSON として読めません: ノートの後ろに余分なテキストがあります (" + offset(m[1]) + "より後)。"
	}),
	rule(`not the release-notes JSON: at byte (\d+):`, func(m []string) string {
		return "リリースノートの JSON として読めません: " + offset(m[1]) + "付近の書き方が正しくありません。"
	}),
	rule(`format "(.*)": invalid option`, func(m []string) string { return "形式 \"" + m[1] + "\" は使えません。" }),
	rule(`sig "(.*)": invalid option`, func(m []string) string { return "SIG \"" + m[1] + "\" を読めません (例: Node)。" }),
	rule(`release "(.*)": invalid option`, func(m []string) string { return "リリース \"" + m[1] + "\" を読めません (例: 1.36)。" }),
}

// offset names a byte of a file, counted from 0 in the parser's messages.
func offset(n string) string {
	i, err := strconv.Atoi(n)
	if err != nil {
		return n + " バイト目"
	}
	return strconv.Itoa(i+1) + " バイト目"
}

// changelogProblem says in Japanese why a changelog file cannot be read:
// what kind of problem (the package's error), and where when the error
// tells. detail is the English error when no rule words it, "" otherwise.
func changelogProblem(err error) (msg, detail string) {
	if ja, ok := rewrite(changelogRules, err.Error()); ok {
		return ja, ""
	}
	switch {
	case errors.Is(err, changelog.ErrEmpty):
		return "ファイルが空です。", ""
	case errors.Is(err, changelog.ErrBinary):
		return "バイナリファイルです (NUL バイトを含みます)。", ""
	case errors.Is(err, changelog.ErrNotUTF8):
		return "UTF-8 のテキストではありません。", ""
	case errors.Is(err, changelog.ErrTooLarge):
		return fmt.Sprintf("大きすぎます (上限 %d バイト)。", changelog.MaxDocumentSize), ""
	case errors.Is(err, changelog.ErrUnknownFormat):
		return "形式を判別できません (変更履歴の見出しも PR への参照も見つかりません)。形式を指定してください。", ""
	case errors.Is(err, changelog.ErrNoEntries):
		return "変更のエントリが見つかりません。", ""
	case errors.Is(err, changelog.ErrNoRelease):
		return "リリースを判別できません。リリースを指定してください。", ""
	case errors.Is(err, changelog.ErrInvalidOption):
		return "指定したオプションが使えません。", err.Error()
	}
	return "解析できません。", err.Error()
}

// saveRules word the store's refusals of an ingest.
var saveRules = []jaRule{
	rule(`(\S+): the document's release is unknown`, func(m []string) string {
		return m[1] + ": 文書のリリースが分かりません。リリースを指定してください。"
	}),
	rule(`document (\S+) is in both (.+) and (.+?): `, func(m []string) string {
		return "文書 " + m[1] + " が " + m[2] + " と " + m[3] + " の両方にあります。どちらか一方だけをアップロードしてください。"
	}),
	rule(`(\S+): deck slug (".*") is not lower-case letters, digits and dashes`, func(m []string) string {
		return m[1] + ": デッキのスラッグ " + m[2] + " に使えない文字があります (SIG を確かめてください)。"
	}),
	rule(`(\S+): deck language (".*"): want ja or en`, func(m []string) string {
		return m[1] + ": デッキの言語 " + m[2] + " は使えません (ja か en)。"
	}),
	rule(`generated question (\S+): deck already has a hand-written question with that id`, func(m []string) string {
		return "生成した問題 " + m[1] + " と同じ id の手書きの問題が、デッキにすでにあります。"
	}),
	rule(`generated question (\S+): already generated from document (\S+?):`, func(m []string) string {
		return "生成した問題 " + m[1] + " は、文書 " + m[2] + " からすでに生成されています。"
	}),
	rule(`generated question id (\S+) appears twice`, func(m []string) string { return "生成した問題の id " + m[1] + " が二度あります。" }),
	rule(`generated question (\S+) names no generator`, func(m []string) string { return "生成した問題 " + m[1] + " に生成方法がありません。" }),
	rule(`document (\S+) to generate again is not stored`, func(m []string) string {
		return "生成し直す文書 " + m[1] + " が保存されていません。もう一度プレビューしてください。"
	}),
	rule(`source of question (\S+) of document (\S+): no such question`, func(m []string) string {
		return "文書 " + m[2] + " の問題 " + m[1] + " がありません。もう一度プレビューしてください。"
	}),
}

// errorText is an error of the import and ingest pages in Japanese, with
// its file, line and field: a question file's problems, a question that
// fails validation, a changelog that cannot be read, or the store's
// refusal of an ingest. ok is false for errors of other kinds.
func errorText(err error) (text string, ok bool) {
	var (
		be *bank.Error
		ve *quiz.ValidationError
		fc *store.FormatConflictError
		ie inputError
		cc *store.CountChangedError
	)
	switch {
	case errors.As(err, &ie):
		return ie.msg, true
	case errors.As(err, &be):
		lines := make([]string, 0, len(be.Problems))
		for _, p := range be.Problems {
			lines = append(lines, problemWhere(p)+": "+fieldPrefix(p.Field)+questionProblem(p.Msg))
		}
		return "問題ファイルを読み込めません。" + strings.Join(lines, " "), true
	case errors.As(err, &ve):
		var parts []string
		for _, p := range ve.Problems {
			parts = append(parts, fieldPrefix(p.Field)+questionProblem(p.Msg))
		}
		what := "問題"
		if id := questionIDIn(err.Error()); id != "" {
			what = "問題 " + id + " "
		}
		return what + "が検証を通りません: " + strings.Join(parts, " "), true
	case errors.As(err, &fc):
		return saveProblem(err).Detail, true
	case errors.As(err, &cc):
		return fmt.Sprintf("確認した %d 問と、いま条件に合う %d 問が違います。何も変えていません。", cc.Want, cc.Got), true
	}
	if ja, ok := rewrite(saveRules, err.Error()); ok {
		return ja, true
	}
	for _, sentinel := range []error{changelog.ErrEmpty, changelog.ErrBinary, changelog.ErrNotUTF8, changelog.ErrTooLarge,
		changelog.ErrUnknownFormat, changelog.ErrNoEntries, changelog.ErrNoRelease, changelog.ErrInvalidOption} {
		if errors.Is(err, sentinel) {
			msg, detail := changelogProblem(err)
			if detail != "" {
				msg += " (詳細: " + detail + ")"
			}
			return msg, true
		}
	}
	return "", false
}

// questionIDRe finds the question of a store's error ("question 12:",
// "generated question foo-bar:").
var questionIDRe = regexp.MustCompile(`question (\S+?):`)

func questionIDIn(s string) string {
	if m := questionIDRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// problemWhere is a question file's problem's place: file:line:col.
func problemWhere(p bank.Problem) string {
	where := p.File
	if p.Line > 0 {
		where += ":" + strconv.Itoa(p.Line)
		if p.Col > 0 {
			where += ":" + strconv.Itoa(p.Col)
		}
	}
	return where
}

func fieldPrefix(field string) string {
	if field == "" {
		return ""
	}
	return field + ": "
}

// hasJapanese reports whether s has kana or kanji: a message already
// written for the pages.
func hasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}
