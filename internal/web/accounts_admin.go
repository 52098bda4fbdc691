package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// inviteLifetime is how long an invite code works.
const inviteLifetime = 7 * 24 * time.Hour

// adminNotice is the message /admin/users?done=... shows; only fixed texts.
func adminNotice(done string) string {
	switch done {
	case "registration":
		return "登録方法を保存しました。"
	case "disabled":
		return "ユーザーを無効にし、ログインを終了させました。"
	case "enabled":
		return "ユーザーを有効にしました。"
	case "signout":
		return "ユーザーのログインをすべて終了させました。"
	}
	return ""
}

// adminUsersView gathers the admin's user page. Dates are in the admin's
// own time zone, as on every page they see.
func (a *accounts) adminUsersView(ctx context.Context, me quiz.User) (views.AdminUsers, error) {
	var v views.AdminUsers
	now := a.now()
	users, err := a.db.ListUsers(ctx, now, idleTimeout)
	if err != nil {
		return v, err
	}
	loc := userLocation(me)
	for _, u := range users {
		v.Users = append(v.Users, views.UserRow{
			ID: u.User.ID, Login: u.User.Login, DisplayName: u.User.DisplayName,
			Admin: u.User.IsAdmin(), Disabled: u.Disabled, Self: u.User.ID == me.ID,
			Sessions: u.Sessions, Created: u.User.CreatedAt.In(loc).Format("2006-01-02"),
		})
	}
	mode, err := a.db.RegistrationMode(ctx)
	if err != nil {
		return v, err
	}
	v.InviteOnly = mode == store.RegistrationInvite
	if v.PendingInvites, err = a.db.PendingInvites(ctx, now); err != nil {
		return v, err
	}
	return v, nil
}

// userLocation is the user's time zone, or UTC when it does not load.
func userLocation(u quiz.User) *time.Location {
	if loc, err := time.LoadLocation(u.Timezone); err == nil {
		return loc
	}
	return time.UTC
}

func (a *accounts) adminUsers(c echo.Context) error {
	me, _ := currentUser(c)
	v, err := a.adminUsersView(c.Request().Context(), me)
	if err != nil {
		return err
	}
	v.Notice = adminNotice(c.QueryParam("done"))
	// Only the page the new code's POST leads to takes the code, and not
	// for a HEAD, which shows nothing.
	if c.QueryParam("done") == "invite" && c.Request().Method == http.MethodGet {
		if v.NewInvite, v.InviteExpires, err = a.takeNewInvite(c, me); err != nil {
			return err
		}
	}
	// The invite section's own notices, beside the code the page jumps to.
	switch {
	case v.NewInvite == "" && c.QueryParam("done") == "invite":
		v.InviteNotice = msgInviteShownOnce
	case c.QueryParam("done") == "revoked":
		v.InviteNotice = msgInvitesRevoked
	}
	return a.render(c, http.StatusOK, views.AdminUsersPage(a.page(c, "ユーザー管理"), v))
}

func (a *accounts) setRegistration(c echo.Context) error {
	ctx := c.Request().Context()
	me, _ := currentUser(c)
	mode := c.FormValue("registration")
	if mode != store.RegistrationOpen && mode != store.RegistrationInvite {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	if err := a.db.SetRegistrationMode(ctx, mode); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "registration mode set", "mode", mode, "by", me.Login)
	return c.Redirect(http.StatusSeeOther, "/admin/users?done=registration")
}

// msgInvitesRevoked confirms that unused invites were revoked.
const msgInvitesRevoked = "未使用の招待コードをすべて無効にしました。"

// msgInviteShownOnce answers a reload of the page that showed a new code.
const msgInviteShownOnce = "招待コードは作成直後に一度だけ表示されます。コードを控え忘れたときは、新しく作成してください。"

// inviteCookie carries a new invite code from its POST to the page that
// shows it, once: the code is stored hashed, so no later page can show it
// again, and a reload of that page must not make another.
const inviteCookie = "kq_new_invite"

// createInvite makes an invite code and passes it, in a short-lived cookie
// for the admin page alone, to the page it redirects to.
func (a *accounts) createInvite(c echo.Context) error {
	ctx := c.Request().Context()
	me, _ := currentUser(c)
	tok, hash, err := newToken()
	if err != nil {
		return err
	}
	now := a.now()
	expires := now.Add(inviteLifetime)
	if err := a.db.CreateInvite(ctx, hash, me.ID, now, expires); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "invite created", "by", me.Login, "expires", expires.UTC().Format(time.RFC3339))
	a.setInviteCookie(c, tok, 600)
	return c.Redirect(http.StatusSeeOther, "/admin/users?done=invite#invite-heading")
}

// setInviteCookie sets inviteCookie to tok for maxAge seconds (a negative
// maxAge deletes it).
func (a *accounts) setInviteCookie(c echo.Context, tok string, maxAge int) {
	c.SetCookie(&http.Cookie{
		Name:     inviteCookie,
		Value:    tok,
		Path:     "/admin/users",
		MaxAge:   maxAge,
		Secure:   a.secureCookies(c),
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
}

// takeNewInvite reads and deletes the cookie createInvite set. It returns
// the code and when it expires, or "" when there is none, the code no
// longer works (used or revoked since), or another admin made it (who
// signed out in this browser before the page came).
func (a *accounts) takeNewInvite(c echo.Context, me quiz.User) (code, expires string, err error) {
	ck, err := c.Cookie(inviteCookie)
	if err != nil {
		return "", "", nil // no cookie
	}
	a.setInviteCookie(c, "", -1)
	if !wellFormedToken(ck.Value) {
		return "", "", nil
	}
	at, err := a.db.InviteExpiry(c.Request().Context(), hashToken(ck.Value), me.ID, a.now())
	if errors.Is(err, quiz.ErrNotFound) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	loc := userLocation(me)
	return ck.Value, at.In(loc).Format("2006-01-02 15:04") + " (" + loc.String() + ")", nil
}

// revokeInvites makes every unused invite code stop working.
func (a *accounts) revokeInvites(c echo.Context) error {
	ctx := c.Request().Context()
	me, _ := currentUser(c)
	n, err := a.db.RevokeInvites(ctx, a.now())
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "invites revoked", "by", me.Login, "count", n)
	return c.Redirect(http.StatusSeeOther, "/admin/users?done=revoked#invite-heading")
}

// targetUser reads the :id of an admin action on another account. Admins
// cannot act on themselves here, so they cannot lock themselves out.
func (a *accounts) targetUser(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	if me, _ := currentUser(c); me.ID == id {
		return 0, quiz.ErrForbidden
	}
	return id, nil
}

func (a *accounts) disableUser(c echo.Context) error { return a.setDisabled(c, true) }
func (a *accounts) enableUser(c echo.Context) error  { return a.setDisabled(c, false) }

// setDisabled disables an account (ending its sessions) or enables it.
func (a *accounts) setDisabled(c echo.Context, disabled bool) error {
	ctx := c.Request().Context()
	id, err := a.targetUser(c)
	if err != nil {
		return err
	}
	if err := a.db.SetDisabled(ctx, id, disabled, a.now()); err != nil {
		return err
	}
	me, _ := currentUser(c)
	a.log.InfoContext(ctx, "user disabled set", "user_id", id, "disabled", disabled, "by", me.Login)
	done := "enabled"
	if disabled {
		done = "disabled"
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users?done="+done)
}

// signOutUser ends every session of another account.
func (a *accounts) signOutUser(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := a.targetUser(c)
	if err != nil {
		return err
	}
	if _, err := a.db.UserByID(ctx, id); err != nil {
		return err
	}
	n, err := a.db.DeleteUserSessions(ctx, id)
	if err != nil {
		return err
	}
	me, _ := currentUser(c)
	a.log.InfoContext(ctx, "user signed out by admin", "user_id", id, "sessions", n, "by", me.Login)
	return c.Redirect(http.StatusSeeOther, "/admin/users?done=signout")
}
