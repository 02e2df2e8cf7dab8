// Package authtest helps test implementations of auth.Store: Run checks that a store behaves
// as the Authenticator expects, so that a new store (PostgreSQL, ...) can be checked with one
// call from its tests.
package authtest
