package account

import (
	"bufio"
	_ "embed"
	"strings"
	"unicode/utf8"
)

// Password policy (ASVS 5.0 6.2): length only, no composition rules,
// compared exactly as typed (no trimming or normalisation).
const (
	// MinPasswordLen is above ASVS's floor of 8: with it, nearly every
	// entry of the public top-password lists is refused by length alone.
	MinPasswordLen = 10
	// MaxPasswordLen leaves room for passphrases; argon2 costs the same
	// for any length.
	MaxPasswordLen = 256
)

// commonPasswords is Openwall's public-domain list of common passwords (as
// shipped in john's password.lst) plus long ones added for kubequiz.
//
//go:embed common_passwords.txt
var commonPasswords string

// CheckPassword checks a new password of the account with login and
// displayName; it returns a Problem when the password is refused.
func CheckPassword(password, login, displayName string) error {
	if !utf8.ValidString(password) {
		return Problem{Code: PasswordNotUTF8}
	}
	n := utf8.RuneCountInString(password)
	if n < MinPasswordLen {
		return Problem{Code: PasswordTooShort}
	}
	if n > MaxPasswordLen {
		return Problem{Code: PasswordTooLong}
	}
	if guessable(password, login, displayName) {
		return Problem{Code: PasswordGuessable}
	}
	return nil
}

// CheckNewPassword is CheckPassword, then the check that the password
// typed again to confirm it (password2) is the same.
func CheckNewPassword(password, password2, login, displayName string) error {
	if err := CheckPassword(password, login, displayName); err != nil {
		return err
	}
	if password != password2 {
		return Problem{Code: PasswordsDiffer}
	}
	return nil
}

// guessable reports whether a password is common, made from the account's
// own names, a run like "1234567890" or "abcdef...", or a short unit
// repeated; also when it is one of those followed by digits or symbols, or
// one of those said again ("passwordpassword").
func guessable(password, login, displayName string) bool {
	lower := strings.ToLower(password)
	base := strings.TrimRight(lower, "0123456789!@#$%^&*()-_=+.,?/~ ")
	own := []string{strings.ToLower(login), strings.ToLower(strings.TrimSpace(displayName)), "kubequiz", "kubernetes", "k8s"}
	for _, cand := range []string{lower, base, repeatUnit(lower), repeatUnit(base)} {
		if len(cand) < 3 && cand != lower {
			continue
		}
		for _, w := range own {
			if w != "" && cand == w {
				return true
			}
		}
		if isRun(cand) || isRepeat(cand) || inList(commonPasswords, cand) {
			return true
		}
	}
	return false
}

// isRun reports whether every character is one code point above (or every
// one below) the previous one.
func isRun(s string) bool {
	r := []rune(s)
	if len(r) < 3 {
		return false
	}
	step := r[1] - r[0]
	if step != 1 && step != -1 {
		return false
	}
	for i := 2; i < len(r); i++ {
		if r[i]-r[i-1] != step {
			return false
		}
	}
	return true
}

// isRepeat reports whether s is a unit of at most four characters repeated.
func isRepeat(s string) bool {
	r := []rune(s)
	for unit := 1; unit <= 4 && unit*2 <= len(r); unit++ {
		if len(r)%unit != 0 {
			continue
		}
		if strings.Repeat(string(r[:unit]), len(r)/unit) == s {
			return true
		}
	}
	return false
}

// repeatUnit returns the shortest string whose repetition is s, or s.
func repeatUnit(s string) string {
	r := []rune(s)
	for unit := 1; unit*2 <= len(r); unit++ {
		if len(r)%unit == 0 && strings.Repeat(string(r[:unit]), len(r)/unit) == s {
			return string(r[:unit])
		}
	}
	return s
}

// inList reports whether s (already lower case) is a line of list; lines
// starting with "#!comment" are comments.
func inList(list, s string) bool {
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#!comment") {
			continue
		}
		if len(line) == len(s) && strings.EqualFold(line, s) {
			return true
		}
	}
	return false
}
