package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/account"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// setupTokenLifetime is how long a first-admin setup link works.
const setupTokenLifetime = 24 * time.Hour

// SetupLink prepares the first-admin setup: while no admin account exists it
// stores a new one-time setup token (hashed; older unused links stop
// working) and returns the link to open, baseURL + "/setup?token=...", and
// true. Once an admin exists it returns "", false. The serve command calls
// it at start and shows the link to the operator.
func (s *Server) SetupLink(ctx context.Context, baseURL string) (string, bool, error) {
	has, err := s.db.HasAdmin(ctx)
	if err != nil || has {
		return "", false, err
	}
	tok, hash, err := newToken()
	if err != nil {
		return "", false, fmt.Errorf("web: setup token: %w", err)
	}
	now := s.now()
	if err := s.db.CreateSetupToken(ctx, hash, now, now.Add(setupTokenLifetime)); err != nil {
		return "", false, err
	}
	return strings.TrimSuffix(baseURL, "/") + "/setup?token=" + url.QueryEscape(tok), true, nil
}

// setupValid reports whether tok is a usable setup token while no admin
// exists.
func (a *accounts) setupValid(ctx context.Context, tok string) (bool, error) {
	if !wellFormedToken(tok) {
		return false, nil
	}
	has, err := a.db.HasAdmin(ctx)
	if err != nil || has {
		return false, err
	}
	return a.db.TokenValid(ctx, hashToken(tok), store.TokenSetup, a.now())
}

func (a *accounts) setupPage(c echo.Context) error {
	tok := c.QueryParam("token")
	ok, err := a.setupValid(c.Request().Context(), tok)
	if err != nil {
		return err
	}
	// The page must not leak the token to other sites.
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	if !ok {
		return a.render(c, http.StatusNotFound, views.SetupPage(a.page(c, "初期設定"), views.SetupForm{Invalid: true}))
	}
	return a.render(c, http.StatusOK, views.SetupPage(a.page(c, "初期設定"), views.SetupForm{Token: tok}))
}

// setup creates the first admin with a setup token, uses the token up and
// signs the new admin in.
func (a *accounts) setup(c echo.Context) error {
	ctx := c.Request().Context()
	tok, password := c.FormValue("token"), c.FormValue("password")
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	invalid := func() error {
		a.log.WarnContext(ctx, "setup refused", "ip", c.RealIP(), "reason", "invalid_token")
		return a.render(c, http.StatusNotFound, views.SetupPage(a.page(c, "初期設定"), views.SetupForm{Invalid: true}))
	}
	ok, err := a.setupValid(ctx, tok)
	if err != nil {
		return err
	}
	if !ok {
		return invalid()
	}
	login, name, err := account.CheckNew(c.FormValue("login"), c.FormValue("display_name"), password, c.FormValue("password2"))
	if err != nil {
		msg, field := problemText(err)
		f := views.SetupForm{Token: tok, Login: login, DisplayName: name, Error: msg, ErrorField: field}
		return a.render(c, http.StatusUnprocessableEntity, views.SetupPage(a.page(c, "初期設定"), f))
	}
	hash, err := a.hash.hash(ctx, password)
	if err != nil {
		return a.hashError(err)
	}
	u, err := a.db.CreateFirstAdmin(ctx, store.NewUser{Login: login, DisplayName: name, PasswordHash: hash}, hashToken(tok), a.now())
	if errors.Is(err, store.ErrTokenInvalid) || errors.Is(err, store.ErrAdminExists) {
		return invalid()
	}
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "first admin created", "user_id", u.ID, "login", u.Login, "ip", c.RealIP())
	if err := a.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users")
}
