// Package account holds the rules of kubequiz's accounts: what a login
// name, a display name, a password and a time zone may be, the one wording
// of what is wrong with them (Problem), and the argon2id hashing of
// passwords. The web pages and the command line both use it. It does no
// I/O: the word and zone lists are built in.
package account

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// loginPattern is what login names may look like (after lower-casing):
// ASCII, so that names cannot imitate each other.
var loginPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{2,31}$`)

// MaxDisplayName is the most characters a display name may have.
const MaxDisplayName = 50

// NormalLogin is a login name as stored and looked up: trimmed, lower case.
func NormalLogin(login string) string {
	return strings.ToLower(strings.TrimSpace(login))
}

// CheckLogin checks a new login name; it returns the name as stored
// (NormalLogin) and a Problem when it is refused.
func CheckLogin(login string) (string, error) {
	login = NormalLogin(login)
	if !loginPattern.MatchString(login) {
		return login, Problem{Code: LoginInvalid}
	}
	return login, nil
}

// CheckDisplayName checks a display name; it returns the name as stored:
// trimmed, and in Unicode's composed form (NFC), so that a letter typed
// as a base and an accent counts and compares as the one letter it is.
// Letters, marks, digits, punctuation, symbols and spaces are allowed,
// the ideographic space of Japanese input among them, and the zero-width
// joiner that joins emoji; other invisible characters (direction
// overrides, zero-width spaces) and control characters are not, and the
// Problem names the first one. An empty name is allowed.
func CheckDisplayName(name string) (string, error) {
	if !utf8.ValidString(name) {
		return name, Problem{Code: DisplayNameNotUTF8}
	}
	name = norm.NFC.String(strings.TrimSpace(name))
	if utf8.RuneCountInString(name) > MaxDisplayName {
		return name, Problem{Code: DisplayNameTooLong}
	}
	rs := []rune(name)
	visible := false
	for i, r := range rs {
		joins := r == zeroWidthJoiner && i > 0 && i < len(rs)-1 && emojiPart(rs[i-1]) && emojiPart(rs[i+1])
		if !joins && !unicode.IsPrint(r) && !unicode.Is(unicode.Zs, r) {
			return name, Problem{Code: DisplayNameChar, Char: r}
		}
		visible = visible || unicode.In(r, unicode.L, unicode.N, unicode.S, unicode.P)
	}
	if name != "" && !visible {
		return name, Problem{Code: DisplayNameInvisible}
	}
	return name, nil
}

// zeroWidthJoiner joins emoji into one ("👩‍💻"); a name may hold it only
// between two parts of an emoji.
const zeroWidthJoiner = '\u200d'

// emojiPart reports whether r can stand beside a zero-width joiner in an
// emoji: a symbol, a skin tone, or the variation selector that asks for
// the emoji form.
func emojiPart(r rune) bool {
	return unicode.In(r, unicode.So, unicode.Sk) || r == '\ufe0f'
}

// CheckNew checks everything a new account needs, in the order of the
// registration form: the login name, the display name, the password and
// its confirmation (password2). It returns the login and display name as
// stored, and the first Problem found.
func CheckNew(login, displayName, password, password2 string) (string, string, error) {
	login, err := CheckLogin(login)
	if err != nil {
		return login, displayName, err
	}
	if displayName, err = CheckDisplayName(displayName); err != nil {
		return login, displayName, err
	}
	return login, displayName, CheckNewPassword(password, password2, login, displayName)
}
