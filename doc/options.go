package doc

import "github.com/fnapi/fnapi/decl"

// Option configures the OpenAPI document of Register and OpenAPI.
type Option func(*config)

type config struct {
	title string
	names decl.Names // the server's: the call's for Register, the argument of OpenAPI
}

func newConfig(opts []Option) config {
	c := config{title: "API"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// withNames returns c describing the names n (an empty field is its default).
func (c config) withNames(n decl.Names) config {
	c.names = n.OrDefaults()
	return c
}

// Title sets the title of the OpenAPI document. Default: "API".
func Title(t string) Option {
	return func(c *config) { c.title = t }
}
