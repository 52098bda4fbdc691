package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/account"
	"kubequiz/internal/bank"
	"kubequiz/internal/loadclient"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/internal/web"
	"kubequiz/questions"
)

// loopback serves h on 127.0.0.1 with a free port, with the timeouts of
// kubequiz serve, until stop is called.
func loopback(h http.Handler, log *slog.Logger) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := web.HTTPServer(h, log)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("serve", "err", err)
		}
	}()
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// bareEcho is the ceiling for pages: echo with no middleware and a handler
// that returns a short string.
func bareEcho() http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/hello", func(c echo.Context) error { return c.String(http.StatusOK, "Hello, World!") })
	return e
}

// replayEcho is the floor under a review: echo with no middleware, whose
// handlers read the posted form and send back the answers kubequiz gave to
// one real review, headers and all, so that a review costs the requests,
// their parsing and their answers and nothing of kubequiz's own work. GET
// /study, which the learners load before their first card, gets the
// grade's answer too: it carries the next card.
func replayEcho(answered, graded loadclient.Reply) http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	send := func(r loadclient.Reply) echo.HandlerFunc {
		// The server dates each answer itself.
		header := r.Header.Clone()
		header.Del("Date")
		header.Set(echo.HeaderContentLength, strconv.Itoa(len(r.Body)))
		return func(c echo.Context) error {
			if c.Request().Method == http.MethodPost {
				if _, err := c.FormParams(); err != nil {
					return err
				}
			}
			maps.Copy(c.Response().Header(), header)
			c.Response().WriteHeader(http.StatusOK)
			_, err := c.Response().Write(r.Body)
			return err
		}
	}
	e.GET("/study", send(graded))
	e.POST("/study/answer", send(answered))
	e.POST("/study/grade", send(graded))
	return e
}

// inProcess is a kubequiz server on a fresh database in dir, with the
// bundled question bank imported copies+1 times (each copy a deck of its
// own), so that the learners do not run out of new cards.
type inProcess struct {
	db  *store.DB
	srv *web.Server
}

func startInProcess(ctx context.Context, dir string, copies int, sync store.Sync, log *slog.Logger) (*inProcess, error) {
	db, err := store.OpenSync(ctx, filepath.Join(dir, "kubequiz.db"), sync)
	if err != nil {
		return nil, err
	}
	files, err := bundledBank(copies)
	if err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ImportBank(ctx, files, store.ImportOptions{Actor: "bundled", Now: time.Now()}); err != nil {
		db.Close()
		return nil, err
	}
	// Production password costs: creating and signing in the learners
	// takes a few seconds, all before the timed phases.
	srv, err := web.New(web.Config{}, db, log)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &inProcess{db: db, srv: srv}, nil
}

// bundledBank decodes the embedded question files and adds copies of each
// deck under other slugs.
func bundledBank(copies int) ([]bank.Decoded, error) {
	fsys := questions.FS()
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var inputs []bank.Input
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, bank.Input{Name: path.Join("questions", n), Data: b})
	}
	decoded, err := bank.DecodeAll(inputs)
	if err != nil {
		return nil, fmt.Errorf("bundled question bank: %w", err)
	}
	out := append([]bank.Decoded(nil), decoded...)
	for c := 1; c <= copies; c++ {
		for _, d := range decoded {
			f := *d.File
			f.Name = fmt.Sprintf("%s (copy %d)", f.Name, c)
			f.Deck.Slug = fmt.Sprintf("%s-copy-%d", f.Deck.Slug, c)
			f.Deck.Title = fmt.Sprintf("%s (copy %d)", f.Deck.Title, c)
			out = append(out, bank.Decoded{File: &f, SHA256: fmt.Sprintf("%s-copy-%d", d.SHA256, c)})
		}
	}
	return out, nil
}

// addLearners creates the learners' accounts in db, as "kubequiz user add"
// does, with production password hashes (two at a time, the server's own
// cap) and raises their daily limits so that the run is never held back by
// them.
func addLearners(ctx context.Context, db *store.DB, ls []*loadclient.Browser, newPerDay, reviewsPerDay int) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan *loadclient.Browser)
	for range 2 {
		wg.Go(func() {
			for l := range next {
				err := addLearner(ctx, db, l, newPerDay, reviewsPerDay)
				if err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, l := range ls {
		next <- l
	}
	close(next)
	wg.Wait()
	return first
}

func addLearner(ctx context.Context, db *store.DB, l *loadclient.Browser, newPerDay, reviewsPerDay int) error {
	login, name, err := account.CheckNew(l.Login, l.Login, l.Password, l.Password)
	if err != nil {
		return fmt.Errorf("%w: %w", err, quiz.ErrInvalid)
	}
	hash, err := account.DefaultHashParams().Hash(l.Password)
	if err != nil {
		return err
	}
	u, err := db.CreateUser(ctx, store.NewUser{Login: login, DisplayName: name, PasswordHash: hash, Role: quiz.RoleMember}, time.Now())
	if err != nil {
		return err
	}
	return db.SetStudyLimits(ctx, u.ID, newPerDay, reviewsPerDay)
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// addToDatabase creates the learners' accounts in the database file of a
// server run apart (-url with -db), as "kubequiz user add" does, with the
// same raised daily limits.
func addToDatabase(ctx context.Context, dbPath string, ls []*loadclient.Browser, newPerDay, reviewsPerDay int) error {
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	err = addLearners(ctx, db, ls, newPerDay, reviewsPerDay)
	return errors.Join(err, db.Close())
}

// discardLogger formats log records as the server would and drops them.
func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
