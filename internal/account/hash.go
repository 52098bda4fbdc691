package account

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// HashParams are the argon2id costs of new password hashes. Existing
// hashes keep the costs they were made with (they are in the stored
// string); Verify asks for a new hash when they differ, so that a sign-in
// upgrades them.
type HashParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultHashParams follow OWASP's Password Storage Cheat Sheet minimum
// for argon2id: 19 MiB, 2 passes, 1 thread.
func DefaultHashParams() HashParams {
	return HashParams{Memory: 19 * 1024, Time: 2, Threads: 1}
}

const (
	saltLen = 16
	keyLen  = 32
)

// Hash returns the PHC string of a new argon2id hash of password with the
// costs p: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>, both base64
// without padding.
func (p HashParams) Hash(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify checks password against a PHC string in constant time. rehash is
// true when the password is right but the hash has other costs than p: it
// is then hashed again with p and stored.
func (p HashParams) Verify(encoded, password string) (ok, rehash bool, err error) {
	has, salt, key, err := parsePHC(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, has.Time, has.Memory, has.Threads, uint32(len(key)))
	if subtle.ConstantTimeCompare(got, key) != 1 {
		return false, false, nil
	}
	return true, has != p, nil
}

// parsePHC splits an argon2id PHC string. Costs beyond sane bounds are
// refused, so that a tampered row cannot make a sign-in eat the machine.
func parsePHC(s string) (p HashParams, salt, key []byte, err error) {
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
