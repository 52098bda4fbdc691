package web

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are the argon2id costs for new password hashes and how many
// hashes may run at once. Existing hashes keep the costs they were made with
// (they are in the stored string) and are upgraded at the next sign-in.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	// Concurrent caps the hashes running at the same time, so that a burst
	// of sign-ins cannot use more than Concurrent*Memory.
	Concurrent int
}

// DefaultPasswordParams follow OWASP's Password Storage Cheat Sheet minimum
// for argon2id: 19 MiB, 2 passes, 1 thread. At most two hashes run at once
// (38 MiB).
func DefaultPasswordParams() PasswordParams {
	return PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1, Concurrent: 2}
}

const (
	saltLen = 16
	keyLen  = 32
	// hashWait is how long a request waits for a free hashing slot before it
	// gets a 503.
	hashWait = 10 * time.Second
)

// errHashBusy means every hashing slot stayed taken for hashWait.
var errHashBusy = errors.New("password hashing is busy")

// hasher hashes and checks passwords with argon2id, a few at a time.
type hasher struct {
	p     PasswordParams
	slots chan struct{}
}

func newHasher(p PasswordParams) *hasher {
	d := DefaultPasswordParams()
	if p.Memory == 0 || p.Time == 0 || p.Threads == 0 {
		p.Memory, p.Time, p.Threads = d.Memory, d.Time, d.Threads
	}
	if p.Concurrent <= 0 {
		p.Concurrent = min(d.Concurrent, runtime.GOMAXPROCS(0))
	}
	return &hasher{p: p, slots: make(chan struct{}, p.Concurrent)}
}

// acquire takes a hashing slot; release gives it back.
func (h *hasher) acquire(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, hashWait)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errHashBusy
	}
}

func (h *hasher) release() { <-h.slots }

// hash returns the PHC string of a new argon2id hash of password:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>, both base64 without padding.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, h.p.Time, h.p.Memory, h.p.Threads, keyLen)
	h.release()
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.p.Memory, h.p.Time, h.p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// verify checks password against a PHC string in constant time. rehash is
// true when the password is right but the hash uses other costs than h.
func (h *hasher) verify(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	p, salt, key, err := parsePHC(encoded)
	if err != nil {
		return false, false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	h.release()
	if subtle.ConstantTimeCompare(got, key) != 1 {
		return false, false, nil
	}
	return true, p.Memory != h.p.Memory || p.Time != h.p.Time || p.Threads != h.p.Threads, nil
}

// parsePHC splits an argon2id PHC string. Costs beyond sane bounds are
// refused, so that a tampered row cannot make a sign-in eat the machine.
func parsePHC(s string) (p PasswordParams, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, errors.New("password hash: not an argon2id PHC string")
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return p, nil, nil, fmt.Errorf("password hash: unsupported version %q", parts[2])
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return p, nil, nil, fmt.Errorf("password hash: parameters %q: %w", parts[3], err)
	}
	if p.Memory < 8 || p.Memory > 1<<20 || p.Time < 1 || p.Time > 16 || p.Threads < 1 || p.Threads > 16 {
		return p, nil, nil, fmt.Errorf("password hash: parameters %q out of range", parts[3])
	}
	if salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, errors.New("password hash: bad salt")
	}
	if key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, errors.New("password hash: bad key")
	}
	return p, salt, key, nil
}

// Password policy (ASVS 5.0 6.2): length only, no composition rules,
// compared exactly as typed (no trimming or normalisation).
const (
	// minPasswordLen is above ASVS's floor of 8: with it, nearly every entry
	// of the public top-password lists is refused by length alone.
	minPasswordLen = 10
	// maxPasswordLen leaves room for passphrases; argon2 costs the same for
	// any length.
	maxPasswordLen = 256
)

// commonPasswords is Openwall's public-domain list of common passwords (as
// shipped in john's password.lst) plus long ones added for kubequiz.
//
//go:embed account_common_passwords.txt
var commonPasswords string

// passwordProblem says what is wrong with a new password, in the words
// shown to the user, or "" when it is acceptable.
func passwordProblem(password, login, displayName string) string {
	if !utf8.ValidString(password) {
		return "パスワードに使えない文字が含まれています。"
	}
	n := utf8.RuneCountInString(password)
	if n < minPasswordLen {
		return fmt.Sprintf("パスワードは%d文字以上にしてください。", minPasswordLen)
	}
	if n > maxPasswordLen {
		return fmt.Sprintf("パスワードは%d文字以内にしてください。", maxPasswordLen)
	}
	if guessable(password, login, displayName) {
		return "よく使われるパスワードや推測しやすいパスワードは使えません。"
	}
	return ""
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
