package account

import "fmt"

// Code names one thing that can be wrong with what is typed for an account.
type Code int

// The problems the account rules find.
const (
	LoginInvalid         Code = iota + 1 // not 3 to 32 of a-z 0-9 . _ -, starting with a letter or digit
	DisplayNameNotUTF8                   // bytes that are not UTF-8
	DisplayNameTooLong                   // more than MaxDisplayName characters
	DisplayNameChar                      // a control or invisible character (Problem.Char)
	DisplayNameInvisible                 // nothing visible at all
	PasswordNotUTF8                      // bytes that are not UTF-8
	PasswordTooShort                     // fewer than MinPasswordLen characters
	PasswordTooLong                      // more than MaxPasswordLen characters
	PasswordGuessable                    // common, the account's own name, a run or a repeat
	PasswordsDiffer                      // the confirmation is not the password
	TimezoneUnknown                      // not the name of a time zone that loads
)

// Problem is what the account rules refuse, as an error. Its Error is the
// message shown to the person who typed it, on the pages and on the
// command line alike. errors.Is matches problems by Code.
type Problem struct {
	Code Code
	// Char is the character refused, for DisplayNameChar.
	Char rune
}

// Error is the problem in the words shown to the user.
func (p Problem) Error() string {
	switch p.Code {
	case LoginInvalid:
		return "ログイン名は 3〜32 文字の英数字と . _ - で、英数字で始めてください。"
	case DisplayNameNotUTF8:
		return "表示名に使えない文字が含まれています。"
	case DisplayNameTooLong:
		return fmt.Sprintf("表示名は %d 文字以内にしてください。", MaxDisplayName)
	case DisplayNameChar:
		return fmt.Sprintf("表示名に使えない文字 (U+%04X) が含まれています。", p.Char)
	case DisplayNameInvisible:
		return "表示名には見える文字を含めてください。"
	case PasswordNotUTF8:
		return "パスワードに使えない文字が含まれています。"
	case PasswordTooShort:
		return fmt.Sprintf("パスワードは%d文字以上にしてください。", MinPasswordLen)
	case PasswordTooLong:
		return fmt.Sprintf("パスワードは%d文字以内にしてください。", MaxPasswordLen)
	case PasswordGuessable:
		return "よく使われるパスワードや推測しやすいパスワードは使えません。"
	case PasswordsDiffer:
		return "確認用のパスワードが一致しません。"
	case TimezoneUnknown:
		return "タイムゾーンは Asia/Tokyo や Europe/Berlin のような IANA の名前で入力してください。"
	}
	return fmt.Sprintf("account problem %d", p.Code)
}

// Field names the input the problem is about, as the account forms name
// it: login, display_name, password, password2 or timezone.
func (p Problem) Field() string {
	switch p.Code {
	case LoginInvalid:
		return "login"
	case DisplayNameNotUTF8, DisplayNameTooLong, DisplayNameChar, DisplayNameInvisible:
		return "display_name"
	case PasswordNotUTF8, PasswordTooShort, PasswordTooLong, PasswordGuessable:
		return "password"
	case PasswordsDiffer:
		return "password2"
	case TimezoneUnknown:
		return "timezone"
	}
	return ""
}

// Is reports whether target is a Problem with the same Code.
func (p Problem) Is(target error) bool {
	t, ok := target.(Problem)
	return ok && t.Code == p.Code
}
