package apierr

import "net/http"

// Code is an error code: self-explanatory, in UPPER-KEBAB case.
type Code string

// The catalogue of codes. Each comment says when the code is used and which extra attributes
// the error message carries.
const (
	// TooFewArguments: a required argument is missing. Attributes: names (the function's required
	// argument names in declaration order) and count (how many there are).
	TooFewArguments Code = "TOO-FEW-ARGUMENTS"
	// AuthenticationNeeded: the token is missing, unknown, expired or revoked, or a session is
	// required and an API key was given. Attribute: path (the function name).
	AuthenticationNeeded Code = "API-AUTHENTICATION-NEEDED"
	// UnknownFunction: no such function at that version. Attribute: path.
	UnknownFunction Code = "UNKNOWN-FUNCTION"
	// UnknownVersion: the version segment names no served version. Attributes: version, versions.
	UnknownVersion Code = "UNKNOWN-VERSION"
	// UnknownArguments: the call names arguments the function does not take. Attribute: names.
	UnknownArguments Code = "UNKNOWN-ARGUMENTS"
	// InvalidJSON: a JSON body is not a JSON object, or (strict mode) an argument value is not
	// JSON. Attributes: name, when it is one argument; reason, when it is the body.
	InvalidJSON Code = "INVALID-JSON"
	// InvalidArgument: a value does not fit the argument's schema. Attributes: name, reason.
	InvalidArgument Code = "INVALID-ARGUMENT"
	// InvalidMessage: a WebSocket message is not a valid call. Attribute: reason.
	InvalidMessage Code = "INVALID-MESSAGE"
	// DuplicateID: a WebSocket call reuses the id of a call still running.
	DuplicateID Code = "DUPLICATE-ID"
	// Cancelled: the call was cancelled. Attribute: reason, when the server's shutdown
	// cancelled it.
	Cancelled Code = "CANCELLED"
	// OriginNotAllowed: a WebSocket handshake from a page of an origin the server does not
	// allow (HTTP 403). Attribute: origin (the one sent).
	OriginNotAllowed Code = "ORIGIN-NOT-ALLOWED"
	// InvalidCredentials: login with a wrong user or password (the same for both).
	InvalidCredentials Code = "INVALID-CREDENTIALS"
	// RateLimited: too many calls or login attempts. Attribute: retry_after (seconds).
	RateLimited Code = "RATE-LIMITED"
	// RequestTooLarge: a body, argument, URL or message is over its limit, or a call has too
	// many arguments. Attributes: limit (bytes), and unit "arguments" when it is a count.
	RequestTooLarge Code = "REQUEST-TOO-LARGE"
	// PermissionDenied: the caller is authenticated but its role does not allow the call (a
	// function for administrators called by a user, a change by a read-only user). Attributes:
	// path (the function), role (the role the call needs). HTTP status 403.
	PermissionDenied Code = "PERMISSION-DENIED"
	// NotFound: a named object does not exist. Attribute: name.
	NotFound Code = "NOT-FOUND"
	// Conflict: a named object already exists. Attribute: name.
	Conflict Code = "CONFLICT"
	// MethodNotAllowed: an HTTP method other than GET and POST. Attribute: allowed.
	MethodNotAllowed Code = "METHOD-NOT-ALLOWED"
	// UnsupportedMediaType: a POST body of a Content-Type that carries no arguments.
	// Attributes: type (the one sent), supported.
	UnsupportedMediaType Code = "UNSUPPORTED-MEDIA-TYPE"
	// Timeout: the call ran past its deadline.
	Timeout Code = "TIMEOUT"
	// Unavailable: a store the call needs is unreachable; the call may be retried.
	Unavailable Code = "UNAVAILABLE"
	// Internal: a function panicked or failed unexpectedly. The log has the details.
	Internal Code = "INTERNAL-ERROR"
)

// Catalogue lists the framework's codes, in the order doc shows them.
var Catalogue = []Code{
	TooFewArguments, AuthenticationNeeded, UnknownFunction, UnknownVersion, UnknownArguments,
	InvalidJSON, InvalidArgument, InvalidMessage, DuplicateID, Cancelled, OriginNotAllowed, InvalidCredentials,
	RateLimited, RequestTooLarge, PermissionDenied, NotFound, Conflict, MethodNotAllowed, UnsupportedMediaType,
	Timeout, Unavailable, Internal,
}

// Status returns the HTTP status that accompanies an error message with code c: 401 for
// authentication, 403 for permissions and a refused origin, 404 for what does not exist, 409
// for conflicts, 413 for sizes, 429 for rate limits, 405 and 415 for the request's method and
// body type, 499 for cancelled calls, 504 for timeouts, 503 for an unreachable store, 500 for
// internal errors, and 400 for every other code, including codes of the application's own.
func (c Code) Status() int {
	switch c {
	case AuthenticationNeeded, InvalidCredentials:
		return http.StatusUnauthorized
	case PermissionDenied, OriginNotAllowed:
		return http.StatusForbidden
	case UnknownFunction, UnknownVersion, NotFound:
		return http.StatusNotFound
	case Conflict:
		return http.StatusConflict
	case RequestTooLarge:
		return http.StatusRequestEntityTooLarge
	case MethodNotAllowed:
		return http.StatusMethodNotAllowed
	case UnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case RateLimited:
		return http.StatusTooManyRequests
	case Cancelled:
		return 499 // the de-facto "client closed request"
	case Timeout:
		return http.StatusGatewayTimeout
	case Unavailable:
		return http.StatusServiceUnavailable
	case Internal:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}
