package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"kubequiz/internal/account"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
)

// Daily limits given to the learners: high enough never to hold back a
// soak.
const (
	soakNewPerDay     = 1_000_000
	soakReviewsPerDay = 1_000_000
)

// newAccount is an account to create before the server starts.
type newAccount struct {
	login, password string
	role            quiz.Role
}

// createAccounts creates the accounts in a new database at path, as
// "kubequiz user add" does, with production password hashes (two at a
// time, the server's own cap), and raises the learners' daily limits.
// The server, started on the file after, loads the bundled question bank
// into it: it has no deck yet.
func createAccounts(ctx context.Context, path string, accounts []newAccount) error {
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	next := make(chan newAccount)
	for range 2 {
		wg.Go(func() {
			for a := range next {
				if err := createAccount(ctx, db, a); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, a := range accounts {
		next <- a
	}
	close(next)
	wg.Wait()
	return errors.Join(errors.Join(errs...), db.Close())
}

func createAccount(ctx context.Context, db *store.DB, a newAccount) error {
	login, name, err := account.CheckNew(a.login, a.login, a.password, a.password)
	if err != nil {
		return fmt.Errorf("account %s: %w", a.login, err)
	}
	hash, err := account.DefaultHashParams().Hash(a.password)
	if err != nil {
		return err
	}
	u, err := db.CreateUser(ctx, store.NewUser{Login: login, DisplayName: name, PasswordHash: hash, Role: a.role}, time.Now())
	if err != nil {
		return fmt.Errorf("account %s: %w", a.login, err)
	}
	if a.role == quiz.RoleAdmin {
		return nil
	}
	return db.SetStudyLimits(ctx, u.ID, soakNewPerDay, soakReviewsPerDay)
}
