package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
)

type greetArgs struct {
	Name string `json:"name"`
}

var notWelcome = apierr.Declare("NOT-WELCOME", 403, "The caller is not welcome.")

var greetDecl = decl.Func[greetArgs, string]("greet", decl.Since("1.1"), decl.Until("2.0"),
	decl.Requires(decl.Session), decl.Errors(notWelcome), decl.Describe("Greets."))

func greetImpl(_ context.Context, in greetArgs) (string, error) { return "Hello, " + in.Name, nil }

func TestImplementTakesTheDeclaration(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	if err := registry.Implement(reg, greetDecl, greetImpl); err != nil {
		t.Fatal(err)
	}
	f := reg.Lookup(version.MustParse("1.1"), "greet")
	if f == nil {
		t.Fatal("greet is not served at 1.1")
	}
	if f.Since != version.MustParse("1.1") || f.Until == nil || *f.Until != version.MustParse("2.0") ||
		f.Access != decl.Session || !reflect.DeepEqual(f.Errors, []*apierr.Declaration{notWelcome}) ||
		f.Description != "Greets." || len(f.Params) != 1 || f.Params[0].Name != "name" {
		t.Fatalf("greet registered as %+v", f)
	}
	out, err := registry.Invoke(context.Background(), &registry.Call{Func: f, Args: map[string]json.RawMessage{"name": []byte(`"Ann"`)}})
	if err != nil || out != "Hello, Ann" {
		t.Fatalf("greet(Ann) = %v, %v", out, err)
	}
}

func TestImplementStream(t *testing.T) {
	t.Parallel()
	type bounds struct {
		From int `json:"from"`
	}
	upTo := decl.Stream[bounds, int]("up-to")
	reg := registry.New()
	err := registry.ImplementStream(reg, upTo, func(_ context.Context, in bounds, s *stream.Sender[int]) error {
		if err := s.Send(in.From); err != nil {
			return err
		}
		return s.Send(in.From + 1)
	}, registry.Accumulate(stream.Last[int]()))
	if err != nil {
		t.Fatal(err)
	}
	f := reg.Lookup(version.MustParse("1.0"), "up-to")
	out, err := registry.Invoke(context.Background(), &registry.Call{Func: f, Args: map[string]json.RawMessage{"from": []byte("3")}})
	if !f.Streaming || f.Accumulator.Mode != "replace" || err != nil || out != 4 {
		t.Fatalf("up-to(3) = %v, %v (streaming %v, accumulator %q)", out, err, f.Streaming, f.Accumulator.Mode)
	}
}

func TestImplementNone(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	now := decl.Func[decl.None, int]("now")
	registry.MustImplement(reg, now, func(context.Context, decl.None) (int, error) { return 42, nil })
	f := reg.Lookup(version.MustParse("1.0"), "now")
	if len(f.Params) != 0 || f.AnyArgs {
		t.Fatalf("a function of decl.None takes %+v", f.Params)
	}
	if out, err := registry.Invoke(context.Background(), &registry.Call{Func: f}); err != nil || out != 42 {
		t.Fatalf("now() = %v, %v", out, err)
	}
	_, err := registry.Invoke(context.Background(), &registry.Call{Func: f, Args: map[string]json.RawMessage{"x": []byte("1")}})
	if !errors.Is(err, apierr.New(apierr.UnknownArguments)) {
		t.Fatalf("now(x) = %v, want UNKNOWN-ARGUMENTS", err)
	}
}

func TestImplementRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		impl func(*registry.Registry) error
		want string
	}{
		{"an option the declaration owns", func(r *registry.Registry) error {
			return registry.Implement(r, greetDecl, greetImpl, registry.Since("1.0"), registry.Requires(decl.Public))
		}, "[Since Requires]: the declaration says this"},
		{"a second description", func(r *registry.Registry) error {
			return registry.Implement(r, greetDecl, greetImpl, registry.Describe("Other."))
		}, "[Describe]"},
		{"what Register refuses: plain arguments", func(r *registry.Registry) error {
			return registry.Implement(r, decl.Func[int, int]("twice"), func(_ context.Context, n int) (int, error) { return 2 * n, nil })
		}, "take a struct of arguments"},
		{"what Register refuses: a result JSON cannot encode", func(r *registry.Registry) error {
			return registry.Implement(r, decl.Func[greetArgs, chan int]("chan"), func(context.Context, greetArgs) (chan int, error) { return nil, nil })
		}, "result: type chan int cannot be encoded"},
		{"what Register refuses: twice at one version", func(r *registry.Registry) error {
			registry.MustImplement(r, greetDecl, greetImpl)
			return registry.Implement(r, greetDecl, greetImpl)
		}, "registered twice for version 1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.impl(registry.New())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Implement = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestImplementMismatchDoesNotCompile builds testdata/mismatch, which implements declarations
// with functions of another argument, result or chunk type, and expects the compiler to refuse
// each.
func TestImplementMismatchDoesNotCompile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a program")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, "./testdata/mismatch")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("testdata/mismatch compiled")
	}
	// Each mismatch is named on its line: the function, and the type the declaration wants.
	lines := strings.Split(string(out), "\n")
	for _, want := range [][]string{
		{"main.go:36:", "greetOther does not match", "func(context.Context, GreetArgs) (string, error)"},
		{"main.go:37:", "greetLength does not match", "func(context.Context, GreetArgs) (string, error)"},
		{"main.go:38:", "countStrings does not match", "func(context.Context, GreetArgs, *stream.Sender[int]) error"},
	} {
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, want[0]) && strings.Contains(l, want[1]) && strings.Contains(l, want[2])
		}) {
			t.Errorf("no error of the compiler says %q; they are:\n%s", want, out)
		}
	}
}
