// Package apierr holds the one error type of fnapi and the declarations of its codes.
//
// A code is declared once, with the HTTP status of its error messages, a description and the
// attributes its messages carry: the framework's codes here (see [Catalogue]), an
// application's in its own package with [Declare]:
//
//	var LimitReached = apierr.Declare("LIMIT-REACHED", http.StatusConflict,
//		"The store holds as many objects of a kind as it allows.",
//		apierr.Attr("name", "what is full").Typed("string"),
//		apierr.Attr("limit", "how many it allows").Typed("integer"))
//
// A function returns an [*Error] of a declared code to give its caller a structured error
// message:
//
//	return Out{}, apierr.New(apierr.NotFound, "name", id)
//
// which the caller receives as {"type": "error", "error": "NOT-FOUND", "name": "..."}, with the
// declaration's HTTP status (404 here) outside a stream; no return site restates the status.
// [Error.WithStatus] is kept for the rare site whose answer differs from its code's usual one
// (the framework answers a body that arrives too slowly with TIMEOUT and 408, where a call past
// its deadline is TIMEOUT and 504); a code whose every error has its own status is a code of
// its own, declared with that status.
//
// Adding a code to the framework is one entry in [Catalogue] (code.go) and a row of docs/errors.md's
// table of codes, which TestDocsCodes holds to the catalogue; an application's code is one
// Declare and the functions' decl.Errors that name it.
//
// A function states the codes of its own it may answer (registry.Errors, decl.Errors, given the
// declarations), which is how the framework learns them: doc describes each one, status,
// description and attributes, in its description and in the OpenAPI document.
//
// Any other error a function returns is logged for the operator and reaches the client as
// INTERNAL-ERROR, so that no internals leak. [CodeOf] reads the code of any error as the client
// gets it; errors.Is(err, apierr.NotFound) matches any error of that code, one a client decoded
// included. An *Error is immutable: its attributes are read with [Error.Attr] and [Error.Attrs].
//
// This package is a leaf: it imports only the standard library, so every other package of fnapi,
// and clients, can use it.
package apierr
