package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fnapi/fnapi/decl"
)

// Check verifies that every minor step of the registry's versions is compatible: from one
// version to the next of the same major, no function is removed, no argument is removed or
// changes its schema, and no required argument is added. It returns every violation found.
// A server calls it at start-up and refuses to serve a registry that fails it.
func (r *Registry) Check() error {
	v := r.view.Load()
	var errs []error
	for i := 1; i < len(v.versions); i++ {
		prev, next := v.versions[i-1], v.versions[i]
		if prev.Major != next.Major {
			continue
		}
		for _, f := range v.sorted[prev] {
			g := v.byVer[next][f.Name]
			if g == nil {
				errs = append(errs, fmt.Errorf("registry: %q: removed at minor step %v -> %v (remove it at a major version)", f.Name, prev, next))
				continue
			}
			if g != f {
				errs = append(errs, compatible(f, g, prev, next)...)
			}
		}
	}
	return errors.Join(errs...)
}

func compatible(f, g *Func, prev, next fmt.Stringer) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("registry: %q: at minor step %v -> %v: %s", f.Name, prev, next, fmt.Sprintf(format, a...)))
	}
	if f.AnyArgs != g.AnyArgs {
		bad("changes whether it takes any named arguments")
	}
	if strength(g.Access) > strength(f.Access) {
		bad("needs a stronger token (%v, was %v)", g.Access, f.Access)
	}
	old := map[string]*Param{}
	for i := range f.Params {
		old[f.Params[i].Name] = &f.Params[i]
	}
	for i := range g.Params {
		p := &g.Params[i]
		o := old[p.Name]
		switch {
		case o == nil && p.Required:
			bad("adds required argument %q (new arguments must be optional)", p.Name)
		case o == nil:
		case p.Required && !o.Required:
			bad("makes argument %q required", p.Name)
		case !sameSchema(o, p):
			bad("changes the schema of argument %q", p.Name)
		}
		delete(old, p.Name)
	}
	for name := range old {
		bad("removes argument %q", name)
	}
	return errs
}

// strength orders the accesses from the least to the most demanding: Public, Token, Session.
// (The constants' own order puts Public after Token, so that Token is the zero value.)
func strength(a decl.Access) int {
	switch a {
	case decl.Public:
		return 0
	case decl.Session:
		return 2
	}
	return 1
}

// sameSchema reports whether two arguments accept the same values: their schemas are equal but
// for the annotations (descriptions, titles, examples, comments, deprecation), which a minor
// version may change.
func sameSchema(a, b *Param) bool {
	ja, err1 := json.Marshal(stripAnnotations(a.schema))
	jb, err2 := json.Marshal(stripAnnotations(b.schema))
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// stripAnnotations returns s as generic JSON without its annotation keywords, at every depth.
func stripAnnotations(s any) any {
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"description", "title", "examples", "$comment", "deprecated"} {
				delete(x, k)
			}
			for k, e := range x {
				if k != "properties" {
					x[k] = strip(e)
					continue
				}
				if props, ok := e.(map[string]any); ok {
					for name, p := range props {
						props[name] = strip(p) // property names are not keywords
					}
				}
			}
		case []any:
			for i, e := range x {
				x[i] = strip(e)
			}
		}
		return v
	}
	return strip(v)
}
