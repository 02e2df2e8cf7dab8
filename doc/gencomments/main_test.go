package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleDir = "../testdata/sampleapi"

func TestSampleUpToDate(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{sampleDir}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(sampleDir, "comments.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("comments.json is stale: run go generate ./doc/testdata/sampleapi\ngot:\n%s", out.Bytes())
	}
}

func TestKeys(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{sampleDir}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/fnapi/fnapi/doc/testdata/sampleapi."
	tests := []struct{ key, want string }{
		{"Greet", "Greet says hello to someone.\n\nIt repeats the greeting Times times."},
		{"GreetArgs", "GreetArgs are the arguments of greet."},
		{"GreetArgs.Name", "Name is who to greet."},
		{"GreetArgs.Tags", "Tags are appended to the greeting."}, // a line comment
		{"GreetArgs.Times", ""},                                  // no comment: no key
		{"Lookup.Find", "Find answers the note named name, or NOT-FOUND."},
		{"Registry", "Registry returns the sample API: greet (public) and add (named plain parameters, a token) in 1.0; count (streaming, keeping the last chunk), find (a session, read-only, a declared error code) and forget in 1.1."},
		{"comments", ""}, // variables are not described
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if g := got[pkg+tt.key]; g != tt.want {
				t.Errorf("%s = %q, want %q", tt.key, g, tt.want)
			}
		})
	}
}

func TestMainPackageAndOut(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/cmd\n\ngo 1.26\n",
		"main.go": `package main

// Store keeps things.
type Store[K comparable] struct {
	// Items are the things.
	Items map[K]string
}

// Get answers one thing.
func (s *Store[K]) Get(k K) string { return s.Items[k] }

// hello greets.
// Wrapped lines join.
func hello() string { return "hi" }

func main() {}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	if err := run(context.Background(), []string{"-out", "comments.json"}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("comments.json")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
	"main.Store": "Store keeps things.",
	"main.Store.Get": "Get answers one thing.",
	"main.Store.Items": "Items are the things.",
	"main.hello": "hello greets. Wrapped lines join."
}
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no such package", []string{"./no/such/dir"}, "go list"},
		{"unknown flag", []string{"-nope"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, &bytes.Buffer{}, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tt.want) {
				t.Errorf("error %v (stderr %q), want one mentioning %q", err, stderr.String(), tt.want)
			}
		})
	}
}
