package registry_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/apierr"
	"github.com/fnapi/fnapi/decl"
	"github.com/fnapi/fnapi/internal/calllink"
	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/stream"
	"github.com/fnapi/fnapi/version"
)

type createArgs struct {
	Title       string   `json:"title"`
	Queries     []string `json:"queries" jsonschema:"minItems=1"`
	Description *string  `json:"description"`
	Limit       int      `json:"limit" default:"50" jsonschema:"minimum=1,maximum=1000"`
	Kind        string   `json:"kind,omitempty" jsonschema:"enum=number,enum=table"`
}

func create(_ context.Context, in createArgs) (createArgs, error) { return in, nil }

func call(t *testing.T, r *registry.Registry, name string, args string) (any, error) {
	t.Helper()
	f := r.Lookup(version.MustParse("1.0"), name)
	if f == nil {
		t.Fatalf("no function %q", name)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return registry.Invoke(context.Background(), &registry.Call{Func: f, Args: m})
}

func TestBind(t *testing.T) {
	t.Parallel()
	r := registry.New()
	r.MustRegister("create", create)
	r.MustRegister("add", func(a, b int) int { return a + b }, registry.Args("a", "b"))
	r.MustRegister("echo", func(_ context.Context, in map[string]any) map[string]any { return in })
	r.MustRegister("nothing", func() error { return nil })
	tests := []struct {
		name, fn, args string
		want           string // JSON of the result, or the error code
		attrs          map[string]any
	}{
		{"all", "create", `{"title":"t","queries":["traffic"],"description":"d","limit":5,"kind":"table"}`,
			`{"title":"t","queries":["traffic"],"description":"d","limit":5,"kind":"table"}`, nil},
		{"default fills", "create", `{"title":"t","queries":["traffic"]}`,
			`{"title":"t","queries":["traffic"],"description":null,"limit":50}`, nil},
		{"too few", "create", `{"title":"t"}`, "TOO-FEW-ARGUMENTS",
			map[string]any{"names": []string{"title", "queries"}, "count": 2}},
		{"too few before unknown", "create", `{"bogus":1}`, "TOO-FEW-ARGUMENTS", nil},
		{"unknown", "create", `{"title":"t","queries":[],"zz":1,"aa":2}`, "UNKNOWN-ARGUMENTS",
			map[string]any{"names": []string{"aa", "zz"}}},
		{"wrong type", "create", `{"title":5,"queries":["q"]}`, "INVALID-ARGUMENT",
			map[string]any{"name": "title", "reason": "expected a string, got number"}},
		{"min items", "create", `{"title":"t","queries":[]}`, "INVALID-ARGUMENT",
			map[string]any{"name": "queries", "reason": "must have at least 1 items"}},
		{"maximum", "create", `{"title":"t","queries":["q"],"limit":1001}`, "INVALID-ARGUMENT",
			map[string]any{"name": "limit", "reason": "must be at most 1000"}},
		{"enum", "create", `{"title":"t","queries":["q"],"kind":"pie"}`, "INVALID-ARGUMENT",
			map[string]any{"name": "kind", "reason": `must be one of "number", "table"`}},
		{"plain", "add", `{"a":2,"b":3}`, `5`, nil},
		{"plain too few", "add", `{"a":2}`, "TOO-FEW-ARGUMENTS",
			map[string]any{"names": []string{"a", "b"}, "count": 2}},
		{"plain overflow", "add", `{"a":1e99,"b":1}`, "INVALID-ARGUMENT", nil},
		{"any", "echo", `{"x":[1,"y"],"n":null}`, `{"n":null,"x":[1,"y"]}`, nil},
		{"none", "nothing", `{}`, `null`, nil},
		{"none unknown", "nothing", `{"a":1}`, "UNKNOWN-ARGUMENTS", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, r, tt.fn, tt.args)
			if err != nil {
				e := apierr.From(err)
				if string(e.Code()) != tt.want {
					t.Fatalf("error %v, want %s", err, tt.want)
				}
				for k, v := range tt.attrs {
					if !reflect.DeepEqual(e.Attr(k), v) {
						t.Errorf("attribute %s = %#v, want %#v", k, e.Attr(k), v)
					}
				}
				return
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Fatalf("result %s, want %s", b, tt.want)
			}
		})
	}
}

func TestRegisterRefuses(t *testing.T) {
	t.Parallel()
	type bad struct {
		Ch chan int `json:"ch"`
	}
	tests := []struct {
		name string
		fn   any
		opts []registry.Option
		want string
	}{
		{"not a func", 42, nil, "not a function"},
		{"unnamed plain", func(a, b int) int { return a + b }, nil, "name them with Args"},
		{"args count", func(a, b int) int { return a + b }, []registry.Option{registry.Args("a")}, "Args names 1 arguments"},
		{"three results", func() (int, int, error) { return 0, 0, nil }, nil, "3 results"},
		{"second not error", func() (int, int) { return 0, 0 }, nil, "second result must be error"},
		{"chan arg", func(bad) {}, nil, "cannot be encoded"},
		{"chan result", func() chan int { return nil }, nil, "cannot be encoded"},
		{"variadic", func(...int) {}, nil, "variadic"},
		{"reserved arg", func(a int) {}, []registry.Option{registry.Args("_key")}, "reserved"},
		{"bad default", func(struct {
			N int `json:"n" default:"x"`
		}) {
		}, nil, "default"},
		{"stream returns value", func(context.Context, *stream.Sender[int]) (int, error) { return 0, nil }, nil, "returns only error"},
		{"accumulate non-stream", func() {}, []registry.Option{registry.Accumulate(stream.Last[int]())}, "streaming functions"},
		{"accumulate wrong type", func(context.Context, *stream.Sender[int]) error { return nil },
			[]registry.Option{registry.Accumulate(stream.Last[string]())}, "chunks of type string"},
		{"bad since", func() {}, []registry.Option{registry.Since("1")}, `Since: version: not of the form MAJOR.MINOR: "1"`},
		{"bad until", func() {}, []registry.Option{registry.Until("2")}, `Until: version: not of the form MAJOR.MINOR: "2"`},
		{"until before since", func() {}, []registry.Option{registry.Since("1.1"), registry.Until("1.0")}, "not after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := registry.New().Register("f", tt.fn, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"f"`) {
				t.Fatalf("Register error = %v, want one naming \"f\" and containing %q", err, tt.want)
			}
		})
	}
	r := registry.New()
	r.MustRegister("f", func() {})
	if err := r.Register("f", func() {}, registry.Since("1.1")); err == nil {
		t.Error("overlapping registration accepted")
	}
	if err := r.Register("bad name", func() {}); err == nil {
		t.Error("name with a space accepted")
	}
}

func TestPanicIsInternal(t *testing.T) {
	t.Parallel()
	r := registry.New()
	r.MustRegister("boom", func() int { panic("secret detail") })
	_, err := call(t, r, "boom", `{}`)
	e := apierr.From(err)
	if e.Code() != apierr.Internal.Code() {
		t.Fatalf("code %s, want INTERNAL-ERROR", e.Code())
	}
	b, _ := json.Marshal(e)
	if strings.Contains(string(b), "secret") {
		t.Fatalf("client message leaks the panic: %s", b)
	}
	if !strings.Contains(e.Error(), "secret detail") || !strings.Contains(e.Error(), "goroutine") {
		t.Fatalf("log text lacks the panic and stack: %v", e)
	}
}

type chunkSink struct{ chunks []any }

func (s *chunkSink) Send(_ context.Context, c any) error { s.chunks = append(s.chunks, c); return nil }

func TestStreamingModes(t *testing.T) {
	t.Parallel()
	r := registry.New()
	count := func(ctx context.Context, in struct {
		N int `json:"n"`
	}, s *stream.Sender[int]) error {
		for i := range in.N {
			if err := s.Send(i); err != nil {
				return err
			}
		}
		return nil
	}
	r.MustRegister("count", count)
	r.MustRegister("last", count, registry.Accumulate(stream.Last[int]()))
	r.MustRegister("one", func() string { return "x" })
	v := version.MustParse("1.0")
	args := map[string]json.RawMessage{"n": json.RawMessage("3")}

	got, err := registry.Invoke(context.Background(), &registry.Call{Func: r.Lookup(v, "count"), Args: args})
	if err != nil || !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("count non-streaming = %v, %v", got, err)
	}
	got, err = registry.Invoke(context.Background(), &registry.Call{Func: r.Lookup(v, "last"), Args: args})
	if err != nil || got != 2 {
		t.Errorf("last non-streaming = %v, %v", got, err)
	}
	sink := &chunkSink{}
	got, err = registry.Invoke(context.Background(), streaming(&registry.Call{Func: r.Lookup(v, "count"), Args: args}, sink))
	if err != nil || got != nil || !reflect.DeepEqual(sink.chunks, []any{0, 1, 2}) {
		t.Errorf("count streaming = %v, %v, chunks %v", got, err, sink.chunks)
	}
	sink = &chunkSink{}
	_, err = registry.Invoke(context.Background(), streaming(&registry.Call{Func: r.Lookup(v, "one")}, sink))
	if err != nil || !reflect.DeepEqual(sink.chunks, []any{"x"}) {
		t.Errorf("non-streaming function in streaming mode: chunks %v, %v", sink.chunks, err)
	}
}

// streaming returns c in streaming mode, its chunks sent to sink, as a transport makes it.
func streaming(c *registry.Call, sink stream.Sink) *registry.Call {
	calllink.Of(c).Sink = sink
	return c
}

func TestVersions(t *testing.T) {
	t.Parallel()
	r := registry.New()
	type v1 struct {
		A int `json:"a"`
	}
	type v11 struct {
		A int  `json:"a"`
		B *int `json:"b"`
	}
	r.MustRegister("f", func(v1) {}, registry.Until("1.1"))
	r.MustRegister("f", func(struct {
		A int  `json:"a" jsonschema:"description=now described"`
		B *int `json:"b"`
	}) {
	}, registry.Since("1.1"))
	r.MustRegister("g", func() {}, registry.Since("1.1"), registry.Until("2.0"))
	r.MustRegister("h", func() {}, registry.Since("2.0"))
	// A minor step may ask less of the caller: a function that needed a token becomes public.
	r.MustRegister("open", func() {}, registry.Until("1.1"))
	r.MustRegister("open", func() {}, registry.Since("1.1"), registry.Requires(decl.Public))
	if err := r.Check(); err != nil {
		t.Fatalf("compatible registry refused: %v", err)
	}
	want := []version.Version{version.MustParse("1.0"), version.MustParse("1.1"), version.MustParse("2.0")}
	if got := r.Versions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Versions = %v, want %v", got, want)
	}
	names := func(v string) (out []string) {
		for _, f := range r.Funcs(version.MustParse(v)) {
			out = append(out, f.Name)
		}
		return out
	}
	for v, want := range map[string][]string{"1.0": {"f", "open"}, "1.1": {"f", "g", "open"}, "2.0": {"f", "h", "open"}} {
		if got := names(v); !reflect.DeepEqual(got, want) {
			t.Errorf("functions at %s = %v, want %v", v, got, want)
		}
	}
	if len(r.Lookup(version.MustParse("1.1"), "f").Params) != 2 {
		t.Error("1.1 does not serve the replaced f")
	}

	bad := []struct {
		name string
		reg  func(r *registry.Registry)
		want string
	}{
		{"removed at minor", func(r *registry.Registry) {
			r.MustRegister("f", func() {}, registry.Until("1.1"))
			r.MustRegister("g", func() {}, registry.Since("1.1"))
		}, `"f": removed at minor step 1.0 -> 1.1`},
		{"required added", func(r *registry.Registry) {
			r.MustRegister("f", func(v1) {}, registry.Until("1.1"))
			r.MustRegister("f", func(struct {
				A int `json:"a"`
				B int `json:"b"`
			}) {
			}, registry.Since("1.1"))
		}, `adds required argument "b"`},
		{"argument removed", func(r *registry.Registry) {
			r.MustRegister("f", func(v11) {}, registry.Until("1.1"))
			r.MustRegister("f", func(v1) {}, registry.Since("1.1"))
		}, `removes argument "b"`},
		{"type changed", func(r *registry.Registry) {
			r.MustRegister("f", func(v1) {}, registry.Until("1.1"))
			r.MustRegister("f", func(struct {
				A string `json:"a"`
			}) {
			}, registry.Since("1.1"))
		}, `changes the schema of argument "a"`},
		{"public needs a token", func(r *registry.Registry) {
			r.MustRegister("f", func() {}, registry.Until("1.1"), registry.Requires(decl.Public))
			r.MustRegister("f", func() {}, registry.Since("1.1"))
		}, `needs a stronger token (token, was none)`},
		{"token needs a session", func(r *registry.Registry) {
			r.MustRegister("f", func() {}, registry.Until("1.1"))
			r.MustRegister("f", func() {}, registry.Since("1.1"), registry.Requires(decl.Session))
		}, `needs a stronger token (session, was token)`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := registry.New()
			tt.reg(r)
			if err := r.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	r := registry.New()
	r.MustRegister("create", create)
	f := r.Lookup(version.MustParse("1.0"), "create")
	b, _ := json.Marshal(f.ArgsSchema)
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Required, []string{"title", "queries"}) {
		t.Errorf("required = %v", s.Required)
	}
	if !strings.Contains(string(s.Properties["limit"]), `"default":50`) {
		t.Errorf("limit schema lacks the default: %s", s.Properties["limit"])
	}
	if f.ResultSchema == nil {
		t.Error("no result schema")
	}
}

// TestSecurityOptions checks the options of body limit, read-only and no-store, and their
// defaults.
func TestSecurityOptions(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister("plain", func() int { return 1 })
	reg.MustRegister("marked", func() int { return 1 }, registry.MaxBody(64<<20), registry.ReadOnly(), registry.NoStore())
	v, _ := reg.Latest()
	plain, marked := reg.Lookup(v, "plain"), reg.Lookup(v, "marked")
	if plain.MaxBody != registry.DefaultMaxBody || plain.ReadOnly || plain.NoStore {
		t.Errorf("defaults: %d %v %v", plain.MaxBody, plain.ReadOnly, plain.NoStore)
	}
	if marked.MaxBody != 64<<20 || !marked.ReadOnly || !marked.NoStore {
		t.Errorf("options: %d %v %v", marked.MaxBody, marked.ReadOnly, marked.NoStore)
	}
	for _, n := range []int64{0, -1} {
		if err := reg.Register("bad", func() int { return 1 }, registry.MaxBody(n)); err == nil || !strings.Contains(err.Error(), "MaxBody") {
			t.Errorf("MaxBody(%d): %v", n, err)
		}
	}
}
