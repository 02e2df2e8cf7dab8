package api

import (
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
)

// The identity functions the service added after its first version, as it serves them: set-role
// from 1.2, when roles came, and whoami from 1.2. The other identity functions (login,
// create-api-key, list-users, ...) are served as package authapi declares them, from 1.0: call
// them with authapi's declarations.
var (
	SetRole = authapi.SetRole.With(decl.Since("1.2"))
	Whoami  = authapi.Whoami.With(decl.Since("1.2"))
)
