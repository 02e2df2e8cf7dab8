package decl

// Names are the names under which clients reach a server: the session cookie, the API key
// header, and the path the API is mounted at. A server sets them once (fnapi.WithNames); its
// transport reads the tokens under them, hands them to every call (registry.Call.Names), so that
// login sets that cookie, and doc describes them. A Go client of a server that renamed them is
// given the same value (client.WithNames). An empty field is its default.
type Names struct {
	// SessionCookie is the cookie that carries a session ID. Default: DefaultSessionCookie.
	SessionCookie string
	// KeyHeader is the request header that carries an API key. Default: DefaultKeyHeader.
	KeyHeader string
	// MountPath is the path where the application mounts the API handler (it strips it before
	// the handler sees a request). Default: DefaultMountPath.
	MountPath string
}

// The default names.
const (
	DefaultSessionCookie = "Svc-Session"
	DefaultKeyHeader     = "Svc-Authorization"
	DefaultMountPath     = "/api"
)

// OrDefaults returns n with each empty field set to its default.
func (n Names) OrDefaults() Names {
	if n.SessionCookie == "" {
		n.SessionCookie = DefaultSessionCookie
	}
	if n.KeyHeader == "" {
		n.KeyHeader = DefaultKeyHeader
	}
	if n.MountPath == "" {
		n.MountPath = DefaultMountPath
	}
	return n
}
