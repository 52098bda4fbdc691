package quiz

import "time"

// Role is what an account may do.
type Role string

// Roles.
const (
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// User is an account. The password hash never leaves the store.
type User struct {
	ID               int64
	Login            string
	DisplayName      string
	Role             Role
	Locale           string
	Timezone         string
	DesiredRetention float64
	NewPerDay        int
	ReviewsPerDay    int
	CreatedAt        time.Time
}

// IsAdmin reports whether u has the admin role.
func (u User) IsAdmin() bool { return u.Role == RoleAdmin }

// Name is what pages call the user.
func (u User) Name() string {
	if u.DisplayName != "" {
		return u.DisplayName
	}
	return u.Login
}
