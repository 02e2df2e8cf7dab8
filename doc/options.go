package doc

// Option configures the OpenAPI document of Register and OpenAPI.
type Option func(*config)

type config struct {
	title, mount, cookie, header string
}

func newConfig(opts []Option) config {
	c := config{title: "API", mount: "/api", cookie: "Svc-Session", header: "Svc-Authorization"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Title sets the title of the OpenAPI document. Default: "API".
func Title(t string) Option {
	return func(c *config) { c.title = t }
}

// MountPath sets the path where the application mounts the API handler, the default of the
// OpenAPI document's server variable base (clients such as Swagger UI let their users change
// it). Default: "/api".
func MountPath(p string) Option {
	return func(c *config) { c.mount = p }
}

// SessionCookie sets the name of the cookie that carries a session ID, as the transport reads
// it. Default: "Svc-Session", the transport's default.
func SessionCookie(name string) Option {
	return func(c *config) { c.cookie = name }
}

// KeyHeader sets the name of the request header that carries an API key, as the transport
// reads it. Default: "Svc-Authorization", the transport's default.
func KeyHeader(name string) Option {
	return func(c *config) { c.header = name }
}
