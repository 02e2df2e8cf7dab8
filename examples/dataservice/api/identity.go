package api

import (
	"github.com/fnapi/fnapi/auth/authapi"
	"github.com/fnapi/fnapi/decl"
)

// SetRole is authapi.SetRole as the service serves it: from version 1.2, when roles came. The
// other identity functions (login, create-api-key, list-users, ...) are served as package
// authapi declares them, from 1.0: call them with authapi's declarations.
var SetRole = authapi.SetRole.With(decl.Since("1.2"))
