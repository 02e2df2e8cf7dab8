package doc

import (
	"cmp"
	"slices"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/registry"
)

// ErrorCode describes an error code: when it is answered, with which HTTP status, and the extra
// attributes its error message carries. It says what the code's apierr.Declaration says.
type ErrorCode struct {
	// Code is the code, the error message's error attribute.
	Code apierr.Code `json:"code"`
	// Status is the HTTP status of the response that carries the message outside a stream.
	Status int `json:"status"`
	// Description says when the code is answered.
	Description string `json:"description"`
	// Attributes names the message's extra attributes, each with its meaning.
	Attributes map[string]string `json:"attributes"`
	// Types gives the JSON type of the attributes whose declaration states one; absent when
	// none does.
	Types map[string]string `json:"types,omitempty"`
}

// describeError describes the code d declares.
func describeError(d *apierr.Declaration) ErrorCode {
	c := ErrorCode{Code: d.Code(), Status: d.Status(), Description: d.Description(), Attributes: map[string]string{}}
	for _, a := range d.Attributes() {
		c.Attributes[a.Name()] = a.Meaning()
		if a.Type() != "" {
			if c.Types == nil {
				c.Types = map[string]string{}
			}
			c.Types[a.Name()] = a.Type()
		}
	}
	return c
}

// Catalogue describes the framework's error codes, in the order of apierr.Catalogue.
func Catalogue() []ErrorCode {
	var out []ErrorCode
	for _, d := range apierr.Catalogue() {
		out = append(out, describeError(d))
	}
	return out
}

// declared returns the declarations of the codes fs state besides the catalogue, each once,
// in code order.
func declared(fs []*registry.Func) []*apierr.Declaration {
	framework := map[apierr.Code]bool{}
	for _, d := range apierr.Catalogue() {
		framework[d.Code()] = true
	}
	seen := map[apierr.Code]bool{}
	var out []*apierr.Declaration
	for _, f := range fs {
		for _, d := range f.Errors {
			if !framework[d.Code()] && !seen[d.Code()] {
				seen[d.Code()] = true
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b *apierr.Declaration) int { return cmp.Compare(a.Code(), b.Code()) })
	return out
}
