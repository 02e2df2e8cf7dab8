// Package apierr holds the one error type of fnapi and the catalogue of its codes.
//
// A function returns an *Error to give its caller a structured error message:
//
//	return Out{}, apierr.New(apierr.NotFound).With("name", id)
//
// which the caller receives as {"type": "error", "error": "NOT-FOUND", "name": "..."}.
// Any other error a function returns is logged for the operator and reaches the client as
// INTERNAL-ERROR, so that no internals leak. Functions may use codes of their own besides the
// catalogue (declare them at registration so that doc lists them); such codes answer HTTP 400
// unless WithStatus says otherwise.
//
// This package is a leaf: it imports only the standard library, so every other package of fnapi,
// and clients, can use it.
package apierr
