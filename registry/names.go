package registry

// Names are the names under which a server's clients reach it: the session cookie, the API key
// header, and the path the API is mounted at. The transport owns them (transport.Config) and
// hands them to every call in [Call.Names], so that login sets the cookie the transport reads
// and doc describes the paths and names clients must use, without a second setting.
type Names struct {
	// SessionCookie is the cookie that carries a session ID. Default: DefaultSessionCookie.
	SessionCookie string
	// KeyHeader is the request header that carries an API key. Default: DefaultKeyHeader.
	KeyHeader string
	// MountPath is the path where the application mounts the API handler (it strips it before
	// the handler sees a request). Default: DefaultMountPath.
	MountPath string
}

// The default names, used by the transport, the client and doc.
const (
	DefaultSessionCookie = "Svc-Session"
	DefaultKeyHeader     = "Svc-Authorization"
	DefaultMountPath     = "/api"
)

// DefaultNames are the names of a server that renames nothing.
var DefaultNames = Names{SessionCookie: DefaultSessionCookie, KeyHeader: DefaultKeyHeader, MountPath: DefaultMountPath}

// NamesOf returns the names of the call c belongs to: the transport's, or DefaultNames for a
// call made without a transport (c nil, or its Names unset).
func NamesOf(c *Call) Names {
	if c == nil || c.Names == nil {
		return DefaultNames
	}
	return *c.Names
}
