package doc

import "github.com/fnapi/fnapi/apierr"

// ErrorCode describes an error code: when it is answered, with which HTTP status, and the extra
// attributes its error message carries.
type ErrorCode struct {
	// Code is the code, the error message's error attribute.
	Code apierr.Code `json:"code"`
	// Status is the HTTP status of the response that carries the message outside a stream.
	Status int `json:"status"`
	// Description says when the code is answered.
	Description string `json:"description"`
	// Attributes names the message's extra attributes, each with its meaning.
	Attributes map[string]string `json:"attributes"`
}

// catalogue describes the codes of apierr.Catalogue.
var catalogue = map[apierr.Code]struct {
	description string
	attributes  map[string]string
}{
	apierr.TooFewArguments: {"A required argument is missing.", map[string]string{
		"names": "the function's required argument names, in declaration order",
		"count": "how many required arguments the function has",
	}},
	apierr.AuthenticationNeeded: {"The token is missing, unknown, expired or revoked; or the function needs a session and an API key was given.", map[string]string{
		"path":   "the function's name",
		"reason": "why, when it is not only the token: a cookie-only call from another origin, a token in a large body, a stream whose token ended",
	}},
	apierr.OriginNotAllowed: {"A WebSocket handshake from a page of an origin the server does not allow (transport.Config.AllowedOrigins).", map[string]string{"origin": "the Origin sent"}},
	apierr.UnknownFunction:  {"No function of that name at that version.", map[string]string{"path": "the name called"}},
	apierr.UnknownVersion:   {"The version in the path names no version served.", map[string]string{"version": "the version asked for", "versions": "the versions served"}},
	apierr.UnknownArguments: {"The call names arguments the function does not take.", map[string]string{"names": "the unknown argument names"}},
	apierr.InvalidJSON: {"A JSON body is not a JSON object, or (strict mode) an argument value is not JSON.", map[string]string{
		"name":   "the argument, when the error is in one",
		"reason": "what is wrong, when the error is in the body",
	}},
	apierr.InvalidArgument: {"A value does not fit its argument's schema, an argument is given twice, or a call carries conflicting credentials.", map[string]string{
		"name":   "the argument, when the error is in one (absent for a malformed query string or body)",
		"reason": "what is wrong with it",
	}},
	apierr.InvalidMessage:     {"A WebSocket message is not a valid call.", map[string]string{"reason": "what is wrong with it"}},
	apierr.DuplicateID:        {"A WebSocket call reuses the id of a call still running.", map[string]string{}},
	apierr.Cancelled:          {"The call was cancelled.", map[string]string{"reason": "present when the server cancelled it because it is shutting down"}},
	apierr.InvalidCredentials: {"Wrong user name or password (the same answer for both).", map[string]string{}},
	apierr.RateLimited: {"Too many calls or login attempts.", map[string]string{
		"retry_after": "seconds to wait before trying again",
		"reason":      "present when a WebSocket connection has too many calls running and waiting",
	}},
	apierr.RequestTooLarge: {"A body, argument, URL or message is over its limit, or a call has too many arguments.", map[string]string{
		"limit": "the limit, in bytes unless unit says otherwise",
		"unit":  "arguments, when the limit is a count of arguments",
	}},
	apierr.PermissionDenied: {"The caller is authenticated, but its role does not allow the call.", map[string]string{
		"path": "the function name", "role": "the role the call needs"}},
	apierr.NotFound:             {"A named object does not exist.", map[string]string{"name": "the object's name"}},
	apierr.Conflict:             {"A named object already exists.", map[string]string{"name": "the object's name"}},
	apierr.MethodNotAllowed:     {"An HTTP method other than GET and POST.", map[string]string{"allowed": "the methods allowed"}},
	apierr.UnsupportedMediaType: {"A POST body of a content type that carries no arguments.", map[string]string{"type": "the content type sent", "supported": "the content types that carry arguments"}},
	apierr.Timeout:              {"The call ran past its deadline, or its body did not arrive in time (HTTP 408).", map[string]string{"reason": "present when the body was too slow"}},
	apierr.Unavailable:          {"A store is unreachable; the call may be retried.", map[string]string{}},
	apierr.Internal:             {"The function failed unexpectedly. No details are sent; the server's log has them.", map[string]string{}},
}

// Catalogue describes the framework's error codes, in the order of apierr.Catalogue.
func Catalogue() []ErrorCode {
	out := make([]ErrorCode, 0, len(apierr.Catalogue))
	for _, c := range apierr.Catalogue {
		d := catalogue[c]
		attrs := make(map[string]string, len(d.attributes))
		for k, v := range d.attributes {
			attrs[k] = v
		}
		out = append(out, ErrorCode{Code: c, Status: c.Status(), Description: d.description, Attributes: attrs})
	}
	return out
}
