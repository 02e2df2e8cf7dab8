package authapi

// Role is what a user may do. The roles are ordered: an administrator may do all a user may,
// and a user all a read-only user may.
type Role string

// The roles.
const (
	// RoleReadOnly may call the functions marked registry.Requires(RoleReadOnly): in the identity
	// functions, logout, its own API keys and password.
	RoleReadOnly Role = "read-only"
	// RoleUser may call every function that needs no administrator. It is the role of a user
	// created without one.
	RoleUser Role = "user"
	// RoleAdmin may call every function: the users, their roles and keys included.
	RoleAdmin Role = "administrator"
)

// Roles lists the roles, from the least to the most allowed.
var Roles = []Role{RoleReadOnly, RoleUser, RoleAdmin}

func (r Role) rank() int {
	for i, x := range Roles {
		if x == r {
			return i
		}
	}
	return -1
}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool { return r.rank() >= 0 }

// Allows reports whether a caller of role r may call a function that needs role need.
func (r Role) Allows(need Role) bool { return r.Valid() && r.rank() >= need.rank() && need.Valid() }
