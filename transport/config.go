package transport

import (
	"net/http"
	"time"

	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"go.uber.org/zap"
)

// Config configures a Handler. The zero value is usable: each field's comment names its default.
type Config struct {
	// Logger receives one line per call (function, version, transport, id, duration, code) and the
	// details of internal errors. Tokens, arguments and bodies are never logged. Default: no logging.
	Logger *zap.Logger
	// Interceptors wrap every call, the first outermost, inside the handler's own logging and
	// metrics and outside the function. Authentication goes here.
	Interceptors []registry.Interceptor
	// StrictJSON makes a query-string or form value that is not valid JSON an INVALID-JSON error
	// instead of a plain string. Default: false (?user=admin is the string "admin").
	StrictJSON bool
	// BodyTimeout and MinBodyRate bound the time to read a request body: it must arrive within
	// BodyTimeout plus its length at MinBodyRate bytes a second (a body of unknown length gets
	// more time as its bytes arrive), or the connection is closed and the call answers TIMEOUT
	// (status 408). The time to read the request head is the http.Server's ReadHeaderTimeout
	// (fnapi.Server: 10 s). Defaults: 30 s and 64 KiB/s (a 1 MiB body has 46 s).
	BodyTimeout time.Duration
	MinBodyRate int64
	// MaxURLBytes limits the length of the request URL's path and query. Default: 16 KiB.
	MaxURLBytes int
	// MaxArgs limits the number of arguments of one call. Default: 256.
	MaxArgs int
	// CallTimeout is the deadline of a non-streaming call; past it the function's context is done
	// and the caller gets TIMEOUT. Default: 60 s.
	CallTimeout time.Duration
	// StreamTimeout is the longest a stream may run before it ends with TIMEOUT. Default: 1 h.
	StreamTimeout time.Duration
	// CompressMinBytes is the size from which a JSON answer is gzipped for a client that
	// accepts it (Accept-Encoding). Streams (NDJSON, Server-Sent Events) are gzipped for such a
	// client whatever their size, each flush compressed as it goes. Negative: neither. Answers
	// of registry.NoStore functions are never compressed (BREACH). Default: 1024.
	CompressMinBytes int
	// Names are the session cookie, the API key header and the mount path (decl.Names; an
	// empty field is its default). auth's login sets that cookie and doc describes all three:
	// this is their one setting.
	Names decl.Names
	// AllowedOrigins lists the origins (scheme://host[:port]) besides the server's own from which
	// browsers may call with cookies and open WebSockets. Allowing an origin lets its pages act
	// with the user's session: list only sites you trust. Default: none.
	AllowedOrigins []string
	// Endpoints serve other protocols over the same functions, by path segment: "mcp" answers
	// /mcp and /<M.m>/mcp (see Endpoint). The names are reserved: no function may take them.
	// Default: none.
	Endpoints map[string]Endpoint
	// WS configures the WebSocket endpoint.
	WS WSConfig
	// Idempotency keeps the answers of calls made with an Idempotency-Key (see
	// IdempotencyStore). Default: a MemoryIdempotency with the default IdempotencyLimits.
	Idempotency IdempotencyStore
	// MaxIdempotentAnswerBytes is the largest answer kept for an Idempotency-Key; a repeat of
	// a call whose answer was larger gets CONFLICT. Default: 64 KiB.
	MaxIdempotentAnswerBytes int
	// Metrics, when set, receives per-function counters; serve it with its Handler method.
	// Default: none.
	Metrics *Metrics
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = 30 * time.Second
	}
	if c.MinBodyRate <= 0 {
		c.MinBodyRate = 64 << 10
	}
	if c.MaxURLBytes <= 0 {
		c.MaxURLBytes = 16 << 10
	}
	if c.MaxArgs <= 0 {
		c.MaxArgs = 256
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 60 * time.Second
	}
	if c.StreamTimeout <= 0 {
		c.StreamTimeout = time.Hour
	}
	if c.CompressMinBytes == 0 {
		c.CompressMinBytes = 1024
	}
	if c.Idempotency == nil {
		c.Idempotency = NewMemoryIdempotency(IdempotencyLimits{})
	}
	if c.MaxIdempotentAnswerBytes <= 0 {
		c.MaxIdempotentAnswerBytes = 64 << 10
	}
	c.Names = c.Names.OrDefaults()
	c.Names.KeyHeader = http.CanonicalHeaderKey(c.Names.KeyHeader)
	c.WS = c.WS.withDefaults()
	return c
}
