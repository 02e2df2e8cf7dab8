// Package authapi declares the identity functions that package auth registers (login, logout,
// create-api-key, list-api-keys, revoke-api-key, list-users, create-user, set-role, delete-user,
// change-password, whoami), with their argument and result types, access and the roles, so that a Go
// client calls them with client.Call and the compiler checks the call:
//
//	sid, err := client.Call(ctx, c, authapi.Login, authapi.LoginArgs{User: "ada", Password: pw})
//	key, err := client.Call(ctx, c.WithToken(sid), authapi.CreateAPIKey, authapi.KeyArgs{Name: "ci"})
//
// It imports only fnapi's decl, apierr and version and the standard library: a client that
// imports it pulls neither auth's server code nor a store's driver.
//
// Every declaration says version 1.0 (Since): the functions are auth's, not the application's.
// An application that serves one from a later version says so when it registers it
// (auth.ForFunc(name, registry.Since(v))) and, for its Go clients, declares it again with
// With(decl.Since(v)), as the data service does with set-role and whoami.
//
// The identity functions answer only codes of apierr's catalogue (INVALID-CREDENTIALS,
// PERMISSION-DENIED, NOT-FOUND, CONFLICT, INVALID-ARGUMENT, RATE-LIMITED), so the declarations
// carry no Errors of their own.
package authapi
