package account

import (
	"errors"
	"strings"
	"testing"
)

// TestDisplayNameProblem: what a display name may hold, and the name as
// stored.
func TestDisplayNameProblem(t *testing.T) {
	tests := []struct {
		name, in, stored, problem string // problem: part of the message, "" when accepted
	}{
		{"trimmed", "  管理人 ", "管理人", ""},
		{"ideographic space (Japanese input)", "\u3000山田\u3000太郎\u3000", "山田\u3000太郎", ""},
		{"no-break space", "Ana\u00a0Lima", "Ana\u00a0Lima", ""},
		{"emoji joined by a zero-width joiner", "👩\u200d💻 dev", "👩\u200d💻 dev", ""},
		{"emoji with a variation selector and a joiner", "🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈", ""},
		{"a joiner alone", "\u200d", "\u200d", "(U+200D)"},
		{"a joiner inside a word", "Al\u200dice", "Al\u200dice", "(U+200D)"},
		{"nothing visible", "\u0301\u0301", "\u0301\u0301", "見える文字"},
		{"emoji with a variation selector", "☕\ufe0f", "☕\ufe0f", ""},
		{"composed before counting", strings.Repeat("e\u0301", 50), strings.Repeat("é", 50), ""},
		{"too long once composed", strings.Repeat("e\u0301", 51), strings.Repeat("é", 51), "50 文字以内"},
		{"too long", strings.Repeat("あ", 51), strings.Repeat("あ", 51), "50 文字以内"},
		{"newline", "a\nb", "a\nb", "(U+000A)"},
		{"direction override", "abc\u202edef", "abc\u202edef", "(U+202E)"},
		{"zero-width space", "a\u200bb", "a\u200bb", "(U+200B)"},
		{"invalid UTF-8", "a\xffb", "a\xffb", "使えない文字"},
	}
	for _, tt := range tests {
		stored, err := CheckDisplayName(tt.in)
		if stored != tt.stored {
			t.Errorf("%s: stored as %q, want %q", tt.name, stored, tt.stored)
		}
		if tt.problem == "" && err != nil || tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)) {
			t.Errorf("%s: problem %v, want one with %q", tt.name, err, tt.problem)
		}
	}
}

// TestCheckNew: a new account's inputs are checked in the order of the
// form, and the first problem names its input.
func TestCheckNew(t *testing.T) {
	const pw = "member passphrase 2"
	tests := []struct {
		name, login, displayName, pw, pw2 string
		wantLogin, wantName               string
		want                              Code // 0: accepted
		wantField                         string
	}{
		{"accepted", " Gina ", " ジーナ ", pw, pw, "gina", "ジーナ", 0, ""},
		{"bad login first", "a b", "a\u200bb", "short", "other", "a b", "a\u200bb", LoginInvalid, "login"},
		{"short login", "ab", "", pw, pw, "ab", "", LoginInvalid, "login"},
		{"display name before password", "gina", "a\u200bb", "short", "other", "gina", "a\u200bb", DisplayNameChar, "display_name"},
		{"password before its confirmation", "gina", "", "short", "other", "gina", "", PasswordTooShort, "password"},
		{"password is login", "ginaginagina", "", "GinaGinaGina", "GinaGinaGina", "ginaginagina", "", PasswordGuessable, "password"},
		{"mismatch", "gina", "", pw, "other", "gina", "", PasswordsDiffer, "password2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			login, name, err := CheckNew(tt.login, tt.displayName, tt.pw, tt.pw2)
			if login != tt.wantLogin || name != tt.wantName {
				t.Errorf("stored as %q, %q; want %q, %q", login, name, tt.wantLogin, tt.wantName)
			}
			if tt.want == 0 {
				if err != nil {
					t.Errorf("CheckNew = %v, want no problem", err)
				}
				return
			}
			var p Problem
			if !errors.As(err, &p) || p.Code != tt.want || p.Field() != tt.wantField || !errors.Is(err, Problem{Code: tt.want}) {
				t.Errorf("CheckNew = %#v, want code %d on %s", err, tt.want, tt.wantField)
			}
		})
	}
}

// TestProblemWording: every problem has its own message, and one naming a
// character or a length says which.
func TestProblemWording(t *testing.T) {
	seen := map[string]Code{}
	for c := LoginInvalid; c <= TimezoneUnknown; c++ {
		msg := Problem{Code: c}.Error()
		if prev, dup := seen[msg]; dup || !strings.HasSuffix(msg, "。") {
			t.Errorf("code %d: message %q (also code %d)", c, msg, prev)
		}
		seen[msg] = c
		if (Problem{Code: c}).Field() == "" {
			t.Errorf("code %d names no input", c)
		}
	}
	for p, want := range map[Problem]string{
		{Code: DisplayNameChar, Char: '\u202e'}: "表示名に使えない文字 (U+202E) が含まれています。",
		{Code: DisplayNameTooLong}:              "表示名は 50 文字以内にしてください。",
		{Code: PasswordTooShort}:                "パスワードは10文字以上にしてください。",
		{Code: PasswordTooLong}:                 "パスワードは256文字以内にしてください。",
	} {
		if p.Error() != want {
			t.Errorf("%#v = %q, want %q", p, p.Error(), want)
		}
	}
}
