package registry_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fnapi/fnapi/registry"
	"github.com/fnapi/fnapi/version"
)

// SearchArgs are the arguments of search.
type SearchArgs struct {
	// Text is what to look for.
	Text string `json:"text"`
}

// Search finds the notes that hold a text.
func Search(_ context.Context, in SearchArgs) ([]string, error) { return nil, nil }

func ExampleComments() {
	// In an application, go generate writes this JSON from the source and go:embed keeps it:
	//
	//	//go:generate go run github.com/fnapi/fnapi/doc/gencomments -out comments.json .
	//	//go:embed comments.json
	//	var comments []byte
	comments := []byte(`{
		"github.com/fnapi/fnapi/registry_test.Search": "Search finds the notes that hold a text.",
		"github.com/fnapi/fnapi/registry_test.SearchArgs.Text": "Text is what to look for."
	}`)

	reg := registry.New(registry.Comments(comments))
	reg.MustRegister("search", Search)

	f := reg.Lookup(version.MustParse("1.0"), "search")
	var args struct {
		Properties map[string]struct{ Description string }
	}
	_ = json.Unmarshal(f.ArgsSchema, &args)
	fmt.Println(f.Description)
	fmt.Println("text:", args.Properties["text"].Description)
	// Output:
	// Search finds the notes that hold a text.
	// text: Text is what to look for.
}
