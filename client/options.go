package client

import (
	"crypto/tls"
	"net/http"

	"github.com/fnapi/fnapi/decl"
)

// Option configures New and DialWS.
type Option func(*options)

type options struct {
	hc        *http.Client
	tls       *tls.Config
	version   string
	session   string
	key       string
	cookie    string
	keyHeader string
	maxMsg    int64
	declared  bool
	retries   int
	reads     int // WithReadCache
}

func newOptions(opts []Option) options {
	o := options{cookie: decl.DefaultSessionCookie, keyHeader: decl.DefaultKeyHeader, maxMsg: 64 << 20, reads: defaultReadCache}
	for _, f := range opts {
		f(&o)
	}
	if o.hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if o.tls != nil {
			t.TLSClientConfig = o.tls
		}
		o.hc = &http.Client{Transport: t}
	}
	return o
}

// WithHTTPClient makes requests and WebSocket handshakes with hc. Default: a client with
// [http.DefaultTransport]'s settings (and WithTLSConfig's).
func WithHTTPClient(hc *http.Client) Option { return func(o *options) { o.hc = hc } }

// WithTLSConfig sets the TLS configuration of the default HTTP client, for a private CA or a
// client certificate. Ignored with WithHTTPClient. Default: the system's roots.
func WithTLSConfig(c *tls.Config) Option { return func(o *options) { o.tls = c } }

// WithVersion calls the API at version v ("1.0"), whatever the server's latest. For DialWS,
// put the version in the URL instead (/api/1.0/ws). Default: the server's latest version.
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

// WithSession authenticates with a session ID, sent as the session cookie with
// Sec-Fetch-Site: same-origin. Default: none.
func WithSession(id string) Option { return func(o *options) { o.session = id } }

// WithAPIKey authenticates with an API key, sent in the key header. Default: none.
func WithAPIKey(key string) Option { return func(o *options) { o.key = key } }

// WithNames names the session cookie and the API key header, for a server that renamed them:
// give it the value the server was given (fnapi.WithNames). MountPath is not read: the URL
// given to New names it. Default: decl.Names{}, the server's defaults.
func WithNames(n decl.Names) Option {
	return func(o *options) {
		n = n.OrDefaults()
		o.cookie, o.keyHeader = n.SessionCookie, n.KeyHeader
	}
}

// WithMaxMessageBytes limits one message read from the server. Default: 64 MiB.
func WithMaxMessageBytes(n int64) Option { return func(o *options) { o.maxMsg = n } }

// WithDeclaredVersions makes the typed calls (Call, Stream) of the client go to the API version
// their declaration appeared in (decl.Since), whatever the client's own version: a program then
// keeps calling the functions it was built against while the server adds versions. Over a
// WebSocket, calls to another version than the URL's go over a connection of their own to that
// version, opened on first use with the same options and closed with the WSConn. Default: typed
// calls go to the client's version, as untyped ones.
func WithDeclaredVersions() Option { return func(o *options) { o.declared = true } }

// header returns the headers that carry the tokens.
func (o *options) header() http.Header {
	h := http.Header{}
	if o.session != "" {
		h.Set("Cookie", (&http.Cookie{Name: o.cookie, Value: o.session}).String())
		// A program acts for its user as the server's own pages do: without it, a call that
		// may change something is refused with a cookie-only session (no browser lets a page
		// set this header, so it cannot help a forged request).
		h.Set("Sec-Fetch-Site", "same-origin")
	}
	if o.key != "" {
		h.Set(o.keyHeader, o.key)
	}
	return h
}
