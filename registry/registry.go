package registry

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/fnapi/fnapi/version"
)

// Registry holds the registered functions of an API, across its versions. Register is safe to
// call concurrently with lookups, though applications usually register everything at start-up.
// The zero value is not usable; call New.
type Registry struct {
	mu    sync.Mutex
	funcs map[string][]*Func // by name, in Since order
	view  atomic.Pointer[view]
	opts  []Option // applied to every function, before its own; immutable
}

// view is an immutable index of the registry, rebuilt at each registration.
type view struct {
	versions []version.Version
	byVer    map[version.Version]map[string]*Func
	sorted   map[version.Version][]*Func
}

// New returns an empty registry. The options apply to every function registered, before the
// function's own options: Comments is the usual one.
func New(opts ...Option) *Registry {
	r := &Registry{funcs: make(map[string][]*Func), opts: slices.Clone(opts)}
	r.view.Store(&view{})
	return r
}

// Register adds the function fn under name. It checks fn's shape and the options, and returns an
// error naming the function and the problem when fn cannot be served. Registering a name again is
// allowed only for versions that do not overlap (see Since and Until).
func (r *Registry) Register(name string, fn any, opts ...Option) error {
	if len(r.opts) > 0 {
		opts = append(slices.Clone(r.opts), opts...)
	}
	f, err := newFunc(name, fn, opts)
	if err != nil {
		return fmt.Errorf("registry: %q: %w", name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.declaredOnce(f); err != nil {
		return fmt.Errorf("registry: %q: %w", name, err)
	}
	for _, g := range r.funcs[name] {
		if overlap(f, g) {
			return fmt.Errorf("registry: %q: registered twice for version %v (use Since and Until for successive versions)", name, later(f.Since, g.Since))
		}
	}
	fs := append(r.funcs[name], f)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Since.Less(fs[j].Since) })
	r.funcs[name] = fs
	r.view.Store(r.index())
	return nil
}

// MustRegister is like Register but panics on an error. It is meant for set-up code.
func (r *Registry) MustRegister(name string, fn any, opts ...Option) {
	if err := r.Register(name, fn, opts...); err != nil {
		panic(err)
	}
}

func overlap(a, b *Func) bool {
	aEndsFirst := a.Until != nil && !b.Since.Less(*a.Until)
	bEndsFirst := b.Until != nil && !a.Since.Less(*b.Until)
	return !aEndsFirst && !bEndsFirst
}

func later(a, b version.Version) version.Version {
	if a.Less(b) {
		return b
	}
	return a
}

// served reports whether f is part of the API at version v.
func (f *Func) served(v version.Version) bool {
	return !v.Less(f.Since) && (f.Until == nil || v.Less(*f.Until))
}

func (r *Registry) index() *view {
	seen := map[version.Version]bool{}
	for _, fs := range r.funcs {
		for _, f := range fs {
			seen[f.Since] = true
			if f.Until != nil {
				seen[*f.Until] = true
			}
		}
	}
	v := &view{byVer: map[version.Version]map[string]*Func{}, sorted: map[version.Version][]*Func{}}
	for ver := range seen {
		v.versions = append(v.versions, ver)
	}
	slices.SortFunc(v.versions, version.Version.Compare)
	for _, ver := range v.versions {
		m := map[string]*Func{}
		var list []*Func
		for name, fs := range r.funcs {
			for _, f := range fs {
				if f.served(ver) {
					m[name] = f
					list = append(list, f)
				}
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		v.byVer[ver], v.sorted[ver] = m, list
	}
	return v
}

// Versions returns the API versions the registry serves, oldest first.
func (r *Registry) Versions() []version.Version {
	return slices.Clone(r.view.Load().versions)
}

// Latest returns the newest API version, and false when nothing is registered.
func (r *Registry) Latest() (version.Version, bool) {
	vs := r.view.Load().versions
	if len(vs) == 0 {
		return version.Version{}, false
	}
	return vs[len(vs)-1], true
}

// Serves reports whether v is one of the registry's versions.
func (r *Registry) Serves(v version.Version) bool {
	_, ok := r.view.Load().byVer[v]
	return ok
}

// Lookup returns the function name at version v, or nil.
func (r *Registry) Lookup(v version.Version, name string) *Func {
	return r.view.Load().byVer[v][name]
}

// Funcs returns the functions served at version v, by name.
func (r *Registry) Funcs(v version.Version) []*Func {
	return slices.Clone(r.view.Load().sorted[v])
}
