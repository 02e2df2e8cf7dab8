package registry

import (
	"fmt"

	"github.com/fnapi/fnapi/apierr"
)

// declaredOnce checks that every code f states (Errors) has one declaration: the catalogue's
// for a framework code, and for any other the one every registered function gave. Two
// declarations of one code would have doc describe it twice, perhaps with two statuses.
// It is called with r.mu held.
func (r *Registry) declaredOnce(f *Func) error {
	known := map[apierr.Code]*apierr.Declaration{}
	for _, d := range apierr.Catalogue() {
		known[d.Code()] = d
	}
	for _, fs := range r.funcs {
		for _, g := range fs {
			for _, d := range g.Errors {
				known[d.Code()] = d
			}
		}
	}
	for _, d := range f.Errors {
		if k, ok := known[d.Code()]; ok && k != d {
			return fmt.Errorf("Errors: code %s has two declarations (apierr.Declare called twice, or a framework code declared again): declare it once and share it", d.Code())
		}
		known[d.Code()] = d
	}
	return nil
}
