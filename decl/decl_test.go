package decl_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/internal/leaf"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/version"
)

type args struct {
	Name string `json:"name"`
}

var (
	notWelcome = apierr.Declare("NOT-WELCOME", 403, "The caller is not welcome.")
	gone       = apierr.Declare("GONE", 410, "It is gone.")
)

func TestFunc(t *testing.T) {
	t.Parallel()
	d := decl.Func[args, string]("greet", decl.Since("1.1"), decl.Until("2.0"), decl.Requires(decl.Public),
		decl.Errors(notWelcome), decl.Errors(gone), decl.Describe("Greets."))
	until, ok := d.Until()
	if d.Name() != "greet" || d.Since() != version.MustParse("1.1") || d.SinceText() != "1.1" ||
		!ok || until != version.MustParse("2.0") || d.Access() != decl.Public ||
		!reflect.DeepEqual(d.Errors(), []*apierr.Declaration{notWelcome, gone}) || d.Description() != "Greets." {
		t.Fatalf("declared %+v", d)
	}
	d.Errors()[0] = gone
	if d.Errors()[0] != notWelcome {
		t.Fatal("Errors shares the declaration's slice")
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	d := decl.Stream[decl.None, int]("count")
	if _, ok := d.Until(); ok || d.Since() != version.MustParse("1.0") || d.Access() != decl.Token ||
		d.Errors() != nil || d.Description() != "" {
		t.Fatalf("defaults %+v", d)
	}
	if decl.Token.String() != "token" || decl.Public.String() != "none" || decl.Session.String() != "session" {
		t.Fatal("Access names differ from doc's")
	}
}

func TestInvalidPanics(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "no spaces", "ws", "stream", "mcp", "jsonrpc", "naïve"} {
		func() {
			defer func() {
				if p, _ := recover().(string); !strings.Contains(p, "decl: ") || !strings.Contains(p, "function name") {
					t.Errorf("Func(%q): panic %q", bad, p)
				}
			}()
			decl.Func[args, int](bad)
		}()
	}
	for name, opts := range map[string][]decl.Option{
		`Since: version: not of the form MAJOR.MINOR: "1"`: {decl.Since("1")},
		`Until: version`:                   {decl.Until("v2")},
		`Until 1.0 is not after Since 1.1`: {decl.Since("1.1"), decl.Until("1.0")},
		`unknown access 7`:                 {decl.Requires(decl.Access(7))},
	} {
		func() {
			defer func() {
				p, _ := recover().(string)
				if !strings.Contains(p, `decl: "f": `+name) {
					t.Errorf("options %s: panic %q", name, p)
				}
			}()
			decl.Func[args, int]("f", opts...)
		}()
	}
}

// TestImports checks that a package of declarations pulls neither the server (registry,
// transport, schemas), nor the client, nor any driver: only apierr, version and the standard
// library.
func TestImports(t *testing.T) {
	t.Parallel()
	leaf.Check(t, "github.com/fnapi/fnapi/apierr", "github.com/fnapi/fnapi/version", "github.com/fnapi/fnapi/decl")
}

func TestWith(t *testing.T) {
	t.Parallel()
	d := decl.Func[args, string]("greet", decl.Errors(notWelcome), decl.Describe("Greets."))
	later := d.With(decl.Since("1.2"), decl.Errors(gone))
	if later.Since() != version.MustParse("1.2") || later.SinceText() != "1.2" || later.Name() != "greet" ||
		later.Description() != "Greets." || !reflect.DeepEqual(later.Errors(), []*apierr.Declaration{notWelcome, gone}) {
		t.Fatalf("With gave %+v", later)
	}
	if d.Since() != version.MustParse("1.0") || len(d.Errors()) != 1 {
		t.Fatalf("With changed the original: %+v", d)
	}
	s := decl.Stream[decl.None, int]("count").With(decl.Until("2.0"))
	if u, ok := s.Until(); !ok || u != version.MustParse("2.0") {
		t.Fatalf("StreamFunction.With gave %+v", s)
	}
	defer func() {
		if recover() == nil {
			t.Error("With accepted Until before Since")
		}
	}()
	later.With(decl.Until("1.1"))
}
