package web

import (
	"context"
	"errors"
	"runtime"
	"time"

	"kubequiz/internal/account"
)

// PasswordParams are the argon2id costs for new password hashes (zero
// values mean account.DefaultHashParams) and how many hashes may run at
// once. Existing hashes keep the costs they were made with (they are in
// the stored string) and are upgraded at the next sign-in.
type PasswordParams struct {
	account.HashParams
	// Concurrent caps the hashes running at the same time, so that a burst
	// of sign-ins cannot use more than Concurrent*Memory. Zero means
	// defaultConcurrentHashes, or fewer on fewer CPUs.
	Concurrent int
}

const (
	// defaultConcurrentHashes lets at most two hashes run at once (38 MiB
	// at the default costs).
	defaultConcurrentHashes = 2
	// hashWait is how long a request waits for a free hashing slot before it
	// gets a 503.
	hashWait = 10 * time.Second
)

// errHashBusy means every hashing slot stayed taken for hashWait.
var errHashBusy = errors.New("password hashing is busy")

// hasher hashes and checks passwords with account's argon2id, a few at a
// time.
type hasher struct {
	p     account.HashParams
	slots chan struct{}
}

func newHasher(p PasswordParams) *hasher {
	if p.Memory == 0 || p.Time == 0 || p.Threads == 0 {
		p.HashParams = account.DefaultHashParams()
	}
	if p.Concurrent <= 0 {
		p.Concurrent = min(defaultConcurrentHashes, runtime.GOMAXPROCS(0))
	}
	return &hasher{p: p.HashParams, slots: make(chan struct{}, p.Concurrent)}
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

// hash returns the PHC string of a new hash of password (account.HashParams.Hash).
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return h.p.Hash(password)
}

// verify checks password against a PHC string (account.HashParams.Verify):
// rehash is true when the password is right but the hash has other costs
// than h.
func (h *hasher) verify(ctx context.Context, encoded, password string) (ok, rehash bool, err error) {
	if err := h.acquire(ctx); err != nil {
		return false, false, err
	}
	defer h.release()
	return h.p.Verify(encoded, password)
}
