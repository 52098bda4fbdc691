package web

import (
	"context"
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

// adminUsersView gathers the admin's user page.
func (a *accounts) adminUsersView(ctx context.Context, self int64) (views.AdminUsers, error) {
	var v views.AdminUsers
	now := time.Now()
	users, err := a.db.ListUsers(ctx, now, idleTimeout)
	if err != nil {
		return v, err
	}
	for _, u := range users {
		v.Users = append(v.Users, views.UserRow{
			ID: u.User.ID, Login: u.User.Login, DisplayName: u.User.DisplayName,
			Admin: u.User.IsAdmin(), Disabled: u.Disabled, Self: u.User.ID == self,
			Sessions: u.Sessions, Created: u.User.CreatedAt.In(userLocation(u.User)).Format("2006-01-02"),
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
	v, err := a.adminUsersView(c.Request().Context(), me.ID)
	if err != nil {
		return err
	}
	v.Notice = adminNotice(c.QueryParam("done"))
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

// createInvite makes an invite code and shows it once, in this response.
func (a *accounts) createInvite(c echo.Context) error {
	ctx := c.Request().Context()
	me, _ := currentUser(c)
	tok, hash, err := newToken()
	if err != nil {
		return err
	}
	now := time.Now()
	expires := now.Add(inviteLifetime)
	if err := a.db.CreateInvite(ctx, hash, me.ID, now, expires); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "invite created", "by", me.Login, "expires", expires.UTC().Format(time.RFC3339))
	v, err := a.adminUsersView(ctx, me.ID)
	if err != nil {
		return err
	}
	v.NewInvite, v.InviteExpires = tok, expires.In(userLocation(me)).Format("2006-01-02 15:04")
	return a.render(c, http.StatusOK, views.AdminUsersPage(a.page(c, "ユーザー管理"), v))
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
	if err := a.db.SetDisabled(ctx, id, disabled, time.Now()); err != nil {
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
