package doc

import "github.com/fnapi/fnapi/registry"

// Option configures the OpenAPI document of Register and OpenAPI.
type Option func(*config)

type config struct {
	title, mount, cookie, header string
}

func newConfig(opts []Option) config {
	c := config{title: "API"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// withNames fills the names no option set with n, the names of the transport serving the call.
func (c config) withNames(n registry.Names) config {
	if c.mount == "" {
		c.mount = n.MountPath
	}
	if c.cookie == "" {
		c.cookie = n.SessionCookie
	}
	if c.header == "" {
		c.header = n.KeyHeader
	}
	return c
}

// Title sets the title of the OpenAPI document. Default: "API".
func Title(t string) Option {
	return func(c *config) { c.title = t }
}

// MountPath sets the path where the application mounts the API handler, the default of the
// OpenAPI document's server variable base (clients such as Swagger UI let their users change
// it). Default: the transport's (transport.Config.MountPath, "/api" unless renamed there, which
// is where to set it: this option only overrides it).
func MountPath(p string) Option {
	return func(c *config) { c.mount = p }
}

// SessionCookie sets the name of the cookie that carries a session ID, as the transport reads
// it. Default: the transport's (transport.Config.SessionCookie), which is where to set it.
func SessionCookie(name string) Option {
	return func(c *config) { c.cookie = name }
}

// KeyHeader sets the name of the request header that carries an API key, as the transport
// reads it. Default: the transport's (transport.Config.KeyHeader), which is where to set it.
func KeyHeader(name string) Option {
	return func(c *config) { c.header = name }
}
