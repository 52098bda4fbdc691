package web

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/unicode/norm"

	"kubequiz/internal/account"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// accounts serves sign-in, sign-out, registration, the account page, the
// first-admin setup and the admin's user page. Its hasher is shared by all
// of them, so the cap on concurrent password hashes holds server-wide.
type accounts struct {
	*Server
	hash *hasher
}

// Messages shown on the account forms.
const (
	msgBadCredentials  = "ログイン名またはパスワードが違います。"
	msgTooManyAttempts = "ログインの試行が多すぎます。15 分ほど待ってから、もう一度お試しください。"
	msgLoginTaken      = "このログイン名は使えません。別の名前を選んでください。"
	msgInviteInvalid   = "招待コードが無効か、使用済みか、期限切れです。"
	msgInviteNeeded    = "登録には招待コードが必要です。"
	msgWrongCurrent    = "現在のパスワードが違います。"
	msgTooManySignups  = "登録の試行が多すぎます。1 時間ほど待ってから、もう一度お試しください。"
)

// problemText is the message and the input of a refusal by the account
// rules (an account.Problem), or "", "" when err is nil.
func problemText(err error) (msg, field string) {
	var p account.Problem
	switch {
	case errors.As(err, &p):
		return p.Error(), p.Field()
	case err != nil:
		return err.Error(), ""
	}
	return "", ""
}

// safeNext returns next when it is a path on this server, else "/". Only
// "/..." is allowed; "//host", "/\host", schemes, hosts and control
// characters (browsers drop tabs and newlines, turning "/\t/x" into "//x")
// are refused.
func safeNext(next string) string {
	if !localPath(next) {
		return "/"
	}
	if u, _ := url.Parse(next); u.Path == "/login" || u.Path == "/logout" {
		return "/"
	}
	return next
}

// localPath reports whether p is a path of this server, with its query,
// that a link or redirect may lead to: not another host's ("//host",
// "/\\host"), no scheme, no control characters or spaces.
func localPath(p string) bool {
	if p == "" || len(p) > 2048 || p[0] != '/' || strings.HasPrefix(p, "//") {
		return false
	}
	for _, r := range p {
		if r == '\\' || unicode.IsControl(r) || unicode.IsSpace(r) {
			return false
		}
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && strings.HasPrefix(u.Path, "/")
}

func (a *accounts) loginPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if _, ok := currentUser(c); ok {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return a.render(c, http.StatusOK, views.LoginPage(a.page(c, "ログイン"), views.LoginForm{Next: next}))
}

// login signs a user in. Wrong passwords, unknown logins and disabled
// accounts get the same answer after the same work; the attempt counts
// against the limits in ratelimit.go before the password is checked.
func (a *accounts) login(c echo.Context) error {
	ctx := c.Request().Context()
	name, password := c.FormValue("login"), c.FormValue("password")
	form := views.LoginForm{Login: name, Next: safeNext(c.FormValue("next"))}
	ok, err := a.reserveAttempt(c, name)
	if err != nil {
		return err
	}
	if !ok {
		a.log.WarnContext(ctx, "sign-in refused", "login", logSafe(name), "ip", c.RealIP(), "reason", "rate_limited")
		form.Error = msgTooManyAttempts
		return a.render(c, http.StatusTooManyRequests, views.LoginPage(a.page(c, "ログイン"), form))
	}
	u, reason, err := a.authenticate(ctx, name, password)
	if err != nil {
		return a.hashError(err)
	}
	if reason != "" {
		a.log.WarnContext(ctx, "sign-in failed", "login", logSafe(name), "ip", c.RealIP(), "reason", reason)
		form.Error = msgBadCredentials
		return a.render(c, http.StatusUnprocessableEntity, views.LoginPage(a.page(c, "ログイン"), form))
	}
	if err := a.attemptSucceeded(c, name); err != nil {
		return err
	}
	if err := a.startSession(c, u); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "signed in", "user_id", u.ID, "login", u.Login, "ip", c.RealIP())
	return c.Redirect(http.StatusSeeOther, form.Next)
}

// authenticate checks a login and password. reason is "" on success, else
// why it failed, for the log only.
func (a *accounts) authenticate(ctx context.Context, login, password string) (quiz.User, string, error) {
	cred, err := a.db.Credentials(ctx, account.NormalLogin(login))
	if errors.Is(err, quiz.ErrNotFound) {
		// Hash anyway: the answer must not come faster for unknown logins.
		if _, err := a.hash.hash(ctx, password); err != nil {
			return quiz.User{}, "", err
		}
		return quiz.User{}, "unknown_login", nil
	}
	if err != nil {
		return quiz.User{}, "", err
	}
	ok, rehash, err := a.hash.verify(ctx, cred.PasswordHash, password)
	if err != nil {
		return quiz.User{}, "", err
	}
	switch {
	case !ok:
		return quiz.User{}, "bad_password", nil
	case cred.Disabled:
		return quiz.User{}, "disabled", nil
	}
	if rehash {
		// Upgrade the stored hash to the current costs; failing that is
		// only logged, the sign-in stands.
		h, err := a.hash.hash(ctx, password)
		if err == nil {
			err = a.db.RehashPassword(ctx, cred.User.ID, h)
		}
		if err != nil {
			a.log.WarnContext(ctx, "rehash password", "user_id", cred.User.ID, "err", err)
		}
	}
	return cred.User, "", nil
}

// hashError turns a busy hasher into a 503; other errors pass.
func (a *accounts) hashError(err error) error {
	if errors.Is(err, errHashBusy) {
		return echo.NewHTTPError(http.StatusServiceUnavailable).SetInternal(err)
	}
	return err
}

// logout ends this browser's session on the server and drops its cookies.
func (a *accounts) logout(c echo.Context) error {
	ctx := c.Request().Context()
	if hash, ok := c.Get(sessionHashKey).([]byte); ok {
		if err := a.db.DeleteSession(ctx, hash); err != nil {
			return err
		}
	}
	if u, ok := currentUser(c); ok {
		a.log.InfoContext(ctx, "signed out", "user_id", u.ID, "login", u.Login, "ip", c.RealIP())
	}
	a.clearSessionCookie(c)
	if _, err := c.Cookie(inviteCookie); err == nil {
		a.setInviteCookie(c, "", -1) // a new code not yet shown stays with its admin
	}
	a.rotateCSRF(c)
	return c.Redirect(http.StatusSeeOther, "/")
}

// registerForm is the registration page as the current settings make it,
// for a registration that leads to next (a path of this server). When
// next is the page of a study group's invite link that works, the link
// counts as the invite that registration in invite mode needs.
func (a *accounts) registerForm(ctx context.Context, next string) (views.RegisterForm, error) {
	f := views.RegisterForm{Next: safeNext(next)}
	hasAdmin, err := a.db.HasAdmin(ctx)
	if err != nil {
		return f, err
	}
	mode, err := a.db.RegistrationMode(ctx)
	if err != nil {
		return f, err
	}
	f.Closed, f.InviteOnly = !hasAdmin, mode == store.RegistrationInvite
	if code := groupJoinCode(f.Next); code != "" && f.InviteOnly {
		if f.GroupInvite, err = a.db.GroupInviteValid(ctx, hashToken(code), a.now()); err != nil {
			return f, err
		}
	}
	return f, nil
}

func (a *accounts) registerPage(c echo.Context) error {
	if _, ok := currentUser(c); ok {
		return c.Redirect(http.StatusSeeOther, safeNext(c.QueryParam("next")))
	}
	f, err := a.registerForm(c.Request().Context(), c.QueryParam("next"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.RegisterPage(a.page(c, "アカウント登録"), f))
}

// register creates a member account and signs it in.
func (a *accounts) register(c echo.Context) error {
	if _, ok := currentUser(c); ok {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	ctx := c.Request().Context()
	f, err := a.registerForm(ctx, c.FormValue("next"))
	if err != nil {
		return err
	}
	if f.Closed {
		return a.render(c, http.StatusForbidden, views.RegisterPage(a.page(c, "アカウント登録"), f))
	}
	password := c.FormValue("password")
	f.Invite = strings.TrimSpace(c.FormValue("invite"))
	login, name, err := account.CheckNew(c.FormValue("login"), c.FormValue("display_name"), password, c.FormValue("password2"))
	f.Login, f.DisplayName = login, name
	msg, field := problemText(err)
	if msg == "" && f.InviteOnly && f.Invite == "" && !f.GroupInvite {
		msg, field = msgInviteNeeded, "invite"
	}
	if msg != "" {
		f.Error, f.ErrorField = msg, field
		return a.render(c, http.StatusUnprocessableEntity, views.RegisterPage(a.page(c, "アカウント登録"), f))
	}
	ok, err := a.reserveRegistration(c)
	if err != nil {
		return err
	}
	if !ok {
		a.log.WarnContext(ctx, "registration refused", "login", logSafe(login), "ip", c.RealIP(), "reason", "rate_limited")
		f.Error = msgTooManySignups
		return a.render(c, http.StatusTooManyRequests, views.RegisterPage(a.page(c, "アカウント登録"), f))
	}
	var invite []byte
	if f.Invite != "" {
		invite = hashToken(f.Invite)
	}
	// A study group's invite link (in next) is the invite when no code is
	// given.
	byGroup := f.InviteOnly && f.GroupInvite && invite == nil
	// The cheap checks come before the slow hash; Register checks again.
	if msg, reason, err := a.registerProblem(ctx, login, invite, f.InviteOnly && !byGroup); err != nil || msg != "" {
		if err != nil {
			return err
		}
		a.log.InfoContext(ctx, "registration refused", "login", logSafe(login), "ip", c.RealIP(), "reason", reason)
		f.Error, f.ErrorField = msg, "login"
		if msg != msgLoginTaken {
			f.ErrorField = "invite"
		}
		return a.render(c, http.StatusUnprocessableEntity, views.RegisterPage(a.page(c, "アカウント登録"), f))
	}
	hash, err := a.hash.hash(ctx, password)
	if err != nil {
		return a.hashError(err)
	}
	nu := store.NewUser{Login: login, DisplayName: name, PasswordHash: hash}
	var u quiz.User
	if byGroup {
		u, err = a.db.RegisterByGroupInvite(ctx, nu, hashToken(groupJoinCode(f.Next)), a.now())
	} else {
		u, err = a.db.Register(ctx, nu, invite, a.now())
	}
	switch {
	case errors.Is(err, store.ErrLoginTaken):
		f.Error, f.ErrorField = msgLoginTaken, "login"
	case errors.Is(err, store.ErrTokenInvalid) && byGroup:
		// The group's link stopped working since the form was shown.
		f.Error, f.ErrorField, f.GroupInvite = msgInviteNeeded, "invite", false
	case errors.Is(err, store.ErrTokenInvalid):
		f.Error, f.ErrorField = msgInviteInvalid, "invite"
	case errors.Is(err, store.ErrRegistrationClosed):
		f.Error, f.ErrorField = msgInviteNeeded, "invite"
		f.InviteOnly = true
	case err != nil:
		return err
	}
	if f.Error != "" {
		a.log.InfoContext(ctx, "registration refused", "login", logSafe(login), "ip", c.RealIP(), "err", err)
		return a.render(c, http.StatusUnprocessableEntity, views.RegisterPage(a.page(c, "アカウント登録"), f))
	}
	a.log.InfoContext(ctx, "registered", "user_id", u.ID, "login", u.Login, "ip", c.RealIP(), "invite", invite != nil, "group_invite", byGroup)
	if err := a.startSession(c, u); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, f.Next)
}

// registerProblem checks, before the password is hashed, that the invite
// (in invite mode) is valid and that the login is free. It returns the
// message to show and the reason to log, or "" when all is well.
func (a *accounts) registerProblem(ctx context.Context, login string, invite []byte, inviteOnly bool) (msg, reason string, err error) {
	if inviteOnly {
		ok, err := a.db.TokenValid(ctx, invite, store.TokenInvite, a.now())
		if err != nil || !ok {
			return msgInviteInvalid, "invalid_invite", err
		}
	}
	taken, err := a.db.LoginTaken(ctx, login)
	if err != nil || taken {
		return msgLoginTaken, "login_taken", err
	}
	return "", "", nil
}

// accountNotice is the message /account?done=... shows; only fixed texts.
func accountNotice(done string) string {
	switch done {
	case "name":
		return "表示名を保存しました。"
	case "limits":
		return "1 日の学習量を保存しました。"
	case "timezone":
		return "タイムゾーンを保存しました。"
	case "retention":
		return "目標正答率を保存しました。次の復習から使われます。"
	case "password":
		return "パスワードを変更しました。ほかの端末のログインは終了しました。"
	}
	return ""
}

func (a *accounts) accountForm(c echo.Context) views.AccountForm {
	u, _ := currentUser(c)
	f := views.AccountForm{Login: u.Login, DisplayName: u.DisplayName, Admin: u.IsAdmin(),
		NewPerDay: strconv.Itoa(u.NewPerDay), ReviewsPerDay: strconv.Itoa(u.ReviewsPerDay), Timezone: u.Timezone}
	f.LocalTime = a.now().In(userLocation(u)).Format("2006-01-02 15:04")
	f.DesiredRetention = strconv.FormatFloat(u.DesiredRetention, 'f', -1, 64)
	return f
}

// changeRetention sets the learner's desired retention: a number from
// quiz.MinDesiredRetention to quiz.MaxDesiredRetention (full-width digits
// too), or nothing is stored.
func (a *accounts) changeRetention(c echo.Context) error {
	u, _ := currentUser(c)
	text := strings.TrimSpace(c.FormValue("desired_retention"))
	r, err := strconv.ParseFloat(norm.NFKC.String(text), 64)
	if err != nil {
		r = math.NaN() // not a number: the rule refuses it
	}
	if err := quiz.CheckDesiredRetention(r); err != nil {
		return a.refuseAccount(c, http.StatusUnprocessableEntity, func(f *views.AccountForm) {
			f.DesiredRetention, f.RetentionError = text, err.Error()
		})
	}
	if err := a.db.SetDesiredRetention(c.Request().Context(), u.ID, r); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account?done=retention")
}

// changeTimezone sets the zone whose 04:00 starts the learner's study days:
// an IANA name such as Asia/Tokyo that loads here.
func (a *accounts) changeTimezone(c echo.Context) error {
	u, _ := currentUser(c)
	zone, err := account.CheckTimezone(c.FormValue("timezone"), time.LoadLocation)
	if err != nil {
		return a.refuseAccount(c, http.StatusUnprocessableEntity, func(f *views.AccountForm) { f.Timezone, f.TimezoneError = zone, err.Error() })
	}
	if err := a.db.SetTimezone(c.Request().Context(), u.ID, zone); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account?done=timezone")
}

// refuseAccount shows the account page again with status, as one of its
// forms was refused; refused puts what was sent, and why, into the form.
func (a *accounts) refuseAccount(c echo.Context, status int, refused func(*views.AccountForm)) error {
	f := a.accountForm(c)
	refused(&f)
	return a.render(c, status, views.AccountPage(a.page(c, "アカウント"), f))
}

func (a *accounts) accountPage(c echo.Context) error {
	f := a.accountForm(c)
	f.Notice = accountNotice(c.QueryParam("done"))
	return a.render(c, http.StatusOK, views.AccountPage(a.page(c, "アカウント"), f))
}

// msgNameMissing answers a name form without its field, which the
// account page's form always sends (empty, to go back to the login name).
const msgNameMissing = "表示名の欄が送られてこなかったため、表示名は変更していません。ページを読み込み直してから、もう一度保存してください。"

// changeName sets the learner's display name; an empty one clears it, and
// the login name is shown instead. A form without the field is refused.
func (a *accounts) changeName(c echo.Context) error {
	u, _ := currentUser(c)
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
	}
	if _, sent := form["display_name"]; !sent {
		return a.refuseAccount(c, http.StatusBadRequest, func(f *views.AccountForm) { f.NameError = msgNameMissing })
	}
	name, err := account.CheckDisplayName(form.Get("display_name"))
	if err != nil {
		return a.refuseAccount(c, http.StatusUnprocessableEntity, func(f *views.AccountForm) { f.DisplayName, f.NameError = name, err.Error() })
	}
	if err := a.db.SetDisplayName(c.Request().Context(), u.ID, name); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account?done=name")
}

// changeLimits sets the learner's daily limits of new cards and reviews.
// Both must be whole numbers within bounds, or nothing is stored.
func (a *accounts) changeLimits(c echo.Context) error {
	u, _ := currentUser(c)
	newText, reviewsText := strings.TrimSpace(c.FormValue("new_per_day")), strings.TrimSpace(c.FormValue("reviews_per_day"))
	newPerDay, newMsg := limitProblem(newText, "新しいカード", views.MaxNewPerDay)
	reviewsPerDay, reviewsMsg := limitProblem(reviewsText, "復習", views.MaxReviewsPerDay)
	if newMsg != "" || reviewsMsg != "" {
		return a.refuseAccount(c, http.StatusUnprocessableEntity, func(f *views.AccountForm) {
			f.NewPerDay, f.ReviewsPerDay = newText, reviewsText
			f.NewInvalid, f.ReviewsInvalid = newMsg != "", reviewsMsg != ""
			f.LimitsError = strings.TrimSpace(newMsg + " " + reviewsMsg)
		})
	}
	if err := a.db.SetStudyLimits(c.Request().Context(), u.ID, newPerDay, reviewsPerDay); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account?done=limits")
}

// limitProblem reads a daily limit named what, from 0 to most; the message
// says what is wrong with it.
func limitProblem(s, what string, most int) (int, string) {
	n, err := strconv.Atoi(norm.NFKC.String(s)) // full-width digits too
	if err != nil || n < 0 || n > most {
		return 0, fmt.Sprintf("%sの上限は 0 から %d までの整数で入力してください。", what, most)
	}
	return n, ""
}

// changePassword needs the current password (counted like a sign-in
// attempt). It ends every session of the user, then signs this browser in
// again with a new token.
func (a *accounts) changePassword(c echo.Context) error {
	ctx := c.Request().Context()
	u, _ := currentUser(c)
	current, password := c.FormValue("current_password"), c.FormValue("password")
	fail := func(status int, msg string) error {
		return a.refuseAccount(c, status, func(f *views.AccountForm) { f.PasswordError = msg })
	}
	if err := account.CheckNewPassword(password, c.FormValue("password2"), u.Login, u.DisplayName); err != nil {
		return fail(http.StatusUnprocessableEntity, err.Error())
	}
	ok, err := a.reserveAttempt(c, u.Login)
	if err != nil {
		return err
	}
	if !ok {
		a.log.WarnContext(ctx, "password change refused", "user_id", u.ID, "ip", c.RealIP(), "reason", "rate_limited")
		return fail(http.StatusTooManyRequests, msgTooManyAttempts)
	}
	stored, err := a.db.PasswordHash(ctx, u.ID)
	if err != nil {
		return err
	}
	if ok, _, err = a.hash.verify(ctx, stored, current); err != nil {
		return a.hashError(err)
	}
	if !ok {
		a.log.WarnContext(ctx, "password change failed", "user_id", u.ID, "ip", c.RealIP(), "reason", "bad_password")
		return fail(http.StatusUnprocessableEntity, msgWrongCurrent)
	}
	hash, err := a.hash.hash(ctx, password)
	if err != nil {
		return a.hashError(err)
	}
	tok, tokHash, err := newToken()
	if err != nil {
		return err
	}
	now := a.now()
	expires := now.Add(absoluteTimeout)
	if err := a.db.ChangePassword(ctx, u.ID, hash, now, &store.NewSession{TokenHash: tokHash, ExpiresAt: expires}); err != nil {
		return err
	}
	if err := a.attemptSucceeded(c, u.Login); err != nil {
		return err
	}
	a.setSessionCookie(c, tok, expires)
	a.log.InfoContext(ctx, "password changed", "user_id", u.ID, "login", u.Login, "ip", c.RealIP())
	return c.Redirect(http.StatusSeeOther, "/account?done=password")
}
