package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kubequiz/internal/group"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/views"
)

// Study groups: the list and the new group's form, a group's page and
// what its members and organizers do there, the invite link's page. The
// store checks who may do what in the same transaction as the change: a
// user outside a group gets a 404 for the group and every route under it,
// as for a group that does not exist; a member a 403 for what only
// organizers may do (group.ErrNotMember, group.ErrNotOrganizer, through
// the error handler). groups_progress.go serves the progress table and
// its export.

// groupInviteCookie carries a new invite link's code from the action that
// made it to the group's page, which shows it once: the code is kept
// hashed, and no later page can show it again.
const groupInviteCookie = "kq_new_group_invite"

// groupInviteLifetimes are the expiries an organizer may give an invite
// link, by the form's value: days, or "" for none.
var groupInviteLifetimes = map[string]time.Duration{"": 0, "1": 24 * time.Hour, "7": 7 * 24 * time.Hour, "30": 30 * 24 * time.Hour}

// Messages of the group pages.
const (
	msgLastOrganizer = "主催者が 1 人だけのため、この操作はできません。先にほかのメンバーを主催者に加えるか、主催者を引き継いでください。"
	msgUnknownDeck   = "選んだデッキの中に、見つからないものがあります。ページを読み込み直して、もう一度選んでください。"
)

// groupNotice is the message a group's page shows after an action
// (?done=...); only fixed texts.
func groupNotice(done string) string {
	switch done {
	case "invite":
		return "招待リンクを作りました。"
	case "revoked":
		return "招待リンクを無効にしました。"
	case "presenter":
		return "発表担当を保存しました。"
	case "mode-on":
		return "共有会モードをオンにしました。"
	case "mode-off":
		return "共有会モードをオフにしました。"
	case "role":
		return "主催者を変更しました。"
	case "handover":
		return "主催者を引き継ぎました。"
	case "removed":
		return "メンバーをグループから外しました。"
	}
	return ""
}

// groupsNotice is the message the list of groups shows (?done=...).
func groupsNotice(done string) string {
	switch done {
	case "left":
		return "グループを抜けました。"
	case "deleted":
		return "グループを削除しました。メンバーの学習記録は残っています。"
	}
	return ""
}

// groupID reads a group's :id; anything but a positive number is a 404,
// as a group that does not exist.
func groupID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// memberID reads the :user of an action on a member.
func memberID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("user"), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// groupRefused turns a refusal of the store that no form of the group's
// pages can send (a crafted one) into a 422 without its text, which the
// error handler would otherwise show.
func groupRefused(err error) error {
	if errors.Is(err, quiz.ErrInvalid) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity).SetInternal(err)
	}
	return err
}

// groups lists the user's groups, with the form of a new one.
func (s *Server) groups(c echo.Context) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	now := s.now()
	list, err := s.db.UserGroups(ctx, u.ID, now)
	if err != nil {
		return err
	}
	decks, err := s.db.ListDecks(ctx)
	if err != nil {
		return err
	}
	v := groupsPage(list, decks, group.Form{}, nil, u, now)
	v.Notice = groupsNotice(c.QueryParam("done"))
	return s.render(c, http.StatusOK, views.GroupsList(s.page(c, "学習グループ"), v))
}

// createGroup makes a group of the form's decks, organized by the user,
// with a first invite link, and leads to its page, which shows the link.
// A refused form comes back with every problem and nothing stored.
func (s *Server) createGroup(c echo.Context) error {
	u, _ := currentUser(c)
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest).SetInternal(err)
	}
	f := group.Form{Name: form.Get("name"), MeetupDate: form.Get("meetup_date"), MeetupTime: form.Get("meetup_time"),
		Release: form.Get("release"), Note: form.Get("note"), Decks: form["deck"]}
	now := s.now()
	g, problems := f.Check(now, userLocation(u))
	var id int64
	var code string
	if problems == nil {
		var hash []byte
		if code, hash, err = newToken(); err != nil {
			return err
		}
		id, err = s.db.CreateGroup(ctx, u.ID, store.NewGroup{Group: g, Invite: store.GroupInvite{Hash: hash}}, now)
		if errors.Is(err, store.ErrUnknownDeck) {
			problems, err = group.Problems{{Field: "deck", Message: msgUnknownDeck}}, nil
		}
		if err != nil {
			return err
		}
	}
	if problems != nil {
		return s.refuseGroupForm(c, u, f, problems)
	}
	s.log.InfoContext(ctx, "group created", "group_id", id, "by", u.Login, "decks", len(g.Decks))
	s.setGroupInviteCookie(c, id, code, 600)
	return c.Redirect(http.StatusSeeOther, views.GroupURL(id))
}

// refuseGroupForm shows the list of groups again with the refused form,
// with status 422.
func (s *Server) refuseGroupForm(c echo.Context, u quiz.User, f group.Form, problems group.Problems) error {
	ctx := c.Request().Context()
	now := s.now()
	list, err := s.db.UserGroups(ctx, u.ID, now)
	if err != nil {
		return err
	}
	decks, err := s.db.ListDecks(ctx)
	if err != nil {
		return err
	}
	v := groupsPage(list, decks, f, problems, u, now)
	return s.render(c, http.StatusUnprocessableEntity, views.GroupsList(s.page(c, "学習グループ"), v))
}

// setGroupInviteCookie sets the cookie that takes a new invite link's
// code to the page of group id, for maxAge seconds (a negative maxAge
// deletes it).
func (s *Server) setGroupInviteCookie(c echo.Context, id int64, code string, maxAge int) {
	c.SetCookie(&http.Cookie{
		Name:     groupInviteCookie,
		Value:    code,
		Path:     views.GroupURL(id),
		MaxAge:   maxAge,
		Secure:   s.secureCookies(c),
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
}

// takeGroupInvite reads and deletes the cookie of a new invite link of
// g. It returns the link, or "" when there is none, or the code is no
// longer the group's (made again or revoked since).
func (s *Server) takeGroupInvite(c echo.Context, g store.Group) string {
	ck, err := c.Cookie(groupInviteCookie)
	if err != nil {
		return ""
	}
	s.setGroupInviteCookie(c, g.ID, "", -1)
	if !wellFormedToken(ck.Value) || !group.CanManage(g.Viewer.Role) || !g.InviteIs(hashToken(ck.Value)) {
		return ""
	}
	return s.siteURL(c) + "/groups/join/" + ck.Value
}

// siteURL is the scheme and host the browser reached the server at, for
// a link to share.
func (s *Server) siteURL(c echo.Context) string {
	scheme := "http"
	if s.secureCookies(c) {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}

// groupPage shows a group to a member.
func (s *Server) groupPage(c echo.Context) error {
	return s.renderGroup(c, http.StatusOK, "")
}

// renderGroup shows the group's page with status and, when an action was
// refused, why.
func (s *Server) renderGroup(c echo.Context, status int, refusal string) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	g, err := s.db.GroupPage(c.Request().Context(), id, u.ID)
	if err != nil {
		return err
	}
	v := groupView(g, u, s.now())
	v.Notice, v.Error = groupNotice(c.QueryParam("done")), refusal
	if c.Request().Method == http.MethodGet {
		v.Invite.Link = s.takeGroupInvite(c, g)
	}
	return s.render(c, status, views.GroupPage(s.page(c, g.Name), v))
}

// groupDone answers an action on group id: its page with a notice, or,
// when the store refused because the group would lose its last organizer,
// the page with the reason (409).
func (s *Server) groupDone(c echo.Context, id int64, err error, done string) error {
	if errors.Is(err, group.ErrLastOrganizer) {
		return s.renderGroup(c, http.StatusConflict, msgLastOrganizer)
	}
	if err != nil {
		return groupRefused(err)
	}
	return c.Redirect(http.StatusSeeOther, views.GroupURL(id)+"?done="+done)
}

// setMeetupMode turns the member's meetup mode on (on=1) or off (on=0).
func (s *Server) setMeetupMode(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	var on bool
	switch c.FormValue("on") {
	case "1":
		on = true
	case "0":
	default:
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	err = s.db.SetMeetupMode(c.Request().Context(), id, u.ID, on)
	done := "mode-off"
	if on {
		done = "mode-on"
	}
	return s.groupDone(c, id, err, done)
}

// leaveGroup takes the member out of the group.
func (s *Server) leaveGroup(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	err = s.db.LeaveGroup(c.Request().Context(), id, u.ID)
	if err != nil {
		return s.groupDone(c, id, err, "")
	}
	s.log.InfoContext(c.Request().Context(), "group left", "group_id", id, "by", u.Login)
	return c.Redirect(http.StatusSeeOther, "/groups?done=left")
}

// newGroupInvite gives the group a new invite link, with the expiry
// chosen (expires: days, or "" for none), and shows it once.
func (s *Server) newGroupInvite(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	life, ok := groupInviteLifetimes[c.FormValue("expires")]
	if !ok {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	code, hash, err := newToken()
	if err != nil {
		return err
	}
	inv := store.GroupInvite{Hash: hash}
	if life > 0 {
		inv.Expires = s.now().Add(life)
	}
	if err := s.db.SetGroupInvite(c.Request().Context(), id, u.ID, &inv); err != nil {
		return groupRefused(err)
	}
	s.log.InfoContext(c.Request().Context(), "group invite made", "group_id", id, "by", u.Login)
	s.setGroupInviteCookie(c, id, code, 600)
	return c.Redirect(http.StatusSeeOther, views.GroupURL(id)+"?done=invite#invite")
}

// revokeGroupInvite makes the group's invite link stop working.
func (s *Server) revokeGroupInvite(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	return s.groupDone(c, id, s.db.SetGroupInvite(c.Request().Context(), id, u.ID, nil), "revoked")
}

// setPresenter makes a member (user: their id, or "" for nobody) the
// presenter of the group's deck :slug.
func (s *Server) setPresenter(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	slug := c.Param("slug")
	if !group.Slug(slug) {
		return echo.ErrNotFound
	}
	var presenter int64
	if v := c.FormValue("user"); v != "" {
		if presenter, err = strconv.ParseInt(v, 10, 64); err != nil || presenter <= 0 {
			return echo.NewHTTPError(http.StatusBadRequest)
		}
	}
	return s.groupDone(c, id, s.db.SetPresenter(c.Request().Context(), id, u.ID, slug, presenter), "presenter")
}

// setGroupRole makes a member an organizer (role=organizer) or an
// organizer a member (role=member), the organizer asking included.
func (s *Server) setGroupRole(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	member, err := memberID(c)
	if err != nil {
		return err
	}
	role := group.Role(c.FormValue("role"))
	if !role.Valid() {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	return s.groupDone(c, id, s.db.SetGroupRole(c.Request().Context(), id, u.ID, member, role), "role")
}

// handOverGroup makes a member the organizer in the place of the
// organizer asking.
func (s *Server) handOverGroup(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	member, err := memberID(c)
	if err != nil {
		return err
	}
	return s.groupDone(c, id, s.db.HandOverGroup(c.Request().Context(), id, u.ID, member), "handover")
}

// removeGroupMember takes a member out of the group.
func (s *Server) removeGroupMember(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	member, err := memberID(c)
	if err != nil {
		return err
	}
	err = s.db.RemoveGroupMember(c.Request().Context(), id, u.ID, member)
	if err == nil && member == u.ID {
		return c.Redirect(http.StatusSeeOther, "/groups?done=left")
	}
	return s.groupDone(c, id, err, "removed")
}

// deleteGroupPage asks an organizer to confirm that the group goes.
func (s *Server) deleteGroupPage(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	g, err := s.db.GroupPage(c.Request().Context(), id, u.ID)
	if err != nil {
		return err
	}
	if err := group.CheckManage(g.Viewer.Role); err != nil {
		return err
	}
	v := views.GroupDeleteView{ID: g.ID, Name: g.Name, Members: len(g.Members)}
	return s.render(c, http.StatusOK, views.GroupDeletePage(s.page(c, "グループの削除"), v))
}

// deleteGroup deletes the group once its page has been confirmed
// (confirm=1); the members' own cards and reviews stay.
func (s *Server) deleteGroup(c echo.Context) error {
	u, _ := currentUser(c)
	id, err := groupID(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "1" {
		return c.Redirect(http.StatusSeeOther, views.GroupURL(id)+"/delete")
	}
	if err := s.db.DeleteGroup(c.Request().Context(), id, u.ID); err != nil {
		return groupRefused(err)
	}
	s.log.InfoContext(c.Request().Context(), "group deleted", "group_id", id, "by", u.Login)
	return c.Redirect(http.StatusSeeOther, "/groups?done=deleted")
}

// joinCode reads an invite link's :code; one newToken cannot have made
// is no link.
func joinCode(c echo.Context) (string, error) {
	code := c.Param("code")
	if !wellFormedToken(code) {
		return "", echo.ErrNotFound
	}
	return code, nil
}

// logPath is a request's path as the log writes it: an invite link's
// code, which lets anyone join its group, is left out.
func logPath(path string) string {
	if strings.HasPrefix(path, "/groups/join/") {
		return "/groups/join/[code]"
	}
	return path
}

// joinPath is the page of the invite link with code.
func joinPath(code string) string { return "/groups/join/" + code }

// groupJoinCode returns the code of an invite link's page path, or "".
func groupJoinCode(path string) string {
	code, ok := strings.CutPrefix(path, "/groups/join/")
	if !ok || !wellFormedToken(code) {
		return ""
	}
	return code
}

// joinPage shows what an invite link's group is: to anyone signed in, its
// meetup, decks and a join button; to a visitor signed out only its name,
// with the ways to sign in or register that come back here. A link that
// does not work (unknown, expired, made again or revoked) is a 404.
func (s *Server) joinPage(c echo.Context) error {
	code, err := joinCode(c)
	if err != nil {
		return err
	}
	u, signedIn := currentUser(c)
	inv, err := s.db.GroupInvitation(c.Request().Context(), hashToken(code), u.ID, s.now())
	if err != nil {
		return err
	}
	v := joinView(inv, code, signedIn, u)
	return s.render(c, http.StatusOK, views.GroupJoinPage(s.page(c, inv.Name), v))
}

// joinGroup makes the user a member of the invite link's group, subscribed
// to its decks, and leads to the group's page.
func (s *Server) joinGroup(c echo.Context) error {
	u, _ := currentUser(c)
	code, err := joinCode(c)
	if err != nil {
		return err
	}
	id, err := s.db.JoinGroup(c.Request().Context(), hashToken(code), u.ID, s.now())
	if err != nil {
		return err
	}
	s.log.InfoContext(c.Request().Context(), "group joined", "group_id", id, "by", u.Login)
	return c.Redirect(http.StatusSeeOther, views.GroupURL(id))
}
