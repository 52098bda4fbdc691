// Package group holds the rules of study groups: what a new group's form
// must hold, who may do what in a group, the meetup's days in each
// member's time zone, a member's meetup plan, the meetup mode's rule of
// which cards get an extra review, and what the progress table shows to
// whom. It does no I/O and never reads the clock: the time is an argument.
package group

import (
	"fmt"

	"kubequiz/internal/quiz"
)

// Role is what a member may do in a group.
type Role string

// Roles. A group always has at least one organizer.
const (
	Organizer Role = "organizer"
	Member    Role = "member"
)

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r == Organizer || r == Member }

// Text is the role in the pages' words.
func (r Role) Text() string {
	if r == Organizer {
		return "主催者"
	}
	return "メンバー"
}

// Refusals of the group rules.
var (
	// ErrNotMember refuses anything about a group to someone outside it:
	// to them the group does not exist.
	ErrNotMember = fmt.Errorf("not a member of the group: %w", quiz.ErrNotFound)
	// ErrNotOrganizer refuses a member what only organizers may do.
	ErrNotOrganizer = fmt.Errorf("only an organizer may do this: %w", quiz.ErrForbidden)
	// ErrLastOrganizer refuses to leave a group without an organizer.
	ErrLastOrganizer = fmt.Errorf("a group keeps at least one organizer: %w", quiz.ErrConflict)
)

// CanManage reports whether a member of role r may manage the group:
// change its invite link, its members, their roles and the presenters,
// delete it, see every member's progress and export it.
func CanManage(r Role) bool { return r == Organizer }

// CheckManage refuses a member of role r what only organizers may do.
func CheckManage(r Role) error {
	if !CanManage(r) {
		return ErrNotOrganizer
	}
	return nil
}

// CheckOrganizerLeaves refuses that a member of role r stops being an
// organizer (leaves, is removed or becomes a member) when the group has
// organizers organizers, r's included: the last one cannot.
func CheckOrganizerLeaves(r Role, organizers int) error {
	if r == Organizer && organizers <= 1 {
		return ErrLastOrganizer
	}
	return nil
}

// MinMembersForAverages is the number of members from which members who
// are not organizers see the group's averages: with fewer, one member's
// figures could be worked out from the averages and their own.
const MinMembersForAverages = 3

// ProgressView is what the group's progress table shows to one viewer.
type ProgressView struct {
	// AllRows: every member's row; otherwise the viewer's own.
	AllRows bool
	// Averages: the group's average of each deck.
	Averages bool
}

// ProgressViewOf is what a viewer of role r sees of the progress table of
// a group of members members: organizers every row and the averages;
// members their own row, and the averages once the group has
// MinMembersForAverages members.
func ProgressViewOf(r Role, members int) ProgressView {
	if CanManage(r) {
		return ProgressView{AllRows: true, Averages: true}
	}
	return ProgressView{Averages: members >= MinMembersForAverages}
}
