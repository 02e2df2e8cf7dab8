package registry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

type noteArgs struct {
	Text   string `json:"text"`
	Pinned bool   `json:"pinned,omitempty" jsonschema:"description=From the tag"`
}

type noteOut struct {
	ID int `json:"id"`
}

func note(context.Context, noteArgs) (noteOut, error) { return noteOut{}, nil }

type notes struct{}

func (*notes) List(context.Context) ([]string, error) { return nil, nil }

// The comments JSON as gencomments writes it for this file.
var noteComments = []byte(`{
	"github.com/fnapi/fnapi/registry_test.note": "note stores a note.",
	"github.com/fnapi/fnapi/registry_test.notes.List": "List lists the notes.",
	"github.com/fnapi/fnapi/registry_test.noteArgs": "noteArgs are the arguments of note.",
	"github.com/fnapi/fnapi/registry_test.noteArgs.Text": "Text is the note's text.",
	"github.com/fnapi/fnapi/registry_test.noteArgs.Pinned": "Pinned (the comment loses to the tag).",
	"github.com/fnapi/fnapi/registry_test.noteOut.ID": "ID names the stored note."
}`)

func TestComments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		newReg   func() *registry.Registry
		register func(*registry.Registry) error
		fn       string
		want     map[string]string // JSON pointer-ish path -> description
	}{
		{
			name:   "registry-wide",
			newReg: func() *registry.Registry { return registry.New(registry.Comments(noteComments)) },
			register: func(r *registry.Registry) error {
				return r.Register("note", note)
			},
			fn: "note",
			want: map[string]string{
				"function":         "note stores a note.",
				"arguments":        "noteArgs are the arguments of note.",
				"arguments.text":   "Text is the note's text.",
				"arguments.pinned": "From the tag",
				"result.id":        "ID names the stored note.",
			},
		},
		{
			name:   "per function, Describe wins",
			newReg: func() *registry.Registry { return registry.New() },
			register: func(r *registry.Registry) error {
				return r.Register("note", note, registry.Comments(noteComments), registry.Describe("Stores."))
			},
			fn:   "note",
			want: map[string]string{"function": "Stores.", "arguments.text": "Text is the note's text."},
		},
		{
			name:   "method value",
			newReg: func() *registry.Registry { return registry.New(registry.Comments(noteComments)) },
			register: func(r *registry.Registry) error {
				return r.Register("list", new(notes).List)
			},
			fn:   "list",
			want: map[string]string{"function": "List lists the notes."},
		},
		{
			name:   "closure has none",
			newReg: func() *registry.Registry { return registry.New(registry.Comments(noteComments)) },
			register: func(r *registry.Registry) error {
				return r.Register("anon", func(context.Context, noteArgs) error { return nil })
			},
			fn:   "anon",
			want: map[string]string{"function": "", "arguments.text": "Text is the note's text."},
		},
		{
			name:   "no comments",
			newReg: func() *registry.Registry { return registry.New() },
			register: func(r *registry.Registry) error {
				return r.Register("note", note)
			},
			fn:   "note",
			want: map[string]string{"function": "", "arguments.text": "", "arguments.pinned": "From the tag"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.newReg()
			if err := tt.register(r); err != nil {
				t.Fatal(err)
			}
			f := r.Lookup(version.MustParse("1.0"), tt.fn)
			for path, want := range tt.want {
				if got := describedAt(t, f, path); got != want {
					t.Errorf("%s: description %q, want %q", path, got, want)
				}
			}
		})
	}
}

// describedAt returns the description at path: "function", "arguments", "arguments.<name>",
// "result.<name>".
func describedAt(t *testing.T, f *registry.Func, path string) string {
	t.Helper()
	if path == "function" {
		return f.Description
	}
	where, prop, _ := strings.Cut(path, ".")
	raw := f.ArgsSchema
	if where == "result" {
		raw = f.ResultSchema
	}
	var s struct {
		Description string
		Properties  map[string]struct{ Description string }
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if prop == "" {
		return s.Description
	}
	p, ok := s.Properties[prop]
	if !ok {
		t.Fatalf("%s: no such property", path)
	}
	return p.Description
}

func TestCommentsBadJSON(t *testing.T) {
	t.Parallel()
	for _, data := range []string{``, `[]`, `null`, `{"a": 1}`} {
		err := registry.New(registry.Comments([]byte(data))).Register("note", note)
		if err == nil || !strings.Contains(err.Error(), `"note"`) || !strings.Contains(err.Error(), "comments JSON") {
			t.Errorf("Comments(%q): error %v, want one naming the function and the comments JSON", data, err)
		}
	}
}
