package apierr

import (
	"net/http"
	"slices"
)

// The framework's codes, each declared once with its status, description and attributes, in
// the order doc shows them. Catalogue lists them.
var (
	TooFewArguments = framework("TOO-FEW-ARGUMENTS", http.StatusBadRequest,
		"A required argument is missing.",
		Attr("names", "the function's required argument names, in declaration order").Typed("array"),
		Attr("count", "how many required arguments the function has").Typed("integer"))
	AuthenticationNeeded = framework("API-AUTHENTICATION-NEEDED", http.StatusUnauthorized,
		"The token is missing, unknown, expired or revoked; or the function needs a session and an API key was given.",
		Attr("path", "the function's name").Typed("string"),
		Attr("reason", "why, when it is not only the token: a cookie-only call from another origin, a token in a large body, a stream whose token ended").Typed("string"))
	UnknownFunction = framework("UNKNOWN-FUNCTION", http.StatusNotFound,
		"No function of that name at that version.",
		Attr("path", "the name called").Typed("string"))
	UnknownVersion = framework("UNKNOWN-VERSION", http.StatusNotFound,
		"The version in the path names no version served.",
		Attr("version", "the version asked for").Typed("string"),
		Attr("versions", "the versions served").Typed("array"))
	UnknownArguments = framework("UNKNOWN-ARGUMENTS", http.StatusBadRequest,
		"The call names arguments the function does not take.",
		Attr("names", "the unknown argument names").Typed("array"))
	InvalidJSON = framework("INVALID-JSON", http.StatusBadRequest,
		"A JSON body is not a JSON object, or (strict mode) an argument value is not JSON.",
		Attr("name", "the argument, when the error is in one").Typed("string"),
		Attr("reason", "what is wrong, when the error is in the body").Typed("string"))
	InvalidArgument = framework("INVALID-ARGUMENT", http.StatusBadRequest,
		"A value does not fit its argument's schema, an argument is given twice, or a call carries conflicting credentials.",
		Attr("name", "the argument, when the error is in one (absent for a malformed query string or body)").Typed("string"),
		Attr("reason", "what is wrong with it").Typed("string"),
		Attr("index", "for an array argument, the item in error, from 0").Typed("integer"),
		Attr("field", "the field of that item in error, when the item is an object").Typed("string"))
	InvalidMessage = framework("INVALID-MESSAGE", http.StatusBadRequest,
		"A WebSocket message is not a valid call.",
		Attr("reason", "what is wrong with it").Typed("string"))
	DuplicateID = framework("DUPLICATE-ID", http.StatusBadRequest,
		"A WebSocket call reuses the id of a call still running.")
	Cancelled = framework("CANCELLED", 499, // the de-facto "client closed request"
		"The call was cancelled.",
		Attr("reason", "present when the server cancelled it because it is shutting down").Typed("string"))
	OriginNotAllowed = framework("ORIGIN-NOT-ALLOWED", http.StatusForbidden,
		"A WebSocket handshake from a page of an origin the server does not allow (fnapi.WithAllowedOrigins).",
		Attr("origin", "the Origin sent").Typed("string"))
	InvalidCredentials = framework("INVALID-CREDENTIALS", http.StatusUnauthorized,
		"Wrong user name or password (the same answer for both).")
	RateLimited = framework("RATE-LIMITED", http.StatusTooManyRequests,
		"Too many calls or login attempts.",
		Attr("retry_after", "seconds to wait before trying again").Typed("integer"),
		Attr("reason", "present when a WebSocket connection has too many calls running and waiting").Typed("string"))
	RequestTooLarge = framework("REQUEST-TOO-LARGE", http.StatusRequestEntityTooLarge,
		"A body, argument, URL or message is over its limit, or a call has too many arguments.",
		Attr("limit", "the limit, in bytes unless unit says otherwise").Typed("integer"),
		Attr("unit", "arguments, when the limit is a count of arguments").Typed("string"))
	PermissionDenied = framework("PERMISSION-DENIED", http.StatusForbidden,
		"The caller is authenticated, but its role does not allow the call.",
		Attr("path", "the function name").Typed("string"),
		Attr("role", "the role the call needs").Typed("string"))
	NotFound = framework("NOT-FOUND", http.StatusNotFound,
		"A named object does not exist.",
		Attr("name", "the object's name"),
		Attr("object", "the kind of object, when the function handles several (dashboard, widget, ...)").Typed("string"))
	Conflict = framework("CONFLICT", http.StatusConflict,
		"A named object already exists, or the change would break a rule of the store: a limit it keeps, an object that must remain.",
		Attr("name", "the object's name"),
		Attr("limit", "the limit reached, when one is").Typed("integer"),
		Attr("reason", "what to do, when it is not that the object exists").Typed("string"))
	IdempotencyKeyReused = framework("IDEMPOTENCY-KEY-REUSED", http.StatusUnprocessableEntity,
		"An Idempotency-Key the caller used in the last 24 hours comes again with other arguments or for another function.",
		Attr("reason", "what differs").Typed("string"))
	MethodNotAllowed = framework("METHOD-NOT-ALLOWED", http.StatusMethodNotAllowed,
		"An HTTP method other than GET and POST.",
		Attr("allowed", "the methods allowed").Typed("string"))
	UnsupportedMediaType = framework("UNSUPPORTED-MEDIA-TYPE", http.StatusUnsupportedMediaType,
		"A POST body of a content type that carries no arguments.",
		Attr("supported", "the content types that carry arguments").Typed("array"))
	Timeout = framework("TIMEOUT", http.StatusGatewayTimeout,
		"The call ran past its deadline, or its body did not arrive in time (HTTP 408).",
		Attr("reason", "present when the body was too slow").Typed("string"))
	Unavailable = framework("UNAVAILABLE", http.StatusServiceUnavailable,
		"A store is unreachable; the call may be retried.")
	Internal = framework("INTERNAL-ERROR", http.StatusInternalServerError,
		"The function failed unexpectedly. No details are sent; the server's log has them.")
)

// catalogue holds the framework's declarations in declaration order. framework appends to it
// while the package initialises; nothing changes it afterwards.
var catalogue []*Declaration

func framework(c Code, status int, description string, attrs ...Attribute) *Declaration {
	d := Declare(c, status, description, attrs...)
	catalogue = append(catalogue, d)
	return d
}

// Catalogue returns the framework's declarations, in the order doc shows them: a new slice
// each call, which the caller may change.
func Catalogue() []*Declaration { return slices.Clone(catalogue) }

// known returns the framework's declaration of c, or a declaration of c alone (HTTP 400) when
// the framework has none.
func known(c Code) *Declaration {
	for _, d := range catalogue {
		if d.code == c {
			return d
		}
	}
	return undeclared(c)
}
